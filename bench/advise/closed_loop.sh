#!/bin/sh
# closed_loop.sh: skip advise's predictions checked by measurement, on a GPU machine after
# `make all bench` (docs/BENCHMARKS.md "skip advise: closed loop on the DAG suite (`bench/advise`)";
# bench/advise/table.py makes the tables).
#
#   sh bench/advise/closed_loop.sh OUTDIR [ROUNDS]
#
# The machine's costs drift between a fast and a slow state within minutes
# (docs/advise-calibration.md "Calibration: what each figure is and how it is derived", "The
# built-in values"),
# so the calibration is sampled throughout the loop, not only before it. One calibration pair:
# build/apps/advise_calib bare, then under skip record; `skip run
# bench/advise/launch_calib.json` bare, then under skip record (the profiler's cost on the
# runtime's own launch path).
# 1. three calibration pairs -> OUTDIR/machine0.cal.json (bench/advise/calibrate.py).
# 2. each DAG of bench/dags at its launch-bound (small) size: one more calibration pair; record
#    the serial executor (three runs, which skip advise pools); `skip run --probe-starts`
#    measures what a kernel start costs each task (NAME.starts.json); skip advise with
#    machine0.cal.json and those start costs (without them: STARTS=0) writes the plan (-o
#    NAME.plan.json); then ROUNDS interleaved rounds of:
#    serial, the plan, every executor, each a fresh `skip run` process of 50 timed iterations
#    after 3 warm-up ones (unprofiled), and a bare launch_calib run (NAME.lcal.R.json: the
#    host's launch cost during the DAG's rounds, which drifts within minutes). Two more
#    recordings like the first (NAME.2.db in the middle of the rounds, NAME.3.db after them)
#    sample the machine's drift as the rounds do. Also records E2 and E3 once each
#    (NAME.streams.db, NAME.graph.db), to compare with the model's programs.
#    Then its mechanics replica (bench/advise/replica.py: the same DAG of adv_spin kernels of
#    the recorded durations, NAME_spin.json): recorded three times, ROUNDS rounds of
#    `--executor all`.
# 3. launch_chain --chain 20: record the plain steps in three traces of three runs each (one
#    recording's profiler cost per launch varied from 0.5 to 3.4 us; skip advise --region
#    pools a trace's runs), then ROUNDS interleaved rounds of the plain program and its
#    hand-written CUDA-graph variant.
# 3b. two_streams --kernels 20 (a round: 20 kernels on a stream, an event, 20 on another
#    stream that waits for it, a synchronize): ROUNDS bare runs of 2,000 rounds, recorded
#    (300 rounds) in the first, middle and last: skip advise's unprofiled baseline of a round
#    (the graph item's "now") against the measured one.
# 4. every calibration pair -> OUTDIR/machine.cal.json; the predictions the tables compare
#    (NAME.advice.json, NAME.2/3.advice.json, chain.N.advice.json) are skip advise's with it,
#    on the same recordings; NAME[.2/.3].starts.advice.json also with the start costs;
#    table.py takes the median over a DAG's three recordings. NAME[.2/.3].window.advice.json:
#    the same with the start costs and NAME.window.cal.json, the calibration whose
#    runtime_launch_ns comes from the launch_calib runs of the DAG's own rounds.
#    The plans written in step 2 are what ran; the final advice must pick the same executor
#    (table.py says so when it does not). The replicas are advised with remote_read_cost 0
#    (their kernels read nothing), sm_share_rate 1 (they wait on a timer) and the empty
#    kernel's node gap (they write nothing): NAME_spin.advice.json.
set -u
out=${1:?usage: closed_loop.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
B=${O:-build}
export SKIP_MODULE_PATH=$B/dags
mkdir -p "$out"
say() { echo "closed_loop: $*" >&2; }
npairs=0

calib_pair() { # alternated bare and recorded runs: the machine is noisy
	npairs=$((npairs + 1))
	"$B/apps/advise_calib" >> "$out/calib_bare.txt" || exit 1
	"$B/skip" record -q -f -o "$out/calib.db" -- "$B/apps/advise_calib" \
		>> "$out/calib_prof.txt" || exit 1
	$lcal > "$out/lcal_bare.$npairs.json" || exit 1
	"$B/skip" record -q -f -o "$out/lcal.db" -- $lcal > "$out/lcal_prof.$npairs.json" || exit 1
	rm -f "$out"/*.db-wal "$out"/*.db-shm
}

calibrate() { # -> $1
	python3 bench/advise/calibrate.py "$out/calib_bare.txt" "$out/calib_prof.txt" \
		"$out/calib.db" "$out" > "$1" 2> "$out/calib_extra.json" || exit 1
}

say "calibration"
lcal="$B/skip run bench/advise/launch_calib.json -n 200 --warmup 20 --json"
calib_pair
calib_pair
calib_pair
calibrate "$out/machine0.cal.json"

for d in vec bs ml hits img dl m1 m2; do
	say "$d"
	calib_pair
	w=bench/dags/$d.json
	run="$B/skip run $w --size small -n 50 --warmup 3 --json"
	"$B/skip" record -q --repeat 3 -o "$out/$d.db" -- "$B/skip" run "$w" --size small \
		--executor serial -n 50 --warmup 3 > "$out/$d.rec.txt" 2>&1 ||
		{ say "$d: record failed"; continue; }
	"$B/skip" run "$w" --size small --probe-starts --json > "$out/$d.starts.json" ||
		{ say "$d: probe failed"; continue; }
	pst="--starts $out/$d.starts.json" # STARTS=0: the plan of a model without kernel starts
	[ "${STARTS:-1}" = 0 ] && pst=
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small \
		--calibration "$out/machine0.cal.json" $pst -o "$out/$d.plan.json" \
		> "$out/$d.advise0.txt" 2>&1
	for e in streams graph; do # what E2 and E3 really did, to compare with the model
		"$B/skip" record -q -o "$out/$d.$e.db" -- "$B/skip" run "$w" --size small \
			--executor $e -n 50 --warmup 3 > /dev/null 2>&1
	done
	rec() { # a recording of three serial runs -> $1
		"$B/skip" record -q --repeat 3 -o "$1" -- "$B/skip" run "$w" --size small \
			--executor serial -n 50 --warmup 3 > /dev/null 2>&1
	}
	for r in $(seq "$rounds"); do
		$run --executor serial > "$out/$d.serial.$r.json"
		$run --plan "$out/$d.plan.json" > "$out/$d.plan.$r.json"
		$run --executor all > "$out/$d.all.$r.json"
		$lcal > "$out/$d.lcal.$r.json"
		[ "$r" = $(((rounds + 1) / 2)) ] && rec "$out/$d.2.db"
	done
	rec "$out/$d.3.db"
	rm -f "$out"/$d*.db-wal "$out"/$d*.db-shm
	s=${d}_spin
	python3 bench/advise/replica.py "$w" "$out/$d.db" "$out/$s.json" || continue
	"$B/skip" record -q --repeat 3 -o "$out/$s.db" -- "$B/skip" run "$out/$s.json" --size small \
		--executor serial -n 50 --warmup 3 > "$out/$s.rec.txt" 2>&1 ||
		{ say "$s: record failed"; continue; }
	for r in $(seq "$rounds"); do
		"$B/skip" run "$out/$s.json" --size small -n 50 --warmup 3 --json --executor all \
			> "$out/$s.all.$r.json"
	done
done

say "launch_chain"
calib_pair
for i in 1 2 3; do # three runs each, which skip advise --region pools
	"$B/skip" record -q --repeat 3 -o "$out/chain.$i.db" -- "$B/apps/launch_chain" \
		--chain 20 --steps 300 > "$out/chain.rec.txt" 2>&1
done
"$B/skip" record -q -o "$out/chain.graph.db" -- "$B/apps/launch_chain" --chain 20 --steps 300 \
	--graph > /dev/null 2>&1
for r in $(seq "$rounds"); do
	"$B/apps/launch_chain" --chain 20 --steps 2000 >> "$out/chain.plain.txt"
	"$B/apps/launch_chain" --chain 20 --steps 2000 --graph >> "$out/chain.graph.txt"
done

say "two_streams"
for r in $(seq "$rounds"); do
	"$B/apps/two_streams" --kernels 20 --rounds 2000 >> "$out/two.bare.txt"
	case $r in 1 | $(((rounds + 1) / 2)) | "$rounds")
		"$B/skip" record -q -o "$out/two.$r.db" -- "$B/apps/two_streams" --kernels 20 \
			--rounds 300 > /dev/null 2>&1 ;;
	esac
done

say "advice ($npairs calibration pairs)"
calibrate "$out/machine.cal.json"
cal="--calibration $out/machine.cal.json"
python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); x = json.load(open(sys.argv[3]))
c["remote_read_cost"] = 0
c["sm_share_rate"] = 1
c["graph_node_gap_ns"] = x.get("empty_node_gap_ns", c["graph_node_gap_ns"])
json.dump(c, open(sys.argv[2], "w"), indent=1)' "$out/machine.cal.json" "$out/machine_spin.cal.json" \
	"$out/calib_extra.json"
for d in vec bs ml hits img dl m1 m2; do
	[ -f "$out/$d.db" ] || continue
	w=bench/dags/$d.json
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small $cal > "$out/$d.advise.txt" 2>&1
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small $cal --json \
		> "$out/$d.advice.json"
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small --json \
		> "$out/$d.advice_default.json"
	"$B/skip" advise "$out/$d.db" --workload "$w" --size small $cal \
		--starts "$out/$d.starts.json" --json > "$out/$d.starts.advice.json"
	wcal= # the launch cost of the DAG's own rounds
	python3 bench/advise/calibrate.py "$out/calib_bare.txt" "$out/calib_prof.txt" \
		"$out/calib.db" "$out" --launch-runs "$out/$d.lcal.*.json" \
		> "$out/$d.window.cal.json" 2> /dev/null &&
		wcal="--calibration $out/$d.window.cal.json --starts $out/$d.starts.json"
	[ -n "$wcal" ] && "$B/skip" advise "$out/$d.db" --workload "$w" --size small $wcal \
		--json > "$out/$d.window.advice.json"
	for i in 2 3; do # the recordings taken in the middle and at the end of the rounds
		[ -f "$out/$d.$i.db" ] || continue
		"$B/skip" advise "$out/$d.$i.db" --workload "$w" --size small $cal --json \
			> "$out/$d.$i.advice.json"
		"$B/skip" advise "$out/$d.$i.db" --workload "$w" --size small $cal \
			--starts "$out/$d.starts.json" --json > "$out/$d.$i.starts.advice.json"
		[ -n "$wcal" ] && "$B/skip" advise "$out/$d.$i.db" --workload "$w" --size small \
			$wcal --json > "$out/$d.$i.window.advice.json"
	done
	[ -f "$out/${d}_spin.db" ] && "$B/skip" advise "$out/${d}_spin.db" --workload \
		"$out/${d}_spin.json" --size small --calibration "$out/machine_spin.cal.json" --json \
		> "$out/${d}_spin.advice.json"
done
for i in 1 2 3; do
	"$B/skip" advise "$out/chain.$i.db" --region step $cal > "$out/chain.$i.advise.txt" 2>&1
	"$B/skip" advise "$out/chain.$i.db" --region step $cal --json > "$out/chain.$i.advice.json"
	"$B/skip" advise "$out/chain.$i.db" --region step --json \
		> "$out/chain.$i.advice_default.json"
done
for t in "$out"/two.[0-9]*.db; do
	[ -f "$t" ] || continue
	"$B/skip" advise "$t" $cal --json > "${t%.db}.advice.json"
	"$B/skip" advise "$t" --json > "${t%.db}.advice_default.json"
done
say "done"
