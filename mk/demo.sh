#!/bin/sh
# demo.sh: what `make demo` shows. With a GPU: record the bundled launch-bound program, report
# it and ask skip advise what to change. Without one: say so and do the same on a trace recorded
# on an H100 (tests/fixtures).
set -u
O=${O:-build}
SKIP=$O/skip
if nvidia-smi -L >/dev/null 2>&1 && [ -e "$O/libskip_collector.so" ] && [ -x "$O/apps/launch_chain" ]; then
	echo "skip demo: GPU found: $(nvidia-smi -L | head -1)"
	echo "skip demo: recording 1,000 steps of 20 tiny kernels (bench/apps/launch_chain.cu), 3 repetitions"
	echo "\$ $SKIP record -f -o $O/demo.skip.db --repeat 3 -- $O/apps/launch_chain --chain 20 --steps 1000"
	"$SKIP" record -f -o "$O/demo.skip.db" --repeat 3 -- "$O/apps/launch_chain" --chain 20 \
		--steps 1000 || exit 1
	trace=$O/demo.skip.db
else
	if [ -e "$O/libskip_collector.so" ]; then
		echo "skip demo: no GPU here (nvidia-smi -L found none), so nothing can be recorded;"
	else
		echo "skip demo: this build has no collector (no CUDA toolkit) and nothing can be recorded;"
	fi
	echo "skip demo: showing a trace recorded on an NVIDIA H100 instead (a small PyTorch MLP)."
	trace=tests/fixtures/h100_torch_mlp.skip.db
	echo "\$ $SKIP info $trace"
	"$SKIP" info "$trace" || exit 1
fi
if "$SKIP" report --help >/dev/null 2>&1; then
	echo
	echo "\$ $SKIP report $trace"
	"$SKIP" report "$trace"
fi
if "$SKIP" advise --help >/dev/null 2>&1; then
	echo
	echo "\$ $SKIP advise $trace --region step --top 3"
	"$SKIP" advise "$trace" --region step --top 3
fi
