# skip info refuses what skip report refuses, with the same message (exit 2), and reports an
# unknown option the way the other commands do.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1

cp "$FIXTURES/h100_graph.skip.db" ids.skip.db
sqlite3 ids.skip.db "INSERT INTO StringIds(id, value) VALUES (536870912, 'x')"
expect_exit 2 "$SKIP" report ids.skip.db
expect_out "skip report: error: ids.skip.db: StringIds ids out of range"
expect_exit 2 "$SKIP" info ids.skip.db
expect_out "skip info: error: ids.skip.db: StringIds ids out of range"
grep -q "runs" "$TMPDIR/out" && fail "skip info printed counts of a file it rejects"

expect_exit 2 "$SKIP" info --bogus "$FIXTURES/h100_graph.skip.db"
expect_out "skip info: error: unknown option '--bogus'"
expect_out "Try 'skip info --help'."
grep -q "unrecognized option" "$TMPDIR/out" && fail "getopt's own message is printed too"
expect_exit 2 "$SKIP" info -x "$FIXTURES/h100_graph.skip.db"
expect_out "skip info: error: unknown option '-x'"
grep -q "invalid option" "$TMPDIR/out" && fail "getopt's own message is printed too"
expect_exit 0 "$SKIP" info "$FIXTURES/h100_graph.skip.db"
expect_out "kernels          200"
exit 0
