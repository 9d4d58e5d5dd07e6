"""lasting_cost.py: whether a recording slows a program after it is switched off.

    python3 bench/overhead/lasting_cost.py [--units N] [--nvtx]              (the control)
    skip record --capture-range cudaProfilerApi -- python3 bench/overhead/lasting_cost.py

The training step of train_step.py (forward, backward and AdamW of a 2-layer GPT-2 at batch 1),
after 10 warm-up steps, in five phases of N timed units (default 12; a unit is 5 steps and a
synchronize): pre (before any recording), on1 (inside torch.cuda.profiler.start()/stop(), which
`skip record --capture-range cudaProfilerApi` records), post1, on2, post2. Prints the median us
a step of each phase and three ratios:
  APP lasting pre=.. on1=.. post1=.. on2=.. post2=.. post/pre=R on/pre=R on/post=R
post/pre is what the recording leaves behind once off; on/pre its whole cost; on/post what an
in-process on/off comparison (cost_breakdown.py --ab) sees. Run bare, the phases show the
program's own drift.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "llm"))
from benchlib import gpt2_train_step, need_torch_gpu  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", type=int, default=12)
    ap.add_argument("--nvtx", action="store_true",
                    help="an NVTX range 'step' around each step (for skip report/advise --region)")
    args = ap.parse_args()
    torch = need_torch_gpu("lasting_cost.py")
    step = gpt2_train_step(torch, nvtx=args.nvtx)

    def unit():
        t0 = time.perf_counter()
        for _ in range(5):
            step()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e6 / 5

    ph = {}
    for name in ("pre", "on1", "post1", "on2", "post2"):
        if name.startswith("on"):
            torch.cuda.profiler.start()
        ph[name] = statistics.median([unit() for _ in range(args.units)])
        if name.startswith("on"):
            torch.cuda.profiler.stop()
    on, post = ph["on1"] + ph["on2"], ph["post1"] + ph["post2"]
    print("APP lasting " + " ".join(f"{k}={v:.0f}" for k, v in ph.items()) +
          f" post/pre={post / 2 / ph['pre']:.3f} on/pre={on / 2 / ph['pre']:.3f}"
          f" on/post={on / post:.3f}", flush=True)


if __name__ == "__main__":
    main()
