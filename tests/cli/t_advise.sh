# skip advise on the committed H100 traces (golden text and JSON), on a hand-built serial run of
# a workload (the plan it writes is read back by skip run --dry-run), and every kind of bad
# input (one line, exit 2).
. "$(dirname "$0")/lib.sh"
ROOT="$FIXTURES/../.."
cd "$FIXTURES" || exit 1

expect_exit 0 "$SKIP" advise h100_two_streams.skip.db
golden advise_h100_two_streams.txt
expect_exit 0 "$SKIP" advise h100_torch_mlp.skip.db --region forward --top 3
golden advise_h100_torch_mlp_forward.txt
expect_exit 0 "$SKIP" advise llama1b_sweep.skip.db --region prefill --run 1 --top 3
golden advise_llama1b_prefill_run1.txt
expect_exit 0 "$SKIP" advise h100_two_streams.skip.db --json --lengths 2-3 --min-ps 0.9
golden advise_h100_two_streams.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["skip_advice"] == 1' \
	"$TMPDIR/out" || fail "--json output is not JSON"

# A workload run, built from tests/fixtures/hand (answers in advise_wl.sql).
{ cat "$ROOT/schemas/trace.sql"; echo "PRAGMA user_version=1;"
  cat hand/common.sql hand/advise_wl.sql; } | sqlite3 "$TMPDIR/wl.db" || fail "building wl.db"
cat > "$TMPDIR/cal.json" <<'JSON'
{"graph_launch_ns": 3000, "graph_first_ns": 2500, "graph_node_gap_ns": 100,
 "event_record_ns": 1000, "stream_wait_ns": 1000, "sync_idle_ns": 1000,
 "profiler_launch_ns": 1000, "stream_switch_ns": 500, "graph_launch_node_ns": 200,
 "graph_dispatch_ns": 300, "remote_read_cost": 0.5, "graph_root_join_ns": 0,
 "runtime_launch_ns": 0, "stream_gap_bare_ns": 0}
JSON
expect_exit 0 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json \
	--calibration "$TMPDIR/cal.json" -o "$TMPDIR/plan.json"
expect_out "calibration error 0.0%"
expect_out "16.80 us    1.11x" # hand/advise_wl.sql: 18700 / 16800 with remote reads
expect_out "21.00 us    0.89x"
expect_out "<- the plan"
expect_out "plan (dag-graph, predicted 1.11x) written to"
: > "$TMPDIR/none.fatbin"
expect_exit 0 "$SKIP" run hand/advise_wl.json --plan "$TMPDIR/plan.json" --module "$TMPDIR/none.fatbin" --dry-run
expect_out "graph"
# Each item with a plan carries it in --json; the persistent item's holds the recorded kernel
# times (4000 ns each in advise_wl.sql), by which E5's AOT places the tiles.
expect_exit 0 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json \
	--calibration "$TMPDIR/cal.json" --json
python3 - "$TMPDIR/out" <<'PY' || fail "the items' plans in --json"
import json, sys
d = json.load(open(sys.argv[1]))
items = {x["kind"]: x for x in d["advice"]}
assert items["dag-graph"]["plan"]["executor"] == "graph", items["dag-graph"]
p = items["persistent"]["plan"]
assert p["executor"] == "persistent" and p["durations_us"] == {"a": 4, "b": 4, "c": 4}, p
assert all(("plan" in x) == x["has_plan"] for x in d["advice"]), d["advice"]
PY
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["advice"][0]["plan"], open(sys.argv[2], "w"))' \
	"$TMPDIR/out" "$TMPDIR/item.plan.json"
expect_exit 0 "$SKIP" run hand/advise_wl.json --plan "$TMPDIR/item.plan.json" \
	--module "$TMPDIR/none.fatbin" --dry-run
# --plan-of: -o writes that item's plan, marked as the plan
expect_exit 0 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json \
	--calibration "$TMPDIR/cal.json" -o "$TMPDIR/e5.plan.json" --plan-of persistent
expect_out "plan (persistent, predicted"
grep -q '"executor":	"persistent"' "$TMPDIR/e5.plan.json" || fail "--plan-of persistent: $(cat "$TMPDIR/e5.plan.json")"
grep -q '"durations_us"' "$TMPDIR/e5.plan.json" || fail "the persistent plan without durations_us"
expect_exit 0 "$SKIP" run hand/advise_wl.json --plan "$TMPDIR/e5.plan.json" \
	--module "$TMPDIR/none.fatbin" --dry-run
expect_out "tiles placed by the plan's durations"
# With --starts giving a and b a memory demand of 1 (alone 1000 ns, two copies 2000 ns: they
# share the memory system in full): a and b, which both plans run at once, take twice as long
# while both run. E5 (AOT): both bodies 1396-9396 instead of 5396, so 15.03 + 4.00 = 19.03 us.
# The graph: b starts 300 ns after a (graph_dispatch_ns), so a does 300 ns alone, then both at
# half pace: a ends 300 + 2 x 3700 = 7700, b (300 left) at 8000 instead of 4300: 16.80 + 3.70 =
# 20.50 us. The assumptions name the demands.
cat > "$TMPDIR/starts.json" <<'JSON'
{"workload": "fork", "start_costs": [
 {"task": "a", "start_cost_ns": 0, "alone_ns": 1000, "pair_ns": 2000},
 {"task": "b", "start_cost_ns": 0, "alone_ns": 1000, "pair_ns": 2000}]}
JSON
expect_exit 0 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json \
	--calibration "$TMPDIR/cal.json" --starts "$TMPDIR/starts.json"
expect_out "persistent       18.70 us     19.03 us"
expect_out "dag-graph        18.70 us     20.50 us"
expect_out "from skip run --probe-starts: a 1.00, b 1.00)"
sed 's/"pair_ns": 2000}/"pair_ns": "2000"}/' "$TMPDIR/starts.json" > "$TMPDIR/bad_starts.json"
expect_exit 2 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json \
	--starts "$TMPDIR/bad_starts.json"
expect_out "\"alone_ns\", \"pair_ns\" and \"worker_ns\", where present, are numbers"
# With --starts timing a, b and c in E5's workers (2000, 3000 and 4500 ns) and no demands, the
# persistent item takes those for their times: AOT a 0-3396, b 0-4396, c 4396-10292 (its
# producers on two workers: 1396 after b), 2643 + 10292 + 97 + 1500 = 14532 ns; the graph keeps
# the recorded kernels (16.80 us, as without --starts).
cat > "$TMPDIR/worker.json" <<'JSON'
{"workload": "fork", "start_costs": [
 {"task": "a", "start_cost_ns": 0, "worker_ns": 2000},
 {"task": "b", "start_cost_ns": 0, "worker_ns": 3000},
 {"task": "c", "start_cost_ns": 0, "worker_ns": 4500}]}
JSON
expect_exit 0 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json \
	--calibration "$TMPDIR/cal.json" --starts "$TMPDIR/worker.json"
expect_out "persistent       18.70 us     14.53 us"
expect_out "dag-graph        18.70 us     16.80 us"
expect_out "(alone in E5's workers, from skip run"
expect_out "--probe-starts: a 2000 ns, b 3000 ns, c 4500 ns; every task)"
# The same run against the workload with a and b on 100 blocks each: 200 tiles on level 0, more
# than the 132 SMs, so AOT is predicted on 200 workers (E5's default) and JIT on 132. The
# built-in persistent calibration (launch 2643, barrier 97, AOT 1396 and JIT 3561 a task), each
# tile the task's 4000 ns plus that, the synchronize's return 1500: AOT a and b at once, 0-5396
# on workers 0-131; workers 132-199 share the SMs of 67-0, so their tiles run at the
# calibration's sm_share_rate (0.69) until 5396 (2760 ns of work done) and end at 6636; c
# 6636-12032, 2643 + 12032 + 97 + 1500 = 16272; JIT a and b in two waves of 132 and 68 tiles,
# 0-15122, c to 22683, 26923.
sed 's/"grid": 1, "block": 32, "args": \[{"buffer": \("[xy]"\)}\]/"grid": 100, "block": 32, "args": [{"buffer": \1}]/' \
	hand/advise_wl.json > "$TMPDIR/wide.json"
expect_exit 0 "$SKIP" advise "$TMPDIR/wl.db" --workload "$TMPDIR/wide.json" \
	--calibration "$TMPDIR/cal.json"
expect_out "16.27 us"
expect_out "(E5, mode aot: 200 workers, 201 tiles; aot 16.3 us, jit 26.9 us)"
# With kA recorded at 2048 registers a thread (one block of 32 threads per SM), no worker that
# runs it fits twice on an SM: AOT on 132 workers too, a and b in two waves (132 and 68 tiles,
# 0-10792), c to 16188: 2643 + 16188 + 97 + 1500 = 20428.
cp "$TMPDIR/wl.db" "$TMPDIR/wl1.db"
echo "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET registersPerThread = 2048
      WHERE shortName = (SELECT id FROM StringIds WHERE value = 'kA');" | sqlite3 "$TMPDIR/wl1.db"
expect_exit 0 "$SKIP" advise "$TMPDIR/wl1.db" --workload "$TMPDIR/wide.json" \
	--calibration "$TMPDIR/cal.json"
expect_out "(E5, mode aot: 132 workers, 201 tiles; aot 20.4 us, jit 26.9 us)"
expect_exit 2 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json --plan-of streams
expect_out "--plan-of needs -o FILE"
expect_exit 2 "$SKIP" advise "$TMPDIR/wl.db" --workload hand/advise_wl.json -o "$TMPDIR/x.json" \
	--plan-of fusion
expect_out "--plan-of takes streams, dag-graph or persistent, not 'fusion'"
[ -e "$TMPDIR/x.json" ] && fail "a refused --plan-of left $TMPDIR/x.json"

# Bad input and bad options.
expect_exit 2 "$SKIP" advise
expect_out "no trace file given"
expect_exit 2 "$SKIP" advise h100_graph.skip.db --lengths 1-4
expect_out "--lengths takes A-B with 2 <= A <= B <= 16"
expect_exit 2 "$SKIP" advise h100_graph.skip.db --min-ps 2
expect_out "--min-ps takes a number in (0, 1]"
expect_exit 2 "$SKIP" advise h100_graph.skip.db -o "$TMPDIR/x.json"
expect_out "-o needs --workload"
expect_exit 2 "$SKIP" advise h100_torch_mlp.skip.db --region prefill
expect_out "no NVTX range 'prefill' in run 1 (its longest ranges: "
expect_exit 2 "$SKIP" advise h100_launch_chain.skip.db --run 9
expect_out "no run 9 in the trace"
expect_exit 2 "$SKIP" advise h100_launch_chain.skip.db --workload hand/advise_wl.json
expect_out "the trace does not match workload 'fork'"
expect_exit 2 "$SKIP" advise h100_launch_chain.skip.db --workload "$TMPDIR/none.json"
expect_exit 2 "$SKIP" advise README.md
expect_out "skip advise: error:"
echo '{"graph_launch": 1}' > "$TMPDIR/badcal.json"
expect_exit 2 "$SKIP" advise h100_graph.skip.db --calibration "$TMPDIR/badcal.json"
expect_out "'graph_launch': unknown member"
echo '{"sm_share_rate": 1.5}' > "$TMPDIR/badcal.json"
expect_exit 2 "$SKIP" advise h100_graph.skip.db --calibration "$TMPDIR/badcal.json"
expect_out "'sm_share_rate': must be a number >= 0"
expect_exit 0 "$SKIP" advise --help
expect_out "usage: skip advise TRACE"
exit 0
