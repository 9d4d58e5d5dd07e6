"""torch_loop.py: a PyTorch loop of small elementwise ops (launch-bound), timed in-process.

    python3 torch_loop.py [--steps N] [--ops K] [--profiler] [--ab PAIRS [--ab-block K]]

Prints one line "APP torch_loop steps=N ops=K kernels=... wall_s=... us_per_step=... run=R
kind=K" (R and K: SKIP_RUN_ID and SKIP_TRACE, set by `skip record`, else -).
With --profiler the timed loop runs inside torch.profiler.profile(CPU+CUDA), the comparison
point for skip's overhead on the same program.
With --ab PAIRS, after the timed loop, PAIRS pairs of blocks of K timed units (--ab-block,
default 5; a unit is 50 steps and a synchronize) alternate recording on and off in-process, as
prefill.py's --ab does (bench/llm/benchlib.py ab_measure); the APP line gets ab_off=, ab_on=
(median us a step) and ab_ratio=.
"""
import argparse
import os

import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "llm"))
from benchlib import timed_loop  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--ops", type=int, default=20)
    ap.add_argument("--profiler", action="store_true")
    ap.add_argument("--ab", type=int, default=0, metavar="PAIRS")
    ap.add_argument("--ab-block", type=int, default=5, metavar="K")
    args = ap.parse_args()

    x = torch.randn(4096, device="cuda")
    def step(t):
        for i in range(args.ops // 2):
            t = t * 1.0001
            t = t + 0.5
        return t
    for _ in range(50):  # warm-up: kernels loaded, allocator primed
        x = step(x)
    torch.cuda.synchronize()

    box = [x]

    def one():
        box[0] = step(box[0])
    wall, ab = timed_loop(torch, one, args.steps, 50, args.profiler, args.ab, args.ab_block)
    print(f"APP torch_loop steps={args.steps} ops={args.ops} kernels={args.steps * args.ops} "
          f"wall_s={wall:.6f} us_per_step={wall * 1e6 / args.steps:.3f} "
          f"run={os.environ.get('SKIP_RUN_ID', '-')} kind={os.environ.get('SKIP_TRACE', '-')}"
          f"{ab}", flush=True)


if __name__ == "__main__":
    main()
