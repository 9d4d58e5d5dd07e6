#!/bin/sh
# device.sh STEP...: what a session runs on the GPU machine, in one call, writing logs and
# results under $OUT (default ./device-out). Steps:
#   probe     machine facts (GPU, OS, toolchain, python/torch)
#   build     make all bench (with .deps/ carried from a machine with the Debian packages)
#   test      make test-gpu
#   fixtures  record the small H100 traces committed under tests/fixtures (-> fixtures.tar.gz)
#   overhead  bench/overhead/overhead.py (ROUNDS=10 by default)
#   torchops  the PyTorch MLP with --torch-ops (h100_torch_mlp_ops.skip.db), its operator table
#             and its ranges with a sequence number per thread, for the attribution of
#             kernels launched from the autograd thread (docs/skip-report.md "Operators")
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
J=$(nproc)
export PYTHONUNBUFFERED=1

step_probe() {
	{
		nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
		uname -a; head -2 /etc/os-release; gcc --version | head -1; make --version | head -1
		nvcc --version | tail -1; command -v sqlite3 || echo "no sqlite3 shell"
		python3 -c 'import torch, sqlite3; print("torch", torch.__version__, "sqlite", sqlite3.sqlite_version)'
		nproc; free -g | head -2
	} 2>&1 | tee "$OUT/probe.txt"
}

step_build() {
	make -j"$J" all bench > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; return 1; }
	echo "build ok"
}

step_test() {
	make test-gpu > "$OUT/test-gpu.log" 2>&1
	rc=$?
	grep -E '^\[(FAIL|SKIP|----)\]|Synthesis|Assertion|expected|info\]' "$OUT/test-gpu.log" | head -80
	return $rc
}

fixture() { # name, skip-record options, program...
	name=$1; opts=$2; shift 2
	# shellcheck disable=SC2086
	build/skip record -q -f -o "$FIX/$name.skip.db" $opts -- "$@" > "$FIX/$name.log" 2>&1 ||
		echo "fixture $name: exit $?"
}

step_fixtures() {
	FIX=$OUT/fixtures
	rm -rf "$FIX"; mkdir -p "$FIX"
	A=build/apps
	fixture h100_launch_chain "--repeat 3" $A/launch_chain --kernels 2000
	fixture h100_gpu_bound "" $A/gpu_bound --kernels 300 --us 50
	fixture h100_two_streams "" $A/two_streams --kernels 20 --rounds 5
	fixture h100_memops "" $A/memops --bytes 1048576 --rounds 3
	fixture h100_nvtx_threads "" $A/nvtx_threads
	fixture h100_cublas "" $A/cublas_driver --gemms 5 --driver-launches 10
	fixture h100_graph "" $A/graph --kernels 10 --launches 20
	fixture h100_torch_mlp "" python3 tests/gpu/torch_mlp.py --steps 20
	for f in "$FIX"/*.skip.db; do build/skip info "$f" | sed -n '1p;3,6p;9p'; done
	ls -la "$FIX"
	tar -C "$OUT" -czf "$OUT/fixtures.tar.gz" fixtures && rm -rf "$FIX"
}

step_torchops() {
	db=$OUT/h100_torch_mlp_ops.skip.db
	build/skip record -q -f -o "$db" --torch-ops -- python3 tests/gpu/torch_mlp.py --steps 20 \
		> "$OUT/torchops.log" 2>&1 || { tail -20 "$OUT/torchops.log"; return 1; }
	build/skip report --no-color "$db" | sed -n '/^Top operators/,$p'
	build/skip report --no-color --region backward "$db" | sed -n '/^Top operators/,$p'
	build/skip report --json "$db" > "$OUT/torchops.json"
	# the GPU machine has no sqlite3 shell: python3's sqlite3
	python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute("SELECT globalTid, count(*), sum(text LIKE \"%, seq = %\"), min(text), max(text) FROM NVTX_EVENTS GROUP BY 1"):
    print(*r, sep=" | ")' "$db" 2>&1 | tee "$OUT/torchops_ranges.txt"
}

step_overhead() {
	python3 bench/overhead/overhead.py --rounds "${ROUNDS:-10}" --json "$OUT/overhead.json" \
		${ONLY:+--only "$ONLY"} 2>&1 | tee "$OUT/overhead.log" | tail -30
}

for s in "$@"; do
	echo "=== $s ($(date +%T))"
	"step_$s" || echo "=== $s FAILED"
done
echo "=== done ($(date +%T))"
