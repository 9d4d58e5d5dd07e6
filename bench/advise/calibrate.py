#!/usr/bin/env python3
"""calibrate.py: a calibration file for `skip advise --calibration` from advise_calib's output.

  calibrate.py BARE.txt PROFILED.txt TRACE.db > machine.cal.json

BARE.txt: the output of `build/apps/advise_calib` run alone; PROFILED.txt: of the same program
under `skip record -o TRACE.db`. Each may hold several runs (their CALIB lines; each figure is
the median over them): the machine is noisy, so closed_loop.sh alternates three of each. Host costs come from the bare run; the profiler's cost per launch is
the difference of the two runs' launch calls; what only the GPU timeline shows (an empty kernel's
duration, a synchronize's return after the GPU is done) comes from the trace. Derived so that the
model reproduces the bare run's one-node graph (launch + synchronize) exactly:
  graph_first_ns    = graph_total - graph_launch - empty kernel - synchronize return
  (the model adds node gaps to the kernels' durations as CUPTI measures them: the empty kernel
  of the same chain is the reference, not a kernel's nominal work; chain16/chain1_total_ns,
  with 5-us kernels, show the same per-node cost of ~0.9 us over the work)
and from differences of bare timings:
  profiler_driver_launch_ns = cuLaunchKernelEx profiled - bare (likewise cudaLaunchKernel)
  stream_switch_ns     = cuLaunchKernelEx of a 3-us kernel onto the next of 8 busy streams (after
                         a cudaStreamWaitEvent, before a cudaEventRecord) - onto its own busy one
  graph_launch_node_ns = (cudaGraphLaunch of 64 nodes - of 1 node) / 63
  graph_dispatch_ns    = (16 independent 20-us nodes - 1 such node) / 15, all 16 fitting the GPU
docs/skip-advise.md "Calibration" explains each figure.
"""
import json
import sqlite3
import statistics
import sys


def calib_line(path):
    """The per-key medians over the file's CALIB lines (one per run of advise_calib)."""
    runs = [json.loads(line[6:]) for line in open(path) if line.startswith("CALIB ")]
    if not runs:
        sys.exit(f"calibrate.py: {path}: no CALIB line (is it advise_calib's output?)")
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main():
    if len(sys.argv) != 4:
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
    cal = {
        "graph_launch_ns": bare["graph_launch_ns"],
        "graph_first_ns": max(0.0, bare["graph_total_ns"] - bare["graph_launch_ns"] - kdur -
                              sync_ret),
        "graph_node_gap_ns": max(0.0, (bare["graph64_total_ns"] - bare["graph_total_ns"]) / 63 -
                                 kdur),
        "event_record_ns": bare["event_record_ns"],
        "stream_wait_ns": bare["stream_wait_ns"],
        "sync_idle_ns": bare["sync_idle_ns"],
        "profiler_launch_ns": max(0.0, prof["launch_ns"] - bare["launch_ns"]),
        "profiler_driver_launch_ns": max(0.0, prof["drv_launch_ns"] - bare["drv_launch_ns"]),
        "stream_switch_ns": max(0.0, bare["drv_busy_switch_ns"] - bare["drv_busy_ns"]),
        "graph_launch_node_ns": max(0.0, (bare["graph64_launch_ns"] - bare["graph_launch_ns"]) /
                                    63),
        "graph_dispatch_ns": max(0.0, (bare["spin16_total_ns"] - bare["spin1_total_ns"]) / 15),
    }
    json.dump(cal, sys.stdout, indent=1)
    print()
    print(json.dumps({"empty_kernel_ns": kdur, "sync_return_ns": sync_ret,
                      "trace_node_gap_ns": trace_node_gap, "bare": bare, "profiled": prof}),
          file=sys.stderr)


if __name__ == "__main__":
    main()
