#!/bin/sh
# run.sh: run every tests/cli/*.sh with SKIP (the binary under test) and FIXTURES set.
# Each test exits 0 pass, 1 fail, 2 skip. Exits 1 if any test failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export FIXTURES="$here/../fixtures" GOLDEN="$here/golden" SKIP="${SKIP:?set SKIP to the skip binary}"
pass=0 fail=0 skipped=0
for t in "$here"/t_*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	out=$(TMPDIR=$(mktemp -d) sh "$t" 2>&1)
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "  PASS  $name" ;;
	2) skipped=$((skipped + 1)); echo "  SKIP  $name: $out" ;;
	*) fail=$((fail + 1)); echo "  FAIL  $name"; echo "$out" | sed 's/^/        /' ;;
	esac
done
echo "cli tests: $pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
