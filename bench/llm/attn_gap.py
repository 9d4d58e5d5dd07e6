"""attn_gap.py: what the node before cuDNN's attention kernel costs in a CUDA graph, by context.

    python3 bench/llm/attn_gap.py                           (bare: event-timed replays)
    skip record -o T.db -- python3 bench/llm/attn_gap.py    (recorded: node gaps)
    python3 bench/llm/attn_gap.py --analyze T.db

PyTorch's cuDNN attention (scaled_dot_product_attention, BERT-base's shape: batch 1, 12 heads,
seq 512, head 64, bf16) runs a 4-byte memset, then the attention kernel. Each variant is a
graph of 16 units, captured once after a side-stream warm-up, and replayed 220 times in turn
with the others (the first 20 left out), each replay in an NVTX range named after the variant
and timed with CUDA events; it prints the median time a unit:
  APP attn_gap variant=NAME unit_us=M q1_us=A q3_us=B
Variants: the attention alone (cuDNN, cuDNN causal, flash, memory-efficient); after a small
elementwise kernel; after a GEMM whose output it does not read; after the three bias GEMMs
that make its q, k and v ("qkv"); a whole attention block (q, k, v, attention, output
projection, residual and layer norm). Then three of them eagerly, queued behind a 20 ms sleep
(ranges eager_NAME), for the same pairs on a stream.

--analyze DB reads a recording of it: per NVTX range name, the gap from each operation's end
to the next one's start by pair of operation names (kernel name, grid, block, registers,
dynamic shared memory in KB and cluster; or memset and its bytes), count and median; and each
operation's median duration. A recording adds about 0.4 us to each gap (replay_cost.py).
"""
import argparse
import bisect
import collections
import sqlite3
import statistics

from benchlib import need_torch_gpu

UNITS = 16


def variants(torch):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dt = torch.bfloat16
    q, k, v = (torch.randn(1, 12, 512, 64, device="cuda", dtype=dt) for _ in range(3))
    x = torch.randn(1 << 16, device="cuda")
    a = torch.randn(512, 768, device="cuda", dtype=dt)
    w = torch.randn(768, 2304, device="cuda", dtype=dt)
    hid = torch.randn(1, 512, 768, device="cuda", dtype=dt)
    lq, lk, lv, lo = (torch.nn.Linear(768, 768, device="cuda", dtype=dt) for _ in range(4))
    ln = torch.nn.LayerNorm(768, device="cuda", dtype=dt)

    def att(backend, qq=q, kk=k, vv=v, causal=False):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)

    def heads(t):
        return t.view(1, 512, 12, 64).transpose(1, 2)

    def qkv():
        return att(SDPBackend.CUDNN_ATTENTION, heads(lq(hid)), heads(lk(hid)), heads(lv(hid)))

    def block():
        o = qkv().transpose(1, 2).reshape(1, 512, 768)
        return ln(lo(o) + hid)

    cudnn = SDPBackend.CUDNN_ATTENTION
    return {
        "small": lambda: x.mul_(1.0),
        "cudnn": lambda: att(cudnn),
        "cudnn_causal": lambda: att(cudnn, causal=True),
        "flash": lambda: att(SDPBackend.FLASH_ATTENTION),
        "efficient": lambda: att(SDPBackend.EFFICIENT_ATTENTION),
        "small+cudnn": lambda: (x.mul_(1.0), att(cudnn)),
        "gemm+cudnn": lambda: (a @ w, att(cudnn)),
        "qkv+cudnn": qkv,
        "block": block,
    }


def measure():
    torch = need_torch_gpu("attn_gap.py")
    import graph_gain

    torch.manual_seed(0)
    fns = variants(torch)
    graphs = {}
    for name, fn in fns.items():
        try:
            graphs[name], _, _ = graph_gain.capture(
                torch, lambda fn=fn: [fn() for _ in range(UNITS)], False)
        except Exception as e:  # a backend this PyTorch or GPU lacks: say so, go on
            print(f"APP attn_gap variant={name} error={type(e).__name__}: {str(e)[:200]}")
    torch.cuda.synchronize()
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    units = collections.defaultdict(list)
    for r in range(220):
        for name, g in graphs.items():
            torch.cuda.nvtx.range_push(name)
            t0.record()
            g.replay()
            t1.record()
            t1.synchronize()
            torch.cuda.nvtx.range_pop()
            if r >= 20:
                units[name].append(t0.elapsed_time(t1) * 1e3 / UNITS)
    for name, u in units.items():
        u.sort()
        print(f"APP attn_gap variant={name} unit_us={u[len(u) // 2]:.3f} "
              f"q1_us={u[len(u) // 4]:.3f} q3_us={u[3 * len(u) // 4]:.3f}", flush=True)
    for name in ("cudnn", "qkv+cudnn", "block"):
        torch.cuda.nvtx.range_push("eager_" + name)
        for _ in range(5):
            torch.cuda._sleep(20_000_000)
            for _ in range(UNITS):
                fns[name]()
            torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


def analyze(path):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        names = dict(db.execute("SELECT id, value FROM StringIds"))
    except sqlite3.DatabaseError as e:
        raise SystemExit(f"attn_gap.py: {path}: not a skip trace ({e})")
    ranges = [(a, b, t) for a, b, t in db.execute(
        "SELECT n.start, n.end, coalesce(n.text, s.value) FROM NVTX_EVENTS n "
        "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.end > n.start") if t]
    ops = [(s, e, f"{names.get(n, '?')[:40]}<{g},{b},r{r},{dyn // 1024}K,c{cl}>")
           for s, e, n, g, b, r, dyn, cl in db.execute(
               "SELECT start, end, shortName, gridX * gridY * gridZ, blockX * blockY * blockZ, "
               "registersPerThread, dynamicSharedMemory, coalesce(clusterX, 0) "
               "FROM CUPTI_ACTIVITY_KIND_KERNEL")]
    ops += [(s, e, f"memset{n}") for s, e, n in db.execute(
        "SELECT start, end, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET")]
    ops.sort()
    starts = [o[0] for o in ops]
    if not ranges or not ops:
        raise SystemExit(f"attn_gap.py: {path}: no NVTX range or no GPU operation recorded")
    for title in sorted({t for _, _, t in ranges}):
        gaps, durs, n = collections.defaultdict(list), collections.defaultdict(list), 0
        for a, b, t in ranges:
            if t != title:
                continue
            n += 1
            inside = ops[bisect.bisect_left(starts, a):bisect.bisect_right(starts, b)]
            for x, y in zip(inside, inside[1:]):
                gaps[(x[2], y[2])].append(y[0] - x[1])
            for o in inside:
                durs[o[2]].append(o[1] - o[0])
        print(f"{title}: {n} ranges")
        for (x, y), g in sorted(gaps.items(), key=lambda kv: -len(kv[1]))[:6]:
            print(f"  {len(g):6d} gaps, median {statistics.median(g) / 1e3:7.3f} us  {x} -> {y}")
        for o, d in sorted(durs.items(), key=lambda kv: -len(kv[1]))[:4]:
            print(f"  {len(d):6d} runs, median {statistics.median(d) / 1e3:7.3f} us  {o}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--analyze", metavar="DB", help="read a recording of this script")
    args = ap.parse_args(argv)
    if args.analyze:
        analyze(args.analyze)
    else:
        measure()


if __name__ == "__main__":
    main()
