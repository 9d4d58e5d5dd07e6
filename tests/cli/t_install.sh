# make install PREFIX=...: the installed skip finds its collector and the --torch-ops shim in
# PREFIX/lib/skip, and its docs are in PREFIX/share/doc/skip.
. "$(dirname "$0")/lib.sh"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
top=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$top" O="$(dirname "$SKIP")" install PREFIX="$TMPDIR/p" > "$TMPDIR/install.log" 2>&1 ||
	{ cat "$TMPDIR/install.log"; fail "make install failed"; }
for f in bin/skip lib/skip/libskip_collector.so lib/skip/python/sitecustomize.py \
	share/doc/skip/README.md share/doc/skip/skip-record.md; do
	[ -e "$TMPDIR/p/$f" ] || fail "$f not installed"
done
cd "$TMPDIR" || exit 1
expect_exit 0 "$TMPDIR/p/bin/skip" record -q -o i.skip.db --torch-ops -- true
expect_out "skip: recorded true into i.skip.db"
expect_exit 0 "$TMPDIR/p/bin/skip" report --no-color "$FIXTURES/h100_graph.skip.db"
exit 0
