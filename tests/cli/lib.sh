# lib.sh: helpers for the CLI tests (sourced). SKIP is the binary under test, FIXTURES the
# committed traces, GOLDEN the expected outputs, TMPDIR a fresh folder per test.
# A test exits 0 pass, 1 fail, 2 skip. UPDATE_GOLDEN=1 rewrites golden files instead.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip_test() { echo "$*"; exit 2; }

# expect_exit CODE CMD...: run CMD (stdout+stderr to $TMPDIR/out), check its exit code.
expect_exit() {
	want=$1; shift
	"$@" > "$TMPDIR/out" 2>&1
	got=$?
	[ "$got" = "$want" ] || { cat "$TMPDIR/out"; fail "'$*' exited $got, expected $want"; }
}

# expect_out TEXT: the last command's output contains TEXT.
expect_out() {
	grep -qF -- "$1" "$TMPDIR/out" || { cat "$TMPDIR/out"; fail "output lacks '$1'"; }
}

# golden NAME: compare the last command's output with $GOLDEN/NAME.
golden() {
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$TMPDIR/out" "$GOLDEN/$1"
		return 0
	fi
	diff -u "$GOLDEN/$1" "$TMPDIR/out" || fail "output differs from golden/$1"
}

# sql DB QUERY: one value from a trace.
sql() { sqlite3 "$1" "$2"; }

have_collector() { [ -e "$(dirname "$SKIP")/libskip_collector.so" ]; }
