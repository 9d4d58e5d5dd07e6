# skip record gathers the per-process files of each run into the output (here written by a
# stand-in program with two "processes", as the collector would write them), and keeps a file
# it cannot merge, saying so.
. "$(dirname "$0")/lib.sh"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/schemas/trace.sql"
export SCHEMA
cd "$TMPDIR" || exit 1
cat > fakeapp.sh <<'APP'
# part PID KERNEL N: a per-process trace in $SKIP_OUT_DIR, with N kernels named KERNEL.
part() {
	{
		cat "$SCHEMA"
		echo "PRAGMA user_version = 3; INSERT INTO StringIds VALUES (1, 'pad'), (2, '$2');"
		i=0
		while [ $i -lt "$3" ]; do
			echo "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(runId, start, end, deviceId,
			  contextId, streamId, correlationId, globalPid, demangledName, shortName,
			  registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,
			  staticSharedMemory, dynamicSharedMemory) VALUES ($SKIP_RUN_ID, $i, $i + 1, 0, 1,
			  7, $i, $1 << 24, 2, 2, 8, 1, 1, 1, 32, 1, 1, 0, 0);"
			i=$((i + 1))
		done
	} | sqlite3 "$SKIP_OUT_DIR/p$1-r$SKIP_RUN_ID.skip.db"
}
part 100 kernel_a 3
part 101 kernel_b 2
[ -z "${BAD:-}" ] || echo "not a database" > "$SKIP_OUT_DIR/p102-r$SKIP_RUN_ID.skip.db"
exit 0
APP

expect_exit 0 "$SKIP" record -q -o m.skip.db --repeat 2 -- sh fakeapp.sh
[ "$(sql m.skip.db "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")" = 10 ] || fail "10 kernels"
[ "$(sql m.skip.db "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName WHERE s.value = 'kernel_b' AND runId = 2")" = 2 ] ||
	fail "names remapped per file and run"
[ "$(sql m.skip.db "SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL")" = 2 ] ||
	fail "two processes"
[ ! -e m.skip.db.parts ] || fail "merged parts should be removed"
[ "$(sql m.skip.db "PRAGMA journal_mode")" = delete ] || fail "the output is one self-contained file"

BAD=1 expect_exit 0 "$SKIP" record -o b.skip.db -- sh fakeapp.sh
expect_out "could not be merged; kept in b.skip.db.parts"
expect_out "p102-r1.skip.db: not a skip trace"
[ -e b.skip.db.parts/p102-r1.skip.db ] || fail "the unmergeable file is kept"
[ "$(sql b.skip.db "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")" = 5 ] ||
	fail "the good parts are merged"
exit 0
