"""replay_cost.py: what recording costs a CUDA graph replay, and where a replay's time goes.

    skip record --capture-range cudaProfilerApi -o T.db -- \\
        python3 bench/llm/replay_cost.py [--models bert-base,gpt2] [--seq 512] [--rounds 10]
    python3 bench/llm/replay_cost.py --analyze T.db

For each model (bench/llm/prefill.py's builders, batch 1) the eager prefill is captured once as
a CUDA graph as graph_gain.py captures it (the graph holds the eager pass's kernels), replayed
50 times to warm up, then in ROUNDS rounds 20 replays not recorded and 5 inside
torch.cuda.profiler.start() ... stop() (recorded under --capture-range, in the NVTX range
MODEL_replay), each timed by time.perf_counter() around the replay and a synchronize. Prints
  APP replay_cost model=M bare_ms=... recorded_ms=... nbare=N nrec=R
(medians): the difference over the graph's node count is what the recording adds a node.

--analyze DB reads a trace of it, per model (the NVTX range its replays' calls ran in): each
recorded replay's nodes (its kernels and memsets, which
share the replay's correlation id) in start order, the gap from each node's end to the next
one's start, and per next node (kernel name, grid, block, registers, dynamic shared memory in
KB, cluster; or memset and its bytes) the count a replay, the median gap and the gap a replay
in total; then the same per pair of node names.
"""
import argparse
import collections
import sqlite3
import statistics
import sys
import time

from benchlib import int_list, model_list, need_torch_gpu


def median(x):
    return statistics.median(x) if x else float("nan")


def measure(args):
    torch = need_torch_gpu("replay_cost.py")
    from prefill import build, prefill_fn
    import graph_gain

    def replays(g, n):
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            g.replay()
            torch.cuda.synchronize()
            out.append((time.perf_counter() - t0) * 1e3)
        return out

    torch.manual_seed(0)
    for name in args.models:
        model, vocab = build(name)
        with torch.inference_mode():
            ids = torch.randint(0, vocab, (1, args.seq)).to("cuda")
            fn = prefill_fn(name, model, ids)
            for _ in range(30):
                fn()
            g, _, _ = graph_gain.capture(torch, fn, True)
            replays(g, 50)
            bare, rec = [], []
            for _ in range(args.rounds):
                bare += replays(g, 20)
                torch.cuda.profiler.start()
                torch.cuda.nvtx.range_push(name + "_replay")
                rec += replays(g, 5)
                torch.cuda.nvtx.range_pop()
                torch.cuda.profiler.stop()
            print(f"APP replay_cost model={name} bare_ms={median(bare):.4f} "
                  f"recorded_ms={median(rec):.4f} nbare={len(bare)} nrec={len(rec)}", flush=True)
        del model
        torch.cuda.empty_cache()


def replay_groups(db):
    """Correlation id of each graph launch -> the NVTX range MODEL_replay its call ran in
    ("all" without one)."""
    ranges = [(a, b, t) for a, b, t in db.execute(
        "SELECT n.start, n.end, coalesce(n.text, s.value) FROM NVTX_EVENTS n "
        "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.end IS NOT NULL")
        if t and t.endswith("_replay")]
    group = {}
    for c, at in db.execute("SELECT correlationId, start FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        group[c] = next((t for a, b, t in ranges if a <= at <= b), "all")
    return group


def analyze(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    names = dict(db.execute("SELECT id, value FROM StringIds"))
    nodes = collections.defaultdict(list)  # correlation id -> (start, end, trait)
    for s, e, c, nm, g, b, r, dyn, cl in db.execute(
            "SELECT start, end, correlationId, shortName, gridX * gridY * gridZ, "
            "blockX * blockY * blockZ, registersPerThread, dynamicSharedMemory, "
            "coalesce(clusterX, 0) * coalesce(clusterY, 1) * coalesce(clusterZ, 1) "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphId IS NOT NULL"):
        nodes[c].append((s, e, f"{names.get(nm, '?')[:40]}|g{g}|b{b}|r{r}|dyn{dyn // 1024}K|cl{cl}"))
    for s, e, c, n in db.execute("SELECT start, end, correlationId, bytes "
                                 "FROM CUPTI_ACTIVITY_KIND_MEMSET"):
        if c in nodes:
            nodes[c].append((s, e, f"memset{n}"))
    group = replay_groups(db)
    found = False
    for g in sorted({group.get(c, "all") for c in nodes}):
        found |= analyze_group(g, [rs for c, rs in nodes.items() if group.get(c, "all") == g])
    if not found:
        raise SystemExit(f"replay_cost.py: {path}: no recorded graph replay")


def analyze_group(title, replays):
    by_next, by_pair = collections.defaultdict(list), collections.defaultdict(list)
    spans, busy, counts = [], [], []
    for rs in replays:
        if len(rs) < 10:  # not a replay of the prefill
            continue
        rs.sort()
        spans.append(rs[-1][1] - rs[0][0])
        busy.append(sum(e - s for s, e, _ in rs))
        counts.append(len(rs))
        for a, b in zip(rs, rs[1:]):
            by_next[b[2]].append(b[0] - a[1])
            by_pair[(a[2].split("|")[0], b[2].split("|")[0])].append(b[0] - a[1])
    if not spans:
        return False
    n = len(spans)
    print(f"{title}: {n} replays, {median(counts):.0f} nodes: span {median(spans) / 1e3:.1f} us, "
          f"nodes busy {median(busy) / 1e3:.1f} us, gaps {(median(spans) - median(busy)) / 1e3:.1f} us")
    for what, table, key in (("next node", by_next, str), ("pair", by_pair, " -> ".join)):
        print(f"  by {what}: nodes a replay, median gap ns, gaps a replay us")
        for k, v in sorted(table.items(), key=lambda kv: -sum(kv[1]))[:20]:
            print(f"    {len(v) // n:4d} {median(v):7.0f} {sum(v) / n / 1e3:7.2f}  {key(k)}")
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=model_list, default=["bert-base", "gpt2"])
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=10, help="rounds of 20 bare + 5 recorded")
    ap.add_argument("--analyze", metavar="DB", help="read a recording of this script")
    args = ap.parse_args(argv)
    if args.analyze:
        try:
            analyze(args.analyze)
        except sqlite3.Error as e:
            raise SystemExit(f"replay_cost.py: {args.analyze}: not a skip trace ({e})")
    else:
        measure(args)


if __name__ == "__main__":
    main()
