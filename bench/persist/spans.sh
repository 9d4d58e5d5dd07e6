#!/bin/sh
# spans.sh: what a task costs E5 (AOT) beyond its tile's span in the workers, on dependent
# chains of 500 tasks: spin tasks of 0.5, 1, 2 and 5 us (one tile) and empty tasks of 1, 2, 16,
# 64 and 132 tiles. docs/BENCHMARKS.md "The chains" has the table and what it shows.
#
#   sh bench/persist/spans.sh OUTDIR [ROUNDS]
#
# After `make all bench` (build/skip, build/dags). Per chain and round, one `skip run
# --executor persistent --mode aot -n 20 --json` process (a task: its iteration / 500), and
# in the first round one `--tile-times` run (a tile's span: the median tile of the timeline).
# Prints a row per chain: us a task, the median span and the rest (task - span), the spans'
# 10th-90th percentiles, and each round's us a task.
set -eu
out=${1:?usage: spans.sh OUTDIR [ROUNDS]}
rounds=${2:-2}
B=${B:-build}
case $B in /*) dags=$B/dags ;; *) dags=$PWD/$B/dags ;; esac
export SKIP_MODULE_PATH="$dags"
mkdir -p "$out"
V="g1 s0.5 s1 s2 s5 g2 g16 g64 g132"
for us in 0.5 1 2 5; do
	python3 bench/dags/synth.py chain 500 "$us" "$out/s$us.json"
done
for g in 1 2 16 64 132; do
	python3 - "$dags/chain.fatbin" "$g" > "$out/g$g.json" <<'PY'
import json, sys
g = int(sys.argv[2])
tasks = [{"name": "t%d" % i, "kernel": "chain_empty", "grid": g, "block": 32, "args": [],
          "reads": [], "writes": [], **({"after": ["t%d" % (i - 1)]} if i else {})}
         for i in range(500)]
print(json.dumps({"skip_workload": 1, "name": "empty500", "module": sys.argv[1],
                  "buffers": [{"name": "unused", "type": "u8", "count": 4}], "tasks": tasks}))
PY
done
r=1
while [ "$r" -le "$rounds" ]; do
	for v in $V; do
		"$B/skip" run "$out/$v.json" --executor persistent --mode aot -n 20 --warmup 3 \
			--json > "$out/$v.$r.json" 2> "$out/$v.$r.err" || echo "$v round $r failed" >&2
		[ "$r" = 1 ] && { "$B/skip" run "$out/$v.json" --executor persistent --mode aot \
			-n 3 --warmup 2 --tile-times "$out/$v.tiles.json" > /dev/null 2>&1 ||
			echo "$v: no tile timeline" >&2; }
	done
	r=$((r + 1))
done
python3 - "$out" "$V" "$rounds" <<'PY'
import json, statistics as st, sys
out, V, rounds = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
print("%-6s %10s %10s %10s %14s  %s" % ("chain", "task us", "span us", "rest us", "span p10-p90",
                                       "task us by round"))
for v in V:
    try:
        per = [json.load(open(f"{out}/{v}.{r}.json"))["results"][0]["median_ms"] * 1e3 / 500
               for r in range(1, rounds + 1)]
        spans = sorted(e["dur"] for e in json.load(open(f"{out}/{v}.tiles.json"))["traceEvents"]
                       if e.get("ph") == "X")
    except (OSError, ValueError, KeyError, IndexError) as x:
        print("%-6s not measured (%s)" % (v, x))
        continue
    p, s = st.median(per), st.median(spans)
    print("%-6s %10.3f %10.3f %10.3f %6.3f-%.3f  %s" % (v, p, s, p - s, spans[len(spans) // 10],
          spans[9 * len(spans) // 10], " ".join("%.3f" % x for x in per)))
PY
