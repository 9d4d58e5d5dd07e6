#!/bin/sh
# devdeps.sh: fill .deps/ with the headers and shared libraries skip builds and tests with
# (SQLite, cJSON, Criterion and what they link, glibc aside), copied from this machine's
# Debian packages, for a machine that has no apt and no network (the GPU machine). The
# Makefile adds .deps/include and .deps/lib when the folder exists. .deps/ is git-ignored;
# carry it to that machine.
set -eu
cd "$(dirname "$0")/.."
rm -rf .deps
mkdir -p .deps/include .deps/lib
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .deps/include/
cp -r /usr/include/cjson /usr/include/criterion .deps/include/
for soname in libsqlite3.so.0 libcjson.so.1 libcriterion.so.3; do
	path=$(ldconfig -p | awk -v l="$soname" '$1 == l { print $NF; exit }')
	[ -n "$path" ] || { echo "devdeps.sh: $soname not installed here (make deps)" >&2; exit 1; }
	cp -L "$path" .deps/lib/
	ldd "$path" | awk '/=>/ { print $3 }' | while read -r dep; do
		case $(basename "$dep") in
		libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libresolv.so* | \
			ld-linux* | libutil.so*) ;;
		*) [ -e ".deps/lib/$(basename "$dep")" ] || cp -L "$dep" .deps/lib/ ;;
		esac
	done
	ln -sf "$soname" ".deps/lib/${soname%.so.*}.so"
done
du -sh .deps
