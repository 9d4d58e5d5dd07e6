"""torch_mlp.py: a small PyTorch MLP training loop with torch.cuda.nvtx ranges per phase.

    python3 tests/gpu/torch_mlp.py [--steps N] [--batch B]

The subject of the PyTorch GPU test and of the tests/fixtures/h100_torch_mlp trace: every
step is an NVTX range "step" holding "forward", "backward" and "optimizer" ranges.
"""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(args.batch, 256, device="cuda")
    y = torch.randint(0, 10, (args.batch,), device="cuda")
    for _ in range(3):  # warm-up outside the ranges
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()
    torch.cuda.synchronize()
    for _ in range(args.steps):
        with torch.cuda.nvtx.range("step"):
            with torch.cuda.nvtx.range("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with torch.cuda.nvtx.range("backward"):
                loss.backward()
            with torch.cuda.nvtx.range("optimizer"):
                opt.step()
                opt.zero_grad()
    torch.cuda.synchronize()
    print(f"APP torch_mlp steps={args.steps} loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
