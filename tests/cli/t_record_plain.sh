# skip record on programs that use no CUDA (runs everywhere): exit codes propagate, runs and
# sweep parameters are stored, existing files are not overwritten without -f.
. "$(dirname "$0")/lib.sh"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
cd "$TMPDIR" || exit 1

expect_exit 3 "$SKIP" record -q -o a.skip.db -- sh -c 'exit 3'
[ "$(sql a.skip.db "SELECT status || ' ' || exitCode FROM SKIP_RUNS")" = "failed 3" ] ||
	fail "run status not stored"
expect_exit 2 "$SKIP" record -q -o a.skip.db -- true
expect_out "a.skip.db exists; use -f to overwrite it"
expect_exit 0 "$SKIP" record -q -f -o a.skip.db -- true
[ "$(sql a.skip.db "SELECT count(*) FROM SKIP_RUNS")" = 1 ] || fail "-f did not start afresh"

# A program killed by a signal: 128 + N, and the run says how it ended.
expect_exit 143 "$SKIP" record -q -o sig.skip.db -- sh -c 'kill -TERM $$'
expect_out "killed by signal 15"
[ "$(sql sig.skip.db "SELECT status || ' ' || exitSignal FROM SKIP_RUNS")" = "signaled 15" ] ||
	fail "signal not stored"

# A missing program: 127 and a clear message.
expect_exit 127 "$SKIP" record -q -o miss.skip.db -- ./no-such-program
expect_out "cannot run './no-such-program'"

# Sweep x repeat: 2 x 3 runs, interleaved; {n} substituted; SKIP_PARAM_N set.
expect_exit 0 "$SKIP" record -q -o s.skip.db --label lbl --repeat 2 --sweep n=1,2,4 -- \
	sh -c 'test "$SKIP_PARAM_N" = {n}'
[ "$(sql s.skip.db "SELECT count(*) FROM SKIP_RUNS WHERE status = 'ok' AND label = 'lbl'")" = 6 ] ||
	fail "expected 6 successful runs"
[ "$(sql s.skip.db "SELECT group_concat(value, ' ') FROM (SELECT value FROM SKIP_PARAMETERS ORDER BY runId)")" = "1 2 4 1 2 4" ] ||
	fail "sweep values not interleaved"
[ "$(sql s.skip.db "SELECT sum(numericValue) FROM SKIP_PARAMETERS")" = "14.0" ] ||
	fail "numeric parameter values"
[ "$(sql s.skip.db "SELECT parameters FROM SKIP_RUNS WHERE runId = 3")" = '{"n": "4"}' ] ||
	fail "parameters JSON"
[ "$(sql s.skip.db "SELECT max(repetition) FROM SKIP_RUNS")" = 1 ] || fail "repetition index"

# The last failing run's code is returned, and every run is still recorded.
expect_exit 5 "$SKIP" record -q -o f.skip.db --sweep c=5,0 -- sh -c 'exit {c}'
[ "$(sql f.skip.db "SELECT count(*) FROM SKIP_RUNS")" = 2 ] || fail "both runs stored"
expect_exit 0 "$SKIP" info f.skip.db
expect_out "(1 failed)"
[ ! -e f.skip.db.parts ] || fail "empty parts folder left behind"
exit 0
