"""benchlib.py: what the device-side benchmark scripts share (bench/llm, bench/overhead).

Nothing here imports torch at import time, so every script's --help and --dry-run work on a
machine without PyTorch or a GPU; need_torch_gpu() and preflight() fail with one clear line.
"""
import argparse
import importlib.util
import os
import shlex
import shutil
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("O", os.path.join(ROOT, "build"))
SKIP = os.path.join(BUILD, "skip")
MODELS = ("llama1b", "gpt2", "bert-base")  # bench/llm/prefill.py's


def need_torch_gpu(prog):
    """Import torch and return it, or exit with one line saying what is missing."""
    try:
        import torch
    except ImportError as e:
        raise SystemExit(f"{prog}: needs PyTorch with CUDA ({e}); run it on the GPU machine")
    if not torch.cuda.is_available():
        raise SystemExit(f"{prog}: PyTorch sees no CUDA GPU (torch.cuda.is_available() is "
                         "False); run it on the GPU machine")
    return torch


def preflight(prog, modules=("torch",), skip=None):
    """Check, without importing them, that MODULES are installed, that a GPU is there and
    (SKIP given) that the skip binary is built; exit with one line otherwise."""
    for m in modules:
        if importlib.util.find_spec(m) is None:
            raise SystemExit(f"{prog}: Python module '{m}' is not installed; run it on the GPU "
                             "machine (python3 with PyTorch and transformers)")
    smi = shutil.which("nvidia-smi")
    gpu = (subprocess.run([smi, "-L"], capture_output=True, text=True).returncode == 0
           if smi else os.path.exists("/dev/nvidia0"))
    if not gpu:
        raise SystemExit(f"{prog}: no NVIDIA GPU found (nvidia-smi -L failed or no /dev/nvidia0)"
                         "; run it on the GPU machine")
    if skip and not os.access(skip, os.X_OK):
        raise SystemExit(f"{prog}: {skip} is not built; run `make -j all` first")


def stats(vals):
    """Median, quartiles, min, max and count of VALS (a non-empty list of numbers)."""
    v = sorted(vals)
    q = statistics.quantiles(v, n=4, method="inclusive") if len(v) > 1 else [v[0]] * 3
    return {"median": statistics.median(v), "q1": q[0], "q3": q[2], "min": v[0], "max": v[-1],
            "n": len(v)}


def fmt_stats(s, digits=3, iqr=False):
    """'median [min, max]' (or '[q1, q3]' with IQR) of a stats() dict; '-' for None."""
    if not s:
        return "-"
    lo, hi = (s["q1"], s["q3"]) if iqr else (s["min"], s["max"])
    return f"{s['median']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def parse_app(line):
    """The key=value fields of an 'APP NAME k=v ...' line as a dict (NAME under 'app'), or
    None when LINE is not one."""
    parts = line.split()
    if len(parts) < 2 or parts[0] != "APP":
        return None
    out = {"app": parts[1]}
    for p in parts[2:]:
        k, sep, v = p.partition("=")
        if sep:
            out[k] = v
    return out


def skip_has_option(skip, command, option):
    """True when `skip COMMAND --help` mentions OPTION (an option another build may lack)."""
    p = subprocess.run([skip, command, "--help"], capture_output=True, text=True)
    return option in (p.stdout + p.stderr)


def show(cmd):
    """A command line as a shell would take it (for --dry-run and logs)."""
    return " ".join(shlex.quote(c) for c in cmd)


def int_list(s):
    """argparse type: positive whole numbers, comma-separated."""
    try:
        v = [int(x) for x in s.split(",") if x]
    except ValueError:
        v = []
    if not v or min(v) < 1:
        raise argparse.ArgumentTypeError(f"takes positive whole numbers, comma-separated; got '{s}'")
    return v


def model_list(s):
    """argparse type: models of prefill.py, comma-separated."""
    v = [x for x in s.split(",") if x]
    bad = [x for x in v if x not in MODELS]
    if not v or bad:
        raise argparse.ArgumentTypeError(f"takes models from {', '.join(MODELS)}; got '{s}'")
    return v


def ab_measure(run_one, pairs, per_block, start, stop):
    """In-process A/B: PAIRS pairs of blocks, each of PER_BLOCK timed calls of RUN_ONE (which
    returns its time), one block of a pair with recording off, the other inside START() ...
    STOP() (untimed; torch.cuda.profiler.start/stop for `skip record --capture-range
    cudaProfilerApi`, a torch.profiler for the profiler). The order within a pair alternates
    (off on, on off, ...) so a steady drift cancels. Returns {off, on: medians of every call;
    ratio: stats() of each pair's median on / median off}."""
    off, on, ratios = [], [], []
    for p in range(pairs):
        got = {}
        for recording in ((False, True) if p % 2 == 0 else (True, False)):
            if recording:
                start()
            got[recording] = [run_one() for _ in range(per_block)]
            if recording:
                stop()
        off += got[False]
        on += got[True]
        ratios.append(statistics.median(got[True]) / statistics.median(got[False]))
    return {"off": statistics.median(off), "on": statistics.median(on), "ratio": stats(ratios)}


def ab_switches(profiler):
    """(start, stop) for ab_measure: a fresh torch.profiler.profile(CPU+CUDA) per block with
    PROFILER, else torch.cuda.profiler.start/stop (cudaProfilerStart/Stop: what `skip record
    --capture-range cudaProfilerApi` turns recording on and off with; nothing without it)."""
    import torch
    if not profiler:
        return torch.cuda.profiler.start, torch.cuda.profiler.stop
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    box = []

    def start():
        box.append(torch.profiler.profile(activities=acts))
        box[-1].start()

    def stop():
        torch.cuda.synchronize()
        box.pop().stop()
    return start, stop


def gpt2_train_step(torch, layers=2, batch=1, nvtx=True, warmup=10):
    """A training step of GPT-2's architecture with LAYERS layers (transformers'
    GPT2LMHeadModel from its config, random weights), sequence 128, bf16 autocast, AdamW
    (foreach): forward, backward (on PyTorch's autograd thread) and the optimizer's step, in an
    NVTX range 'step' with NVTX. Returns step() after WARMUP steps and a synchronize (kernels
    loaded, allocator and optimizer state primed)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=layers)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    x = torch.randint(0, model.config.vocab_size, (batch, 128), device="cuda")

    def step():
        if nvtx:
            torch.cuda.nvtx.range_push("step")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x, labels=x).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if nvtx:
            torch.cuda.nvtx.range_pop()

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    return step


def timed_loop(torch, one, steps, unit, profiler=False, ab=0, ab_block=5, capture=False):
    """Times STEPS calls of ONE() and a synchronize: inside torch.profiler.profile(CPU+CUDA)
    with PROFILER (and no AB), between torch.cuda.profiler.start() and stop() with CAPTURE.
    Then, with AB, ab_measure() over units of UNIT calls and a synchronize (us a call).
    Returns (the timed seconds, the APP line's ab fields with a leading space, or "")."""
    import contextlib
    import time
    ctx = contextlib.nullcontext()
    if profiler and not ab:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        ctx = torch.profiler.profile(activities=acts)
    if capture:
        torch.cuda.profiler.start()
    with ctx:
        t0 = time.perf_counter()
        for _ in range(steps):
            one()
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
    if capture:
        torch.cuda.profiler.stop()
    if not ab:
        return wall, ""

    def block():
        t0 = time.perf_counter()
        for _ in range(unit):
            one()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e6 / unit
    return wall, " " + ab_line(ab_measure(block, ab, ab_block, *ab_switches(profiler)))


def ab_line(res):
    """The APP line's fields of an ab_measure() result."""
    r = res["ratio"]
    return (f"ab_off={res['off']:.3f} ab_on={res['on']:.3f} ab_ratio={r['median']:.4f} "
            f"ab_ratio_min={r['min']:.4f} ab_ratio_max={r['max']:.4f} ab_pairs={r['n']}")
