# skip report on the committed H100 traces (golden text, and JSON for two), its options, and
# every kind of bad input (one line, exit 2).
. "$(dirname "$0")/lib.sh"
cd "$FIXTURES" || exit 1

for f in h100_*.skip.db; do
	expect_exit 0 "$SKIP" report --no-color "$f"
	golden "report_${f%.skip.db}.txt"
done
expect_exit 0 "$SKIP" report --no-color h100_torch_mlp.skip.db --region step --top 5
golden report_h100_torch_mlp_step.txt
expect_exit 0 "$SKIP" report --no-color --run 2 h100_launch_chain.skip.db
golden report_h100_launch_chain_run2.txt
expect_exit 0 "$SKIP" report --json h100_two_streams.skip.db
golden report_h100_two_streams.json
expect_exit 0 "$SKIP" report --json --region forward h100_torch_mlp.skip.db
golden report_h100_torch_mlp_forward.json
for m in llama1b gpt2; do
	expect_exit 0 "$SKIP" report --no-color --region prefill --top 5 ${m}_sweep.skip.db
	golden "report_${m}_sweep.txt"
done
expect_exit 0 "$SKIP" report --json --region prefill --top 3 gpt2_sweep.skip.db
golden report_gpt2_sweep.json
expect_exit 0 "$SKIP" report --no-color --region prefill --knee-eps 0.5 gpt2_sweep.skip.db
expect_out "past 50% above it"
expect_exit 2 "$SKIP" report --region prefill --param seq gpt2_sweep.skip.db
expect_out "no numeric parameter 'seq' with two values or more"
expect_exit 2 "$SKIP" report --knee-eps 0 gpt2_sweep.skip.db
expect_out "--knee-eps takes a number"
expect_exit 0 "$SKIP" report --no-color --threshold 0.99 h100_two_streams.skip.db
expect_out "verdict: GPU-bound: the GPU waited for the host 78.2% of IL (threshold 99%)"
expect_exit 0 "$SKIP" help report
expect_out "usage: skip report FILE"

# Bad input and bad options.
expect_exit 2 "$SKIP" report
expect_out "no trace file given"
expect_exit 2 "$SKIP" report h100_graph.skip.db --run 0
expect_out "--run takes a run number"
expect_exit 2 "$SKIP" report h100_graph.skip.db --threshold 2
expect_out "--threshold takes a fraction between 0 and 1"
expect_exit 2 "$SKIP" report h100_graph.skip.db --top x
expect_out "--top takes a whole number from 1 to 1000"
expect_exit 2 "$SKIP" report h100_launch_chain.skip.db --run 9
expect_out "no run 9 (the file has 3 runs"
expect_exit 2 "$SKIP" report h100_torch_mlp.skip.db --region prefill
expect_out "no NVTX range named 'prefill'; ranges present: "
expect_exit 2 "$SKIP" report h100_launch_chain.skip.db --region step
expect_out "(the trace has no NVTX ranges)"

cd "$TMPDIR" || exit 1
expect_exit 2 "$SKIP" report missing.skip.db
expect_out "skip report: error: missing.skip.db: no such file"
printf 'just some text, not a trace; it goes on long enough to fill a header of 100 bytes....\n' > text.db
expect_exit 2 "$SKIP" report text.db
expect_out "not a skip trace (not an SQLite database)"
cp "$FIXTURES/h100_graph.skip.db" newer.skip.db
sqlite3 newer.skip.db "PRAGMA user_version = 7"
expect_exit 2 "$SKIP" report newer.skip.db
expect_out "written by a newer skip"
head -c 20000 "$FIXTURES/h100_launch_chain.skip.db" > cut.skip.db
expect_exit 2 "$SKIP" report cut.skip.db
expect_out "truncated"
# Damaged inside (pages overwritten), not just cut: still one line, exit 2, no crash.
cp "$FIXTURES/h100_launch_chain.skip.db" bad.skip.db
yes 'not a b-tree page' | head -c 245760 | dd of=bad.skip.db bs=4096 seek=20 conv=notrunc 2>/dev/null
expect_exit 2 "$SKIP" report bad.skip.db
[ "$(wc -l < "$TMPDIR/out")" -le 2 ] || fail "one line expected for a corrupt file"
cp "$FIXTURES/h100_graph.skip.db" norun.skip.db
sqlite3 norun.skip.db "INSERT INTO SKIP_RUNS(runId, commandLine, status) VALUES (2, 'x', 'ok')"
expect_exit 2 "$SKIP" report norun.skip.db --run 2
expect_out "run 2 has no kernels"
# a capture-range recording says so, in text and JSON
cp "$FIXTURES/h100_graph.skip.db" capture.skip.db
sqlite3 capture.skip.db "INSERT INTO SKIP_METADATA(runId, globalPid, key, value) VALUES (0, 0, 'capture_range', 'cudaProfilerApi')"
expect_exit 0 "$SKIP" report --no-color capture.skip.db
expect_out "recorded: only between cudaProfilerStart and cudaProfilerStop (--capture-range cudaProfilerApi)"
expect_exit 0 "$SKIP" report --json capture.skip.db
expect_out '"capture_range":	"cudaProfilerApi"'
sqlite3 capture.skip.db "UPDATE SKIP_METADATA SET value = 'nvtx:step:21:10' WHERE key = 'capture_range'"
expect_exit 0 "$SKIP" report --no-color capture.skip.db
expect_out "recorded: only occurrences 21 to 30 of the NVTX range 'step' (--capture-range nvtx:step:21:10)"
sqlite3 capture.skip.db "UPDATE SKIP_METADATA SET value = 'nvtx:step:3' WHERE key = 'capture_range'"
expect_exit 0 "$SKIP" report --no-color capture.skip.db
expect_out "recorded: only from occurrence 3 of the NVTX range 'step' on (--capture-range nvtx:step:3)"
expect_exit 2 "$SKIP" report "$FIXTURES/llama1b_sweep.skip.db" -p batch -r 1
expect_out "--run 1 reads one run, so 'batch' has one value there"
exit 0
