#!/bin/sh
# embed.sh SYMBOL INPUT > OUTPUT.c: turn a text file into a C string constant, so the trace
# schema (schemas/trace.sql) ships inside the binaries without being read at run time.
set -eu
sym=$1
in=$2
printf '/* Generated from %s by mk/embed.sh; do not edit. */\n' "$in"
printf '#include "skip_common.h"\n'
printf 'SKIP_API const char %s[] =\n' "$sym"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$in"
printf ';\n'
