#!/bin/sh
# device.sh: the GEMM pair (bench/gemm_pair) on a GPU machine, in one call from the repository
# root (H100, CUDA 13; carry .deps/ for cJSON, SQLite and Criterion):
#   1. build skip, the module and the driver gemmbench
#   2. gemmbench --check: every variant at size "check" (T 256, H 512, D 384) against the CPU,
#      every element, and against the serial run (the executors' verification)
#   3. skip run --verify on both workload files at size "check", every executor (the CLI path)
#   4. the table: every size t128..t2048, the CPU check on sampled elements of every tile, then
#      interleaved rounds of E1, E3, E5 aot full, E5 aot row, E5 jit row (gemmbench.json)
#   5. compute-sanitizer memcheck and racecheck on gemmbench --check
# Logs and results go to $OUT; a summary and the table are printed last. Every step gets a time
# limit out of one budget (DEADLINE seconds, default 500).
#
#   OUT=/tmp/out sh bench/gemm_pair/device.sh      (OUT defaults to ./device-out)
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${B:-build}
DEADLINE=${DEADLINE:-500}
# shellcheck source=bench/device_lib.sh
. bench/device_lib.sh

# step NAME LOG CAP RESERVE COMMAND...: run it under its limit, note how it ended
step() {
	name=$1 log=$2 t=$(limit "$3" "$4")
	shift 4
	timeout "$t" "$@" > "$OUT/$log" 2>&1
	rc=$?
	case $rc in
	0) note "$name: ok ($log)" ;;
	124) note "$name: TIMED OUT after $t s ($log)" ;;
	*) note "$name: exit $rc ($log)"; tail -20 "$OUT/$log" ;;
	esac
}

{
	nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
	uname -r; nproc; git log --oneline -1
} > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt"

build 300 150 "$B/skip" "$B/gemm_pair/gemm_pair.fatbin" "$B/gemm_pair/gemmbench"
GB="$B/gemm_pair/gemmbench --modules $B/gemm_pair --dir bench/gemm_pair"

# shellcheck disable=SC2086
step "gemmbench --check (CPU reference, every element)" check.txt 120 200 $GB --check
for w in mlp_full mlp; do
	step "skip run $w.json --size check --executor all --verify" "run_$w.txt" 60 180 \
		env SKIP_MODULE_PATH="$PWD/$B/gemm_pair" "$B/skip" run "bench/gemm_pair/$w.json" \
		--size check --executor all --verify
	step "skip run $w.json --size check --executor persistent --mode jit --verify" \
		"run_${w}_jit.txt" 60 160 env SKIP_MODULE_PATH="$PWD/$B/gemm_pair" "$B/skip" run \
		"bench/gemm_pair/$w.json" --size check --executor persistent --mode jit --verify
done
# shellcheck disable=SC2086
step "gemmbench (the table)" gemmbench.txt 240 100 $GB --json "$OUT/gemmbench.json"
for tool in memcheck racecheck; do
	if [ -z "$SAN" ]; then
		note "$tool: compute-sanitizer not found on this machine (skipped)"
		continue
	fi
	# shellcheck disable=SC2086
	step "$tool" "$tool.log" 120 "$([ $tool = memcheck ] && echo 50 || echo 0)" \
		"$SAN" --tool $tool --error-exitcode 99 --print-limit 20 --report-api-errors no $GB --check
	grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1
done

echo
echo "=== summary ($(( $(date +%s) - T0 )) s)"
printf "%b\n" "$status"
echo
sed -n '/^GEMM pair/,$p' "$OUT/check.txt"
sed -n '/^GEMM pair/,$p' "$OUT/gemmbench.txt"
