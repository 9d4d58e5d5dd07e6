# skip record --baseline on programs that use no CUDA (runs everywhere): its argument rules, the
# interleaved order of full and baseline runs, their kinds, and what the collector is told.
. "$(dirname "$0")/lib.sh"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
cd "$TMPDIR" || exit 1

# Usage errors: nothing to compare with one run; a full recording that is a baseline already.
expect_exit 2 "$SKIP" record -q --baseline -o u.skip.db -- true
expect_out "--baseline compares runs: give --repeat N (N >= 2) or --sweep"
expect_exit 2 "$SKIP" record -q --baseline --repeat 1 -o u.skip.db -- true
expect_out "--baseline compares runs"
expect_exit 2 "$SKIP" record -q --baseline --repeat 2 --trace nvtx -o u.skip.db -- true
expect_out "--baseline with --trace nvtx: the full runs would record what the baseline runs"
[ ! -e u.skip.db ] || fail "a usage error writes no file"

# --repeat 2: full, baseline, full, baseline; each child sees its own SKIP_TRACE.
expect_exit 0 "$SKIP" record -o r.skip.db --repeat 2 --baseline -- \
	sh -c 'echo "$SKIP_RUN_ID $SKIP_TRACE" >> seen.txt'
expect_out "run 2/4 (repetition 1/2, baseline)"
[ "$(sql r.skip.db "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM SKIP_RUNS ORDER BY runId)")" = "full baseline full baseline" ] ||
	fail "kinds not interleaved A B A B"
[ "$(sql r.skip.db "SELECT group_concat(repetition, ' ') FROM (SELECT repetition FROM SKIP_RUNS ORDER BY runId)")" = "0 0 1 1" ] ||
	fail "a baseline run belongs to its full run's repetition"
[ "$(cat seen.txt | tr '\n' ';')" = "1 cuda,nvtx,sync,overhead;2 nvtx;3 cuda,nvtx,sync,overhead;4 nvtx;" ] ||
	fail "SKIP_TRACE per run: $(cat seen.txt)"
expect_exit 0 "$SKIP" info r.skip.db
expect_out "2 baseline"

# --sweep with --repeat 1: one full and one baseline run per value, same parameters.
expect_exit 0 "$SKIP" record -q -o s.skip.db --sweep n=1,2 --baseline -- true
[ "$(sql s.skip.db "SELECT group_concat(kind || ':' || parameters, ' ') FROM (SELECT kind, parameters FROM SKIP_RUNS ORDER BY runId)")" = 'full:{"n": "1"} baseline:{"n": "1"} full:{"n": "2"} baseline:{"n": "2"}' ] ||
	fail "sweep with baseline runs"
[ "$(sql s.skip.db "SELECT count(*) FROM SKIP_PARAMETERS")" = 4 ] || fail "parameters per run"
[ "$(sql s.skip.db "SELECT value FROM SKIP_METADATA WHERE key = 'baseline'")" = nvtx ] ||
	fail "the recording says it has baseline runs"

# Without --baseline every run is a full one.
expect_exit 0 "$SKIP" record -q -o p.skip.db --repeat 2 -- true
[ "$(sql p.skip.db "SELECT count(*) FROM SKIP_RUNS WHERE kind = 'full'")" = 2 ] || fail "full runs"

# A hand-built trace with baseline runs (tests/fixtures/hand/baseline.sql, answers there):
# skip report's recording cost, in text, JSON and HTML, and skip advise's source.
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
hand_db() { # hand_db NAME FILE: tests/fixtures/hand/NAME.sql as a trace in FILE
	{
		cat "$ROOT/schemas/trace.sql"
		echo "PRAGMA user_version = 3;"
		cat "$ROOT/tests/fixtures/hand/common.sql" "$ROOT/tests/fixtures/hand/$1.sql"
	} | sqlite3 "$2"
}
hand_db baseline h.skip.db
expect_exit 0 "$SKIP" report --no-color --region step h.skip.db
expect_out "Recording cost of 'step'"
expect_out "recorded / baseline 1.917x  [1.846 .. 2.000 over 2 interleaved pairs]"
expect_out "IL *"
expect_exit 0 "$SKIP" report --json --region step h.skip.db
expect_out '"baseline_runs":	2'
expect_out '"inflated_by_recording":'
expect_exit 0 "$SKIP" report --region step --html h.html h.skip.db
grep -q "<h2>Recording cost</h2>" h.html || fail "the HTML has the recording cost"
expect_exit 0 "$SKIP" report --no-color h.skip.db
expect_out "give --region NAME"
expect_exit 2 "$SKIP" report --run 2 h.skip.db
expect_out "run 2 is a baseline run"
expect_exit 2 "$SKIP" export --format perfetto --run 2 -o h2.json h.skip.db
expect_out "run 2 is a baseline run (skip record --baseline): it holds NVTX ranges only; --run takes a full run"
expect_exit 2 "$SKIP" advise --run 2 --region step h.skip.db
expect_out "run 2 is a baseline run (skip record --baseline)"
expect_exit 0 "$SKIP" advise --region step h.skip.db
expect_out "median wall interval of"
expect_out "in 2 baseline runs (skip record --baseline)"

# --capture-range: the collector is told (and not told without it); a hand-built capture-range
# trace (tests/fixtures/hand/capture.sql, answers there) compares inside with outside.
SKIP_CAPTURE=stale expect_exit 0 "$SKIP" record -q -o c.skip.db -c cudaProfilerApi -- \
	sh -c 'echo "$SKIP_CAPTURE" >> cap.txt'
SKIP_CAPTURE=stale expect_exit 0 "$SKIP" record -q -f -o c.skip.db -- \
	sh -c 'echo "${SKIP_CAPTURE:-unset}" >> cap.txt'
SKIP_CAPTURE=stale expect_exit 0 "$SKIP" record -q -f -o c.skip.db -c nvtx:step:11:5 -- \
	sh -c 'echo "$SKIP_CAPTURE" >> cap.txt'
[ "$(tr '\n' ';' < cap.txt)" = "cudaProfilerApi;unset;nvtx:step:11:5;" ] || fail "SKIP_CAPTURE per run: $(cat cap.txt)"
expect_exit 0 sqlite3 c.skip.db "SELECT value FROM SKIP_METADATA WHERE key = 'capture_range'"
expect_out "nvtx:step:11:5"
# skip info counts the waiting calls where CUPTI's synchronization records are left out (the
# default): advise_calls.sql has one cudaStreamSynchronize and no records.
hand_db advise_calls ac.skip.db
expect_exit 0 "$SKIP" info ac.skip.db
expect_out "syncs            1  (calls; CUPTI's records with --trace sync-records)"
hand_db capture cr.skip.db
expect_exit 0 "$SKIP" report --no-color --region step cr.skip.db
expect_out "recorded: only between cudaProfilerStart and cudaProfilerStop"
expect_out "inside the capture ranges against outside them, in the same runs"
expect_out "recorded / unrecorded 1.917x  [1.917 .. 1.917 over 1 run]"
expect_exit 0 "$SKIP" report --json --region step cr.skip.db
expect_out '"capture":	true'
expect_exit 0 "$SKIP" report --region step --html cr.html cr.skip.db
grep -q "recorded / unrecorded" cr.html || fail "the HTML compares inside with outside"
expect_exit 0 "$SKIP" report --no-color cr.skip.db
expect_out "the file has capture ranges; give --region NAME"
sqlite3 cr.skip.db "UPDATE SKIP_METADATA SET value = 'nvtx:step:2:2' WHERE key = 'capture_range'"
expect_exit 0 "$SKIP" report --no-color cr.skip.db
expect_out "the file has a capture range; give --region step to compare its wall interval"
sqlite3 cr.skip.db "UPDATE SKIP_METADATA SET value = 'cudaProfilerApi' WHERE key = 'capture_range'"
expect_exit 0 "$SKIP" advise --region step cr.skip.db
expect_out "in the 4 occurrences outside the capture ranges (the same process, not recorded;"
expect_out "fewer than 3 before the first range: after one a process runs slower"
hand_db capture_before cb.skip.db
expect_exit 0 "$SKIP" advise --region step cb.skip.db
expect_out "its time now (450 ns) is the median wall interval of"
expect_out "'step' in the 4 occurrences before the first capture range (the same process, not yet recorded)"
exit 0
