# bench/persist/calibrate.sh without a GPU: a stand-in for skip gives every chain run a time of
# its own (aot 20 us + N x 1.5 us, 1 us less on one worker, N x 1.7 us on the chain of two-block
# tasks; jit 25 us + N x 6 us, N x 8 us on two-block tasks; the co-pilot fails; graph 8 us + N x
# 0.95 us), and the calibration it writes is checked against the method's formulas worked by
# hand: the per-task costs are the slopes (AOT's and JIT's of the two-block chains: 1700 and
# 8000, the queue pop 8000 - 1700 = 6300; on one worker, the one-block chains': 1500 and 6000),
# the barrier is the one-task chain's cost on a worker
# per SM over one worker (1000), and the launch is the one-task iteration less a task, the
# barrier and BASE's sync_return_ns (21500 - 1500 - 1000 - 3000 = 16000); the empty task's span
# is the median of its tile timeline's 0.2, 0.4 and 0.3 us (300 ns). The file is then read
# by the real skip, which picks aot with it (1.7 us a task against the built-in co-pilot's 1.79).
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || skip_test "needs python3"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMPDIR" || exit 1
mkdir dags && : > dags/chain.fatbin
cat > fake_skip <<EOF2
#!/bin/sh
for a in "\$@"; do [ "\$a" = --dry-run ] && exec "$SKIP" "\$@"; done
exec python3 - "\$@" <<'PY'
import json, re, sys
a = sys.argv[1:]
opt = lambda k, d=None: a[a.index(k) + 1] if k in a else d
m = re.search(r"chain(2_)?(\d+)\.json", a[1])
two, n = m.group(1) is not None, int(m.group(2))
ex, mode, workers = opt("--executor"), opt("--mode"), opt("--workers")
if opt("--tile-times"):  # the empty chain's timeline: tiles of 0.2, 0.3 and 0.4 us
    json.dump({"traceEvents": [{"ph": "X", "dur": d} for d in (0.2, 0.4, 0.3)]},
              open(opt("--tile-times"), "w"))
    sys.exit(0)
if ex == "graph":
    ns = 8000 + n * 950
elif mode == "aot":
    ns = 20000 + n * (1700 if two else 1500) - (1000 if workers == "1" else 0)
elif mode == "jit":
    ns = 25000 + n * (8000 if two else 6000)
else:
    sys.exit("skip run: error: the persistent executor: no co-pilot on the GPU")
print(json.dumps({"results": [{"median_ms": ns / 1e6}]}))
PY
EOF2
chmod +x fake_skip
echo '{"graph_launch_ns": 1900, "sync_return_ns": 3000}' > base.cal.json
SKIP="$TMPDIR/fake_skip" MODULES=dags N1=10 N2=110 ROUNDS=2 ITERS=1 \
	sh "$SRC/bench/persist/calibrate.sh" cal base.cal.json > "$TMPDIR/out" 2>&1 ||
	{ cat "$TMPDIR/out"; fail "calibrate.sh failed"; }
python3 - cal/persist.cal.json <<'PY' || fail "the calibration: $(cat cal/persist.cal.json)"
import json, sys
c = json.load(open(sys.argv[1]))
want = {"graph_launch_ns": 1900, "sync_return_ns": 3000, "persist_aot_task_ns": 1700,
        "persist_epoch_ns": 1000, "persist_launch_ns": 16000, "persist_counter_wait_ns": 1700,
        "persist_jit_task_ns": 8000, "persist_queue_pop_ns": 6300,
        "persist_aot_local_ns": 1500, "persist_jit_local_ns": 6000, "persist_span_ns": 300}
assert c == want, c
PY
expect_out "copilot     not measured (a run failed: failed.txt)"
expect_out "E3 (graph), for reference: 950.0 ns a task"
expect_out "persistent mode aot, predicted fastest"
expect_out "calibration: cal/persist.cal.json: launch 16.00 us, barrier 1.00 us"
grep -q "copilot_n1 round 1: exit 1" cal/failed.txt || fail "failed.txt: $(cat cal/failed.txt)"
exit 0
