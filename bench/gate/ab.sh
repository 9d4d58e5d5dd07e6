#!/bin/sh
# ab.sh [OUT]: skip gate on real A/B recordings (docs/skip-gate.md "A/B on the H100"). On a GPU
# machine, from the repository root or anywhere:
#   sh bench/gate/ab.sh /tmp/gate-ab
# It builds skip and bench/apps/gate_ab, then records with skip record --repeat $REPEAT:
#   base         gate_ab as it is
#   slow5        ab_gemm 5% slower (--slow 5); ab_gemm is 72% of a step (601 of 831 us on
#                the H100), so IL +3.6%
#   slow10       ab_gemm 10% slower: IL +7.2%
#   slow25       ab_gemm 25% slower: IL +18%
#   extra        $EXTRA more tiny launches per step (--extra-launches), big kernels unchanged
#   sameNa/b     gate_ab as it is, recorded twice, for N = 1..5 (false alarms)
# then gates each candidate against base (sameNb against sameNa) --region step, at the defaults
# and at --max-regress 2, keeps each gate's JSON, Markdown and JUnit and each skip diff under
# OUT, and prints one table. The traces (OUT/*.skip.db) are the fixtures to keep.
# Environment: O (build tree, default build), REPEAT (10), STEPS (30), EXTRA (50); RECORD=0
# gates and tabulates the traces already in OUT without building or recording.
set -u
OUT=${1:-gate-ab-out}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
O=${O:-build}
REPEAT=${REPEAT:-10}
STEPS=${STEPS:-30}
EXTRA=${EXTRA:-50}
SKIP=$PWD/$O/skip
APP=$PWD/$O/apps/gate_ab

record_all() {
	make -j"$(nproc)" O="$O" all "$O/apps/gate_ab" > "$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log"; exit 1; }
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
		> "$OUT/gpu.txt" 2>&1
	echo "GPU: $(head -1 "$OUT/gpu.txt"); skip record --repeat $REPEAT, $STEPS steps per run"
	t0=$(date +%s)
	record base
	record slow5 --slow 5
	record slow10 --slow 10
	record slow25 --slow 25
	record extra --extra-launches "$EXTRA"
	for n in 1 2 3 4 5; do
		record "same${n}a"
		record "same${n}b"
	done
	echo "recorded in $(( $(date +%s) - t0 )) s"
}

# record NAME ARGS...: OUT/NAME.skip.db, REPEAT runs of gate_ab ARGS.
record() {
	name=$1
	shift
	rm -f "$OUT/$name.skip.db"
	"$SKIP" record -q -o "$OUT/$name.skip.db" --repeat "$REPEAT" --label "gate_ab $name" -- \
		"$APP" --steps "$STEPS" "$@" > "$OUT/$name.log" 2>&1 ||
		{ echo "recording $name failed:"; tail -5 "$OUT/$name.log"; exit 1; }
	printf '  %-8s %s\n' "$name" "$(grep -m1 '^APP' "$OUT/$name.log" | cut -d' ' -f3-)"
}

[ "${RECORD:-1}" = 0 ] || record_all

# gate NAME BASE CAND: both gates and the diff, kept under OUT; prints "exit_default exit_2pct".
gate() {
	"$SKIP" gate "$OUT/$2.skip.db" "$OUT/$3.skip.db" --region step --json \
		> "$OUT/gate_$1.json" 2> "$OUT/gate_$1.err"
	d=$?
	"$SKIP" gate "$OUT/$2.skip.db" "$OUT/$3.skip.db" --region step --max-regress 2 \
		--markdown "$OUT/gate_$1.md" --junit "$OUT/gate_$1.xml" > "$OUT/gate_$1.txt" 2>&1
	p=$?
	"$SKIP" diff "$OUT/$2.skip.db" "$OUT/$3.skip.db" --region step --top 5 \
		> "$OUT/diff_$1.txt" 2>&1
	echo "$d $p"
}

rm -f "$OUT"/gate_*.md "$OUT"/gate_*.xml
{
	for c in "slow5 base slow5 IL+3.6%" "slow10 base slow10 IL+7.2%" \
		"slow25 base slow25 IL+18%" "extra base extra IL-up,ab_tiny-new"; do
		set -- $c
		echo "$1 $4 $(gate "$1" "$2" "$3")"
	done
	for n in 1 2 3 4 5; do
		echo "same$n pass $(gate "same$n" "same${n}a" "same${n}b")"
	done
} > "$OUT/exits.txt"

python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
word = {0: "pass", 1: "REGRESSION", 2: "no decision"}

def top_kernel(name):
    """The first row of the diff's kernel table: name, change words, GPU time, share."""
    lines = open(os.path.join(out, "diff_%s.txt" % name)).read().splitlines()
    for i, l in enumerate(lines):
        if l.startswith("Kernels") and i + 2 < len(lines):
            row = lines[i + 2]  # the columns of skip_diff_print(): name 28, change 13
            f = row[45:].split()
            if len(f) < 4:
                return "-"
            return "%s: %s, %s %s (%s of the IL change)" % (
                row[2:30].strip(), row[31:44].strip(), f[-3], f[-2], f[-1])
    return "-"

print("\n| case | expected | IL change [99% interval] | p | gate (defaults: 5%) | gate "
      "(--max-regress 2) | TKLQT change | top of skip diff |")
print("|---|---|---|---:|---|---|---|---|")
for line in open(os.path.join(out, "exits.txt")):
    name, expected, d, p = line.split()
    try:
        g = json.load(open(os.path.join(out, "gate_%s.json" % name)))
    except ValueError:
        err = open(os.path.join(out, "gate_%s.err" % name)).read().strip()
        print("| %s | %s | %s | | %s | %s | | |" % (name, expected, err, word.get(int(d)),
                                                   word.get(int(p))))
        continue
    t = {x["metric"]: x for x in g["tests"]}
    il, tk = t.get("il", {}), t.get("tklqt", {})
    med = il.get("baseline_median") or 1
    lo, hi = il.get("interval_low"), il.get("interval_high")
    iv = "[%+.1f%%, %+.1f%%]" % (100 * lo / med, 100 * hi / med) if lo is not None else "-"
    print("| %s | %s | %+.1f%% %s | %.2g | %s | %s | %+.1f%% | %s |" % (
        name, expected, 100 * (il.get("change") or 0), iv, il.get("p_worse", 1),
        word.get(int(d)), word.get(int(p)), 100 * (tk.get("change") or 0), top_kernel(name)))
PY
echo "details: $OUT/gate_*.txt (tables), gate_*.md, gate_*.xml, gate_*.json, diff_*.txt"
