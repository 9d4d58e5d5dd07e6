# skip gate and skip diff: on hand-built traces whose answers are in their headers
# (tests/fixtures/hand/gate_*.sql), on the committed H100 traces, with every output (table,
# JSON, JUnit, Markdown, GitHub annotations, baseline files), and on each kind of bad input
# (docs/skip-gate.md "Bad input"): exit 2, one line saying what to do.
. "$(dirname "$0")/lib.sh"
ROOT="$FIXTURES/../.."
HAND="$FIXTURES/hand"

# build NAME [MORE]: $TMPDIR/NAME.db from common.sql + gate_NAME.sql (+ gate_MORE.sql).
build() {
	{ cat "$ROOT/schemas/trace.sql"; echo "PRAGMA user_version=1;"
	  cat "$HAND/common.sql" "$HAND/gate_$1.sql"; [ -n "${2:-}" ] && cat "$HAND/gate_$2.sql"
	} | sqlite3 "$TMPDIR/$1${2:+_$2}.db" || fail "building $1.db"
}
for t in base slow same extra one empty sweep; do build $t; done
build same othergpu
cd "$TMPDIR" || exit 1

# A regression (kA 300 ns slower: IL +17.3%, p = 1/924), then what changed.
expect_exit 1 "$SKIP" gate base.db slow.db --region step
golden gate_hand_slow.txt
expect_exit 1 "$SKIP" gate base.db slow.db --region step --json
golden gate_hand_slow.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["result"] == "regression"' \
	out || fail "--json is not JSON"
# No change: interleaved runs pass; extra launches are a change, under the threshold and floor.
expect_exit 0 "$SKIP" gate base.db same.db --region step
golden gate_hand_same.txt
expect_exit 0 "$SKIP" gate base.db extra.db --region step --no-context
golden gate_hand_extra.txt
expect_exit 1 "$SKIP" gate base.db extra.db --region step --max-regress 4 --floor 50
expect_out "FAIL: 1 regression (IL +4.6%)"
expect_exit 1 "$SKIP" gate base.db slow.db --region step --metric kernel:kA --no-context
expect_out "kernel kA (mean)         1.035 us   1.335 us"
expect_exit 0 "$SKIP" gate base.db slow.db --region step --metric kernel:kB
expect_exit 1 "$SKIP" gate base.db slow.db --region step --metric il --metric tklqt
expect_out "tests sharing alpha 0.005"

# CI outputs: JUnit, Markdown, GitHub annotations.
expect_exit 1 "$SKIP" gate base.db slow.db --region step --junit gate.xml --markdown gate.md --github
expect_out "::error title=skip gate regression::IL +17.3%25 [+15.0%25, +19.6%25], 1.735 us -> 2.035 us"
expect_out "::warning title=skip gate::slow.db: run 7 failed (exit 1): left out"
expect_out "::notice title=skip gate::FAIL: 1 regression (IL +17.3%25)"
cp gate.xml out && golden gate_hand_slow.junit.xml
cp gate.md out && golden gate_hand_slow.md
python3 -c 'import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot()
assert r.get("failures") == "1" and len(r.findall(".//testcase")) == 1' gate.xml ||
	fail "--junit is not the JUnit expected"
expect_exit 0 "$SKIP" gate base.db same.db --region step --markdown - --no-context
expect_out "### skip gate: **PASS**: no regression in 1 gated test"

# Baseline files: saved from a trace, the region kept; gated against; refused when damaged.
expect_exit 0 "$SKIP" gate --save-baseline base.json base.db --region step
expect_out "skip gate: wrote base.json"
cp base.json out && golden gate_hand_base.baseline.json
[ "$(wc -c < base.json)" -lt 20000 ] || fail "a baseline should be kilobytes"
expect_exit 1 "$SKIP" gate base.json slow.db
expect_out "IL                       1.735 us   2.035 us   +17.3%"
expect_exit 0 "$SKIP" gate base.json same.db --save-baseline same.json
[ -s same.json ] || fail "--save-baseline with two files saves the candidate"
expect_exit 0 "$SKIP" gate base.json same.json
sed 's/"skip_baseline": 1/"skip_baseline": 2/' base.json > v2.json
expect_exit 2 "$SKIP" gate v2.json slow.db
expect_out "v2.json: a skip baseline of format version 2; this skip (0.1.0) reads version 1"
head -c 900 base.json > cut.json
expect_exit 2 "$SKIP" gate cut.json slow.db
expect_out "cut.json:"
expect_out "JSON syntax error"
sed 's/"median":/"medians":/' base.json > bad.json
expect_exit 2 "$SKIP" gate bad.json slow.db
expect_out "bad.json: not a valid skip baseline: \$.cases[0].runs[0]"
expect_exit 2 "$SKIP" gate base.json slow.db --region other
expect_out "base.json was saved for the region 'step', not for the region 'other'"
expect_exit 0 "$SKIP" gate base.json base.db --no-context
expect_out "regions    each occurrence of the NVTX range 'step'"
expect_exit 2 "$SKIP" gate base.db base.json
expect_out "the sides measure different regions (base.db: whole runs, base.json: 'step')"

# Bad input: a corrupt trace, no such region, no GPU work, one run, nothing in common.
head -c 20000 "$FIXTURES/h100_launch_chain.skip.db" > cut.skip.db
expect_exit 2 "$SKIP" gate cut.skip.db base.db
expect_out "truncated"
[ "$(wc -l < out)" -le 2 ] || fail "one line expected for a corrupt file"
printf 'not a trace, not a baseline: just text long enough to fill an SQLite header.....\n' > text.db
expect_exit 2 "$SKIP" gate base.db text.db
expect_out "not a skip trace (not an SQLite database)"
expect_exit 2 "$SKIP" gate base.db slow.db --region forward
expect_out "base.db: no NVTX range named 'forward'; ranges present: 'step'"
expect_exit 2 "$SKIP" gate empty.db empty.db
expect_out "empty.db: no run has GPU work (kernels, memcpys or memsets)"
expect_exit 2 "$SKIP" gate base.db one.db --region step
expect_out "too few runs: base.db has 6 and one.db has 1 with IL; at --alpha 0.005 over 1 gated test the rank test needs 5 runs on each side (skip record --repeat 5)"
expect_exit 2 "$SKIP" gate sweep.db base.db
expect_out "no case in common"
expect_exit 0 "$SKIP" gate sweep.db sweep.db --no-context
golden gate_hand_sweep.txt
# Another GPU and driver: a warning, or with --strict an error.
expect_exit 0 "$SKIP" gate base.db same_othergpu.db --region step --no-context
expect_out "the sides ran on different GPUs (base.db: Hand GPU, same_othergpu.db: Other GPU)"
expect_exit 2 "$SKIP" gate base.db same_othergpu.db --region step --strict
expect_out "--strict was given"

# Usage errors, and outputs that would replace something.
expect_exit 2 "$SKIP" gate
expect_out "no BASELINE and CANDIDATE given"
expect_exit 2 "$SKIP" gate base.db
expect_out "expected BASELINE and CANDIDATE; got one file"
expect_exit 2 "$SKIP" gate base.db slow.db same.db
expect_out "got a third file 'same.db'"
expect_exit 2 "$SKIP" gate base.db slow.db --alpha 0.9
expect_out "--alpha takes a probability above 0, at most 0.5"
expect_exit 2 "$SKIP" gate base.db slow.db --max-regress x
expect_out "--max-regress takes a percentage above 0"
expect_exit 2 "$SKIP" gate base.db slow.db --metric latency
expect_out "unknown metric 'latency'; the metrics are il, tklqt"
expect_exit 2 "$SKIP" gate base.db slow.db --region step --metric kernel:kZ
expect_out "no kernel named 'kZ' on either side"
expect_exit 2 "$SKIP" gate base.db slow.db --json --github
expect_out "choose one"
expect_exit 2 "$SKIP" gate base.db slow.db --junit base.db
expect_out "base.db is also an input"
expect_exit 1 "$SKIP" gate base.db slow.db --region step --markdown gate.md --junit gate.xml
cmp -s gate.md "$GOLDEN/gate_hand_slow.md" || fail "gate.md was not replaced by the same summary"
echo "my notes" > notes.md
expect_exit 2 "$SKIP" gate base.db slow.db --markdown notes.md
expect_out "notes.md exists and is not a skip gate Markdown summary"
[ "$(cat notes.md)" = "my notes" ] || fail "notes.md changed"
expect_exit 0 "$SKIP" help gate
expect_out "usage: skip gate BASELINE CANDIDATE"
expect_out "kernel:NAME"

# skip diff: what changed, and its bad input.
expect_exit 0 "$SKIP" diff base.db slow.db --region step
golden diff_hand_slow.txt
expect_exit 0 "$SKIP" diff base.db extra.db --region step --floor 10
golden diff_hand_extra.txt
expect_exit 0 "$SKIP" diff base.json extra.db --json --top 3
golden diff_hand_extra.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["skip_diff"] == 1' out ||
	fail "diff --json is not JSON"
expect_exit 2 "$SKIP" diff base.db
expect_out "expected BASELINE and CANDIDATE"
expect_exit 2 "$SKIP" diff cut.skip.db base.db
expect_out "truncated"
expect_exit 2 "$SKIP" diff base.db slow.db --region forward
expect_out "no NVTX range named 'forward'"
expect_exit 0 "$SKIP" help diff
expect_out "usage: skip diff BASELINE CANDIDATE"

# The committed H100 traces: three runs are too few at the default alpha, enough at 0.05;
# two model sweeps are compared point by point.
cd "$FIXTURES" || exit 1
expect_exit 2 "$SKIP" gate h100_launch_chain.skip.db h100_launch_chain.skip.db
expect_out "the rank test needs 5 runs on each side"
expect_exit 0 "$SKIP" gate --alpha 0.05 h100_launch_chain.skip.db h100_launch_chain.skip.db
golden gate_h100_launch_chain.txt
expect_exit 2 "$SKIP" gate h100_launch_chain.skip.db h100_launch_chain.skip.db --region step
expect_out "(the trace has no NVTX ranges)"
expect_exit 0 "$SKIP" diff gpt2_sweep.skip.db llama1b_sweep.skip.db --region prefill --top 3
golden diff_gpt2_llama1b_sweep.txt
expect_exit 2 "$SKIP" gate gpt2_sweep.skip.db llama1b_sweep.skip.db --region prefill
expect_out "over 8 gated tests the rank test needs 7 runs on each side"
exit 0
