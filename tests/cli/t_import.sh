# skip import on the hand-written torch.profiler traces of tests/fixtures/torchprof (answers in
# tests/unit/import/test_torch.c's header): report, advise, gate and diff read the result
# unchanged; bad inputs give one line and exit 2, and no output file.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
small="$FIXTURES/torchprof/small.json"

expect_exit 0 "$SKIP" import "$small" -o t.skip.db
expect_out "skip: imported 1 torch.profiler trace into t.skip.db"
expect_out "kernels          3"
expect_out "API calls        6  (runtime 5, driver 1)"
expect_out "dropped records  unknown (not in torch.profiler traces)"
[ "$(sql t.skip.db "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")" = 8875 ] ||
	fail "kernel time is not 8875 ns"
[ "$(sql t.skip.db "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'my \"region\", with
newline ü ü'")" = 1 ] || fail "the odd range name did not survive"

# torch.profiler's steps (prof.step(): ProfilerStep#N) become one range, ProfilerStep, that
# repeats; a name that only begins so stays as it is.
python3 - "$small" ps.json <<'PY' || fail "writing ps.json"
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] += [{"ph": "X", "cat": "user_annotation", "name": n, "pid": 4242, "tid": 4242,
                      "ts": ts, "dur": dur, "args": {}}
                     for n, ts, dur in (("ProfilerStep#7", 100.0, 30.0),
                                        ("ProfilerStep#8", 130.0, 25.0),
                                        ("ProfilerStep#x", 99.0, 60.0))]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 "$SKIP" import ps.json -o ps.skip.db
[ "$(sql ps.skip.db "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'ProfilerStep'")" = 2 ] ||
	fail "ProfilerStep#7 and #8 are not one range 'ProfilerStep'"
[ "$(sql ps.skip.db "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'ProfilerStep#x'")" = 1 ] ||
	fail "ProfilerStep#x was renamed"
expect_exit 0 "$SKIP" report ps.skip.db --region ProfilerStep
expect_out "region: each occurrence of the NVTX range 'ProfilerStep' (2,"
# exported for HTA, the steps are numbered again in start order
expect_exit 0 "$SKIP" export ps.skip.db --format kineto -o ps.kineto.json
python3 - ps.kineto.json <<'PY' || fail "the kineto export's steps"
import json, sys
names = [e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"]
         if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep")]
assert sorted(names) == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#x"], names
PY

# skip report: the figures by hand, and what the trace lacks.
expect_exit 0 "$SKIP" report t.skip.db
expect_out "3 kernels  |  dropped records unknown"
expect_out "not available in this torch.profiler trace (docs/skip-import.md):"
expect_out "hardware queued/submitted times"
expect_out "TKLQT *                11.50 us"
expect_out "sum t_api *          9.625 us"
expect_out "IL *                   42.00 us"
expect_out "aten::addmm                              1   5.500 us   4.750 us   62.0%"
expect_exit 0 "$SKIP" report t.skip.db --region step
expect_out "region: each occurrence of the NVTX range 'step' (1, 0 without GPU work)"
expect_exit 0 "$SKIP" report t.skip.db --region aten::relu
expect_out "AKD                    2.250 us"
expect_exit 0 "$SKIP" report --json t.skip.db
expect_out '"source":	"torch.profiler"'
expect_out '"name":	"submitted"'
expect_exit 0 "$SKIP" advise t.skip.db
# each kernel launched once: its first launch, which fusing does not remove
expect_out "note: 3 of the top fusion chains are predicted to save nothing"
expect_out "gemm -> vectorized_elementwise_kernel -> my_kernel"

# gzip inputs, several inputs as repetitions, and skip gate on them: the same traces pass; a
# candidate whose first kernel starts 2 us later (TKLQT 11.5 -> 13.5 us) is a regression.
gzip -c "$small" > small.json.gz
sed 's/"ts": 108.000, "dur": 5.500/"ts": 110.000, "dur": 5.500/' "$small" > slow.json
grep -q '"ts": 110.000' slow.json || fail "sed did not make the slow trace"
expect_exit 0 "$SKIP" import "$small" small.json.gz "$small" small.json.gz "$small" -o base.skip.db
expect_out "runs             5"
[ "$(sql base.skip.db "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = 2")" = 3 ] ||
	fail "the gzip input lost kernels"
expect_exit 0 "$SKIP" import slow.json slow.json slow.json slow.json slow.json -o slow.skip.db
expect_exit 0 "$SKIP" gate base.skip.db base.skip.db
expect_exit 1 "$SKIP" gate base.skip.db slow.skip.db --metric tklqt
expect_out "REGRESSION"
expect_exit 0 "$SKIP" diff base.skip.db slow.skip.db
expect_out "gemm"

# Bad inputs: one line, exit 2, no output file.
head -c 300 small.json.gz > cut.json.gz
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0, "context": 1, "stream": 7}}]}' > nocorr.json
printf '{"traceEvents": [' > cut.json
printf '{"traceEvents": []}' > empty.json
printf '{"a": 1}' > foreign.json
printf 'not json' > text.json
for bad in cut.json.gz nocorr.json cut.json empty.json foreign.json text.json missing.json; do
	expect_exit 2 "$SKIP" import "$bad" -o bad.skip.db
	[ "$(wc -l < "$TMPDIR/out")" = 1 ] || { cat "$TMPDIR/out"; fail "$bad: not one line"; }
	[ -e bad.skip.db ] && fail "$bad: an output was left"
	ls -a | grep -q '^\.bad\.skip\.db' && fail "$bad: a temporary file was left"
done
expect_exit 2 "$SKIP" import cut.json.gz -o bad.skip.db
expect_out "skip import: error: cut.json.gz: the gzip stream is truncated"
expect_exit 2 "$SKIP" import nocorr.json -o bad.skip.db
expect_out "nocorr.json: event 0 (cat 'kernel', name 'k'): no 'correlation' in args"
expect_exit 2 "$SKIP" import foreign.json -o bad.skip.db
expect_out "no traceEvents: a JSON file, but not a torch.profiler trace"
expect_exit 2 "$SKIP" import "$small" t.skip.db -o bad.skip.db
expect_out "t.skip.db:1:1: not a JSON object"

# A trace without GPU work (profiled without ProfilerActivity.CUDA) is imported with a warning;
# skip report then says there is nothing to report.
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 5, "tid": 5, "ts": 1.000, "dur": 2.000}]}' > cpu.json
expect_exit 0 "$SKIP" import cpu.json -o cpu.skip.db
expect_out "skip import: warning: cpu.json: no kernels, memcpys or memsets"
expect_exit 2 "$SKIP" report cpu.skip.db
expect_out "no kernels, memcpys or memsets in any run"

# Outputs: never an input, never a file skip did not write; -f replaces a skip trace.
cp "$small" in.json
expect_exit 2 "$SKIP" import in.json -o in.json
cmp -s in.json "$small" || fail "the input was changed"
echo "keep me" > notes.txt
expect_exit 2 "$SKIP" import "$small" -o notes.txt -f
grep -q "keep me" notes.txt || fail "a file skip did not write was replaced"
expect_exit 2 "$SKIP" import "$small" -o t.skip.db
expect_out "t.skip.db exists; use -f"
expect_exit 0 "$SKIP" import "$small" -o t.skip.db -f
expect_exit 2 "$SKIP" import "$small"
expect_out "expected -o OUT.skip.db"
expect_exit 2 "$SKIP" import -o x.skip.db
expect_exit 2 "$SKIP" import "$small" -o x.skip.db --max-mb 0
expect_exit 0 "$SKIP" import --help
expect_out "usage: skip import TRACE.json[.gz]..."
exit 0
