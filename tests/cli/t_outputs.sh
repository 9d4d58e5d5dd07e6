# Outputs never destroy a file: no command writes over one of its inputs (also through a
# symlink), `record -f` replaces only a skip trace or an empty file (never a device), and a file
# skip did not write is never replaced. Each refusal exits 2 and leaves the file as it was.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
W="$FIXTURES/../../bench/dags/vec.json"

cp "$FIXTURES/h100_launch_chain.skip.db" T.db
sum=$(cksum < T.db)
expect_exit 2 "$SKIP" report T.db --html T.db
expect_out "T.db is also an input"
ln -s T.db L.db
expect_exit 2 "$SKIP" report T.db --html L.db
expect_out "L.db is also an input (T.db)"
expect_exit 2 "$SKIP" advise T.db --workload "$W" -o T.db
expect_out "is also an input"
[ "$(cksum < T.db)" = "$sum" ] || fail "T.db changed"

cp "$W" w.json
expect_exit 2 "$SKIP" run w.json --dry-run
expect_out "module vec.fatbin, needed by tasks[0]"
: > vec.fatbin
expect_exit 2 "$SKIP" advise T.db --workload w.json -o w.json
expect_exit 2 "$SKIP" run w.json --dry-run --emit-plan w.json
expect_out "w.json is also an input"
cmp -s w.json "$W" || fail "w.json changed"

# A file skip did not write is not replaced; skip's own output is, and no temporary is left.
echo "my notes" > notes.html
expect_exit 2 "$SKIP" report T.db --html notes.html
expect_out "notes.html exists and is not a skip HTML report"
[ "$(cat notes.html)" = "my notes" ] || fail "notes.html changed"
expect_exit 0 "$SKIP" report T.db --html r.html
expect_exit 0 "$SKIP" report T.db --html r.html
expect_exit 0 "$SKIP" run w.json --dry-run --emit-plan p.json
expect_exit 0 "$SKIP" run w.json --dry-run --emit-plan p.json
[ -z "$(ls -A | grep '^\.')" ] || fail "temporary files left: $(ls -A)"
expect_exit 1 "$SKIP" report T.db --html nodir/r.html
expect_out "the directory nodir does not exist"

if have_collector; then
	mkfifo fifo
	expect_exit 2 "$SKIP" record -f -o fifo -- true
	expect_out "not a regular file"
	[ -p fifo ] || fail "the FIFO was replaced"
	if [ "$(id -u)" = 0 ] && mknod n c 1 3 2>/dev/null; then
		expect_exit 2 "$SKIP" record -f -o n -- true
		[ -c n ] || fail "the device node was replaced"
	fi
	expect_exit 2 "$SKIP" record -f -o notes.html -- true
	expect_out "not a skip trace"
	expect_exit 0 "$SKIP" record -q -o a.skip.db -- true
	expect_exit 2 "$SKIP" record -q -o a.skip.db -- true
	expect_out "a.skip.db exists; use -f"
	expect_exit 0 "$SKIP" record -q -f -o a.skip.db -- true
	: > empty.skip.db
	expect_exit 0 "$SKIP" record -q -f -o empty.skip.db -- true
	expect_exit 1 "$SKIP" record -o nodir/x.skip.db -- true
	expect_out "the directory nodir does not exist"
fi
exit 0
