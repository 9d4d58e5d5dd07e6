# Usage errors: each a clear message on stderr and exit 2; help on stdout with exit 0.
. "$(dirname "$0")/lib.sh"

expect_exit 2 "$SKIP"
expect_out "usage: skip"
expect_exit 2 "$SKIP" frobnicate
expect_out "unknown command 'frobnicate'"
expect_exit 0 "$SKIP" --help
expect_out "record"
expect_exit 0 "$SKIP" --version
expect_out "skip 0."
expect_exit 0 "$SKIP" help record
expect_out "usage: skip record"
expect_exit 0 "$SKIP" record --help
expect_out "--sweep NAME=V1,V2"
expect_exit 2 "$SKIP" help frobnicate

expect_exit 2 "$SKIP" record
expect_out "no program given"
expect_out "Try 'skip record --help'"
expect_exit 2 "$SKIP" record --repeat 0 -- true
expect_out "--repeat takes a whole number"
expect_exit 2 "$SKIP" record --repeat x -- true
expect_out "--repeat takes a whole number"
expect_exit 2 "$SKIP" record --sweep batch -- true
expect_out "--sweep takes NAME=V1,V2"
expect_exit 2 "$SKIP" record --sweep batch= -- true
expect_out "--sweep takes NAME=V1,V2"
expect_exit 2 "$SKIP" record --sweep b=1 --sweep b=2 -- true
expect_out "--sweep b given twice"
expect_exit 2 "$SKIP" record --sweep 'b-x=1' -- true
expect_out "use letters, digits and _"
expect_exit 2 "$SKIP" record --trace=cuda,bogus -- true
expect_out "unknown --trace word 'bogus'"
expect_exit 2 "$SKIP" record --capture-range=nvtx -- true
expect_out "--capture-range takes none, cudaProfilerApi or nvtx:NAME[:FIRST[:COUNT]]; got 'nvtx'"
expect_exit 2 "$SKIP" record --capture-range=nvtx:step:0 -- true
expect_out "--capture-range nvtx:step:0: FIRST and COUNT are numbers from 1"
expect_exit 2 "$SKIP" record -c cudaProfilerApi --trace nvtx -- true
expect_out "--capture-range with --trace nvtx: NVTX alone is recorded all along"
expect_exit 2 "$SKIP" record -o
expect_out "option '-o' needs a value"
expect_exit 2 "$SKIP" record --frob -- true
expect_out "unknown option '--frob'"
expect_exit 2 "$SKIP" info
expect_out "expected one trace file"
exit 0
