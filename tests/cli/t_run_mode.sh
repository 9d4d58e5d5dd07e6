# skip run's persistent mode: auto (the default) takes the mode predicted fastest from the
# calibration, printed with each mode's prediction and where the calibration came from; an
# explicit --mode or a plan's "mode" wins and is printed as the plan's. Every figure is worked
# out by hand from docs/advise-model.md's formula for a workload's iteration: launch + the list
# schedule of the tiles (each the mode's per-task cost, the tasks being empty) + barrier.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
: > m.fatbin

# task NAME GRID AFTER...: one task of the workload, as JSON
task() {
	n=$1 grid=$2
	shift 2
	after=""
	for a in "$@"; do after="$after${after:+, }\"$a\""; done
	printf '{"name": "%s", "kernel": "k", "grid": %s, "block": 32, "args": [], "reads": [], "writes": [], "after": [%s]}' \
		"$n" "$grid" "$after"
}
workload() {
	name=$1
	shift
	printf '{"skip_workload": 1, "name": "%s", "module": "m.fatbin", "buffers": [{"name": "u", "count": 4}], "tasks": [%s]}\n' \
		"$name" "$*"
}
workload chain "$(task a 1), $(task b 1 a), $(task c 1 b)" > chain.json
workload wide "$(task r 1), $(task b1 2 r), $(task b2 2 r), $(task b3 2 r), $(task b4 2 r), $(task j 1 b1 b2 b3 b4)" > wide.json

# The built-in calibration on a chain of 3: launch 2.643 us and barrier 0.097 us around a task
# of 1.396 (aot), 3.561 (jit) or 1.705 us (copilot), then two on its worker at aot's 0.551 and
# jit's 1.070 (the co-pilot's 1.705): 5.24, 8.44 and 7.86 us. aot.
# Each mode on its default workers on an H100: one an SM, the co-pilot's dispatcher one less.
expect_exit 0 "$SKIP" run chain.json --executor persistent --dry-run
expect_out "plan persistent  1 stream, mode aot, default workers"
expect_out "persistent mode aot, predicted fastest; an iteration of the DAG's empty tasks on default workers:"
expect_out "aot           5.24 us  (1.40 us a task, 0.55 on its producers' worker, 132 workers)  fastest"
expect_out "jit           8.44 us  (3.56 us a task, 1.07 on its producers' worker, 132 workers)"
expect_out "copilot       7.86 us  (1.71 us a task, 131 workers)"
expect_out "calibration: built-in (measured on an H100): launch 2.64 us, barrier 0.10 us"

# A machine whose JIT costs 0.1 us a task, on r -> b1..b4 (2 blocks each) -> j with 4 workers:
# r, then b's 8 tiles in two rounds of 4, then j: 4 tiles in a row. Launch 4 + barrier 1 us:
# aot 5 + 4 x 1.5 = 11.00, jit 5 + 4 x 0.1 = 5.40, copilot 5 + 4 x 3.4 = 18.60 us. jit.
cat > fast_jit.cal.json <<'CAL'
{"persist_launch_ns": 4000, "persist_epoch_ns": 1000, "persist_aot_task_ns": 1500,
 "persist_jit_task_ns": 100, "persist_copilot_task_ns": 3400, "persist_counter_wait_ns": 1500,
 "persist_queue_pop_ns": 0, "persist_ring_rtt_ns": 3400}
CAL
expect_exit 0 "$SKIP" run wide.json --executor persistent --workers 4 --dry-run \
	--calibration fast_jit.cal.json
expect_out "mode jit, 4 workers"
expect_out "persistent mode jit, predicted fastest; an iteration of the DAG's empty tasks on 4 workers:"
expect_out "aot          11.00 us"
expect_out "jit           5.40 us  (0.10 us a task, 4 workers)  fastest"
expect_out "copilot      18.60 us"
expect_out "calibration: fast_jit.cal.json: launch 4.00 us, barrier 1.00 us"
expect_out "per hop: counter wait 1.50 us, queue pop 0.00 us, ring round trip 3.40 us"
# the same with 8 workers: b's tiles in one round, jit 5 + 3 x 0.1 = 5.30 us
expect_exit 0 "$SKIP" run wide.json --executor persistent --workers 8 --dry-run --json \
	--calibration fast_jit.cal.json
python3 - "$TMPDIR/out" <<'PY' || fail "--json"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["persistent_mode"]
assert p["mode"] == "jit" and p["chosen_by"] == "prediction", p
assert p["workers"] == 8 and p["calibration"] == "fast_jit.cal.json", p
assert p["predicted_iteration_ns"] == {"aot": 9500, "jit": 5300, "copilot": 15200}, p
assert p["predicted_workers"] == {"aot": 8, "jit": 8, "copilot": 8}, p
assert p["calibration_values"]["persist_ring_rtt_ns"] == 3400, p
assert d["plans"][0]["mode"] == "jit", d["plans"]
PY

# --mode wins, shown as the plan's choice; the emitted plan holds the mode run.
expect_exit 0 "$SKIP" run wide.json --executor persistent --workers 4 --mode copilot --dry-run \
	--calibration fast_jit.cal.json --emit-plan p.json
expect_out "persistent mode copilot, chosen by the plan;"
expect_out "jit           5.40 us  (0.10 us a task, 4 workers)  fastest"
grep -q '"mode":	"copilot"' p.json || fail "the emitted plan's mode: $(cat p.json)"
expect_exit 2 "$SKIP" run wide.json --executor persistent --dry-run --calibration fast_jit.cal.json \
	--emit-plan fast_jit.cal.json
expect_out "fast_jit.cal.json is also an input"
expect_exit 0 "$SKIP" run wide.json --executor persistent --mode auto --dry-run \
	--calibration fast_jit.cal.json
expect_out "persistent mode jit, predicted fastest"
# a plan file: its mode wins; without one, or with "auto", skip run chooses
printf '{"skip_plan": 1, "executor": "persistent", "mode": "aot"}' > aot.plan.json
expect_exit 0 "$SKIP" run wide.json --plan aot.plan.json --dry-run --calibration fast_jit.cal.json
expect_out "persistent mode aot, chosen by the plan"
printf '{"skip_plan": 1, "executor": "persistent"}' > none.plan.json
expect_exit 0 "$SKIP" run wide.json --plan none.plan.json --dry-run --calibration fast_jit.cal.json
expect_out "persistent mode jit, predicted fastest"
printf '{"skip_plan": 1, "executor": "persistent", "mode": "auto", "workers": 8}' > auto.plan.json
expect_exit 0 "$SKIP" run wide.json --plan auto.plan.json --dry-run --calibration fast_jit.cal.json
expect_out "mode jit, 8 workers"
expect_out "jit           5.30 us"
# A plan with predicted durations (what skip advise --workload writes): r 10 us, each b 2 us, j
# 1 us, on 4 workers. r, then b's 8 tiles in two rounds, then j, each tile its task's time plus
# the mode's per-task cost: aot 4 + 11.5 + 2 x 3.5 + 2.5 + 1 = 26.00, jit 4 + 10.1 + 2 x 2.1 +
# 1.1 + 1 = 20.40, copilot 4 + 13.4 + 2 x 5.4 + 4.4 + 1 = 33.60 us. jit.
dur='"durations_us": {"r": 10, "b1": 2, "b2": 2, "b3": 2, "b4": 2, "j": 1}'
printf '{"skip_plan": 1, "executor": "persistent", "workers": 4, %s}' "$dur" > dur.plan.json
expect_exit 0 "$SKIP" run wide.json --plan dur.plan.json --dry-run --calibration fast_jit.cal.json
expect_out "persistent mode jit, predicted fastest; an iteration of the DAG's tasks (the plan's predicted durations) on 4 workers:"
expect_out "aot          26.00 us"
expect_out "jit          20.40 us  (0.10 us a task, 4 workers)  fastest"
expect_out "copilot      33.60 us"
# in aot, the plan's durations place the tiles; --emit-plan keeps them
expect_exit 0 "$SKIP" run wide.json --plan dur.plan.json --mode aot --dry-run --json \
	--calibration fast_jit.cal.json --emit-plan dur.out.json
python3 - "$TMPDIR/out" dur.out.json <<'PY' || fail "durations in --json and the emitted plan"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["persistent_mode"]
assert p["task_durations"] == "plan" and p["predicted_iteration_ns"]["aot"] == 26000, p
e = json.load(open(sys.argv[2]))
assert e["durations_us"] == {"r": 10, "b1": 2, "b2": 2, "b3": 2, "b4": 2, "j": 1}, e
PY
expect_exit 0 "$SKIP" run wide.json --plan dur.plan.json --mode aot --dry-run
expect_out "mode aot, 4 workers, tiles placed by the plan's durations"
printf '{"skip_plan": 1, "executor": "persistent", "durations_us": {"r": 10}}' > short.plan.json
expect_exit 2 "$SKIP" run wide.json --plan short.plan.json --dry-run
expect_out "durations_us: task 'b1' has no time"

# another executor has no mode to choose
expect_exit 0 "$SKIP" run wide.json --executor graph --dry-run
grep -q "persistent mode" "$TMPDIR/out" && fail "a mode printed for the graph executor"

# Bad calibration files and modes: a clear error, exit 2.
echo '{"persist_jit_task_ns": -1}' > neg.cal.json
expect_exit 2 "$SKIP" run chain.json --executor persistent --dry-run --calibration neg.cal.json
expect_out "skip run: error: neg.cal.json: 'persist_jit_task_ns': must be a number >= 0 and <= 1e+09 (ns: 1 s); got -1"
echo '{"persist_jit_ns": 100}' > unknown.cal.json
expect_exit 2 "$SKIP" run chain.json --dry-run --calibration unknown.cal.json
expect_out "unknown.cal.json: 'persist_jit_ns': unknown member (docs/skip-advise.md lists them)"
echo '{"persist_jit_task_ns": 100' > syntax.cal.json
expect_exit 2 "$SKIP" run chain.json --dry-run --calibration syntax.cal.json
expect_out "syntax.cal.json:"
expect_exit 2 "$SKIP" run chain.json --dry-run --calibration missing.cal.json
expect_out "missing.cal.json"
expect_exit 2 "$SKIP" run chain.json --executor persistent --mode fast --dry-run
expect_out "unknown mode 'fast' (auto, aot, jit, copilot)"

# --tile-times: a persistent run to record, a run at all, and a file skip may replace; checked
# before the GPU is looked for (so here, without one, the last fails for want of a GPU only).
expect_exit 2 "$SKIP" run chain.json --executor graph --tile-times t.json
expect_out "--tile-times: only the persistent executor runs tiles"
expect_exit 2 "$SKIP" run chain.json --executor persistent --tile-times t.json --dry-run
expect_out "--tile-times needs a run: not with --probe-starts or --dry-run"
"$SKIP" run chain.json --executor serial --emit-plan serial.plan.json --dry-run > /dev/null ||
	fail "emit a serial plan"
expect_exit 2 "$SKIP" run chain.json --plan serial.plan.json --tile-times t.json
expect_out "--tile-times: only the persistent executor runs tiles, and this plan is not one"
echo "not skip's" > foreign.json
expect_exit 2 "$SKIP" run chain.json --executor persistent --tile-times foreign.json
expect_out "foreign.json"
[ "$(cat foreign.json)" = "not skip's" ] || fail "--tile-times replaced a file skip did not write"
expect_exit 2 "$SKIP" run chain.json --executor persistent --tile-times t.json
[ ! -e t.json ] || fail "--tile-times left a file without a run"
exit 0
