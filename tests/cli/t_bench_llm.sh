# The device-side benchmark scripts (bench/llm/graph_gain.py, fidelity.py, replay_cost.py,
# attn_gap.py, bench/overhead/cost_breakdown.py) without a GPU: their options, dry runs and clear failures,
# their arithmetic on hand-built inputs, and their whole flow on a stand-in torch (instant
# "passes") with a stand-in nvidia-smi, under the real skip record and skip advise.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_test "no python3"
have_collector || skip_test "no libskip_collector.so (built without the CUDA toolkit)"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
LLM=$SRC/bench/llm
PY=$(python3 -c "import sys; print(sys.executable)")
cd "$TMPDIR" || exit 1

# ---- options, dry runs ----------------------------------------------------------------------
expect_exit 0 python3 "$LLM/graph_gain.py" --dry-run --models gpt2 --batches 1,8 --eager-only
expect_out "2 configurations (eager only), seq 512, 60 warm-up + 60 timed passes each"
expect_out "gpt2 batch 8"
expect_exit 2 python3 "$LLM/graph_gain.py" --models gpt3
expect_out "takes models from llama1b, gpt2, bert-base; got 'gpt3'"
expect_exit 2 python3 "$LLM/graph_gain.py" --batches 0,1
expect_out "takes positive whole numbers"
expect_exit 0 python3 "$LLM/fidelity.py" --dry-run --skip "$SKIP" --out o
# --baseline when this skip record has it (it does)
expect_out "record -q -f -o WORK/fidelity.skip.db --repeat 3 --baseline --label 'graph_gain eager' --"
expect_out "--eager-only --models gpt2,bert-base --batches 1,2,4,8 --warmup 30 --passes 20 --nvtx 'prefill_{model}_b{batch}'"
expect_out "advise WORK/fidelity.skip.db --region prefill_bert-base_b8 --json"
expect_exit 0 python3 "$SRC/bench/overhead/cost_breakdown.py" --dry-run --skip "$SKIP" \
	--variants nvtx,cuda+nvtx+sync,torch.profiler --programs torch_loop
expect_out "torch_loop bare: $PY $SRC/bench/overhead/torch_loop.py --steps 2000 --ops 20"
expect_out "torch_loop cuda+nvtx+sync: $SKIP record -q -f -o TMP/torch_loop.skip.db --trace cuda,nvtx,sync --"
expect_out "torch_loop.py --steps 2000 --ops 20 --profiler"
expect_exit 2 python3 "$SRC/bench/overhead/cost_breakdown.py" --dry-run --variants bare,kernels
expect_out "unknown variant 'kernels'"
# --ab: the switchable variants record inside the program's capture ranges, the others as before
expect_exit 0 python3 "$SRC/bench/overhead/cost_breakdown.py" --dry-run --skip "$SKIP" --ab 4 \
	--variants default,torch-ops,torch.profiler --programs prefill
expect_out "prefill default: $SKIP record -q -f -o TMP/prefill.skip.db --capture-range cudaProfilerApi -- $PY $SRC/bench/llm/prefill.py --model gpt2 --batch 1 --warmup 30 --passes 30 --ab 4"
expect_out "prefill torch-ops: $SKIP record -q -f -o TMP/prefill.skip.db --capture-range cudaProfilerApi --torch-ops -- "
expect_out "--passes 30 --ab 4 --profiler"

# ---- arithmetic on hand-built inputs ----------------------------------------------------------
cat > hand.py <<'PY'
import sqlite3, sys
import graph_gain as G, fidelity as F
# windows of 60 passes; a curve 10 ms x5, 5.2 x5, 5.0 x10 against a steady 5.0: window medians
# 2.00x, 1.04x, 1.00x, warm (<= 1.05x from there on) after 5 passes.
assert G.windows(60) == [(1, 5), (6, 10), (11, 20), (21, 40), (41, 60)], G.windows(60)
rows, warm = G.curve([10.0] * 5 + [5.2] * 5 + [5.0] * 10, 5.0)
assert [round(r["vs_steady"], 2) for r in rows] == [2.0, 1.04, 1.0] and warm == 5, (rows, warm)
assert G.curve([9.0] * 10, 5.0)[1] is None
# run kinds: a schema-3 file and one without SKIP_RUNS.kind
db = sqlite3.connect("k3.db"); db.execute("CREATE TABLE SKIP_RUNS(runId INTEGER, kind TEXT)")
db.executemany("INSERT INTO SKIP_RUNS VALUES (?, ?)", [(1, "full"), (2, "baseline")]); db.commit()
db = sqlite3.connect("k2.db"); db.execute("CREATE TABLE SKIP_RUNS(runId INTEGER)")
db.execute("INSERT INTO SKIP_RUNS VALUES (1)"); db.commit()
assert F.run_kinds("k3.db") == {"1": "full", "2": "baseline"} and F.run_kinds("k2.db") == {"1": "full"}
out = ("APP graph_gain model=gpt2 batch=1 seq=512 passes=20 eager_ms=7.5 graph_ms=- gain=- run=1 kind=x\n"
       "APP graph_gain model=gpt2 batch=1 seq=512 passes=20 eager_ms=6.06 graph_ms=- gain=- run=2 kind=y\n"
       "APP graph_gain model=gpt2 batch=1 seq=512 passes=20 eager_ms=7.2 graph_ms=- gain=- run=3 kind=x\n"
       "APP graph_gain model=gpt2 batch=1 seq=512 passes=20 eager_ms=7.8 graph_ms=- gain=- run=1 kind=x\n")
app = F.recorded_app(out, {"1": "full", "2": "baseline", "3": "full"})
assert app == {("gpt2", 1): {"full": [7.5, 7.2, 7.8], "baseline": [6.06]}}, app
# measured eager 6 ms, graph 1 ms, gain 6x; predicted now 6.6 ms (+10.0%), graph 1.05 ms (+5.0%),
# gain 6.285714x (+4.8%): within 10%. Batch 2: gain 7.2x against 6x (+20.0%): not within.
adv = lambda now, g, s: F.graph_item({"model": {"recorded_il_ns": 7.44e6}, "advice": [
    {"kind": "fusion", "baseline_il_ns": 1, "predicted_il_ns": 1, "speedup": 1},
    {"kind": "graph", "baseline_il_ns": now, "predicted_il_ns": g, "speedup": s}]})
meas = {"eager": {"median": 6.0}, "graph": {"median": 1.0}, "gain": 6.0, "capture_error": None}
args = F.parse_args(["--models", "gpt2", "--batches", "1,2"])
rs = F.rows(args, {("gpt2", 1): meas, ("gpt2", 2): meas}, app,
            {("gpt2", 1): adv(6.6e6, 1.05e6, 6.285714), ("gpt2", 2): adv(6.6e6, 1.05e6, 7.2)})
print(F.tables(rs))
# --one-process, each run against its own process: measured gains 4x, 6x, 2x (graph 2 ms each);
# predicted 4.2x (+5.0%), 6.48x (+8.0%), 3.0x (+50.0%), graph 1.9, 2.1, 2.0 ms (-5.0, +5.0, 0.0%):
# median errors +8.0% / +0.0%, within 10%; the worst run +50.0%
out = "".join(f"APP graph_gain model=gpt2 batch=1 seq=512 passes=4 eager_ms={e} graph_ms=2 "
              f"gain={g} recorded=2 run={r} kind=cuda\n" for r, e, g in ((1, 8, 4), (2, 12, 6), (3, 4, 2)))
pr = F.measured_per_run(out + "APP graph_gain model=gpt2 batch=1 eager_ms=1 graph_ms=- gain=- run=-\n")
assert pr[("gpt2", 1, 2)] == {"eager": 12.0, "graph": 2.0, "gain": 6.0} and len(pr) == 3, pr
args3 = F.parse_args(["--models", "gpt2", "--batches", "1", "--repeat", "3", "--one-process"])
prs = F.per_run_rows(args3, pr, {("gpt2", 1, r): adv(1, g, s) for r, g, s in
                                 ((1, 1.9e6, 4.2), (2, 2.1e6, 6.48), (3, 2.0e6, 3.0))})
assert prs[0]["worst_gain_err_pct"] == 50.0 and prs[0]["within_target"], prs
print(F.per_run_table(prs))
PY
PYTHONPATH=$LLM expect_exit 0 python3 hand.py
expect_out "| gpt2 | 1 | 4.00 / 6.00 / 2.00 | 4.20 / 6.48 / 3.00 | +5.0 / +8.0 / +50.0 | -5.0 / +5.0 / +0.0 | +8.0 / +0.0 | yes |"
expect_out "| gpt2 | 1 | 6.000 | 6.600 (+10.0%) | 1.000 | 1.050 (+5.0%) | 6.00x | 6.29x (+4.8%) | yes |"
expect_out "| gpt2 | 2 | 6.000 | 6.600 (+10.0%) | 1.000 | 1.050 (+5.0%) | 6.00x | 7.20x (+20.0%) | **no** |"
expect_out "| model | batch | baseline runs | full runs | recorded IL |"
expect_out "| gpt2 | 1 | 1.01x | 1.25x | 1.24x |"

# ---- a stand-in torch and transformers --------------------------------------------------------
mkdir -p fake/torch fake/transformers bin
cat > fake/torch/__init__.py <<'PY'
import contextlib, os, types
if os.environ.get("FAKE_NO_TORCH"):
    raise ImportError("No module named 'torch' (stand-in)")
__version__ = "stand-in"
bfloat16 = "bf16"
capturing = [False]
class T:
    def __init__(self, v=1.0): self.v = v
    def float(self): return self
    def abs(self): return T(abs(self.v))
    def max(self): return self
    def item(self): return self.v
    def __sub__(self, o): return T(self.v - o.v)
    __mul__ = __add__ = lambda self, o: self
    def to(self, d): return self
def model_call(kind):
    if kind == "bert" and capturing[0] and os.environ.get("FAKE_BERT_NO_CAPTURE"):
        raise RuntimeError("operation not permitted when stream is capturing\ndetail")
    import transformers.masking_utils as mu  # its capture path gives another output
    v = 1.5 if mu.is_tracing() else 1.0
    return types.SimpleNamespace(logits=T(v), last_hidden_state=T(v))
manual_seed = set_default_dtype = lambda *a: None
randint = randn = lambda *a, **k: T()
device = lambda d: contextlib.nullcontext()
inference_mode = contextlib.nullcontext
class Stream:
    def wait_stream(self, s): pass
class CUDAGraph:
    def replay(self): pass
@contextlib.contextmanager
def _graph(g):
    capturing[0] = True
    try:
        yield
    finally:
        capturing[0] = False
cuda = types.SimpleNamespace(
    Stream=Stream, CUDAGraph=CUDAGraph, graph=_graph, current_stream=Stream,
    is_available=lambda: not os.environ.get("FAKE_NO_GPU"), stream=lambda s: contextlib.nullcontext(),
    synchronize=lambda: None, empty_cache=lambda: None, get_device_name=lambda: "stand-in",
    nvtx=types.SimpleNamespace(range_push=lambda n: None, range_pop=lambda: None),
    profiler=types.SimpleNamespace(start=lambda: None, stop=lambda: None))
class _Profile(contextlib.nullcontext):
    def __init__(self, activities=None): super().__init__()
    def start(self): pass
    def stop(self): pass
profiler = types.SimpleNamespace(ProfilerActivity=types.SimpleNamespace(CPU=1, CUDA=2),
                                 profile=_Profile)
PY
cat > fake/transformers/__init__.py <<'PY'
import torch
__version__ = "stand-in"
class Config:
    vocab_size = 100
    def __init__(self, **k): pass
GPT2Config = BertConfig = LlamaConfig = Config
class Model:
    kind = "gpt2"
    def __init__(self, cfg): pass
    def eval(self): return self
    def __call__(self, **k): return torch.model_call(self.kind)
class GPT2LMHeadModel(Model): pass
class LlamaForCausalLM(Model): pass
class BertModel(Model): kind = "bert"
PY
printf 'import torch\nis_tracing = lambda t=None: torch.capturing[0]\n%s\n' \
	'find_packed_sequence_indices = lambda p: None' > fake/transformers/masking_utils.py
printf '#!/bin/sh\necho "GPU 0: stand-in"\n' > bin/nvidia-smi
chmod +x bin/nvidia-smi
export PYTHONPATH="$TMPDIR/fake"

# clear failures
FAKE_NO_TORCH=1 expect_exit 1 python3 "$LLM/graph_gain.py" --passes 1
expect_out "graph_gain.py: needs PyTorch with CUDA (No module named 'torch' (stand-in)); run it on the GPU machine"
FAKE_NO_TORCH=1 expect_exit 1 python3 "$LLM/replay_cost.py" --models gpt2
expect_out "replay_cost.py: needs PyTorch with CUDA"
FAKE_NO_GPU=1 expect_exit 1 python3 "$LLM/prefill.py" --model gpt2
expect_out "prefill.py: PyTorch sees no CUDA GPU (torch.cuda.is_available() is False)"
if ! command -v nvidia-smi >/dev/null 2>&1 && [ ! -e /dev/nvidia0 ]; then
	expect_exit 1 python3 "$LLM/fidelity.py" --skip "$SKIP" --out o
	expect_out "fidelity.py: no NVIDIA GPU found"
fi
PATH="$TMPDIR/bin:$PATH" expect_exit 1 python3 "$SRC/bench/overhead/cost_breakdown.py" --skip nonexistent/skip
expect_out "cost_breakdown.py: nonexistent/skip is not built; run \`make -j all\` first"

# graph_gain: every configuration measured, BERT's capture failing is reported, eager goes on
FAKE_BERT_NO_CAPTURE=1 SKIP_RUN_ID=7 SKIP_TRACE=nvtx expect_exit 0 python3 "$LLM/graph_gain.py" \
	--models gpt2,bert-base --batches 1,4 --warmup 6 --passes 4 --json gg.json
expect_out "APP graph_gain model=gpt2 batch=4 seq=512 passes=4 eager_ms="
expect_out "run=7 kind=nvtx"
expect_out "graph_ms=- gain=- recorded=0 run=7"
expect_out "capture failed: RuntimeError: operation not permitted when stream is capturing |"
cat > check.py <<'PY'
import json
c = json.load(open("gg.json"))["configs"]
assert [(x["model"], x["batch"]) for x in c] == [("gpt2", 1), ("gpt2", 4), ("bert-base", 1), ("bert-base", 4)]
assert c[0]["first_in_process"] and not c[1]["first_in_process"]
assert c[0]["eager"]["n"] == 4 and c[0]["graph"]["n"] == 4 and len(c[0]["warmup_ms"]) == 6
assert [w["passes"] for w in c[0]["curve"]] == ["1-5", "6-6"] and c[0]["graph_check"] == 0.0
assert c[2]["graph"] is None and c[2]["eager"]["n"] == 4 and c[2]["capture_error"].startswith("RuntimeError")
assert c[0]["eager_path"] is True, c[0]
PY
expect_exit 0 python3 check.py
# --transformers-path: the capture takes transformers' own path, and the check shows it
expect_exit 0 python3 "$LLM/graph_gain.py" --models gpt2 --batches 1 --warmup 1 --passes 2 \
	--transformers-path --json gt.json
cat > check.py <<'PY'
import json
c = json.load(open("gt.json"))["configs"][0]
assert c["eager_path"] is False and c["graph_check"] == 0.5, c
PY
expect_exit 0 python3 check.py

# fidelity: the whole loop under the real skip record and skip advise (a stand-in records no
# kernels: skip advise says so in the table, the run still ends with its tables and JSON)
PATH="$TMPDIR/bin:$PATH" expect_exit 0 python3 "$LLM/fidelity.py" --skip "$SKIP" --out o \
	--models gpt2 --batches 2 --repeat 2 --warmup 2 --passes 2 --rec-warmup 1 --rec-passes 1
expect_out "| gpt2 | 2 | "
expect_out "advise: run 1 has no kernels"
expect_out "| model | batch | baseline runs | full runs | recorded IL |"
{ [ -s o/fidelity.json ] && [ -s o/graph_gain.json ]; } || fail "fidelity.py wrote no JSON"
[ "$(ls o | wc -l)" = 2 ] || fail "fidelity.py left more than its two files in DIR: $(ls o)"
# --one-process: one recording that measures too (capture range, recorded passes); the measured
# columns come from its APP lines
PATH="$TMPDIR/bin:$PATH" expect_exit 0 python3 "$LLM/fidelity.py" --skip "$SKIP" --out o1 \
	--models gpt2 --batches 2 --repeat 2 --warmup 2 --passes 4 --one-process --recorded 2
expect_out "--capture-range cudaProfilerApi --label 'graph_gain one process' --"
expect_out "--passes 4 --nvtx 'prefill_{model}_b{batch}' --recorded 2"
expect_out "recorded=2 run=1"
cat > check.py <<'PY'
import json
d = json.load(open("o1/fidelity.json"))
r = d["rows"][0]
assert d["one_process"] and r["measured_eager_ms"] is not None and r["measured_graph_ms"] is not None, r
assert r["measured_gain"] is not None and r["advise_error"], r
assert [x["run"] for x in d["per_run_rows"][0]["runs"]] == [1, 2], d["per_run_rows"]
assert "gpt2 2 1" in d["advise"] and "gpt2 2" in d["advise"], d["advise"].keys()
PY
expect_exit 0 python3 check.py

# ab_measure: pairs alternate off-on, on-off; a run_one that takes 2.0 inside start/stop and
# 1.0 outside gives off 1.0, on 2.0 and a ratio of 2 in every pair
cat > ab.py <<'PY'
import benchlib as B
state, seq = [False], []
def start(): state[0] = True
def stop(): state[0] = False
def one():
    seq.append(state[0])
    return 2.0 if state[0] else 1.0
r = B.ab_measure(one, 3, 2, start, stop)
assert (r["off"], r["on"]) == (1.0, 2.0), r
assert r["ratio"]["median"] == 2.0 and r["ratio"]["min"] == 2.0 and r["ratio"]["n"] == 3, r
assert seq == [False, False, True, True, True, True, False, False, False, False, True, True], seq
assert B.ab_line(r).startswith("ab_off=1.000 ab_on=2.000 ab_ratio=2.0000 "), B.ab_line(r)
PY
PYTHONPATH="$LLM:$PYTHONPATH" expect_exit 0 python3 ab.py

# cost_breakdown: two rounds of four variants on torch_loop
PATH="$TMPDIR/bin:$PATH" expect_exit 0 python3 "$SRC/bench/overhead/cost_breakdown.py" \
	--skip "$SKIP" --programs torch_loop --steps 5 --variants bare,default,all-apis,torch.profiler \
	--rounds 2 --min-rounds 2 --json cb.json
expect_out "torch_loop round 2: bare "
expect_out "| default | "
expect_out "| torch.profiler | "
cat > check.py <<'PY'
import json
p = json.load(open("cb.json"))["programs"]["torch_loop"]
assert len(p["rounds"]) == 2 and set(p["variants"]) >= {"bare", "default", "torch.profiler"}
assert p["variants"]["bare"]["vs_bare"]["median"] == 1.0
PY
expect_exit 0 python3 check.py
# with --ab: every switchable variant has its in-process ratio, nvtx none
PATH="$TMPDIR/bin:$PATH" expect_exit 0 python3 "$SRC/bench/overhead/cost_breakdown.py" \
	--skip "$SKIP" --programs torch_loop --steps 5 --variants bare,default,nvtx \
	--rounds 1 --min-rounds 1 --ab 2 --json cb.json
expect_out "| variant | program's figure, us/step | / bare | pooled / bare | in-process on / off |"
expect_out "| bare | "
# the pooled ratios: lower quartiles 6 / 4 and medians 9 / 6, both 1.5
PYTHONPATH="$SRC/bench/overhead:$LLM:$PYTHONPATH" expect_exit 0 python3 -c '
import cost_breakdown as c
assert c.pooled({"q1": 6, "median": 9}, {"q1": 4, "median": 6}) == "1.500 / 1.500"
assert c.pooled(None, {"q1": 4, "median": 6}) == "-"'

cat > check.py <<'PY'
import json
v = json.load(open("cb.json"))["programs"]["torch_loop"]["variants"]
assert v["bare"]["in_process"]["n"] == 1 and v["default"]["in_process"]["n"] == 1, v
assert "in_process" not in v["nvtx"], v
PY
expect_exit 0 python3 check.py

# replay_cost.py --analyze on a hand-built trace: two replays (correlation ids 7 and 8) of 11
# nodes 1000 ns apart, kernels 800 ns long and node 5 a 4-byte memset of 100 ns. Each replay:
# span 10800 ns, busy 10 x 800 + 100 = 8100, gaps 2700; the 9 kernels after the first wait
# 200 ns each but the one after the memset (900): median 200, 2.50 us a replay; the memset 200.
python3 - "$SRC/schemas/trace.sql" hand_replay.db <<'PY' || fail "building hand_replay.db"
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.executescript(open(sys.argv[1]).read())
db.execute("INSERT INTO StringIds VALUES (1, 'k')")
for c, t0 in ((7, 0), (8, 100000)):
    for i in range(11):
        s = t0 + 1000 * i
        if i == 5:
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (runId, start, end, deviceId, "
                       "contextId, streamId, correlationId, globalPid, value, bytes) "
                       "VALUES (1, ?, ?, 0, 1, 7, ?, 1, 0, 4)", (s, s + 100, c))
        else:
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (runId, start, end, deviceId, "
                       "contextId, streamId, correlationId, globalPid, demangledName, shortName, "
                       "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                       "staticSharedMemory, dynamicSharedMemory, graphId) VALUES (1, ?, ?, 0, "
                       "1, 7, ?, 1, 1, 1, 16, 1, 1, 1, 32, 1, 1, 0, 0, 3)", (s, s + 800, c))
db.commit()
PY
expect_exit 0 python3 "$LLM/replay_cost.py" --analyze hand_replay.db
expect_out "all: 2 replays, 11 nodes: span 10.8 us, nodes busy 8.1 us, gaps 2.7 us"
expect_out "       9     200    2.50  k|g1|b32|r16|dyn0K|cl0"
expect_out "       1     200    0.20  memset4"
expect_out "       1     900    0.90  memset4 -> k"
expect_exit 1 python3 "$LLM/replay_cost.py" --analyze "$SRC/schemas/trace.sql"
expect_out "trace.sql: not a skip trace (file is not a database)"

# attn_gap.py --analyze on a hand-built trace: the range 'v' twice ([0, 10000] and [20000,
# 30000]), each holding a kernel k [t, t+800], a 4-byte memset [t+1000, t+1100] and k again
# [t+3000, t+3800]: gaps k -> memset4 200 ns, memset4 -> k 1900 ns, twice each; k runs 800 ns
# four times. The range 'w' [50000, 60000] holds nothing and is counted with no gaps.
python3 - "$SRC/schemas/trace.sql" hand_gap.db <<'PY' || fail "building hand_gap.db"
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.executescript(open(sys.argv[1]).read())
db.execute("INSERT INTO StringIds VALUES (1, 'k')")
K = ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (runId, start, end, deviceId, contextId, streamId, "
     "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, "
     "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory) "
     "VALUES (1, ?, ?, 0, 1, 7, 1, 1, 1, 1, 16, 2, 1, 1, 64, 1, 1, 0, 2048)")
for t in (0, 20000):
    db.execute("INSERT INTO NVTX_EVENTS (runId, start, end, eventType, text, globalTid) "
               "VALUES (1, ?, ?, 59, 'v', 1)", (t, t + 10000))
    db.execute(K, (t, t + 800))
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (runId, start, end, deviceId, contextId, "
               "streamId, correlationId, globalPid, value, bytes) "
               "VALUES (1, ?, ?, 0, 1, 7, 1, 1, 0, 4)", (t + 1000, t + 1100))
    db.execute(K, (t + 3000, t + 3800))
db.execute("INSERT INTO NVTX_EVENTS (runId, start, end, eventType, text, globalTid) "
           "VALUES (1, 50000, 60000, 59, 'w', 1)")
db.commit()
PY
expect_exit 0 python3 "$LLM/attn_gap.py" --analyze hand_gap.db
expect_out "v: 2 ranges"
expect_out "       2 gaps, median   0.200 us  k<2,64,r16,2K,c0> -> memset4"
expect_out "       2 gaps, median   1.900 us  memset4 -> k<2,64,r16,2K,c0>"
expect_out "       4 runs, median   0.800 us  k<2,64,r16,2K,c0>"
expect_out "w: 1 ranges"
expect_exit 1 python3 "$LLM/attn_gap.py" --analyze "$SRC/schemas/trace.sql"
expect_out "attn_gap.py: $SRC/schemas/trace.sql: not a skip trace (file is not a database)"
FAKE_NO_TORCH=1 expect_exit 1 python3 "$LLM/attn_gap.py"
expect_out "attn_gap.py: needs PyTorch with CUDA"
exit 0
