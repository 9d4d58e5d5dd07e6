# skip record under disk faults, without a GPU (the program is a shell command): a full disk
# leaves a readable trace under its name, and a directory that turns read-only mid-run keeps
# the trace under its temporary name, which the error names. Needs root (mount, setpriv).
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
have_collector || skip_test "no collector built (no CUDA toolkit)"
[ "$(id -u)" = 0 ] || skip_test "needs root to mount a small tmpfs and to run as nobody"

mkdir fs
if mount -t tmpfs -o size=440k tmpfs fs 2>/dev/null; then
	expect_exit 0 "$SKIP" record -o fs/x.skip.db -- true
	expect_out "disk full"
	expect_exit 0 "$SKIP" info fs/x.skip.db
	expect_out "runs             1"
	umount fs
fi

if command -v setpriv > /dev/null; then
	mkdir ro && chown 65534:65534 ro && chmod 755 "$TMPDIR"
	expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SKIP" record -q -o ro/x.skip.db -- chmod 555 ro
	expect_out "the trace is kept as ro/.x.skip.db."
	kept=$(sed -n 's/.*the trace is kept as //p' "$TMPDIR/out")
	expect_exit 0 "$SKIP" info "$kept"
	expect_out "runs             1"
fi
exit 0
