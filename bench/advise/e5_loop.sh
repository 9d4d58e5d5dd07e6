#!/bin/sh
# e5_loop.sh: skip advise's persistent (E5) prediction checked by measurement on the DAG suite,
# on a GPU machine after `make all bench` (docs/BENCHMARKS.md "skip advise: the persistent item against E5").
#
#   sh bench/advise/e5_loop.sh OUTDIR [SIZES]      (SIZES default "small large")
#
# For each DAG of bench/dags and each size: record the serial executor (three runs, which skip
# advise pools), skip advise --workload --json (the persistent item: its mode and predicted
# iteration; the graph item beside it), then measure E5 with the persistent item's plan (its
# mode, and the recorded task times by which AOT places the tiles), E5 in that mode without
# the times (every tile counted 1 us) and E3, each a fresh `skip run` process of timed
# iterations (50 at the small size, 5 at the large), and print predicted against measured.
# CAL: a calibration file for skip advise (default: its built-in). DAGS: the DAGs (default all
# eight), or workload files (synth.py's chains: `python3 bench/dags/synth.py chain 500 2
# c500.json; DAGS=c500.json sh bench/advise/e5_loop.sh OUT small`). STARTS=1: probe each DAG
# at that size first (skip run --probe-starts -n 20: kernel starts and each task's memory
# demand) and give it to skip advise (--starts); the last two columns are then the
# predictions without it.
# shellcheck disable=SC2086 # $sz and $B: no word or two, no blanks
set -u
out=${1:?usage: e5_loop.sh OUTDIR [SIZES]}
sizes=${2:-small large}
B=${B:-build}
export SKIP_MODULE_PATH=$B/dags
mkdir -p "$out"
printf "%-5s %-6s %-5s %12s %12s %8s %12s %12s %12s %8s %12s %12s\n" DAG size mode "E5 pred us" \
	"E5 meas us" err "no times us" "E3 pred us" "E3 meas us" err "E5 unprobed" "E3 unprobed"
for size in $sizes; do
	n=50
	[ "$size" = large ] && n=5
	for d in ${DAGS:-vec bs ml hits img dl m1 m2}; do
		case $d in
		*.json) w=$d; d=$(basename "$d" .json) ;; # a workload of its own (synth.py's chains)
		*) w=bench/dags/$d.json ;;
		esac
		sz="--size $size"
		grep -q '"sizes"' "$w" || sz= # no presets: the workload as written
		p=$out/$d.$size
		"$B/skip" record -q -f --repeat 3 -o "$p.db" -- "$B/skip" run "$w" $sz \
			--executor serial -n "$n" --warmup 2 > "$p.rec.txt" 2>&1 ||
			{ echo "$d $size: record failed"; continue; }
		starts=
		if [ "${STARTS:-0}" = 1 ]; then
			"$B/skip" run "$w" $sz --probe-starts -n 20 --json \
				> "$p.starts.json" 2> "$p.starts.err" &&
				starts=$p.starts.json || echo "$d $size: probe failed"
		fi
		"$B/skip" advise "$p.db" --workload "$w" $sz ${CAL:+--calibration "$CAL"} \
			--json > "$p.advice0.json" 2> "$p.advise0.err"
		"$B/skip" advise "$p.db" --workload "$w" $sz ${CAL:+--calibration "$CAL"} \
			${starts:+--starts "$starts"} --json -o "$p.e5.plan.json" --plan-of persistent \
			> "$p.advice.json" 2> "$p.advise.err" || { echo "$d $size: advise failed"; continue; }
		mode=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['mode'])" \
			"$p.e5.plan.json")
		"$B/skip" run "$w" $sz --plan "$p.e5.plan.json" -n "$n" --warmup 2 \
			--json > "$p.e5.json" 2> "$p.e5.err"
		"$B/skip" run "$w" $sz --executor persistent --mode "$mode" -n "$n" \
			--warmup 2 --json > "$p.e5u.json" 2> "$p.e5u.err"
		"$B/skip" run "$w" $sz --executor graph -n "$n" --warmup 2 --json \
			> "$p.e3.json" 2> "$p.e3.err"
		python3 - "$p" "$d" "$size" "$mode" <<'PY'
import json, sys
p, d, size, mode = sys.argv[1:5]
def pred(kind, f=".advice.json"):
    try:
        for x in json.load(open(p + f))["advice"]:
            if x["kind"] == kind:
                return x["predicted_il_ns"] / 1e3
    except Exception:
        pass
    return float("nan")
def meas(name):
    try:
        return json.load(open(p + "." + name + ".json"))["results"][0]["median_ms"] * 1e3
    except Exception:
        return float("nan")
pe, me, mu, pg, mg = pred("persistent"), meas("e5"), meas("e5u"), pred("dag-graph"), meas("e3")
err = lambda x, y: (x - y) / y * 100 if y == y and y else float("nan")
p0, g0 = pred("persistent", ".advice0.json"), pred("dag-graph", ".advice0.json")
print("%-5s %-6s %-5s %12.1f %12.1f %7.1f%% %12.1f %12.1f %12.1f %7.1f%% %12.1f %12.1f" % (d, size, mode, pe, me, err(pe, me), mu, pg, mg, err(pg, mg), p0, g0))
PY
	done
done
