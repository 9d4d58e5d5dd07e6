"""torchprof_record.py: tests/gpu/torch_mlp.py under torch.profiler, for skip import's check.

    python3 tests/gpu/torchprof_record.py OUT.pt.trace.json.gz [--steps N] [--batch B]

Runs torch_mlp.main() - the whole program, warm-up included, as `skip record` sees it -
inside torch.profiler.profile(activities=[CPU, CUDA], record_shapes=False), exports the
Chrome trace with prof.export_chrome_trace() and gzips it to OUT. torch_mlp's
torch.cuda.nvtx.range() phases ("step", "forward", "backward", "optimizer") also open a
torch.profiler.record_function() of the same name here, so that the trace has them as
user_annotation events and `skip report --region step` works on the import.

The check (tests/cli/t_import_real.sh) compares the import with a `skip record` trace of the
same program on the same machine:

    python3 tests/gpu/torchprof_record.py torch_mlp.pt.trace.json.gz --steps 20
    build/skip record -o torch_mlp.skip.db -- python3 tests/gpu/torch_mlp.py --steps 20
"""
import contextlib
import gzip
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_mlp  # noqa: E402


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: torchprof_record.py OUT.pt.trace.json.gz [torch_mlp.py options]")
    out = sys.argv[1]
    # torch_mlp.main() reads its options from sys.argv.
    sys.argv = ["torch_mlp.py"] + sys.argv[2:]

    nvtx_range = torch.cuda.nvtx.range

    @contextlib.contextmanager
    def both(msg, *args, **kwargs):
        with nvtx_range(msg, *args, **kwargs), record_function(msg):
            yield

    torch.cuda.nvtx.range = both
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 record_shapes=False) as prof:
        torch_mlp.main()
    plain = out[:-3] if out.endswith(".gz") else out + ".json"
    prof.export_chrome_trace(plain)
    with open(plain, "rb") as src, gzip.open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(plain)
    print(f"APP torchprof_record wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
