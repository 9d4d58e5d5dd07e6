#!/bin/sh
# device.sh STEP...: the batch-size sweeps on the GPU machine (results under $OUT).
#   build      make all bench, and the GPU test binary
#   test       the collector's GPU tests (gpu_record)
#   fidelity   bench/llm/fidelity.py: skip advise's graph gain on GPT-2 and BERT prefill against
#              graph_gain.py's measured replay ($OUT/graph_gain.json, $OUT/fidelity.json);
#              options in FIDELITY_ARGS
#   costs      bench/overhead/cost_breakdown.py: where the recording's cost goes on prefill and
#              torch_loop ($OUT/cost_breakdown.json; builds the CUPTI floor first when missing);
#              it starts no round that would end more than BUDGET_S (default 500) seconds after
#              device.sh started; options in COSTS_ARGS
#   MODEL      (llama1b, gpt2, bert-base) skip record --repeat 3 --sweep batch=1,...,128 of
#              bench/llm/prefill.py, then trim.py, then gzip: $OUT/MODEL_sweep.skip.db.gz
set -u
START=$(date +%s)
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
BATCHES=${BATCHES:-1,2,4,8,16,32,64,128}
REPEAT=${REPEAT:-3}

step_build() {
	rm -f build/tests/test_gpu
	make -j"$(nproc)" all bench build/tests/test_gpu > "$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log"; return 1; }
	echo "build ok"
}

step_test() {
	SKIP=$PWD/build/skip SKIP_APPS=$PWD/build/apps SKIP_SRC=$PWD \
		build/tests/test_gpu --filter 'gpu_record/*' --jobs=1 --verbose > "$OUT/test-gpu.log" 2>&1
	rc=$?
	grep -E '^\[(FAIL|SKIP|----)\]|Synthesis|info\]' "$OUT/test-gpu.log" | head -60
	return $rc
}

step_fidelity() {
	# shellcheck disable=SC2086
	python3 bench/llm/fidelity.py --out "$OUT" ${FIDELITY_ARGS:-}
}

step_costs() {
	[ -e build/bench/libskip_floor.so ] ||
		make -j"$(nproc)" build/bench/libskip_floor.so > /tmp/skip-floor-build.log 2>&1 ||
		{ tail -5 /tmp/skip-floor-build.log; echo "costs: the floor did not build: measured without it"; }
	# shellcheck disable=SC2086
	python3 bench/overhead/cost_breakdown.py --json "$OUT/cost_breakdown.json" \
		--until $((START + ${BUDGET_S:-500})) ${COSTS_ARGS:-}
}

sweep() {
	model=$1
	t0=$(date +%s)
	build/skip record -q -f -o "$OUT/${model}_sweep.skip.db" --label "$model prefill" \
		--repeat "$REPEAT" --sweep batch="$BATCHES" -- \
		python3 bench/llm/prefill.py --model "$model" --batch '{batch}' 2>&1 |
		grep -E '^APP|error|Error|skip:' | tee "$OUT/${model}_sweep.log"
	echo "$model sweep: $(( $(date +%s) - t0 )) s"
	python3 bench/llm/trim.py "$OUT/${model}_sweep.skip.db"
	build/skip report --no-color --region prefill "$OUT/${model}_sweep.skip.db" | head -4
	gzip -f "$OUT/${model}_sweep.skip.db"
}

for s in "$@"; do
	echo "=== $s ($(date +%T))"
	case $s in
	build | test | fidelity | costs) "step_$s" || echo "=== $s FAILED" ;;
	*) sweep "$s" ;;
	esac
done
echo "=== done ($(date +%T))"
