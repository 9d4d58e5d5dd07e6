# device_lib.sh: what the device scripts under bench/ (dags/device.sh, gemm_pair/device.sh)
# share; they source it from the repository root (. bench/device_lib.sh) after setting OUT:
#   SAN            compute-sanitizer's path, or empty where there is none
#   note LINE      add LINE to $status (the summary printed last) and print it with the time
#   limit CAP RES  seconds a step may take: at most CAP, leaving RES for the steps after it,
#                  out of one budget of DEADLINE seconds (default 530) since the script began
#   build CAP RES TARGET...  make the targets in tree $B (log: $OUT/build.log) within that
#                  limit, or print the log's end and the summary and exit with 1
# shellcheck shell=sh
SAN=$(command -v compute-sanitizer)
for c in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
	"${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/compute-sanitizer"; do
	[ -n "$SAN" ] || { [ -x "$c" ] && SAN=$c; }
done
status=""
T0=$(date +%s)
DEADLINE=${DEADLINE:-530}

note() { status="$status\n  $1"; echo "=== $1 ($(( $(date +%s) - T0 )) s)"; }
limit() {
	l=$((DEADLINE - ($(date +%s) - T0) - $2))
	[ "$l" -gt "$1" ] && l=$1
	[ "$l" -lt 5 ] && l=5
	echo "$l"
}
build() {
	t=$(limit "$1" "$2")
	shift 2
	if timeout "$t" make -j"$(nproc)" O="$B" "$@" > "$OUT/build.log" 2>&1; then
		note "build: ok"
	else
		tail -40 "$OUT/build.log"
		note "build: FAILED (build.log)"
		printf "%b\n" "$status"
		exit 1
	fi
}
