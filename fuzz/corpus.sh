#!/bin/sh
# corpus.sh TARGET DIR: write the seed corpus of fuzz target TARGET into DIR (replaced), from
# the fixtures and fuzz/seeds/TARGET. Run from the source root (mk/fuzz.mk does).
#   trace     the hand-built traces (tests/fixtures/hand: common.sql + each) and the smallest
#             recorded ones, stored with 512-byte pages so that a seed is some 20 KB
#   sql       "\0" (the base: common.sql alone) + each tests/fixtures/hand/*.sql
#   workload  bench/dags/*.json, tests/fixtures/hand/advise_wl.json
#   import    tests/fixtures/torchprof/*.json (hand-written torch.profiler traces)
#   plan, expr, calib: fuzz/seeds/TARGET only
# and every target: fuzz/seeds/TARGET/* (hand-written).
set -eu
t=$1
dir=$2
hand=tests/fixtures/hand
schema_version=$(sed -n 's/^#define SKIP_SCHEMA_VERSION \([0-9]*\).*/\1/p' common/skip_common.h)
rm -rf "$dir"
mkdir -p "$dir"

# small_db OUT: stdin (SQL) into a trace with 512-byte pages, one file (no WAL).
small_db() {
	{ cat schemas/trace.sql; echo "PRAGMA user_version=$schema_version;"; cat
	  echo "PRAGMA page_size=512; VACUUM;"; } | sqlite3 "$1" >/dev/null
}

case $t in
trace)
	for f in "$hand"/*.sql; do
		n=$(basename "$f" .sql)
		[ "$n" = common ] && continue
		cat "$hand/common.sql" "$f" | small_db "$dir/hand_$n.skip.db"
	done
	cat "$hand/common.sql" "$hand/advise_wl.sql" "$hand/advise_wl_run2.sql" |
		small_db "$dir/hand_advise_wl_2runs.skip.db"
	for f in h100_graph h100_memops h100_nvtx_threads h100_cublas; do
		cp tests/fixtures/$f.skip.db "$dir/$f.skip.db"
		sqlite3 "$dir/$f.skip.db" "PRAGMA page_size=512; VACUUM;" >/dev/null
	done
	;;
sql)
	for f in "$hand"/*.sql; do
		n=$(basename "$f" .sql)
		[ "$n" = common ] && continue
		{ printf '\000'; cat "$f"; } > "$dir/hand_$n.sql"
	done
	;;
workload)
	cp bench/dags/*.json "$dir/"
	cp "$hand/advise_wl.json" "$dir/"
	;;
import)
	cp tests/fixtures/torchprof/*.json "$dir/"
	;;
plan | expr | calib) ;;
*)
	echo "corpus.sh: unknown target '$t'" >&2
	exit 2
	;;
esac
if [ -d "fuzz/seeds/$t" ]; then
	for f in "fuzz/seeds/$t"/*; do
		[ -f "$f" ] && cp "$f" "$dir/seed_$(basename "$f")"
	done
fi
exit 0
