"""graph_gain.py: eager prefill against the same prefill captured once as a CUDA graph, measured.

    python3 bench/llm/graph_gain.py [--models gpt2,bert-base] [--batches 1,2,4,8] [--seq 512]
                                    [--warmup W] [--passes N] [--eager-only] [--nvtx NAME]
                                    [--recorded K] [--transformers-path] [--json OUT]
                                    [--dry-run]

For each model (bench/llm/prefill.py's builders: random bf16 weights, nothing downloaded) and
each batch size, in one process, one configuration after the other:

1. W eager prefill passes, each timed: the warm-up curve. Its medians over passes 1-5, 6-10,
   11-20, 21-40, 41-80, ... are compared with the steady median (step 3's eager passes); "warm
   after" is the number of passes before the first window from which every window stays within
   5% of it. The first configuration's curve is that of a fresh process.
2. The prefill captured once with torch.cuda.graph on static inputs (the token ids tensor),
   after 3 warm-up passes on a side stream (torch.cuda.Stream, wait_stream), as PyTorch's CUDA
   graphs documentation describes. One replay is checked against an eager pass (max |diff|
   relative to max |eager|), then 10 replays warm the graph up. A capture that fails is reported
   (graph columns '-') and the eager passes go on.
   While a stream captures, transformers (5.x: masking_utils.is_tracing) takes another path
   for the attention masks: it materializes them, and BERT leaves cuDNN's flash attention for a
   float32 GEMM and softmax. Recorded on the H100, GPT-2's replay then ran 269 kernels where
   its eager pass runs 219, BERT-base's 376 for 153 (1.9 ms of kernels for 0.7), and the
   outputs differed by 2e-2: no replay of the eager program. So during the capture its mask
   code is told that nothing is captured (the passes give no attention mask, so the checks
   it then makes read nothing from the GPU; one that did would fail the capture, which is
   reported), and the graph holds the eager pass's kernels. --transformers-path keeps its
   own path.
3. N interleaved pairs of an eager pass and a graph replay (A B, then B A, ...), each timed by
   time.perf_counter() around the pass and torch.cuda.synchronize().

Each timed eager pass of step 3 runs inside the NVTX range NAME (default "prefill"; "{model}"
and "{batch}" in NAME are replaced), so that the script can be recorded by `skip record` and
advised with `skip advise --region NAME`. --eager-only leaves the graph out (step 2 and the
replays of step 3): the eager program alone, for recording exactly what was measured.
--recorded K adds, after every K-th pair of step 3, one more eager pass (in the same NVTX range)
inside torch.cuda.profiler.start() ... stop(): under `skip record --capture-range
cudaProfilerApi` only those are recorded, so one process gives skip advise its recorded passes
and the unrecorded ones (its unprofiled time) beside the measured eager and graph passes. The
recorded passes are left out of every figure (their count is the APP line's recorded=).

Prints one line per configuration,
  APP graph_gain model=M batch=B seq=S passes=N eager_ms=... graph_ms=... gain=... run=R kind=K
      check=C
(medians; R and K are SKIP_RUN_ID and SKIP_TRACE, '-' outside skip record; C the replay's check
of step 2), then a table: eager and graph ms as median [q1, q3], the gain (median eager / median
graph) with the IQR of the per-pair ratios, and the warm-up curve. --json OUT writes the same
with every pass's time.
"""
import argparse
import contextlib
import json
import os
import platform
import sys
import time

from benchlib import fmt_stats, int_list, model_list, need_torch_gpu, stats
from prefill import build, prefill_fn

WARM_TOLERANCE = 1.05  # a window is warm when its median is within 5% of the steady one


def windows(n):
    """The warm-up curve's windows over passes 1..N: (1, 5), (6, 10), (11, 20), (21, 40) ..."""
    out, lo, hi = [], 1, 5
    while lo <= n:
        out.append((lo, min(hi, n)))
        lo, hi = hi + 1, (hi * 2 if hi >= 10 else hi + 5)
    return out


def curve(times, steady):
    """Window medians of the warm-up passes TIMES (ms) relative to STEADY, and the number of
    passes before the first window from which all stay within WARM_TOLERANCE (None: never)."""
    rows = []
    for lo, hi in windows(len(times)):
        m = stats(times[lo - 1:hi])["median"]
        rows.append({"passes": f"{lo}-{hi}", "median_ms": m, "vs_steady": m / steady})
    warm_after = None
    for i in range(len(rows)):
        if all(r["vs_steady"] <= WARM_TOLERANCE for r in rows[i:]):
            warm_after = windows(len(times))[i][0] - 1
            break
    return rows, warm_after


def first_tensor(out):
    for name in ("logits", "last_hidden_state"):
        t = getattr(out, name, None)
        if t is not None:
            return t
    return out[0]


def timed(torch, fn, nvtx=None):
    """Milliseconds of one call of FN, synchronized, inside NVTX range NVTX when given."""
    t0 = time.perf_counter()
    if nvtx:
        torch.cuda.nvtx.range_push(nvtx)
    fn()
    torch.cuda.synchronize()
    if nvtx:
        torch.cuda.nvtx.range_pop()
    return (time.perf_counter() - t0) * 1e3


@contextlib.contextmanager
def eager_path(on):
    """While ON, transformers' attention-mask code is told what the eager pass finds: nothing
    is traced or captured (masking_utils.is_tracing), and the position ids hold no packed
    sequences (find_packed_sequence_indices gives None, as it does for the passes' ids after
    reading them from the GPU). The rest of transformers still sees the capture. Yields
    whether it could be told (a transformers without those two functions cannot)."""
    try:
        import transformers.masking_utils as mu
    except ImportError:
        mu = None
    names = ("is_tracing", "find_packed_sequence_indices")
    real = {n: getattr(mu, n, None) for n in names}
    if not on or None in real.values():
        yield False
        return
    mu.is_tracing = lambda *a, **k: False
    mu.find_packed_sequence_indices = lambda *a, **k: None
    try:
        yield True
    finally:
        for n in names:
            setattr(mu, n, real[n])


def capture(torch, fn, same_path=True):
    """FN captured once as a CUDA graph (side-stream warm-up first), the graph's output, and
    whether transformers took the eager path during the capture."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with eager_path(same_path) as told, torch.cuda.graph(graph):
        out = fn()
    return graph, first_tensor(out), told


def one_config(torch, args, name, model, vocab, batch, first):
    # drawn on the CPU: a failed capture can leave the CUDA generator unusable
    ids = torch.randint(0, vocab, (batch, args.seq)).to("cuda")
    fn = prefill_fn(name, model, ids)
    nvtx = args.nvtx.replace("{model}", name).replace("{batch}", str(batch))
    res = {"model": name, "batch": batch, "seq": args.seq, "nvtx": nvtx,
           "first_in_process": first, "capture_error": None, "graph_check": None,
           "eager_path": None}
    warm = [timed(torch, fn) for _ in range(args.warmup)]
    graph = None
    if not args.eager_only:
        try:
            graph, gout, res["eager_path"] = capture(torch, fn, not args.transformers_path)
            ref = first_tensor(fn()).float()
            graph.replay()
            torch.cuda.synchronize()
            scale = ref.abs().max().item() or 1.0
            res["graph_check"] = (gout.float() - ref).abs().max().item() / scale
            for _ in range(10):
                graph.replay()
            torch.cuda.synchronize()
        except Exception as e:  # a prefill that cannot be captured: say why, keep eager
            line = (str(e).splitlines() or [""])[0]
            res["capture_error"] = f"{type(e).__name__}: {line[:200]}"
            graph = None
            try:
                torch.cuda.synchronize()
            except Exception:
                pass
    eager, replay, recorded = [], [], []
    for p in range(args.passes):
        if graph is None:
            eager.append(timed(torch, fn, nvtx))
        elif p % 2 == 0:
            eager.append(timed(torch, fn, nvtx))
            replay.append(timed(torch, graph.replay))
        else:
            replay.append(timed(torch, graph.replay))
            eager.append(timed(torch, fn, nvtx))
        if args.recorded and p % args.recorded == args.recorded - 1:
            torch.cuda.profiler.start()
            recorded.append(timed(torch, fn, nvtx))
            torch.cuda.profiler.stop()
    res["recorded_ms"] = recorded
    res["eager"] = stats(eager)
    res["eager_ms"] = eager
    res["warmup_ms"] = warm
    res["curve"], res["warm_after"] = curve(warm, res["eager"]["median"]) if warm else ([], None)
    if replay:
        res["graph"] = stats(replay)
        res["graph_ms"] = replay
        res["gain"] = res["eager"]["median"] / res["graph"]["median"]
        res["gain_pairs"] = stats([e / g for e, g in zip(eager, replay)])
    else:
        res["graph"] = res["graph_ms"] = res["gain"] = res["gain_pairs"] = None
    del graph
    return res


def app_line(r):
    g = (f"graph_ms={r['graph']['median']:.3f} gain={r['gain']:.3f}" if r["graph"]
         else "graph_ms=- gain=-")
    return (f"APP graph_gain model={r['model']} batch={r['batch']} seq={r['seq']} "
            f"passes={r['eager']['n']} eager_ms={r['eager']['median']:.3f} {g} "
            f"recorded={len(r.get('recorded_ms') or [])} "
            f"run={os.environ.get('SKIP_RUN_ID', '-')} kind={os.environ.get('SKIP_TRACE', '-')} "
            f"check={'-' if r['graph_check'] is None else format(r['graph_check'], '.1e')}")


def table(results):
    lines = ["| model | batch | eager ms [q1, q3] | graph ms [q1, q3] | measured gain "
             "[pair IQR] | warm after | graph check |", "|---|---|---|---|---|---|---|"]
    for r in results:
        gain = (f"{r['gain']:.2f}x [{r['gain_pairs']['q1']:.2f}, {r['gain_pairs']['q3']:.2f}]"
                if r["gain"] else f"capture failed: {(r['capture_error'] or '-')[:90]}")
        warm = "-" if not r["curve"] else (
            f"{r['warm_after']} passes" if r["warm_after"] is not None
            else f"> {len(r['warmup_ms'])} passes")
        check = "-" if r["graph_check"] is None else f"{r['graph_check']:.1e}"
        lines.append(f"| {r['model']} | {r['batch']} | {fmt_stats(r['eager'], iqr=True)} | "
                     f"{fmt_stats(r['graph'], iqr=True)} | {gain} | {warm} | {check} |")
    lines += ["", "Warm-up curve: eager window medians / steady median (the first row is a fresh "
              "process's)"]
    for r in results:
        lines.append(f"  {r['model']} batch {r['batch']}: " + ", ".join(
            f"{c['passes']} {c['vs_steady']:.2f}x" for c in r["curve"]))
    return "\n".join(lines)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Without a GPU or PyTorch it exits with 1 and one line saying so.")
    ap.add_argument("--models", type=model_list, default=["gpt2", "bert-base"])
    ap.add_argument("--batches", type=int_list, default=[1, 2, 4, 8])
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--warmup", type=int, default=60,
                    help="timed warm-up eager passes per configuration (the curve); default 60")
    ap.add_argument("--passes", type=int, default=60,
                    help="interleaved eager/graph pairs per configuration; default 60")
    ap.add_argument("--eager-only", action="store_true", help="no graph: the eager program alone")
    ap.add_argument("--nvtx", default="prefill",
                    help="NVTX range around each timed eager pass ({model}, {batch} replaced)")
    ap.add_argument("--recorded", type=int, default=0, metavar="K",
                    help="one more eager pass inside torch.cuda.profiler.start/stop after every "
                    "K-th pair (left out of the figures); default 0, none")
    ap.add_argument("--transformers-path", action="store_true",
                    help="capture with transformers' own path for a capturing stream (masks "
                    "materialized; see above) instead of the eager pass's")
    ap.add_argument("--json", metavar="OUT", help="write the results, every pass included")
    ap.add_argument("--dry-run", action="store_true", help="print the plan, touch no GPU")
    args = ap.parse_args(argv)
    if args.passes < 1 or args.warmup < 0 or args.seq < 1 or args.recorded < 0:
        ap.error("--passes and --seq take 1 or more, --warmup and --recorded 0 or more")
    return args


def main():
    args = parse_args()
    configs = [(m, b) for m in args.models for b in args.batches]
    if args.dry_run:
        mode = "eager only" if args.eager_only else "eager and graph, interleaved"
        print(f"graph_gain.py: {len(configs)} configurations ({mode}), seq {args.seq}, "
              f"{args.warmup} warm-up + {args.passes} timed passes each; NVTX '{args.nvtx}'")
        for m, b in configs:
            print(f"  {m} batch {b}")
        return
    torch = need_torch_gpu("graph_gain.py")
    import transformers
    torch.manual_seed(0)
    results = []
    t0 = time.perf_counter()
    for name in args.models:
        model, vocab = build(name)  # outside inference mode, as prefill.py builds it
        with torch.inference_mode():  # passes, capture and replays, as prefill.py's passes
            for batch in args.batches:
                r = one_config(torch, args, name, model, vocab, batch, not results)
                results.append(r)
                print(app_line(r), flush=True)
        del model
        torch.cuda.empty_cache()
    wall = time.perf_counter() - t0
    print()
    print(table(results))
    print(f"\ngraph_gain.py: {wall:.1f} s after start-up", flush=True)
    if args.json:
        env = {"torch": torch.__version__, "transformers": transformers.__version__,
               "gpu": torch.cuda.get_device_name(), "python": platform.python_version(),
               "argv": sys.argv[1:], "seconds": wall, "warm_tolerance": WARM_TOLERANCE}
        with open(args.json, "w") as f:
            json.dump({"graph_gain": 1, "env": env, "configs": results}, f, indent=1)


if __name__ == "__main__":
    main()
