# skip gate and skip diff on real A/B recordings from the H100 (bench/gate/ab.sh, 10 runs a
# side): ab_gemm made 10% slower is a regression and diff names it; an identical pair passes.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
F=$FIXTURES

expect_exit 1 "$SKIP" gate "$F/h100_gate_base.skip.db" "$F/h100_gate_slow10.skip.db"
expect_out "skip gate: FAIL: 1 regression (IL +7.0%)"
expect_out "ab_gemm                      slower"
expect_exit 0 "$SKIP" gate "$F/h100_gate_same_a.skip.db" "$F/h100_gate_same_b.skip.db"
expect_out "skip gate: PASS: no regression"

# A baseline file of kilobytes gates like the trace it was saved from.
expect_exit 0 "$SKIP" gate --save-baseline base.json "$F/h100_gate_base.skip.db"
[ "$(wc -c < base.json)" -lt 65536 ] || fail "the baseline file is $(wc -c < base.json) bytes"
expect_exit 1 "$SKIP" gate base.json "$F/h100_gate_slow10.skip.db"
expect_out "IL +7.0%"

expect_exit 0 "$SKIP" diff "$F/h100_gate_base.skip.db" "$F/h100_gate_slow10.skip.db" --top 1
expect_out "ab_gemm                      slower"
expect_out "90.9%"
exit 0
