# skip export --format kineto against the real thing: the committed pair of tests/fixtures/torchprof
# is one program (tests/gpu/torch_mlp.py) recorded on the H100 by torch.profiler and by skip
# record in the same session. The export of skip's trace must have what the real Kineto trace
# has where both record the same things: the same number of kernels, memcpys, memsets and
# driver calls under Kineto's categories, each kernel with Kineto's launch arguments and a flow
# from its launch call, and deviceProperties with Kineto's keys. What skip's export lacks
# (External id, cpu_op events: skip has NVTX ranges instead) is listed in docs/skip-export.md.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
dir=$FIXTURES/torchprof
[ -e "$dir/torch_mlp.pt.trace.json.gz" ] && [ -e "$dir/torch_mlp.skip.db" ] ||
	skip_test "no torch.profiler pair in $dir"
expect_exit 0 "$SKIP" export "$dir/torch_mlp.skip.db" --format kineto -o ours.json
python3 - "$dir/torch_mlp.pt.trace.json.gz" ours.json <<'PY' || fail "kineto export differs from Kineto"
import collections, gzip, json, sys
real = json.load(gzip.open(sys.argv[1]))
ours = json.load(open(sys.argv[2]))
def count(d):
    return collections.Counter(e.get("cat") for e in d["traceEvents"] if e.get("ph") == "X")
cr, co = count(real), count(ours)
bad = []
for cat in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_driver"):
    if cr[cat] != co[cat]:
        bad.append("%s: Kineto %d, skip %d" % (cat, cr[cat], co[cat]))
for e in ours["traceEvents"]:
    if e.get("cat") == "kernel":
        missing = {"correlation", "stream", "device", "grid", "block"} - set(e.get("args", {}))
        if missing:
            bad.append("a kernel lacks %s" % sorted(missing))
            break
flows = collections.Counter(e.get("ph") for e in ours["traceEvents"] if e.get("cat") == "ac2g")
if flows["s"] < co["kernel"] or flows["f"] < co["kernel"]:
    bad.append("ac2g flows: %s for %d kernels" % (dict(flows), co["kernel"]))
keys = set(ours["deviceProperties"][0]) - set(real["deviceProperties"][0])
if keys:
    bad.append("deviceProperties keys Kineto lacks: %s" % sorted(keys))
for k in ("schemaVersion", "deviceProperties", "traceEvents", "baseTimeNanoseconds", "displayTimeUnit"):
    if k not in ours:
        bad.append("no top-level %s" % k)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
exit 0
