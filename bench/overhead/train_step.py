"""train_step.py: a PyTorch training step (forward, backward, AdamW), timed in-process.

    python3 train_step.py [--steps N] [--batch B] [--layers L] [--profiler | --capture]
                          [--ab PAIRS [--ab-block K]]

GPT-2's architecture with L layers (default 2; transformers' GPT2LMHeadModel from its config,
random weights), sequence 128, bf16 autocast, AdamW (foreach): about 300 kernels a step at
L=2, backward on PyTorch's autograd thread. Each step is in an NVTX range 'step'. After 10
warm-up steps, N timed steps (default 50), then one synchronize. Prints one line
"APP train_step steps=N batch=B layers=L wall_s=... us_per_step=... run=R kind=K" (R and K:
SKIP_RUN_ID and SKIP_TRACE, set by `skip record`, else -).
With --profiler the timed steps run inside torch.profiler.profile(CPU+CUDA); with --capture,
between torch.cuda.profiler.start() and stop() (what `skip record --capture-range
cudaProfilerApi` records). With --ab PAIRS,
after the timed steps, PAIRS pairs of blocks of K timed units (--ab-block, default 5; a unit
is 5 steps and a synchronize) alternate recording on and off in-process
(bench/llm/benchlib.py ab_measure); the APP line gets ab_off=, ab_on= (median us a step) and
ab_ratio=.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "llm"))
from benchlib import gpt2_train_step, need_torch_gpu, timed_loop  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--profiler", action="store_true")
    ap.add_argument("--capture", action="store_true")
    ap.add_argument("--ab", type=int, default=0, metavar="PAIRS")
    ap.add_argument("--ab-block", type=int, default=5, metavar="K")
    args = ap.parse_args()
    torch = need_torch_gpu("train_step.py")
    step = gpt2_train_step(torch, args.layers, args.batch)
    wall, ab = timed_loop(torch, step, args.steps, 5, args.profiler, args.ab, args.ab_block,
                          args.capture)
    print(f"APP train_step steps={args.steps} batch={args.batch} layers={args.layers} "
          f"wall_s={wall:.6f} us_per_step={wall * 1e6 / args.steps:.3f} "
          f"run={os.environ.get('SKIP_RUN_ID', '-')} kind={os.environ.get('SKIP_TRACE', '-')}"
          f"{ab}", flush=True)


if __name__ == "__main__":
    main()
