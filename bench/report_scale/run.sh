#!/bin/sh
# run.sh [KERNELS] [ROUNDS]: time and peak memory of `skip report` on a synthetic trace of
# KERNELS kernels (default 10,000,000), ROUNDS times (default 3); prints a table.
# Target (docs/BENCHMARKS.md): under 10 s and 2 GiB on a 2-core machine.
set -eu
cd "$(dirname "$0")/../.."
N=${1:-10000000}
R=${2:-3}
O=${O:-build}
TRACE=${TRACE_DIR:-/tmp}/report_scale_$N.skip.db
make -s O="$O" all "$O/bench/report_scale_gen" >/dev/null
if [ ! -e "$TRACE" ]; then
	echo "generating $TRACE ..."
	t0=$(date +%s)
	"$O/bench/report_scale_gen" "$TRACE.tmp" "$N" && mv "$TRACE.tmp" "$TRACE"
	echo "generated in $(( $(date +%s) - t0 )) s, $(du -h "$TRACE" | cut -f1)"
fi
echo "| round | command | wall s | user s | sys s | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
for r in $(seq 1 "$R"); do
	for args in "" "--region step"; do
		/usr/bin/time -f "%e %U %S %M" -o /tmp/report_scale.time \
			"$O/skip" report --no-color $args "$TRACE" > /tmp/report_scale.out
		read -r wall user sys rss < /tmp/report_scale.time
		echo "| $r | skip report $args | $wall | $user | $sys | $((rss / 1024)) |"
	done
done
head -3 /tmp/report_scale.out
