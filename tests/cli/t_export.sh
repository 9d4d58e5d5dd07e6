# skip export: every format on the committed fixtures (schema version 1), on version 2 traces
# (an import, and a fixture written as version 2 by --format sqlite) and on a hand-built
# version 2 trace with awkward names and runs (tests/fixtures/hand/export.sql), read back with
# Python's json and csv modules and compared with the trace (tests/cli/check_export.py); the
# notebook executed by Debian's nbconvert on both versions, its figures counted and its numbers
# compared with skip report's; one run of a --repeat trace as a file of its own (sqlite), for
# nsys's SQL; outputs replace only skip export's own files; every bad input is one line and
# exit 2.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
ROOT="$FIXTURES/../.."
check() { python3 "$here/check_export.py" "$@" || fail "check_export.py $*"; }
cd "$TMPDIR" || exit 1
MLP="$FIXTURES/h100_torch_mlp.skip.db"
{ cat "$ROOT/schemas/trace.sql"; echo "PRAGMA user_version=2;"
  cat "$FIXTURES/hand/common.sql" "$FIXTURES/hand/export.sql"; } | sqlite3 hand.db ||
	fail "building hand.db"

# ---- perfetto and kineto -----------------------------------------------------------------------
for fmt in perfetto kineto; do
	expect_exit 0 "$SKIP" export "$MLP" --format $fmt -o mlp.$fmt.json
	expect_out "wrote mlp.$fmt.json ($fmt: 1,450 events, 676 flows"
	check timeline $fmt mlp.$fmt.json "$MLP"
	expect_exit 0 "$SKIP" export "$FIXTURES/gpt2_sweep.skip.db" -f $fmt -r 3 -o sweep.$fmt.json
	check timeline $fmt sweep.$fmt.json "$FIXTURES/gpt2_sweep.skip.db" 3
	expect_exit 0 "$SKIP" export hand.db -f $fmt -o hand.$fmt.json
	check timeline $fmt hand.$fmt.json hand.db
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["otherData"]["runs"]
assert [x["parameters"]["batch"] for x in r] == ["1", "2", "4"], r
assert r[0]["commandLine"] == "hand export, \"run\" 1"
names = {e["name"] for e in d["traceEvents"]}
assert "kernel\nnewline ünïcødé ✓" in names and "k\"quoted, with comma" in names, names' \
	hand.perfetto.json || fail "names or run metadata did not survive"
# one region occurrence: hand/export.sql's occurrence 2 holds 3 records and 1 arrow
expect_exit 0 "$SKIP" export hand.db -f perfetto -R 'step "one", ü' -n 2 -o occ.json
expect_out "(perfetto: 3 events, 1 flows"
expect_exit 0 "$SKIP" export "$MLP" -f perfetto -R forward -n 3 -o fwd.json
expect_out "(perfetto: "
# the size warning (threshold lowered for the test)
SKIP_EXPORT_WARN_BYTES=1000 "$SKIP" export hand.db -f perfetto -o big.json > out 2>&1 ||
	fail "export with a low warning threshold"
expect_out "warning: big.json is"
expect_out "--run N"

# ---- version 2 traces: driver calls in CUPTI_ACTIVITY_KIND_RUNTIME (eventClass 1), each run's
# GPUs in SKIP_GPUS. small.json holds 5 runtime calls and 1 driver call (skip import's summary,
# t_import.sh); the MLP fixture 593 runtime and 92 driver calls (sqlite3 on it), and the same
# timeline in either version.
expect_exit 0 "$SKIP" import "$ROOT/tests/fixtures/torchprof/small.json" -o small.skip.db
expect_exit 0 "$SKIP" export "$MLP" -f sqlite -o mlp2.skip.db
[ "$(sql mlp2.skip.db 'PRAGMA user_version')" -ge 2 ] || fail "mlp2.skip.db is not version 2 or later"
for fmt in perfetto kineto; do
	expect_exit 0 "$SKIP" export small.skip.db -f $fmt -o small.$fmt.json
	check timeline $fmt small.$fmt.json small.skip.db 0 1
	expect_exit 0 "$SKIP" export mlp2.skip.db -f $fmt -o mlp2.$fmt.json
	expect_out "wrote mlp2.$fmt.json ($fmt: 1,450 events, 676 flows"
	check timeline $fmt mlp2.$fmt.json mlp2.skip.db 0 1
	python3 -c 'import json,sys
cats = lambda f: [e.get("cat") for e in json.load(open(f))["traceEvents"]]
assert cats(sys.argv[1]).count("cuda_driver") == 1, "small: 1 driver call"
assert cats(sys.argv[2]).count("cuda_driver") == 92, "mlp2: 92 driver calls"
assert cats(sys.argv[2]).count("cuda_runtime") == 593, "mlp2: 593 runtime calls"
ev = lambda f: json.load(open(f))["traceEvents"]
assert ev(sys.argv[2]) == ev(sys.argv[3]), "version 1 and 2 timelines differ"' \
		small.$fmt.json mlp2.$fmt.json mlp.$fmt.json || fail "$fmt on version 2"
done
expect_exit 0 "$SKIP" export mlp2.skip.db -f csv -o mlp2.csv
check csv mlp2.csv mlp2.skip.db
[ ! -e mlp2.csv/CUPTI_ACTIVITY_KIND_DRIVER.csv ] || fail "a version 2 trace has no DRIVER table"
[ "$(wc -l < mlp2.csv/CUPTI_ACTIVITY_KIND_RUNTIME.csv)" = 686 ] ||
	fail "mlp2's RUNTIME.csv: a header and 593 + 92 calls"

# ---- sqlite: one run as a trace of its own, for SQL written for nsys (no runId) -----------
# h100_launch_chain holds 3 runs (--repeat 3) of 2000 kernels each; run 2's kernels last
# 2,165,547 ns in all, the three runs' 6,496,336 ns (sqlite3 on the fixture).
CHAIN="$FIXTURES/h100_launch_chain.skip.db"
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -o run2.skip.db
expect_out "holds 3 runs; --format sqlite writes one: choose it with --run N"
expect_exit 0 "$SKIP" export "$CHAIN" -f sqlite -r 2 -o run2.skip.db
expect_out "wrote run2.skip.db (sqlite: run 2)"
[ "$(sql run2.skip.db 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL')" = \
	"$(sql "$CHAIN" 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = 2')" ] ||
	fail "run2.skip.db's kernels are not run 2's"
[ "$(sql run2.skip.db 'SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL')" = 2165547 ] ||
	fail "nsys-style SQL on run2.skip.db sums more than run 2"
[ "$(sql run2.skip.db 'SELECT group_concat(DISTINCT runId) FROM CUPTI_ACTIVITY_KIND_RUNTIME')" = 2 ] ||
	fail "run2.skip.db holds another run's calls"
[ "$(sql run2.skip.db 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN TARGET_INFO_GPU g ON g.id = k.deviceId')" = 2000 ] ||
	fail "nsys's join on TARGET_INFO_GPU multiplies run2.skip.db's kernels"
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -r 2 -o run2.skip.db
expect_out "run2.skip.db exists; use --force"
expect_exit 0 "$SKIP" export "$CHAIN" -f sqlite -r 3 -o run2.skip.db --force
[ "$(sql run2.skip.db 'SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL')" = 2166169 ] ||
	fail "--force did not replace run2.skip.db with run 3"
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -r 9 -o run9.skip.db
expect_out "no run 9 (runs 1 to 3)"
[ ! -e run9.skip.db ] || fail "a missing run left a file"
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -r 2 -R forward -o r.skip.db
expect_out "leave --region out"
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -r 2 -o "$CHAIN" --force
expect_out "is also an input"
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -r 2 -o -
expect_exit 2 "$SKIP" export "$CHAIN" -f perfetto --force -o f.json
echo "my notes" > notes.db
expect_exit 2 "$SKIP" export "$CHAIN" -f sqlite -r 2 -o notes.db --force
[ "$(cat notes.db)" = "my notes" ] || fail "a foreign file was replaced"

# ---- csv --------------------------------------------------------------------------------------
expect_exit 0 "$SKIP" export hand.db -f csv -o hand.csv
expect_out "wrote hand.csv/StringIds.csv (9 rows)"
check csv hand.csv hand.db
expect_exit 0 "$SKIP" export "$MLP" -f csv -o mlp.csv
check csv mlp.csv "$MLP"
expect_exit 0 "$SKIP" export hand.db -f csv -o hand.csv # its own folder: replaced
expect_exit 0 "$SKIP" export hand.db -f csv -r 2 -o run2
[ "$(wc -l < run2/CUPTI_ACTIVITY_KIND_RUNTIME.csv)" = 2 ] || fail "run 2 has one API call"
expect_exit 0 "$SKIP" export hand.db -f csv -q "SELECT value FROM StringIds WHERE id >= 20 ORDER BY id" -o -
python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
assert r == [["value"], ["k\"quoted, with comma"], ["kernel\nnewline ünïcødé ✓"]], r' out ||
	fail "--query to standard output"
expect_exit 0 "$SKIP" export hand.db -f csv -q "SELECT 1 AS a" -q "SELECT 2 AS b" -o q
[ "$(cat q/query-2.csv)" = "$(printf 'b\r\n2\r')" ] || fail "query-2.csv"

# ---- html and ipynb ---------------------------------------------------------------------------
expect_exit 0 "$SKIP" export "$FIXTURES/gpt2_sweep.skip.db" -f html -R prefill -o sweep.html
grep -q "verdict flip 9.18" sweep.html || fail "the HTML page lacks the crossover"
cp "$MLP" mlp.skip.db
cp "$FIXTURES/gpt2_sweep.skip.db" sweep.skip.db
expect_exit 0 "$SKIP" export mlp.skip.db -f ipynb -r 1 -o mlp.ipynb
grep -q '"TRACE = \\"mlp.skip.db\\"' mlp.ipynb || fail "the notebook opens the trace by its name"
expect_exit 0 "$SKIP" export sweep.skip.db -f ipynb -R prefill -o sweep.ipynb
grep -q 'PARAM = \\"batch\\"' sweep.ipynb || fail "the sweep notebook names its parameter"

# ---- refused outputs and bad input: one line, exit 2 ------------------------------------------
echo "my notes" > notes.json
expect_exit 2 "$SKIP" export hand.db -f perfetto -o notes.json
expect_out "is not a skip export JSON file"
[ "$(cat notes.json)" = "my notes" ] || fail "a foreign file was touched"
expect_exit 2 "$SKIP" export hand.db -f perfetto -o hand.db
expect_exit 0 "$SKIP" export hand.db -f kineto -o mlp.perfetto.json # a skip export file: replaced
mkdir notmine && echo x > notmine/a.txt
expect_exit 2 "$SKIP" export hand.db -f csv -o notmine
expect_out "skip export did not write"
expect_exit 2 "$SKIP" export hand.db -f csv -o notes.json
echo "a,b" > hand.csv/mine.csv
expect_exit 0 "$SKIP" export hand.db -f csv -o hand.csv # extra files in its folder stay
[ "$(cat hand.csv/mine.csv)" = "a,b" ] || fail "a file in the csv folder was touched"
expect_exit 2 "$SKIP" export hand.db -o x.json
expect_out "--format is required"
expect_exit 2 "$SKIP" export hand.db -f svg -o x.json
expect_exit 2 "$SKIP" export hand.db -f perfetto
expect_exit 2 "$SKIP" export hand.db -f perfetto -q "SELECT 1" -o x.json
expect_exit 2 "$SKIP" export hand.db -f perfetto -n 2 -o x.json
expect_exit 2 "$SKIP" export hand.db -f csv -o -
expect_exit 2 "$SKIP" export hand.db -f perfetto -r 9 -o x.json
expect_out "no run 9"
expect_exit 2 "$SKIP" export hand.db -f perfetto -R nope -o x.json
expect_out "ranges there: 'step \"one\", ü', 'idle'"
expect_exit 2 "$SKIP" export hand.db -f perfetto -R idle -n 2 -o x.json
expect_exit 2 "$SKIP" export hand.db -f csv -q "SELEKT" -o -
expect_out "does not compile"
expect_exit 2 "$SKIP" export notes.json -f perfetto -o x.json
expect_exit 2 "$SKIP" export missing.db -f perfetto -o x.json
head -c 3000 "$MLP" > cut.db
expect_exit 2 "$SKIP" export cut.db -f perfetto -o x.json
[ "$(wc -l < out)" = 1 ] || fail "a damaged trace gets one line"
[ ! -e x.json ] || fail "a failed export left x.json"
ls -a | grep -q '^\.x\.json\.' && fail "a failed export left a temporary file"

# ---- the notebook, executed -------------------------------------------------------------------
sh "$ROOT/mk/deps.sh" ensure notebook >/dev/null 2>&1 ||
	skip_test "Debian's python3-nbconvert, -ipykernel, -pandas, -matplotlib are missing and could not be installed (mk/deps.sh notebook needs root and apt)"
"$SKIP" report --json --run 1 mlp.skip.db > mlp.report.json || fail "skip report"
timeout 300 /usr/bin/python3 -m nbconvert --to notebook --execute mlp.ipynb \
	--output mlp.out.ipynb > nb.log 2>&1 || { cat nb.log; fail "the notebook did not run"; }
check notebook mlp.out.ipynb 4 mlp.report.json
timeout 300 /usr/bin/python3 -m nbconvert --to notebook --execute sweep.ipynb \
	--output sweep.out.ipynb > nb.log 2>&1 || { cat nb.log; fail "the sweep notebook did not run"; }
check notebook sweep.out.ipynb 5
grep -q '"flip\\": 9.18' sweep.out.ipynb || fail "the notebook's crossover differs from skip report's 9.18"
# version 2: the MLP fixture written as version 2, and an import
for nb in mlp2 small; do
	"$SKIP" report --json --run 1 $nb.skip.db > $nb.report.json || fail "skip report on $nb"
	expect_exit 0 "$SKIP" export $nb.skip.db -f ipynb -o $nb.ipynb
	timeout 300 /usr/bin/python3 -m nbconvert --to notebook --execute $nb.ipynb \
		--output $nb.out.ipynb > nb.log 2>&1 ||
		{ cat nb.log; fail "the notebook did not run on the version 2 $nb.skip.db"; }
done
check notebook mlp2.out.ipynb 4 mlp2.report.json
check notebook small.out.ipynb 4 small.report.json
exit 0
