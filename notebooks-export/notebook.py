# The cells of the notebook `skip export --format ipynb` writes (notebooks-export/ipynb.c
# embeds this file: "# %%" starts a code cell, "# %% [markdown]" a markdown cell whose lines
# lose their "# "; these lines before the first cell are left out). The first cells, a title
# and the parameters, are written by ipynb.c before these.
# Everything is computed here from the trace's tables with SQL and pandas, following
# docs/skip-report.md's definitions, so that the numbers can be checked against skip report.

# %%
# Open the trace read-only; q() runs one SQL query into a pandas DataFrame.
%matplotlib inline
import json
import sqlite3

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

db = sqlite3.connect(f"file:{TRACE}?mode=ro", uri=True)
# The CUDA API calls, runtime and driver (driver = 1), of either trace schema version: version 1
# keeps driver calls in CUPTI_ACTIVITY_KIND_DRIVER, version 2 (Nsight Systems' layout) keeps
# them in CUPTI_ACTIVITY_KIND_RUNTIME with eventClass 1. A TEMP view lives in this connection
# only; the trace is not written.
V1 = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                "AND name = 'CUPTI_ACTIVITY_KIND_DRIVER'").fetchone()[0] > 0
db.execute("CREATE TEMP VIEW IF NOT EXISTS api_calls AS " + (
    "SELECT runId, start, end, globalTid, correlationId, nameId, 0 AS driver "
    "FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL "
    "SELECT runId, start, end, globalTid, correlationId, nameId, 1 "
    "FROM CUPTI_ACTIVITY_KIND_DRIVER" if V1 else
    "SELECT runId, start, end, globalTid, correlationId, nameId, eventClass IS 1 AS driver "
    "FROM CUPTI_ACTIVITY_KIND_RUNTIME"))


def q(sql, *args):
    return pd.read_sql_query(sql, db, params=args)


runs = q("SELECT runId, label, status, commandLine FROM SKIP_RUNS ORDER BY runId")
if RUN is None:
    RUN = int(runs.runId.iloc[0])
runs

# %% [markdown]
# ## GPU operations and their launch calls
#
# Every kernel, memcpy and memset is joined to the CUDA runtime or driver API call that
# launched it through the correlation id, within its process (correlation ids are unique per
# process only). For a kernel k launched by call l:
#
# - **t_api** = l.end - l.start: the launch call on the host;
# - **t_queue** = k.start - l.end: from the call's return to the kernel's start (negative when
#   the kernel started before the call returned);
# - **t_launch** = k.start - l.start = t_api + t_queue.
#
# Kernels replayed from one CUDA graph launch share its correlation id: only the first (by
# start) carries the launch's t_launch. Definitions: [docs/skip-report.md](docs/skip-report.md#definitions).

# %%
OPS_SQL = """
WITH calls AS (
  SELECT globalTid AS tid, correlationId AS corr, start, end, nameId
    FROM api_calls WHERE runId = ?1),
ops AS (
  SELECT 'kernel' AS kind, start, end, deviceId AS device, streamId AS stream,
         correlationId AS corr, globalPid AS gpid, shortName AS nameId, submitted
    FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1
  UNION ALL
  SELECT 'memcpy', start, end, deviceId, streamId, correlationId, globalPid, NULL, NULL
    FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runId = ?1
  UNION ALL
  SELECT 'memset', start, end, deviceId, streamId, correlationId, globalPid, NULL, NULL
    FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = ?1)
SELECT o.*, s.value AS name, c.tid, c.start AS call_start, c.end AS call_end
  FROM ops o
  LEFT JOIN StringIds s ON s.id = o.nameId
  LEFT JOIN calls c ON c.corr = o.corr AND (c.tid >> 24) = (o.gpid >> 24)
 ORDER BY o.start
"""

SYNC_SQL = """
SELECT r.start, r.end, r.globalTid AS tid FROM api_calls r
  JOIN StringIds s ON s.id = r.nameId
 WHERE r.runId = ?1
   AND (s.value LIKE '%Synchronize%'
        OR ((s.value LIKE 'cudaMemcpy%' OR s.value LIKE 'cuMemcpy%'
             OR s.value LIKE 'cudaMemset%') AND s.value NOT LIKE '%Async%'))
 ORDER BY r.end
"""

# The outermost NVTX range open on the launching thread when each launch call started.
OUTER_SQL = """
SELECT c.start AS call_start, c.globalTid AS tid,
       (SELECT min(n.start) FROM NVTX_EVENTS n
         WHERE n.runId = ?1 AND n.globalTid = c.globalTid AND n.eventType IN (59, 60)
           AND n.start <= c.start AND (n.end IS NULL OR n.end >= c.start)) AS outer_start
  FROM (SELECT DISTINCT globalTid, start FROM api_calls WHERE runId = ?1) c
"""


def load_ops(run):
    ops = q(OPS_SQL, run)
    ops["pid"] = ops.gpid // (1 << 24)
    return ops


def region_window(run, region, occurrence):
    """[start, end] of the occurrence-th NVTX range named region in run, and its process."""
    w = q("SELECT start, end, globalTid FROM NVTX_EVENTS WHERE runId = ?1 AND text = ?2 "
          "AND eventType IN (59, 60) ORDER BY start LIMIT 1 OFFSET ?3",
          run, region, occurrence - 1)
    if w.empty:
        raise ValueError(f"no occurrence {occurrence} of NVTX range {region!r} in run {run}")
    end = w.end.iloc[0]
    return int(w.start.iloc[0]), (None if pd.isna(end) else int(end)), int(w.globalTid.iloc[0]) >> 24

# %% [markdown]
# ## The metrics of a region
#
# A region is a whole run, or one occurrence of an NVTX range (an operation belongs to it when
# its launch call started inside the range, in the same process).
#
# - **IL** = region end - region start. The end is the end of the region's last GPU operation;
#   the start is the range's start, or for a run the earliest of: each launch call's outermost
#   open NVTX range start (or the call's start), and the start of operations without a call.
# - **TKLQT** = the sum of t_launch = sum t_api + sum t_queue; **AKD** = mean kernel duration.
# - **GPU busy** = the union of kernel, memcpy and memset intervals in the region (streams
#   overlap, so not their sum); **GPU idle** = IL - busy.
# - Each idle gap [a, b) ends with an operation k whose work reached the GPU at submit(k) (the
#   hardware `submitted` time when recorded, else the end of k's launch call). **Host wait** =
#   clamp(min(b, submit(k)) - a, 0, b - a): the GPU was free and the host had not handed it the
#   work yet; in a gap during which a host synchronization returned it is a **sync stall**
#   instead. **Device latency** = the rest of the gap; the part of it in gaps whose work arrived
#   after the GPU went idle is the latency of **late launches**.
# - **Host-side share** = (host wait + sync stall + late launches) / IL; at 0.5 or more the
#   region is **CPU-bound**.

# %%
def union_gaps(iv, lo, hi):
    """Busy time of the intervals iv (sorted by start) clipped to [lo, hi], and the idle gaps
    [a, b) with the index of the operation that ends each one."""
    busy, gaps, cur = 0, [], lo
    for i, (s, e) in enumerate(iv):
        s, e = max(s, lo), min(e, hi)
        if e < s:
            continue
        if s > cur:
            gaps.append((cur, s, i))
        if e > cur:
            busy += e - max(s, cur)
            cur = e
    return busy, gaps


def metrics(run, region=None, occurrence=1):
    ops = load_ops(run)
    if region is None:
        lo = None
    else:
        lo, range_end, pid = region_window(run, region, occurrence)
        hi_call = range_end if range_end is not None else np.iinfo(np.int64).max
        ops = ops[(ops.pid == pid) & (ops.call_start >= lo) & (ops.call_start <= hi_call)]
    if ops.empty:
        return None
    if lo is None:
        outer = q(OUTER_SQL, run)
        starts = outer.outer_start.fillna(outer.call_start)
        linked = ops.dropna(subset=["call_start"])
        keys = set(zip(linked.call_start.astype("int64"), linked.tid.astype("int64")))
        mine = [s for s, c, t in zip(starts, outer.call_start, outer.tid) if (c, t) in keys]
        lo = int(min(mine + list(ops[ops.call_start.isna()].start)))
    hi = int(ops.end.max())
    k = ops[ops.kind == "kernel"].sort_values("start")
    launched = k.dropna(subset=["call_start"])
    launched = launched[~launched.duplicated(["gpid", "corr"])]
    t_api = int((launched.call_end - launched.call_start).sum())
    t_queue = int((launched.start - launched.call_end).sum())
    # busy and idle on the device with the most busy time, over every operation on it
    everything = load_ops(run)
    best = None
    for dev, d in everything.groupby("device"):
        d = d.sort_values("start")
        busy, gaps = union_gaps(list(zip(d.start, d.end)), lo, hi)
        if best is None or busy > best[0]:
            best = (busy, gaps, d.reset_index(drop=True))
    busy, gaps, d = best
    sync_ends = np.sort(q(SYNC_SQL, run).end.to_numpy())
    host_wait = sync_stall = dev_lat = late = 0
    for a, b, i in gaps:
        op = d.iloc[i]
        submit = op.submitted if pd.notna(op.submitted) else op.call_end
        submit = a if pd.isna(submit) else int(submit)
        hw = min(max(min(b, submit) - a, 0), b - a)
        synced = np.searchsorted(sync_ends, a) < np.searchsorted(sync_ends, b)
        if synced:
            sync_stall += hw
        else:
            host_wait += hw
        dev_lat += b - a - hw
        if submit > a:
            late += b - a - hw
    il = hi - lo
    return {
        "run": run, "start_ns": lo, "end_ns": hi, "il_ns": il, "kernels": len(k),
        "tklqt_ns": t_api + t_queue, "t_api_ns": t_api, "t_queue_ns": t_queue,
        "kernel_ns": int((k.end - k.start).sum()), "akd_ns": float((k.end - k.start).mean()),
        "busy_ns": int(busy), "idle_ns": int(il - busy), "host_wait_ns": int(host_wait),
        "sync_stall_ns": int(sync_stall), "device_latency_ns": int(dev_lat),
        "launch_latency_ns": int(late),
        "host_share": (host_wait + sync_stall + late) / il if il > 0 else 0.0,
    }


m = metrics(RUN, REGION, OCCURRENCE)
print(json.dumps(m))
pd.Series(m)

# %% [markdown]
# ## The timeline of the region
#
# One row per CPU thread (its launch calls) and one per GPU stream (its operations), from the
# region's start, at most the first 400 operations. Arrows of the same story are in
# Perfetto: `skip export TRACE --format perfetto` ([docs/skip-export.md](docs/skip-export.md)).

# %%
ops = load_ops(RUN)
ops = ops[(ops.start >= m["start_ns"]) & (ops.start <= m["end_ns"])].head(400)
t0 = m["start_ns"]
fig, ax = plt.subplots(figsize=(12, 4))
rows = [("CPU thread", t) for t in sorted(ops.tid.dropna().unique())] + \
       [("GPU stream", s) for s in sorted(ops.stream.unique())]
colors = {"kernel": "tab:blue", "memcpy": "tab:orange", "memset": "tab:green"}
for y, (what, key) in enumerate(rows):
    if what == "CPU thread":
        sel = ops[ops.tid == key]
        bars = list(zip((sel.call_start - t0) / 1e3, (sel.call_end - sel.call_start) / 1e3))
        ax.broken_barh(bars, (y - 0.4, 0.8), color="tab:red")
    else:
        sel = ops[ops.stream == key]
        for kind, g in sel.groupby("kind"):
            bars = list(zip((g.start - t0) / 1e3, (g.end - g.start) / 1e3))
            ax.broken_barh(bars, (y - 0.4, 0.8), color=colors[kind], label=kind)
ax.set_yticks(range(len(rows)))
ax.set_yticklabels([f"{w} {int(k) & 0xFFFFFF if w == 'CPU thread' else int(k)}" for w, k in rows])
ax.set_xlabel("µs from the region's start")
ax.set_title(f"run {RUN}" + (f", {REGION} #{OCCURRENCE}" if REGION else "") +
             ": launch calls (red) and GPU operations")
plt.show()

# %% [markdown]
# ## TKLQT: launch (t_api) and queue (t_queue)
#
# TKLQT, the total kernel launch and queuing time, splits exactly into the time the host spent
# in launch calls and the time launched work waited before the GPU started it. A large t_api
# share means the host's launch path is the cost (fewer launches: fusion, CUDA graphs); a large
# t_queue share means the GPU was busy with earlier work (GPU-bound).

# %%
fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(["TKLQT"], [m["t_api_ns"] / 1e6], color="tab:red", label="sum t_api")
ax.barh(["TKLQT"], [m["t_queue_ns"] / 1e6], left=[m["t_api_ns"] / 1e6], color="tab:blue",
        label="sum t_queue")
ax.set_xlabel("ms")
ax.legend()
ax.set_title(f"TKLQT {m['tklqt_ns'] / 1e6:.3f} ms over {m['kernels']} kernels")
plt.show()

# %% [markdown]
# ## Idle attribution
#
# IL = GPU busy + idle, and idle = host wait + sync stall + device latency. The host-side
# share decides the verdict.

# %%
parts = {"GPU busy": m["busy_ns"], "host wait": m["host_wait_ns"],
         "sync stall": m["sync_stall_ns"], "device latency": m["device_latency_ns"]}
fig, ax = plt.subplots(figsize=(7, 3))
ax.bar(list(parts), [v / 1e6 for v in parts.values()],
       color=["tab:green", "tab:red", "tab:orange", "tab:gray"])
ax.set_ylabel("ms")
verdict = "CPU-bound" if m["host_share"] >= 0.5 else "GPU-bound"
ax.set_title(f"IL {m['il_ns'] / 1e6:.3f} ms; host-side share {m['host_share']:.1%}: {verdict}")
plt.show()

# %% [markdown]
# ## Top kernels by total GPU time
#
# Grouped by the kernel's short name (StringIds of `shortName`), over the whole run.

# %%
top = q("""SELECT s.value AS kernel, count(*) AS count, sum(k.end - k.start) AS total_ns,
                  avg(k.end - k.start) AS mean_ns
             FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
            WHERE k.runId = ?1 GROUP BY s.value ORDER BY total_ns DESC LIMIT 10""", RUN)
fig, ax = plt.subplots(figsize=(8, 4))
ax.barh([n[:60] for n in top.kernel[::-1]], top.total_ns[::-1] / 1e6)
ax.set_xlabel("total GPU time, ms")
plt.show()
top

# %% [markdown]
# ## The sweep: where the CPU/GPU-bound verdict flips
#
# For a trace recorded with `skip record --sweep`, each value of the swept parameter gets the
# median over its runs of the host-side share and of TKLQT (of each run, or of each
# occurrence of the region). The verdict flips where the median share crosses the 0.5
# threshold, read on a log2 axis between the two values around it
# ([docs/skip-report.md](docs/skip-report.md#sweeps-and-the-cpugpu-bound-crossover)).
# Without a sweep this cell says so and draws nothing.

# %%
if PARAM is None:
    print("not a sweep: no crossover chart")
else:
    vals = q("SELECT runId, numericValue AS value FROM SKIP_PARAMETERS WHERE name = ?1 "
             "AND numericValue IS NOT NULL ORDER BY numericValue, runId", PARAM)
    rows = []
    for run, value in zip(vals.runId, vals.value):
        n = 1
        if REGION is not None:
            n = int(q("SELECT count(*) AS n FROM NVTX_EVENTS WHERE runId = ?1 AND text = ?2 "
                      "AND eventType IN (59, 60)", int(run), REGION).n.iloc[0])
        for occ in range(1, n + 1):
            r = metrics(int(run), REGION, occ)
            if r is not None:
                rows.append({"value": value, "host_share": r["host_share"],
                             "tklqt_ns": r["tklqt_ns"], "il_ns": r["il_ns"]})
    sweep = pd.DataFrame(rows).groupby("value").median()
    x, share = sweep.index.to_numpy(dtype=float), sweep.host_share.to_numpy()
    flip = None
    for i in range(len(x) - 1):
        if (share[i] >= 0.5) != (share[i + 1] >= 0.5):
            f = (0.5 - share[i]) / (share[i + 1] - share[i])
            flip = 2 ** (np.log2(x[i]) + f * (np.log2(x[i + 1]) - np.log2(x[i])))
            break
    fig, ax = plt.subplots(1, 2, figsize=(12, 4))
    ax[0].plot(x, share, "o-")
    ax[0].axhline(0.5, ls="--", color="gray")
    ax[0].set_ylabel("host-side share (median)")
    ax[1].plot(x, sweep.tklqt_ns / 1e6, "o-", color="tab:red")
    ax[1].set_ylabel("TKLQT, ms (median)")
    for a in ax:
        a.set_xscale("log", base=2)
        a.set_xlabel(PARAM)
        if flip is not None:
            a.axvline(flip, color="tab:orange")
    fig.suptitle(f"verdict flip at {PARAM} = {flip:.3g}" if flip else "no verdict flip")
    plt.show()
    print(json.dumps({"param": PARAM, "flip": flip, "values": len(x)}))
