# skip info on the committed H100 traces (golden), and on bad input (exit 2, one line).
. "$(dirname "$0")/lib.sh"
cd "$FIXTURES" || exit 1

for f in h100_*.skip.db; do
	expect_exit 0 "$SKIP" info "$f"
	golden "info_${f%.skip.db}.txt"
done

cd "$TMPDIR" || exit 1
expect_exit 2 "$SKIP" info missing.skip.db
expect_out "missing.skip.db: no such file"
echo "hello, I am text and not a trace at all; long enough to fill a header of 100 bytes......" > text.db
expect_exit 2 "$SKIP" info text.db
expect_out "not a skip trace (not an SQLite database)"
sqlite3 foreign.db "CREATE TABLE t(x)"
expect_exit 2 "$SKIP" info foreign.db
expect_out "not a skip trace (no SKIP_RUNS table)"
head -c 8192 "$FIXTURES/h100_launch_chain.skip.db" > cut.skip.db
expect_exit 2 "$SKIP" info cut.skip.db
expect_out "truncated"
cp "$FIXTURES/h100_graph.skip.db" newer.skip.db
sqlite3 newer.skip.db "PRAGMA user_version = 42"
expect_exit 2 "$SKIP" info newer.skip.db
expect_out "written by a newer skip (trace schema 42"
exit 0
