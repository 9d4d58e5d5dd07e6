"""check_kineto.py: read a Kineto JSON trace the way Holistic Trace Analysis (HTA) loads it, and
check the structure HTA's analyses rely on. HTA itself (pandas, not a Debian package) is not
installed where skip is tested, so this applies the same rules with the standard library,
written from HTA's source (facebookresearch/HolisticTraceAnalysis; no code copied):

- hta/common/trace_file.py, create_rank_to_trace_dict: a trace without distributedInfo.rank
  is refused ("Trace cannot be processed"); the rank is a non-negative integer.
- hta/common/trace_parser.py, _parse_trace_dataframe_json and _compress_df: every event of
  traceEvents is a row; float timestamps (ns resolution) are rounded, ts up and ts + dur down
  to whole microseconds; rows without dur or cat are dropped (metadata, flows, instants), and
  those of cat "Trace"; the args wanted become columns, a missing one taking its default.
- hta/configs/event_args_formats/event_args_1.0.0.yaml: the args' raw names and defaults:
  "External id" -1, "correlation" -1, "cbid" -1, "stream" -1, "device" -1, "context" -1,
  "Sequence number" -1, "Fwd thread id" -1, "queued" -1, "registers per thread" -1,
  "shared memory" -1, "blocks per SM" [], "warps per SM" 0.0, "est. achieved occupancy %" -1,
  "grid" [], "block" [], "bytes" -1, "memory bandwidth (GB/s)" 0.0.
- HTA's analyses then take GPU events as the rows with stream >= 0 (kernels: cat "kernel"),
  join each to its CPU launch call (cuda_runtime / cuda_driver, stream -1) by correlation, and
  a kernel to the CPU operator that launched it by External id (cpu_op, user_annotation).

  check_kineto.py summary TRACE.json[.gz]        print the structure found, as JSON
  check_kineto.py same REAL.json[.gz] OURS.json  the structure of OURS has what REAL's has

Exits 1 with a message on the first difference. Used by tests/cli/t_export_kineto.sh.
"""
import gzip
import json
import math
import sys

ARGS = {"External id": -1, "correlation": -1, "cbid": -1, "stream": -1, "device": -1,
        "context": -1, "Sequence number": -1, "Fwd thread id": -1, "queued": -1,
        "registers per thread": -1, "shared memory": -1, "blocks per SM": [],
        "warps per SM": 0.0, "est. achieved occupancy %": -1, "grid": [], "block": [],
        "bytes": -1, "memory bandwidth (GB/s)": 0.0}
CPU_CATS = ("cpu_op", "user_annotation")
CALL_CATS = ("cuda_runtime", "cuda_driver")


def fail(msg):
    print("check_kineto:", msg)
    sys.exit(1)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def rows(doc):
    """traceEvents as HTA's parser leaves them: one dict per kept event."""
    out = []
    for i, e in enumerate(doc["traceEvents"]):
        if e.get("dur") is None or e.get("cat") is None or e["cat"] == "Trace":
            continue
        r = {"index": i, "cat": e["cat"], "name": e["name"], "pid": e["pid"], "tid": e["tid"],
             "raw_ts": e["ts"], "raw_end": e["ts"] + e["dur"]}
        ts, end = e["ts"], e["ts"] + e["dur"]
        if isinstance(ts, float) or isinstance(e["dur"], float):
            ts, end = math.ceil(ts), math.floor(end)
        r["ts"], r["dur"] = ts, end - ts
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        for k, default in ARGS.items():
            r[k] = args.get(k, default)
        out.append(r)
    return out


def summary(doc):
    rank = doc.get("distributedInfo", {}).get("rank") if isinstance(
        doc.get("distributedInfo"), dict) else None
    rs = rows(doc)
    gpu = [r for r in rs if isinstance(r["stream"], int) and r["stream"] >= 0]
    kernels = [r for r in gpu if r["cat"] == "kernel"]
    calls = {}
    for r in rs:
        if r["cat"] in CALL_CATS and r["stream"] == -1 and r["correlation"] > 0:
            calls.setdefault(r["correlation"], []).append(r)
    ops = {}
    for r in rs:
        if r["cat"] in CPU_CATS and r["External id"] != -1:
            ops.setdefault(r["External id"], []).append(r)
    s = {"rank": rank, "kernels": len(kernels), "with_device": 0, "correlated": 0,
         "with_external_id": 0, "linked_to_op": 0, "op_encloses_call": 0,
         "kernel_args": set(), "cpu_cats": sorted({r["cat"] for r in rs if r["cat"] in CPU_CATS}),
         "ops_with_seq": sum(1 for r in rs if r["cat"] == "cpu_op" and r["Sequence number"] >= 0),
         "fwdbwd": sum(1 for e in doc["traceEvents"]
                       if e.get("cat") == "fwdbwd" and e.get("ph") == "s")}
    for k in kernels:
        s["kernel_args"] |= {a for a in ARGS if k[a] != ARGS[a]}
        s["with_device"] += k["device"] >= 0
        launch = calls.get(k["correlation"], [])
        if len(launch) != 1:
            continue
        call = launch[0]
        s["correlated"] += 1
        if k["External id"] == -1:
            continue
        s["with_external_id"] += 1
        if call["External id"] != k["External id"] or len(ops.get(k["External id"], [])) != 1:
            continue
        s["linked_to_op"] += 1
        op = ops[k["External id"]][0]
        s["op_encloses_call"] += (op["pid"], op["tid"]) == (call["pid"], call["tid"]) and \
            op["raw_ts"] <= call["raw_ts"] and call["raw_end"] <= op["raw_end"]
    s["kernel_args"] = sorted(s["kernel_args"])
    return s


def same(real, ours):
    r, o = summary(load(real)), summary(load(ours))
    print("torch.profiler:", json.dumps(r))
    print("skip export:   ", json.dumps(o))
    if o["rank"] is None or not isinstance(o["rank"], int) or o["rank"] < 0:
        fail("no distributedInfo.rank: HTA refuses the trace")
    for s, who in ((r, "torch.profiler"), (o, "skip export")):
        if not s["kernels"] or s["with_device"] != s["kernels"]:
            fail(f"{who}: {s['kernels']} kernels, {s['with_device']} with stream and device")
        if s["linked_to_op"] != s["with_external_id"] or s["op_encloses_call"] != s["linked_to_op"]:
            fail(f"{who}: External ids that do not lead to one operator around the launch: {s}")
    # every kernel skip's trace has a launch call for is joined to it; the real trace records
    # the launch of every kernel, and so does skip's of the same program
    if r["correlated"] != r["kernels"] or o["correlated"] != o["kernels"]:
        fail(f"kernels without their launch call: {r['correlated']}/{r['kernels']}, "
             f"{o['correlated']}/{o['kernels']}")
    if o["kernels"] != r["kernels"]:
        fail(f"{r['kernels']} kernels in torch.profiler's trace, {o['kernels']} in skip's")
    # queued: Kineto writes 0 when CUPTI did not give it, skip leaves it out
    missing = set(r["kernel_args"]) - set(o["kernel_args"]) - {"queued"}
    if missing:
        fail(f"kernel args torch.profiler has and skip's export lacks: {sorted(missing)}")
    if r["with_external_id"] and not o["with_external_id"]:
        fail("no kernel of skip's export has an External id")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        print(json.dumps(summary(load(sys.argv[2]))))
    elif len(sys.argv) == 4 and sys.argv[1] == "same":
        same(sys.argv[2], sys.argv[3])
    else:
        fail(__doc__)


main()
