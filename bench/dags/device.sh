#!/bin/sh
# device.sh: everything the bundled runtime needs from a GPU machine, in one call from the
# repository root (H100, CUDA 13.0, no network; carry .deps/ for cJSON, SQLite and Criterion):
#   1. build skip, the runtime tests, the GPU tests and their modules, the DAG modules and the
#      driver
#   2. the runtime's CPU unit tests, then its GPU tests (every executor on every DAG against
#      the serial result, PDL edges, plan round trip, a bad plan refused)
#   3. the DAG-suite table (both sizes, interleaved rounds) and the 10,000-kernel chain
#   4. compute-sanitizer memcheck, racecheck and synccheck on the whole suite at the small size
#      (dagbench --check: every DAG, the hand-written version and E1-E4, one run each)
# Logs and results go to $OUT (at most 7 files); the summary and the tables are printed last.
# Every step gets a time limit out of one budget (DEADLINE seconds, default 530), so the
# whole stays under 9 minutes; what a step could not finish in time is said in the summary.
#
#   sh bench/dags/device.sh            (OUT defaults to ./device-out)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${B:-build}
# shellcheck source=bench/device_lib.sh
. bench/device_lib.sh

{
	nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
	nvcc --version 2>/dev/null | tail -1 || ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc --version | tail -1
	uname -r; nproc; git log --oneline -1
} > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt"

# ---- 1. build ----------------------------------------------------------------------------------
MODS=$(for f in bench/dags/kernels/*.cu tests/gpu/modules/*.cu; do n=$(basename "$f" .cu); echo "$B/dags/$n.fatbin"; done)
# shellcheck disable=SC2086
build 300 200 $B/skip $B/tests/test_runtime $B/tests/test_gpu $MODS $B/dags/dagbench

# ---- 2. tests ----------------------------------------------------------------------------------
{
	echo "== CPU unit tests (runtime)"
	timeout "$(limit 60 180)" $B/tests/test_runtime --jobs=4 2>&1 | tail -5
	echo "== GPU tests (gpu_runtime)"
	SKIP=$PWD/$B/skip SKIP_SRC=$PWD timeout "$(limit 150 170)" $B/tests/test_gpu --filter 'gpu_runtime/*' \
		--jobs=1 --verbose 2>&1
} > "$OUT/tests.log" 2>&1
grep -E '^\[(FAIL|----)\]|gpu_runtime::|Synthesis' "$OUT/tests.log" | grep -v 'RUN ' | head -60
if grep -qE 'Failing: [1-9]|Crashing: [1-9]' "$OUT/tests.log"; then
	note "tests: FAILED (tests.log)"
elif [ "$(grep -c 'Synthesis' "$OUT/tests.log")" != 2 ]; then
	note "tests: did not finish (tests.log)"
else
	note "tests: $(grep Synthesis "$OUT/tests.log" | sed 's/.*Tested/Tested/' | tr '\n' ';')"
fi

# ---- 3. the DAG suite and the chain -------------------------------------------------------------
t=$(limit 300 60)
timeout "$t" $B/dags/dagbench --modules $B/dags --json "$OUT/dags.json" > "$OUT/dagbench.txt" 2>&1
rc=$?
case $rc in
0) note "dagbench: ok (dagbench.txt, dags.json)" ;;
124) note "dagbench: TIMED OUT after $t s (partial dagbench.txt)" ;;
*) note "dagbench: exit $rc (dagbench.txt)" ;;
esac

# ---- 4. compute-sanitizer on the suite at small size --------------------------------------------
for tool in memcheck racecheck synccheck; do
	if [ -z "$SAN" ]; then
		note "$tool: compute-sanitizer not found on this machine (skipped)"
		continue
	fi
	# --report-api-errors no: the runtime asks cuFuncGetParamInfo for the parameter after
	# each kernel's last, to check argument counts, and CUDA_ERROR_INVALID_VALUE is the
	# expected answer; every other CUDA error already fails dagbench itself.
	t=$(limit 120 $([ $tool = memcheck ] && echo 60 || echo 0))
	timeout "$t" "$SAN" --tool $tool --error-exitcode 99 --print-limit 20 --report-api-errors no \
		$B/dags/dagbench --check --sizes small --modules $B/dags > "$OUT/$tool.log" 2>&1
	rc=$?
	summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1)
	case $rc in
	0) note "$tool: clean ($summary)" ;;
	124) note "$tool: TIMED OUT after $t s ($tool.log)" ;;
	*) note "$tool: exit $rc ($summary) ($tool.log)"; grep -m 20 -E '=+ (Invalid|Race|Error|.*hazard)' "$OUT/$tool.log" ;;
	esac
done

echo
echo "=== summary ($(( $(date +%s) - T0 )) s)"
printf "%b\n" "$status"
echo
sed -n '/^DAG suite:/,$p' "$OUT/dagbench.txt"
[ -s "$OUT/dagbench.txt" ] && grep -q '^DAG suite:' "$OUT/dagbench.txt" || tail -30 "$OUT/dagbench.txt"
