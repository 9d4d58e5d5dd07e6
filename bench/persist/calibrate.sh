#!/bin/sh
# calibrate.sh: the persistent part of skip's calibration (persist_*), measured on this GPU
# machine, for `skip run --calibration` (the persistent mode auto) and `skip advise
# --calibration`. docs/advise-calibration.md "Calibration: the persistent executor" gives the method.
#
#   sh bench/persist/calibrate.sh OUTDIR [BASE.cal.json]
#
# After `make all bench` (build/skip, build/dags/chain.fatbin). Runs the dependent chain of N
# empty tasks (bench/dags/kernels/chain.cu's chain_empty, grid 1 x 32, as dagbench's chain)
# under E5 in each mode at two lengths (N1, N2), in AOT and JIT also the chain of two-block
# tasks (whose tiles run on two workers, so that each task waits across workers: a chain of
# one-block tasks runs on one worker, where AOT skips its waits and JIT runs each task on the
# worker that made it ready), the one-task chain in AOT on a worker per SM
# and on one worker, and E3 at both lengths for reference: each a fresh `skip run --json`
# process, in ROUNDS interleaved rounds; a variant's time is the median over rounds of each
# process's median iteration. Then, in ns:
#   persist_<mode>_task_ns  = (T_mode(N2) - T_mode(N1)) / (N2 - N1); aot's and jit's from the
#                             two-block chain
#   persist_<mode>_local_ns = the same of the one-block chain (aot, jit: on one worker)
#   persist_epoch_ns        = T_aot(1) - T_aot(1, one worker)      (at least 0)
#   persist_launch_ns       = T_aot(1) - the one-block chain's aot slope - persist_epoch_ns -
#                             sync_return_ns
#   persist_counter_wait_ns = persist_aot_task_ns
#   persist_queue_pop_ns    = persist_jit_task_ns - persist_aot_task_ns      (at least 0)
#   persist_span_ns         = the median tile of the N1 chain's tile timeline (AOT, one
#                             worker: skip run --tile-times): an empty task's span there
#   persist_ring_rtt_ns     = the co-pilot's per-task cost, run with COPILOT_NAIVE_OPTS (the
#                             options that turn lookahead and batching off; without them, its
#                             default: a round trip only where that default is naive)
# sync_return_ns is BASE's, else skip's built-in (SYNC_RETURN_NS, default 2800). A mode whose
# run fails (the co-pilot where the runtime does not run it on the GPU) is left out of the file,
# so it keeps its built-in value, and the summary says so. The file holds BASE's keys (if given)
# with the persistent ones replaced; OUTDIR also gets summary.txt and each run's JSON.
#
# Environment: SKIP (default build/skip), MODULES (build/dags), N1 N2 (1000 10000), ROUNDS (5),
# ITERS (20; the one-task chains 200), COPILOT_NAIVE_OPTS, SYNC_RETURN_NS.
set -u
out=${1:?usage: calibrate.sh OUTDIR [BASE.cal.json]}
base=${2:-}
SKIP=${SKIP:-build/skip}
MODULES=${MODULES:-build/dags}
N1=${N1:-1000}
N2=${N2:-10000}
ROUNDS=${ROUNDS:-5}
ITERS=${ITERS:-20}
NAIVE=${COPILOT_NAIVE_OPTS:-}
mkdir -p "$out/runs" || exit 1
[ -z "$base" ] || [ -r "$base" ] || { echo "calibrate.sh: cannot read $base" >&2; exit 2; }
MODULES=$(cd "$MODULES" 2>/dev/null && pwd) || { echo "calibrate.sh: no $MODULES (make bench)" >&2; exit 2; }

# chainN: the workload of N dependent empty tasks of one block; chain2_N of two blocks, whose
# tiles AOT places on two workers, so that each task waits on a tile of another worker
for n in 1 "$N1" "$N2"; do
	for grid in 1 2; do
		name=chain$n
		[ "$grid" = 2 ] && name=chain2_$n
		python3 - "$n" "$MODULES/chain.fatbin" "$grid" > "$out/$name.json" <<'PY' || exit 1
import json, sys
n, mod, grid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
tasks = [{"name": "t%d" % i, "kernel": "chain_empty", "grid": grid, "block": 32, "args": [],
          "reads": [], "writes": [], **({"after": ["t%d" % (i - 1)]} if i else {})}
         for i in range(n)]
print(json.dumps({"skip_workload": 1, "name": "chain%d" % n, "module": mod,
                  "buffers": [{"name": "unused", "count": 4}], "tasks": tasks}))
PY
	done
done

# variant NAME N ITERS OPTIONS...: one process, its JSON in runs/NAME.ROUND.json (N: 1000, or
# 2_1000 for the two-block chain)
variant() {
	name=$1 n=$2 it=$3
	shift 3
	# shellcheck disable=SC2086
	"$SKIP" run "$out/chain$n.json" "$@" -n "$it" --warmup 3 --json \
		> "$out/runs/$name.$round.json" 2> "$out/runs/$name.$round.err" ||
		echo "$name round $round: exit $? ($(head -c 300 "$out/runs/$name.$round.err"))" >> "$out/failed.txt"
}
: > "$out/failed.txt"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	echo "round $round of $ROUNDS" >&2
	variant aot1 1 200 --executor persistent --mode aot
	variant aot1w1 1 200 --executor persistent --mode aot --workers 1
	for m in aot jit copilot; do
		variant "${m}_n1" "$N1" "$ITERS" --executor persistent --mode "$m"
		variant "${m}_n2" "$N2" "$ITERS" --executor persistent --mode "$m"
	done
	for m in aot jit; do
		variant "${m}2_n1" "2_$N1" "$ITERS" --executor persistent --mode "$m"
		variant "${m}2_n2" "2_$N2" "$ITERS" --executor persistent --mode "$m"
	done
	if [ -n "$NAIVE" ]; then
		# shellcheck disable=SC2086
		variant naive_n1 "$N1" "$ITERS" --executor persistent --mode copilot $NAIVE
		# shellcheck disable=SC2086
		variant naive_n2 "$N2" "$ITERS" --executor persistent --mode copilot $NAIVE
	fi
	variant e3_n1 "$N1" "$ITERS" --executor graph
	variant e3_n2 "$N2" "$ITERS" --executor graph
	round=$((round + 1))
done
# an empty task's tile in the tile timeline (the N1 chain on one worker), for persist_span_ns
"$SKIP" run "$out/chain$N1.json" --executor persistent --mode aot -n 3 --warmup 2 \
	--tile-times "$out/runs/span.tiles.json" > /dev/null 2> "$out/runs/span.err" ||
	echo "span: exit $? ($(head -c 300 "$out/runs/span.err"))" >> "$out/failed.txt"

python3 - "$out" "$N1" "$N2" "$ROUNDS" "${SYNC_RETURN_NS:-2800}" "$base" "$NAIVE" <<'PY'
import glob, json, os, statistics, sys
out, n1, n2, rounds, sync_ret, base, naive = sys.argv[1:8]
n1, n2, sync_ret = int(n1), int(n2), float(sync_ret)
cal = json.load(open(base)) if base else {}
if base and "sync_return_ns" in cal:
    sync_ret = float(cal["sync_return_ns"])
lines = []
def say(s):
    lines.append(s)
    print(s)

def t(name):
    """ns: the median over rounds of each process's median iteration; None if any run failed."""
    v = []
    for r in range(1, int(rounds) + 1):
        try:
            v.append(json.load(open("%s/runs/%s.%d.json" % (out, name, r)))["results"][0]["median_ms"] * 1e6)
        except (OSError, ValueError, KeyError, IndexError):
            return None
    return statistics.median(v)

def slope(name):
    a, b = t(name + "_n1"), t(name + "_n2")
    if a is None or b is None:
        return None, None
    c = (b - a) / (n2 - n1)
    return c, a - n1 * c

say("chain of %d and %d empty tasks, %s rounds; ns" % (n1, n2, rounds))
say("%-10s %14s %14s %12s %14s" % ("variant", "T(N1)", "T(N2)", "per task", "intercept"))
per = {}
for name in ("aot", "aot2", "jit", "jit2", "copilot", "naive", "e3"):
    c, i = slope(name)
    if c is None:
        if name != "naive" or naive:
            say("%-10s  not measured (a run failed: failed.txt)" % name)
        continue
    per[name] = c
    say("%-10s %14.0f %14.0f %12.1f %14.0f" % (name, t(name + "_n1"), t(name + "_n2"), c, i))
t1, t1w1 = t("aot1"), t("aot1w1")
say("one task, aot: %s ns on a worker per SM, %s ns on one worker" % (
    "%.0f" % t1 if t1 is not None else "-", "%.0f" % t1w1 if t1w1 is not None else "-"))
if "aot" not in per or t1 is None or t1w1 is None:
    say("AOT did not run: no calibration written")
    open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
    sys.exit(1)
r = lambda x: round(max(0.0, x))
epoch = r(t1 - t1w1)
# a task's dispatch across workers (the two-block chain; one block runs on one worker, where
# AOT skips its waits: aot's slope is that cost)
hop = per.get("aot2", per["aot"])
cal["persist_aot_task_ns"] = r(hop)
cal["persist_aot_local_ns"] = r(per["aot"])
cal["persist_epoch_ns"] = epoch
cal["persist_launch_ns"] = r(t1 - per["aot"] - epoch - sync_ret)
cal["persist_counter_wait_ns"] = r(hop)
if "jit" in per:
    # also across workers (a one-block chain runs on the worker that made each task ready)
    jhop = per.get("jit2", per["jit"])
    cal["persist_jit_task_ns"] = r(jhop)
    cal["persist_jit_local_ns"] = r(per["jit"])
    cal["persist_queue_pop_ns"] = r(jhop - hop)
if "copilot" in per:
    cal["persist_copilot_task_ns"] = r(per["copilot"])
    cal["persist_ring_rtt_ns"] = r(per["naive"] if "naive" in per else per["copilot"])
try:  # the median tile of the empty chain's timeline, us -> ns
    spans = [e["dur"] for e in json.load(open(os.path.join(out, "runs", "span.tiles.json")))["traceEvents"]]
    cal["persist_span_ns"] = r(statistics.median(spans) * 1000)
    say("%-26s %10.0f (the empty task's tile, median of %d)" % ("persist_span_ns", cal["persist_span_ns"], len(spans)))
except (OSError, ValueError, KeyError, statistics.StatisticsError):
    say("persist_span_ns not measured (no tile timeline: failed.txt)")
say("sync_return_ns %.0f (%s)" % (sync_ret, "BASE" if base and "sync_return_ns" in cal else "built-in"))
for k in sorted(x for x in cal if x.startswith("persist_")):
    say("%-26s %10.0f" % (k, cal[k]))
if "copilot" in per and "naive" not in per:
    say("persist_ring_rtt_ns is the co-pilot's default per-task cost (no COPILOT_NAIVE_OPTS)")
if "e3" in per:
    say("E3 (graph), for reference: %.1f ns a task" % per["e3"])
json.dump(cal, open(os.path.join(out, "persist.cal.json"), "w"), indent=1, sort_keys=True)
open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
PY
rc=$?
[ -s "$out/failed.txt" ] && { echo "failed runs:" >&2; cat "$out/failed.txt" >&2; }
[ "$rc" = 0 ] || exit 1
# the file as skip reads it, and the choice it makes on the long chain
"$SKIP" run "$out/chain$N2.json" --executor persistent --dry-run --calibration "$out/persist.cal.json" |
	tee -a "$out/summary.txt"
