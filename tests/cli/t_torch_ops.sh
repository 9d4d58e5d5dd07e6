# skip record --torch-ops: the shim turns on emit_nvtx once, after CUDA initializes, in a
# process that imports torch (a stand-in torch package here, so this runs without PyTorch), and
# still runs a sitecustomize it shadows; without the option nothing changes.
. "$(dirname "$0")/lib.sh"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
command -v python3 >/dev/null 2>&1 || skip_test "no python3"
cd "$TMPDIR" || exit 1
mkdir -p fake/torch/autograd other
cat > fake/torch/__init__.py <<'PY'
calls = []
class cuda:
    @staticmethod
    def _lazy_init():
        calls.append("cuda-init")
from . import autograd
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
exit 0
