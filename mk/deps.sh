#!/bin/sh
# deps.sh ensure|check GROUP... : make sure the Debian packages skip builds with are present.
#
# GROUP is build (SQLite, cJSON, zlib), test (Criterion), cli (the sqlite3 shell, for the CLI
# tests), format (clang-format, for `make format-check`), browser (Chromium, for the HTML
# test), notebook (Debian's Python with nbconvert, ipykernel, pandas and matplotlib, for the
# test that executes skip export's notebook) or fuzz (clang with libFuzzer and the sqlite3 shell, for `make fuzz`: mk/fuzz.mk).
# `check` only reports. `ensure` installs what is missing when it runs as root with apt-get,
# and otherwise prints the one command to run and fails. Headers are looked for by compiling
# an #include, so a local prefix (.deps/include, used on machines without apt) counts too.
set -u
mode=${1:-check}
shift || true
[ $# -gt 0 ] || set -- build
CC=${CC:-cc}
EXTRA=${DEPS_CFLAGS:-}

have_header() {
	printf '#include <%s>\nint main(void){return 0;}\n' "$1" |
		$CC $EXTRA -x c -fsyntax-only - >/dev/null 2>&1
}

# clang links a libFuzzer target (the runtime is libclang-rt-dev, not always beside clang).
have_fuzzer() {
	command -v clang >/dev/null 2>&1 || return 1
	tmp=$(mktemp -d) || return 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n){(void)d;(void)n;return 0;}' \
		> "$tmp/t.c"
	clang -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1
	rc=$?
	rm -rf "$tmp"
	return $rc
}

missing=""
for group in "$@"; do
	case $group in
	build)
		have_header sqlite3.h || missing="$missing libsqlite3-dev"
		have_header cjson/cJSON.h || missing="$missing libcjson-dev"
		have_header zlib.h || missing="$missing zlib1g-dev"
		;;
	test)
		have_header criterion/criterion.h || missing="$missing libcriterion-dev"
		;;
	cli)
		command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
		;;
	browser)
		command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
		;;
	notebook)
		# Debian's python3 (/usr/bin), whatever python3 comes first on PATH
		for m in nbconvert:python3-nbconvert ipykernel:python3-ipykernel \
			pandas:python3-pandas matplotlib:python3-matplotlib; do
			/usr/bin/python3 -c "import ${m%%:*}" >/dev/null 2>&1 ||
				missing="$missing ${m#*:}"
		done
		;;
	format)
		command -v clang-format >/dev/null 2>&1 || missing="$missing clang-format"
		;;
	fuzz)
		command -v clang >/dev/null 2>&1 || missing="$missing clang"
		have_fuzzer || missing="$missing libclang-rt-dev"
		command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
		;;
	*)
		echo "deps.sh: unknown group '$group'" >&2
		exit 2
		;;
	esac
done

[ -z "$missing" ] && exit 0
if [ "$mode" = check ]; then
	echo "missing:$missing"
	exit 1
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "skip: installing missing packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1
		apt-get install -y -q --no-install-recommends $missing >/dev/null || {
			echo "skip: error: 'apt-get install$missing' failed; install them and rerun" >&2
			exit 1
		}
	fi
	exit 0
fi
echo "skip: error: missing packages:$missing" >&2
echo "skip: run:   sudo apt-get install -y$missing" >&2
exit 1
