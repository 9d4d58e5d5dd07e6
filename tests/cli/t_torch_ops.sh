# skip record --torch-ops: the shim turns on emit_nvtx once, after CUDA initializes, in a
# process that imports torch (a stand-in torch package here, so this runs without PyTorch), and
# still runs a sitecustomize it shadows; without the option nothing changes; with
# --capture-range it is on inside torch.cuda.profiler.start/stop only, or inside the NVTX range's
# capture range.
. "$(dirname "$0")/lib.sh"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
command -v python3 >/dev/null 2>&1 || skip_test "no python3"
cd "$TMPDIR" || exit 1
mkdir -p fake/torch/autograd fake/torch/cuda other
cat > fake/torch/__init__.py <<'PY'
calls = []
from . import autograd, cuda
PY
cat > fake/torch/cuda/__init__.py <<'PY'
import torch
def _lazy_init():
    torch.calls.append("cuda-init")
PY
cat > fake/torch/cuda/profiler.py <<'PY'
import torch
def start():
    torch.calls.append("start")
def stop():
    torch.calls.append("stop")
PY
cat > fake/torch/autograd/__init__.py <<'PY'
from . import profiler
PY
cat > fake/torch/autograd/profiler.py <<'PY'
import torch
class emit_nvtx:
    def __init__(self, record_shapes=False):
        pass
    def __enter__(self):
        torch.calls.append("emit_nvtx")
        return self
    def __exit__(self, *exc):
        torch.calls.append("emit_nvtx off")
PY
echo 'import sys; print("other sitecustomize ran", file=sys.stderr)' > other/sitecustomize.py
cat > prog.py <<'PY'
import torch
print("before", torch.calls)
torch.cuda._lazy_init()
torch.cuda._lazy_init()
print("after", torch.calls)
PY
PYTHONPATH="$TMPDIR/fake:$TMPDIR/other" expect_exit 0 "$SKIP" record -q -o a.skip.db --torch-ops -- python3 prog.py
expect_out "before []"
expect_out "after ['cuda-init', 'emit_nvtx', 'cuda-init']"
expect_out "other sitecustomize ran"
[ "$(sql a.skip.db "SELECT value FROM SKIP_METADATA WHERE key = 'torch_ops'")" = on ] ||
	fail "torch_ops not in the metadata"
PYTHONPATH="$TMPDIR/fake" expect_exit 0 "$SKIP" record -q -o b.skip.db -- python3 prog.py
expect_out "after ['cuda-init', 'cuda-init']"

# With --capture-range the operator ranges are on only inside torch.cuda.profiler.start/stop.
cat > capture.py <<'PY'
import torch
import torch.cuda.profiler as p
torch.cuda._lazy_init()
p.start(); torch.calls.append("op"); p.stop()
torch.calls.append("op")
p.start(); p.start(); p.stop(); p.stop()
print("capture", torch.calls)
PY
PYTHONPATH="$TMPDIR/fake" expect_exit 0 "$SKIP" record -q -o c.skip.db --torch-ops \
	--capture-range cudaProfilerApi -- python3 capture.py
expect_out "capture ['cuda-init', 'start', 'emit_nvtx', 'op', 'emit_nvtx off', 'stop', 'op', 'start', 'emit_nvtx', 'start', 'emit_nvtx off', 'stop', 'stop']"
# With an NVTX capture range they are on from the end of occurrence FIRST - 1 of the range to the
# start of occurrence FIRST + COUNT, as the collector records (nvtx:step:2:2: steps 2 and 3).
cat > fake/torch/cuda/nvtx.py <<'PY'
import torch
def range_push(msg):
    torch.calls.append("push " + msg)
def range_pop():
    torch.calls.append("pop")
PY
cat > steps.py <<'PY'
import torch
import torch.cuda.nvtx as nvtx
for i in range(4):
    nvtx.range_push("step"); nvtx.range_push("x"); nvtx.range_pop(); nvtx.range_pop()
print("steps", torch.calls)
PY
PYTHONPATH="$TMPDIR/fake" expect_exit 0 "$SKIP" record -q -o s.skip.db --torch-ops \
	--capture-range nvtx:step:2:2 -- python3 steps.py
expect_out "steps ['push step', 'push x', 'pop', 'pop', 'emit_nvtx', 'push step', 'push x', 'pop', 'pop', 'push step', 'push x', 'pop', 'pop', 'emit_nvtx off', 'push step', 'push x', 'pop', 'pop']"
PYTHONPATH="$TMPDIR/fake" expect_exit 0 "$SKIP" record -q -o s1.skip.db --torch-ops \
	--capture-range nvtx:step -- python3 steps.py
expect_out "steps ['push step', 'emit_nvtx', 'push x', 'pop', 'pop', 'push step'"
exit 0
