#!/bin/sh
# run.sh TARGET FUZZ_O SECONDS: fuzz one target for SECONDS (mk/fuzz.mk, `make fuzz`).
#
# The seeds (fuzz/corpus.sh) go to FUZZ_O/seeds/TARGET, read only; what the run finds is kept in
# FUZZ_O/corpus/TARGET, so a later run starts where this one stopped. A crash, a sanitizer
# report, a leak or a timeout fails the run and leaves the input in FUZZ_O/artifacts/TARGET/;
# fuzz/README.md says how it becomes a regression input. Extra libFuzzer flags: FUZZ_FLAGS.
set -eu
t=$1
o=$2
secs=$3
bin=$o/fuzz/fuzz_$t
seeds=$o/seeds/$t
corpus=$o/corpus/$t
art=$o/artifacts/$t
log=$o/logs/fuzz_$t.log
mkdir -p "$corpus" "$art" "$(dirname "$log")"
sh fuzz/corpus.sh "$t" "$seeds"

# Per target: the largest input worth trying (a trace seed is some 20-100 KB), a dictionary.
case $t in
trace) max_len=131072 ;;
sql | workload | plan | import) max_len=16384 ;;
*) max_len=4096 ;;
esac
dict=
[ -f "fuzz/dict/$t.dict" ] && dict="-dict=fuzz/dict/$t.dict"

echo "  FUZZ    $t (${secs} s)"
# -close_fd_mask=3: the targets' own stdout and stderr (refusal messages) are not wanted;
# libFuzzer and the sanitizers still report on a copy of stderr.
# shellcheck disable=SC2086
if ! "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -max_len="$max_len" \
	-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art/" $dict ${FUZZ_FLAGS:-} \
	"$corpus" "$seeds" > "$log" 2>&1; then
	grep -E "ERROR|runtime error|SUMMARY|Test unit written|^    #[0-9]+ " "$log" | head -40
	echo "skip: fuzz_$t found a failing input ($art/); log: $log"
	echo "skip: reproduce it with $bin FILE; fuzz/README.md says how it becomes a regression input"
	exit 1
fi
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
# cov: edges reached, of all the instrumented edges linked in (every library the target links).
edges=$(sed -n 's/^INFO: Loaded 1 modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log")
cov=$(grep -E '^#[0-9]+' "$log" | tail -1 |
	sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1 of '"$edges"' edges, ft \2, corpus \3/p')
echo "  FUZZ    $t: $execs runs, $rate/s, $cov"
