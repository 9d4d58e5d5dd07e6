# skip report's operator table for kernels launched from a thread with no NVTX range open
# (docs/skip-report.md "Operators"): on the hand-built tests/fixtures/hand/attr_threads.sql
# (answers in its header) and on the PyTorch MLP recorded on the H100, in text, JSON and HTML;
# the rows, the operators not listed and the (none) row add up to the regions' kernels.
. "$(dirname "$0")/lib.sh"
ROOT="$FIXTURES/../.."
MLP="$FIXTURES/h100_torch_mlp.skip.db"
cd "$TMPDIR" || exit 1
{ cat "$ROOT/schemas/trace.sql"; echo "PRAGMA user_version=1;"
  cat "$FIXTURES/hand/common.sql" "$FIXTURES/hand/attr_threads.sql"; } | sqlite3 attr.db ||
	fail "building attr.db"

# table ARGS...: "name|attribution|kernels" per row of the JSON operator table, then
# "rest|N|kernels", "none|kernels" and "total|kernels of the table|kernels of the regions".
table() {
	"$SKIP" report --json "$@" > t.json || fail "skip report --json $*"
	python3 - t.json <<'PY' || fail "t.json is not a report"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["top_operators"]
for o in rows:
    print(f'{o["name"]}|{o["attribution"]}|{o["kernels"]}')
rest, none = d["operators_not_listed"], d["operator_none"]
print(f'rest|{rest["operators"]}|{rest["kernels"]}')
print(f'none|{none["kernels"]}')
by = d["kernels_by_attribution"]
assert sum(by.values()) == sum(r["kernels"] for r in d["regions"]), by
assert by["none"] == none["kernels"]
print(f'total|{sum(o["kernels"] for o in rows) + rest["kernels"] + none["kernels"]}|'
      f'{sum(r["kernels"] for r in d["regions"])}')
PY
}
# expect_table WANT ARGS...: the table of `skip report ARGS` is WANT (lines as table() prints).
expect_table() {
	want=$1; shift
	got=$(table "$@") || fail "$got"
	[ "$got" = "$want" ] || fail "skip report $*: got
$got
want
$want"
}

# Run 1: thread 8 launches inside thread 7's backward range; one launch outside every range.
expect_table "backward|other_thread|2
backward|thread|1
rest|0|0
none|1
total|4|4" --run 1 attr.db
expect_table "backward|other_thread|2
backward|thread|1
rest|0|0
none|0
total|3|3" --run 1 --region backward attr.db
# Run 2: ranges open on two other threads: the one that started last.
expect_table "outer7|other_thread|2
inner9|other_thread|1
outer9|other_thread|1
tie11|other_thread|1
rest|0|0
none|0
total|5|5" --run 2 attr.db
# Run 3: PyTorch's sequence numbers name the thread; emit_nvtx's numbers leave the names.
expect_table "ReluBackward0|thread|1
aten::addmm|thread|1
aten::mm|thread|1
rest|5|5
none|1
total|9|9" --run 3 --top 3 attr.db
expect_exit 0 "$SKIP" report --no-color --run 3 attr.db
golden report_hand_attr_seq.txt
expect_exit 0 "$SKIP" report --no-color --run 3 --html attr.html attr.db
for row in "backward (other thread, seq)" "late9 (other thread)" "aten::mm" "(none)"; do
	grep -qF "<td class='l'>$row</td><td>1</td>" attr.html ||
		fail "the HTML operator table lacks the row '$row'"
done
expect_exit 0 "$SKIP" report --no-color --run 3 --top 3 --html top3.html attr.db
grep -qF "<td class='l'>(5 other operators)</td><td>5</td>" top3.html ||
	fail "the HTML table lacks the operators not listed"

# The PyTorch MLP (tests/gpu/torch_mlp.py --steps 20): thread ...507 runs the loop and pushes
# step > forward, backward, optimizer; thread ...533 (autograd) launches the backward kernels
# with no range of its own. Expected counts, by this query on the fixture (each kernel joined
# to its launch call; the innermost = the latest-started range open at the launch on the
# launching thread, else on another thread of the process; one process here):
#   WITH api AS (SELECT correlationId c, start s, globalTid g FROM CUPTI_ACTIVITY_KIND_RUNTIME
#                UNION ALL SELECT correlationId, start, globalTid FROM CUPTI_ACTIVITY_KIND_DRIVER),
#   kl AS (SELECT k.end - k.start dur, a.s ls, a.g lt FROM CUPTI_ACTIVITY_KIND_KERNEL k
#          JOIN api a ON a.c = k.correlationId)
#   SELECT coalesce((SELECT text FROM NVTX_EVENTS n WHERE n.globalTid = lt AND n.start <= ls
#                    AND n.end >= ls ORDER BY n.start DESC LIMIT 1),
#                   (SELECT text || ' (other thread)' FROM NVTX_EVENTS n WHERE n.globalTid != lt
#                    AND n.start <= ls AND n.end >= ls ORDER BY n.start DESC LIMIT 1),
#                   '(none)') op, count(*), sum(dur) FROM kl GROUP BY op ORDER BY 3 DESC;
# gives forward 220 (807,116 ns), backward (other thread) 300 (801,796 ns), (none) 86
# (280,939 ns: the 3 warm-up steps and setup, before the first range), optimizer 20
# (195,846 ns), backward 20 (19,875 ns): 646 kernels, all with a launch call. With
# --region backward (each backward range, launches of any thread inside it): 16 a step, 320 =
# 20 on the loop's thread + 300 from the autograd thread, none outside.
expect_table "forward|thread|220
backward|other_thread|300
optimizer|thread|20
backward|thread|20
rest|0|0
none|86
total|646|646" "$MLP"
expect_table "backward|other_thread|300
backward|thread|20
rest|0|0
none|0
total|320|320" --region backward "$MLP"
[ "$(sql "$MLP" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")" = 646 ] ||
	fail "the fixture changed: recount by hand"
expect_exit 0 "$SKIP" report --no-color "$MLP"
expect_out "  backward (other thread)        300   801.8 us"
expect_out "  (none)                          86   280.9 us"
exit 0
