#!/bin/sh
# closed_loop.sh: skip advise's predictions checked by measurement, on a GPU machine after
# `make all bench` (docs/BENCHMARKS.md "skip advise"; bench/advise/table.py makes the tables).
#
#   sh bench/advise/closed_loop.sh OUTDIR [ROUNDS]
#
# 1. calibration: build/apps/advise_calib bare and under skip record, three times each,
#    alternated, and five alternated pairs of `skip run bench/advise/launch_calib.json` bare
#    and recorded (the profiler's cost on the runtime's own launch path)
#    -> OUTDIR/machine.cal.json
# 2. each DAG of bench/dags at its launch-bound (small) size: record the serial executor (three
#    runs, which skip advise pools), advise (-o plan.json), then ROUNDS interleaved rounds of: serial, the plan, every executor, each
#    a fresh `skip run` process of 50 timed iterations after 3 warm-up ones (unprofiled).
#    Also records E2 and E3 once each (OUTDIR/NAME.streams.db, NAME.graph.db), to compare with
#    the model's programs.
# 3. launch_chain --chain 20: record the plain steps, advise --region step, then ROUNDS
#    interleaved rounds of the plain program and its hand-written CUDA-graph variant.
set -u
out=${1:?usage: closed_loop.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
B=${O:-build}
export SKIP_MODULE_PATH=$B/dags
mkdir -p "$out"
say() { echo "closed_loop: $*" >&2; }

say "calibration"
for i in 1 2 3; do # alternated: the machine is noisy
	"$B/apps/advise_calib" >> "$out/calib_bare.txt" || exit 1
	"$B/skip" record -q -o "$out/calib.$i.db" -- "$B/apps/advise_calib" \
		>> "$out/calib_prof.txt" || exit 1
done
lcal="$B/skip run bench/advise/launch_calib.json -n 200 --warmup 20 --json"
for i in 1 2 3 4 5; do
	$lcal > "$out/lcal_bare.$i.json" || exit 1
	"$B/skip" record -q -f -o "$out/lcal.db" -- $lcal > "$out/lcal_prof.$i.json" || exit 1
done
mv "$out/calib.1.db" "$out/calib.db"
rm -f "$out/calib.2.db" "$out/calib.3.db" "$out"/*.db-wal "$out"/*.db-shm
python3 bench/advise/calibrate.py "$out/calib_bare.txt" "$out/calib_prof.txt" "$out/calib.db" \
	"$out" > "$out/machine.cal.json" 2> "$out/calib_extra.json" || exit 1
cal="--calibration $out/machine.cal.json"

for d in vec bs ml hits img dl m1 m2; do
	say "$d"
	w=bench/dags/$d.json
	run="$B/skip run $w --size small -n 50 --warmup 3 --json"
	"$B/skip" record -q --repeat 3 -o "$out/$d.db" -- "$B/skip" run "$w" --size small \
		--executor serial -n 50 --warmup 3 > "$out/$d.rec.txt" 2>&1 ||
		{ say "$d: record failed"; continue; }
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small $cal -o "$out/$d.plan.json" \
		> "$out/$d.advise.txt" 2>&1
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small $cal --json > "$out/$d.advice.json"
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small --json \
		> "$out/$d.advice_default.json"
	for e in streams graph; do # what E2 and E3 really did, to compare with the model
		"$B/skip" record -q -o "$out/$d.$e.db" -- "$B/skip" run "$w" --size small \
			--executor $e -n 50 --warmup 3 > /dev/null 2>&1
	done
	for r in $(seq "$rounds"); do
		$run --executor serial > "$out/$d.serial.$r.json"
		$run --plan "$out/$d.plan.json" > "$out/$d.plan.$r.json"
		$run --executor all > "$out/$d.all.$r.json"
	done
	rm -f "$out/$d.db-wal" "$out/$d.db-shm"
done

say "launch_chain"
"$B/skip" record -q -o "$out/chain.db" -- "$B/apps/launch_chain" --chain 20 --steps 300 \
	> "$out/chain.rec.txt" 2>&1
"$B/skip" record -q -o "$out/chain.graph.db" -- "$B/apps/launch_chain" --chain 20 --steps 300 \
	--graph > /dev/null 2>&1
"$B/skip" advise "$out/chain.db" --region step $cal > "$out/chain.advise.txt" 2>&1
"$B/skip" advise "$out/chain.db" --region step $cal --json > "$out/chain.advice.json"
"$B/skip" advise "$out/chain.db" --region step --json > "$out/chain.advice_default.json"
for r in $(seq "$rounds"); do
	"$B/apps/launch_chain" --chain 20 --steps 2000 >> "$out/chain.plain.txt"
	"$B/apps/launch_chain" --chain 20 --steps 2000 --graph >> "$out/chain.graph.txt"
done
say "done"
