# Replay the fuzz targets' regression inputs: each file in tests/fuzz-regress/TARGET/ runs once
# through that target (fuzz/fuzz_TARGET.c) and must neither crash nor trip a sanitizer (under
# `make check` the replays are built with ASan + UBSan). Files in TARGET/known/ reproduce bugs
# that are open: they are run and reported, and do not fail the test; one that passes should be
# moved up a folder with the fix (fuzz/README.md).
#
# `make test` runs it with the plain replays ($O/fuzz/replay_TARGET, fuzz/replay.c); `make fuzz`
# with the libFuzzer binaries (FUZZ_BINDIR=build-fuzz/fuzz FUZZ_PREFIX=fuzz_), which take file
# arguments the same way.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${FUZZ_BINDIR:-$(dirname "${SKIP:?set SKIP or FUZZ_BINDIR}")/fuzz}
prefix=${FUZZ_PREFIX:-replay_}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout 300"
cd "$root" || exit 1

failed=0 passed=0 known=0 fixed=0
for dir in tests/fuzz-regress/*/; do
	[ -d "$dir" ] || continue
	t=$(basename "$dir")
	bin=$bindir/$prefix$t
	if [ ! -x "$bin" ]; then
		echo "FAIL: $bin is missing (tests/fuzz-regress/$t has no target)"
		failed=$((failed + 1))
		continue
	fi
	# Without ASan (a plain `make test`), undefined behaviour and leaks go unseen.
	san=0
	grep -q __asan_init "$bin" 2>/dev/null && san=1
	for f in "$dir"* "$dir"known/*; do
		[ -f "$f" ] || continue
		case $f in
		*/README*) continue ;;
		esac
		if $limit "$bin" "$f" > "$tmp/out" 2>&1; then
			case $f in
			*/known/*)
				if [ "$san" = 1 ]; then
					echo "known bug no longer reproduces: $f (move it up a folder)"
					fixed=$((fixed + 1))
				else
					known=$((known + 1))
				fi
				;;
			*) passed=$((passed + 1)) ;;
			esac
		else
			rc=$?
			case $f in
			*/known/*)
				why=$(grep -m1 -E 'ERROR|runtime error' "$tmp/out" || echo "exit $rc")
				echo "known bug (open): $f: $why"
				known=$((known + 1))
				;;
			*)
				echo "FAIL: $bin $f"
				tail -30 "$tmp/out"
				failed=$((failed + 1))
				;;
			esac
		fi
	done
done
echo "fuzz regressions: $passed passed, $failed failed ($known known bugs open, $fixed fixed)"
[ "$failed" = 0 ]
