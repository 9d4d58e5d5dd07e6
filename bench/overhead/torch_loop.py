"""torch_loop.py: a PyTorch loop of small elementwise ops (launch-bound), timed in-process.

    python3 torch_loop.py [--steps N] [--ops K] [--profiler]

Prints one line "APP torch_loop steps=N ops=K kernels=... wall_s=... us_per_step=... run=R
kind=K" (R and K: SKIP_RUN_ID and SKIP_TRACE, set by `skip record`, else -).
With --profiler the timed loop runs inside torch.profiler.profile(CPU+CUDA), the comparison
point for skip's overhead on the same program.
"""
import argparse
import contextlib
import os
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--ops", type=int, default=20)
    ap.add_argument("--profiler", action="store_true")
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

    ctx = contextlib.nullcontext()
    if args.profiler:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        ctx = torch.profiler.profile(activities=acts)
    with ctx:
        t0 = time.perf_counter()
        for _ in range(args.steps):
            x = step(x)
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
    print(f"APP torch_loop steps={args.steps} ops={args.ops} kernels={args.steps * args.ops} "
          f"wall_s={wall:.6f} us_per_step={wall * 1e6 / args.steps:.3f} "
          f"run={os.environ.get('SKIP_RUN_ID', '-')} kind={os.environ.get('SKIP_TRACE', '-')}",
          flush=True)


if __name__ == "__main__":
    main()
