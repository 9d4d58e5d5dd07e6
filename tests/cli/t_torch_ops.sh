# skip record --torch-ops: the shim turns on emit_nvtx once, after CUDA initializes, in a
# process that imports torch (a stand-in torch package here, so this runs without PyTorch), and
# still runs a sitecustomize it shadows; without the option nothing changes; with
# --capture-range it is on inside torch.cuda.profiler.start/stop only.
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
# An NVTX capture range cannot switch them: they are on all along, and skip record says so.
expect_exit 0 "$SKIP" record -o n.skip.db --torch-ops --capture-range nvtx:step:3 -- true
expect_out "skip record: warning: --torch-ops with --capture-range nvtx:step:3: the operator ranges are on all along"
exit 0
