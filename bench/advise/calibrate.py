#!/usr/bin/env python3
"""calibrate.py: a calibration file for `skip advise --calibration` from advise_calib's output.

  calibrate.py BARE.txt PROFILED.txt TRACE.db [RUNS_DIR [--launch-runs GLOB]] > machine.cal.json

BARE.txt: the output of `build/apps/advise_calib` run alone; PROFILED.txt: of the same program
under `skip record -o TRACE.db`. Each may hold several runs (their CALIB lines; each figure is
the median over them): the machine is noisy, so closed_loop.sh alternates three of each. Host costs come from the bare run; the profiler's cost per launch is
the difference of the two runs' launch calls; what only the GPU timeline shows (an empty kernel's
duration, a synchronize's return after the GPU is done) comes from the trace. Derived so that the
model reproduces the bare run's one-node graph (launch + synchronize) exactly:
  graph_first_ns    = graph_total - graph_launch - empty kernel - synchronize return
and from differences of bare timings:
  graph_node_gap_ns = (wc64 - wc1) / 63 - fill_k's CUPTI duration on a stream: a chain of the
                       smallest kernel that writes memory (the model adds node gaps to the
                       kernels' durations as CUPTI measures them on a stream, so that duration
                       is the reference); without wc64 in BARE.txt (an older advise_calib), the
                       empty kernel's chain, (graph64 - graph) / 63 - its duration, which is
                       about 0.12 us more (docs/advise-calibration.md "Calibration: what each
                       figure is and how it is derived"); also printed to
                       stderr as empty_node_gap_ns, the gap for kernels that touch no memory
                       (the mechanics replicas')
  profiler_driver_launch_ns = with RUNS_DIR: per pair of `skip run bench/advise/launch_calib.json`
                       runs (RUNS_DIR/lcal_bare.N.json bare, lcal_prof.N.json under skip record:
                       64 dependent one-block kernels, so the run is bound by its launch calls),
                       (profiled median - bare median - a synchronize's profiler cost) / 64,
                       the median over the pairs: the runtime's own launch path, the one a
                       recorded `skip run` takes. Without RUNS_DIR: cuLaunchKernelEx of an
                       empty kernel, profiled - bare
  profiler_launch_ns   = cudaLaunchKernel profiled - bare, timed over bursts of 16 launches
                         (launch_loop_ns: the calls and the host's time between them, both
                         of which the profiler lengthens)
  launch_bare_ns       = the bare launch_loop_ns: skip advise estimates each recording's own
                         profiler cost per launch against it (that cost varies between
                         processes more than the bare launch does)
  stream_switch_ns     = cuLaunchKernelEx of a 3-us kernel onto the next of 8 busy streams (after
                         a cudaStreamWaitEvent, before a cudaEventRecord) - onto its own busy one
  graph_launch_node_ns = (cudaGraphLaunch of 64 nodes - of 1 node) / 63
  graph_dispatch_ns    = (16 independent 20-us nodes - 1 such node) / 15, all 16 fitting the GPU
  graph_memset_gap_ns  = (ms16 - ms1) / 15 - (sw16 - sw1) / 15 - a 64-byte memset node's CUPTI
                         duration - graph_node_gap_ns: what a small memset node adds to a chain
                         beyond its duration and a node gap
  graph_root_join_ns   = two independent 3-us nodes then a third after both, minus the two
                         alone, minus a chain's per-node cost of the same kernel
                         ((c32_16 - c32_1) / 15): what a node pays for joining the branches of
                         two roots, beyond a dependency in a chain
  remote_read_cost     = from the trace: the add2_k of the fork-join copies (its two inputs
                         written by two copies that ran at once, so one of them on other
                         multiprocessors) over the same add2_k after the copies in a chain,
                         minus 1, over the fraction of its reads from elsewhere (1/2)
  stream_gap_bare_ns   = (16 back-to-back 10-us kernels on a stream - 1 such kernel) / 15 - the
                         kernel's CUPTI duration: the gap an unprofiled stream leaves between
                         kernels (a recording's is longer: the profiler's)
  runtime_launch_ns    = with RUNS_DIR: per bare launch_calib.json run, (its median - what
                         follows the last launch: stream_total - launch, one kernel's launch
                         latency and synchronize, bare) / 64, the median over the runs: one
                         launch of skip run's serial executor with the host's time around it
  sm_share_rate        = from the trace: math_k (one block per multiprocessor, arithmetic on
                         doubles) alone, duration D, and started beside an older math_k of
                         three times its work, duration d: its blocks progress at rate r
                         while the older one runs, so r = D / d when it ends first, else
                         r = (D - (d - o)) / o, o the time it spent beside it; the median
                         over the graph launches
and, printed to stderr only (a check, not used): the fork-join levels of 3-us kernels (dia8 -
dia1 = 7 levels of A and B after the previous C, then C after both) give the cost of an edge
across a graph's branches as (level - 2 d) / 2, d the kernels' CUPTI duration; about 0.2 us on
the H100, against the 1.2-1.6 us such edges show in a recording (the profiler's own cost).
Also to stderr: the same for spin_w_k, a 3-us timer spin that writes one word per block
((sw16 - sw1) / 15 over its stream duration: spin_w_k_node_gap_ns, about the empty kernel's).
docs/advise-calibration.md "Calibration: what each figure is and how it is derived" explains each
figure; docs/skip-advise.md "Calibration" lists the keys.
"""
import glob
import json
import os
import sqlite3
import statistics
import sys


def calib_line(path):
    """The per-key medians over the file's CALIB lines (one per run of advise_calib)."""
    runs = [json.loads(line[6:]) for line in open(path) if line.startswith("CALIB ")]
    if not runs:
        sys.exit(f"calibrate.py: {path}: no CALIB line (is it advise_calib's output?)")
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def lcal_median_ns(path):
    """The median run of a `skip run launch_calib.json --json` output, ns, or None."""
    try:
        # skip record's summary may follow the JSON on the same output
        return json.JSONDecoder().raw_decode(open(path).read())[0]["results"][0][
            "median_ms"] * 1e6
    except (OSError, ValueError, KeyError, IndexError):
        return None


def lcal_bare_files(folder):
    return sorted(glob.glob(os.path.join(folder, "lcal_bare.*.json")))


def runs_cost(folder):
    """The profiler's cost per launch of the runtime (launch_calib pairs), or None."""
    diffs = []
    for bare in lcal_bare_files(folder):
        b = lcal_median_ns(bare)
        q = lcal_median_ns(bare.replace("lcal_bare.", "lcal_prof."))
        if b is not None and q is not None:
            diffs.append(q - b)
    return statistics.median(diffs) if diffs else None


def runtime_launch(files, tail):
    """skip run's serial launch, bare, from the launch_calib runs (see the docstring)."""
    per = [(b - tail) / 64 for b in map(lcal_median_ns, files) if b is not None]
    return statistics.median(per) if per else None


def share_rate(db):
    """sm_share_rate from the math_k graphs of the trace (see the docstring), or None."""
    graphs = {}  # graph id -> ([(start, end)] in start order, its node ids)
    for gid, node, start, end in db.execute(
            "SELECT k.graphId, k.graphNodeId, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds s ON s.id = k.shortName WHERE s.value = 'math_k' "
            "AND k.graphId IS NOT NULL ORDER BY k.start"):
        ks, nodes = graphs.setdefault(gid, ([], set()))
        ks.append((start, end))
        nodes.add(node)
    alone = [e - s for ks, nodes in graphs.values() if len(nodes) == 1 for s, e in ks]
    if not alone:
        return None
    d_alone = statistics.median(alone)
    rates = []
    for ks, nodes in graphs.values():
        if len(nodes) != 2:
            continue
        for (s_old, e_old), (s_new, e_new) in zip(ks[0::2], ks[1::2]):  # one launch each
            if e_old - s_old < 2 * d_alone:  # the newcomer started first: not this setup
                continue
            d = e_new - s_new
            if e_new <= e_old:
                rates.append(d_alone / d)
            elif e_old > s_new:
                o = e_old - s_new
                rates.append((d_alone - (d - o)) / o)
    return min(1.0, max(0.05, statistics.median(rates))) if rates else None


def main():
    launch_runs = None
    if len(sys.argv) == 7 and sys.argv[5] == "--launch-runs":
        launch_runs = sorted(glob.glob(sys.argv[6]))
        if not launch_runs:
            sys.exit(f"calibrate.py: --launch-runs {sys.argv[6]}: no such file")
        del sys.argv[5:]
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    bare, prof = calib_line(sys.argv[1]), calib_line(sys.argv[2])
    db = sqlite3.connect(sys.argv[3])
    kern = db.execute(
        "SELECT k.start, k.end, k.graphId FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds s ON s.id = k.shortName WHERE s.value = 'empty_k' ORDER BY k.start"
    ).fetchall()
    kdur = statistics.median(e - s for s, e, _ in kern)
    ends = sorted(e for _, e, _ in kern)
    syncs = db.execute(
        "SELECT r.start, r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
        "ON s.id = r.nameId WHERE s.value LIKE 'cudaStreamSynchronize%'").fetchall()
    import bisect
    rets = []
    for s, e in syncs:
        i = bisect.bisect_right(ends, e)
        if i and ends[i - 1] > s:
            rets.append(e - ends[i - 1])
    sync_ret = statistics.median(rets)
    gaps = [b[0] - a[1] for a, b in zip(kern, kern[1:])
            if a[2] is not None and b[2] is not None and b[0] >= a[1] and b[0] - a[1] < 5000]
    trace_node_gap = statistics.median(gaps) if gaps else None
    spin3 = [e - s for s, e in db.execute(
        "SELECT k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
        "ON s.id = k.shortName WHERE s.value = 'spin_k' AND k.gridX = 32 AND k.blockX = 256")]
    d3 = statistics.median(spin3) if spin3 else 3000.0
    empty_gap = max(0.0, (bare["graph64_total_ns"] - bare["graph_total_ns"]) / 63 - kdur)
    written = {}  # node gaps of kernels that write memory
    for name, chain, n in (("fill_k", "wc", 64), ("spin_w_k", "sw", 16)):
        d = [e - s for s, e in db.execute(
            "SELECT k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
            "ON s.id = k.shortName WHERE s.value = ? AND k.graphId IS NULL", (name,))]
        if d and f"{chain}{n}_total_ns" in bare:
            written[f"{name}_node_gap_ns"] = ((bare[f"{chain}{n}_total_ns"] -
                                               bare[f"{chain}1_total_ns"]) / (n - 1) -
                                              statistics.median(d))
    node_gap = max(0.0, written.get("fill_k_node_gap_ns", empty_gap))
    memset_gap = None
    if "ms16_total_ns" in bare:
        mset = [e - s for s, e in db.execute(
            "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE bytes = 64 AND "
            "graphId IS NOT NULL")]
        if mset:
            memset_gap = max(0.0, (bare["ms16_total_ns"] - bare["ms1_total_ns"]) / 15 -
                             (bare["sw16_total_ns"] - bare["sw1_total_ns"]) / 15 -
                             statistics.median(mset) - node_gap)
    dispatch = max(0.0, (bare["spin16_total_ns"] - bare["spin1_total_ns"]) / 15)
    cross_edge = None
    if "dia8_total_ns" in bare:
        cross_edge = ((bare["dia8_total_ns"] - bare["dia1_total_ns"]) / 7 - 2 * d3) / 2
    remote = None
    adds = {}  # graph id -> (add2_k durations, streams of its kernels)
    for gid, st, dur, name in db.execute(
            "SELECT k.graphId, k.streamId, k.end - k.start, s.value FROM "
            "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
            "WHERE k.graphId IN (SELECT k2.graphId FROM CUPTI_ACTIVITY_KIND_KERNEL k2 JOIN "
            "StringIds s2 ON s2.id = k2.shortName WHERE s2.value = 'add2_k')"):
        d, streams = adds.setdefault(gid, ([], set()))
        streams.add(st)
        if name == "add2_k":
            d.append(dur)
    fork = [statistics.median(d) for d, st in adds.values() if d and len(st) > 1]
    chain = [statistics.median(d) for d, st in adds.values() if d and len(st) == 1]
    if fork and chain:
        remote = max(0.0, (fork[0] / chain[0] - 1) / 0.5)
    share = share_rate(db)
    drv_cost = max(0.0, prof["drv_launch_ns"] - bare["drv_launch_ns"])
    per_run = runs_cost(sys.argv[4]) if len(sys.argv) == 5 else None
    if per_run is not None:
        sync_cost = max(0.0, prof["sync_idle_ns"] - bare["sync_idle_ns"])
        drv_cost = max(0.0, (per_run - sync_cost) / 64)
    cal = {
        "graph_launch_ns": bare["graph_launch_ns"],
        "graph_first_ns": max(0.0, bare["graph_total_ns"] - bare["graph_launch_ns"] - kdur -
                              sync_ret),
        "graph_node_gap_ns": node_gap,
        "event_record_ns": bare["event_record_ns"],
        "stream_wait_ns": bare["stream_wait_ns"],
        "sync_idle_ns": bare["sync_idle_ns"],
        "profiler_launch_ns": max(0.0, prof.get("launch_loop_ns", prof["launch_ns"]) -
                                  bare.get("launch_loop_ns", bare["launch_ns"])),
        "profiler_driver_launch_ns": drv_cost,
        "launch_bare_ns": bare.get("launch_loop_ns", bare["launch_ns"]),
        "stream_switch_ns": max(0.0, bare["drv_busy_switch_ns"] - bare["drv_busy_ns"]),
        "graph_launch_node_ns": max(0.0, (bare["graph64_launch_ns"] - bare["graph_launch_ns"]) /
                                    63),
        "graph_dispatch_ns": dispatch,
    }
    if memset_gap is not None:
        cal["graph_memset_gap_ns"] = memset_gap
    if remote is not None:
        cal["remote_read_cost"] = remote
    if share is not None:
        cal["sm_share_rate"] = share
    spin10 = [e - s for s, e in db.execute(
        "SELECT k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
        "ON s.id = k.shortName WHERE s.value = 'spin_k' AND k.gridX = 1 "
        "AND k.end - k.start BETWEEN 9000 AND 15000")]
    if "st16_total_ns" in bare and spin10:
        cal["stream_gap_bare_ns"] = max(0.0, (bare["st16_total_ns"] - bare["st1_total_ns"]) /
                                        15 - statistics.median(spin10))
    if len(sys.argv) == 5:
        rt = runtime_launch(launch_runs or lcal_bare_files(sys.argv[4]),
                            bare["stream_total_ns"] - bare["launch_ns"])
        if rt is not None:
            cal["runtime_launch_ns"] = rt
    if "r2j_total_ns" in bare:
        chain_node = (bare["c32_16_total_ns"] - bare["c32_1_total_ns"]) / 15
        cal["graph_root_join_ns"] = max(0.0, bare["r2j_total_ns"] - bare["r2_total_ns"] -
                                        chain_node)
    json.dump(cal, sys.stdout, indent=1)
    print()
    print(json.dumps({**written, "empty_node_gap_ns": empty_gap, "empty_kernel_ns": kdur, "sync_return_ns": sync_ret,
                      "trace_node_gap_ns": trace_node_gap, "spin3_kernel_ns": d3,
                      "cross_branch_edge_ns": cross_edge,
                      "runs_profiler_cost_per_run_ns": per_run,
                      "empty_drv_launch_profiler_ns":
                          max(0.0, prof["drv_launch_ns"] - bare["drv_launch_ns"]),
                      "args_drv_launch_profiler_ns":
                          max(0.0, prof.get("drv_args_ns", 0) - bare.get("drv_args_ns", 0)),
                      "bare": bare, "profiled": prof}),
          file=sys.stderr)


if __name__ == "__main__":
    main()
