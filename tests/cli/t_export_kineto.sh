# skip export --format kineto against the real thing: the committed pair of tests/fixtures/torchprof
# is one program (tests/gpu/torch_mlp.py) recorded on the H100 by torch.profiler and by skip
# record in the same session. The export of skip's trace must have what the real Kineto trace
# has where both record the same things: the same number of kernels, memcpys, memsets and
# driver calls under Kineto's categories, each kernel with Kineto's launch arguments and a flow
# from its launch call, the occupancy args Kineto computes for the same launch configurations,
# and deviceProperties with Kineto's keys. Both files are then read as HTA loads a trace
# (check_kineto.py) and must give the same structure; the export is imported back and holds the
# trace's kernels and kernel time exactly. PyTorch operators (emit_nvtx ranges, skip record
# --torch-ops) are checked on a hand-built trace, tests/fixtures/hand/kineto_ops.sql, against
# the answers worked out by hand in its header. What the export still lacks is listed in
# docs/skip-export.md.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
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

# HTA's loader on both files: kernels on streams, each joined to its launch call by
# correlation, External ids leading to one operator around the launch
python3 "$here/check_kineto.py" same "$dir/torch_mlp.pt.trace.json.gz" ours.json > hta.out ||
	fail "HTA's reading of the export differs from torch.profiler's trace: $(cat hta.out)"

# the occupancy args: for every launch configuration (kernel, grid, block, registers, shared
# memory) both traces have, the values Kineto computed on the H100
python3 - "$dir/torch_mlp.pt.trace.json.gz" ours.json <<'PY' || fail "occupancy args differ from Kineto's"
import gzip, json, sys
def configs(doc):
    out = {}
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel":
            a = e["args"]
            key = (e["name"], tuple(a["grid"]), tuple(a["block"]), a["registers per thread"],
                   a["shared memory"])
            out.setdefault(key, set()).add((round(a["blocks per SM"], 6), round(a["warps per SM"], 6),
                                            a["est. achieved occupancy %"]))
    return out
real = configs(json.load(gzip.open(sys.argv[1])))
ours = configs(json.load(open(sys.argv[2])))
common = set(real) & set(ours)
bad = [(k[0][:40], real[k], ours[k]) for k in common if real[k] != ours[k]]
print(len(common), "launch configurations in both;", bad[:3])
sys.exit(1 if bad or len(common) < 10 else 0)
PY

# round trip: skip import reads the export back with the trace's kernels and kernel time
expect_exit 0 "$SKIP" import ours.json -o back.skip.db
q="SELECT count(*) || ' ' || sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"
[ "$(sql back.skip.db "$q")" = "$(sql "$dir/torch_mlp.skip.db" "$q")" ] ||
	fail "round trip: $(sql back.skip.db "$q") kernels/ns, the trace $(sql "$dir/torch_mlp.skip.db" "$q")"

# ---- PyTorch operators: tests/fixtures/hand/kineto_ops.sql (answers in its header) ---------
{ cat "$FIXTURES/../../schemas/trace.sql"; echo "PRAGMA user_version=2;"
  cat "$FIXTURES/hand/common.sql" "$FIXTURES/hand/kineto_ops.sql"; } | sqlite3 ops.db ||
	fail "building ops.db"
expect_exit 0 "$SKIP" export ops.db --format kineto -o ops.json
expect_out "wrote ops.json (kineto: 20 events, 6 flows"
python3 - ops.json <<'PY' || fail "operators in the kineto export"
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text)
ev = d["traceEvents"]
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append("%s: %r, expected %r" % (what, got, exp))
ops = [(e["cat"], e["name"], e["tid"], e["args"]) for e in ev if e.get("cat") in ("cpu_op", "user_annotation")]
want("operators", ops, [
    ("user_annotation", "step", 7, {"External id": 1}),
    ("cpu_op", "aten::linear", 7, {"External id": 2, "Sequence number": 4}),
    ("cpu_op", "aten::addmm", 7, {"External id": 3, "Sequence number": 4}),
    ("cpu_op", "aten::relu", 7, {"External id": 4, "Sequence number": 5}),
    ("cpu_op", "autograd::engine::evaluate_function: ReluBackward0", 9,
     {"External id": 5, "Sequence number": 5, "Fwd thread id": 7}),
    ("cpu_op", "ReluBackward0", 9, {"External id": 6, "Sequence number": 5, "Fwd thread id": 7}),
    ("cpu_op", "AddmmBackward0", 9, {"External id": 7, "Sequence number": 4, "Fwd thread id": 7}),
    ("cpu_op", "aten::mm", 9, {"External id": 8})])
ext = lambda cat: {e["args"]["correlation"]: e["args"].get("External id") for e in ev if e.get("cat") == cat}
want("kernels' External id", ext("kernel"), {1: 3, 2: 4, 3: 1, 4: 6, 5: 8, 6: None})
want("calls' External id", ext("cuda_runtime"), {1: 3, 2: 4, 3: 1, 4: 6, 5: 8, 6: None})
want("API names", {e["name"] for e in ev if e.get("cat") == "cuda_runtime"}, {"cudaLaunchKernel"})
flows = {}
for e in ev:
    if e.get("cat") == "fwdbwd":
        flows.setdefault(e["id"], []).append((e["ph"], e["tid"], e["ts"], e.get("bp")))
want("fwdbwd flows", flows, {1: [("s", 7, 0.6, None), ("f", 9, 0.96, "e")],
                             2: [("s", 7, 0.2, None), ("f", 9, 1.25, "e")]})
big = [e["args"] for e in ev if e.get("name") == "big"][0]
want("big kernel", {k: big.get(k) for k in ("queued", "blocks per SM", "warps per SM",
                                            "est. achieved occupancy %", "shared memory")},
     {"queued": 1415, "blocks per SM": 10.0, "warps per SM": 80.0,
      "est. achieved occupancy %": 38, "shared memory": 49152})
if '"blocks per SM":10.000000,"warps per SM":80.000000' not in text:
    bad.append("blocks and warps per SM not printed with 6 decimals as Kineto does")
small = [e["args"] for e in ev if e.get("name") == "kA"][0]
want("32-thread kernel", (small["blocks per SM"], small["warps per SM"],
                          small["est. achieved occupancy %"], "queued" in small), (0.007576, 0.007576, 0, False))
meta = [e for e in ev if e["ph"] == "M"]
want("metadata without cat", [e for e in meta if "cat" in e], [])
want("metadata", sorted((e["name"], e["pid"], e["tid"], json.dumps(e["args"])) for e in meta
                        if e["name"] in ("process_labels", "process_sort_index")),
     [("process_labels", 0, 0, '{"labels": "GPU 0"}'), ("process_labels", 100, 0, '{"labels": "CPU"}'),
      ("process_sort_index", 0, 0, '{"sort_index": 5000000}'),
      ("process_sort_index", 100, 0, '{"sort_index": 100}')])
want("top level", (d["distributedInfo"]["rank"], d["baseTimeNanoseconds"], d["traceName"]),
     (0, 1700000000000000000, "ops.db"))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
python3 "$here/check_kineto.py" summary ops.json > ops.summary || fail "HTA's reading of ops.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))
assert (s["kernels"], s["correlated"], s["with_external_id"], s["op_encloses_call"],
        s["cpu_cats"], s["ops_with_seq"], s["fwdbwd"]) == (6, 6, 5, 5, ["cpu_op", "user_annotation"], 6, 2), s' \
	ops.summary || fail "HTA's reading of ops.json: $(cat ops.summary)"
# and back: the operators return as NVTX ranges, without emit_nvtx's suffix
expect_exit 0 "$SKIP" import ops.json -o ops_back.skip.db
[ "$(sql ops_back.skip.db "SELECT count(*) || ' ' || sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")" = "6 210" ] ||
	fail "ops round trip: $(sql ops_back.skip.db "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")"
[ "$(sql ops_back.skip.db "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'aten::addmm'")" = 1 ] ||
	fail "ops round trip: no aten::addmm range"
exit 0
