#!/bin/sh
# advise_loop.sh: skip advise's persistent item on the GEMM pair against E5 running its plan,
# on a GPU machine after `make all build/gemm_pair/gemm_pair.fatbin` (docs/BENCHMARKS.md "The
# GEMM pair", "With the advisor's plan").
#
#   sh bench/gemm_pair/advise_loop.sh OUTDIR [SIZES]      (SIZES default "t256 t1024 t2048")
#
# For mlp.json (a row tile edge between the GEMMs) and mlp_full.json (a full edge) at each
# size: record E1 (`skip record --repeat 3`), `skip advise --workload --json`, then the
# persistent item's plan in mode aot (its durations_us place the tiles) and E1, each a fresh
# `skip run` process of 50 iterations, 3 interleaved rounds; prints the predicted and measured
# E5 time (median of the rounds), the error (predicted - measured) / measured and both gains.
set -u
out=${1:?usage: advise_loop.sh OUTDIR [SIZES]}
sizes=${2:-t256 t1024 t2048}
B=${B:-build}
export SKIP_MODULE_PATH="${SKIP_MODULE_PATH:-$PWD/$B/gemm_pair}"
mkdir -p "$out" || exit 1
for wl in mlp mlp_full; do
	w=bench/gemm_pair/$wl.json
	for size in $sizes; do
		p=$out/$wl.$size
		"$B/skip" record -q -f --repeat 3 -o "$p.db" -- "$B/skip" run "$w" --size "$size" \
			--executor serial -n 50 --warmup 2 > "$p.rec.txt" 2>&1 ||
			{ echo "$wl $size: record failed"; continue; }
		"$B/skip" advise "$p.db" --workload "$w" --size "$size" --json > "$p.advice.json" \
			2> "$p.advise.err" || { echo "$wl $size: advise failed"; continue; }
		python3 - "$p" <<'PY' || { echo "$wl $size: no persistent item"; continue; }
import json, sys
p = sys.argv[1]
x = next(x for x in json.load(open(p + ".advice.json"))["advice"] if x["kind"] == "persistent")
plan = x["plan"]
plan["mode"] = "aot"
json.dump(plan, open(p + ".plan.json", "w"))
PY
		for r in 1 2 3; do
			"$B/skip" run "$w" --size "$size" --plan "$p.plan.json" -n 50 --warmup 2 \
				--json > "$p.e5.$r.json" 2> "$p.e5.$r.err"
			"$B/skip" run "$w" --size "$size" --executor serial -n 50 --warmup 2 \
				--json > "$p.e1.$r.json" 2> "$p.e1.$r.err"
		done
		python3 - "$p" "$wl" "$size" <<'PY'
import json, sys
p, wl, size = sys.argv[1:4]
x = next(x for x in json.load(open(p + ".advice.json"))["advice"] if x["kind"] == "persistent")
pred, base = x["modes"]["aot"]["predicted_il_ns"] / 1e3, x["baseline_il_ns"] / 1e3
def med(kind):
    v = sorted(json.load(open("%s.%s.%d.json" % (p, kind, r)))["results"][0]["median_ms"] * 1e3
               for r in (1, 2, 3))
    return v[1]
e5, e1 = med("e5"), med("e1")
print("%-9s %-6s E5 predicted %8.1f us, measured %8.1f us, error %+5.1f%%; gain predicted %.2fx, "
      "measured %.2fx" % (wl, size, pred, e5, (pred - e5) / e5 * 100, base / pred, e1 / e5))
PY
	done
done
