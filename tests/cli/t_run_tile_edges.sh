# skip run --dry-run of a workload with tile edges (a GEMM pair by rows, a tile-for-tile
# epilogue): the edges are printed, in text and JSON; a tile edge between tasks that do not
# depend on each other is one line naming both, exit 2.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
: > pair.fatbin
cat > pair.json <<'JSON'
{"skip_workload": 1, "name": "pair", "module": "pair.fatbin", "params": {"MT": 3, "NT": 4},
 "buffers": [{"name": "C1", "size": 64}, {"name": "C2", "size": 64}, {"name": "Z", "size": 64}],
 "tasks": [
  {"name": "gemm1", "kernel": "g", "grid": "MT*NT", "block": 128, "writes": ["C1"]},
  {"name": "gemm2", "kernel": "g", "grid": "MT*NT", "block": 128, "reads": ["C1"], "writes": ["C2"],
   "tile_edges": [{"from": "gemm1", "policy": "row", "rows": "MT"}]},
  {"name": "scale", "kernel": "s", "grid": "MT*NT", "block": 128, "reads": ["C2"], "writes": ["Z"],
   "tile_edges": [{"from": "gemm2", "policy": "tile"}]}]}
JSON
expect_exit 0 "$SKIP" run pair.json --executor persistent --dry-run
expect_out "  tile edge gemm1 -> gemm2: row, 3 rows"
expect_out "  tile edge gemm2 -> scale: tile"
expect_exit 0 "$SKIP" run pair.json --dry-run --json
expect_out '"from":	"gemm1"'
expect_out '"rows":	3'

sed 's/"from": "gemm2"/"from": "gemm1"/' pair.json > bad.json
expect_exit 2 "$SKIP" run bad.json --dry-run
expect_out "bad.json: tasks[2] (\"scale\"): tile_edges[0]: tile edge 'gemm1' -> 'scale': 'scale' does not depend on 'gemm1'"
[ "$(wc -l < "$TMPDIR/out")" -le 2 ] || { cat "$TMPDIR/out"; fail "more than a line or two"; }
exit 0
