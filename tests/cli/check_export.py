"""check_export.py: read skip export's outputs back and compare them with the trace.

  check_export.py timeline FORMAT OUT.json TRACE [RUN [GPUS]]  (perfetto or kineto; RUN 0:
                                                          every run)
  check_export.py csv DIR TRACE                          (every table's file)
  check_export.py notebook EXECUTED.ipynb MIN_IMAGES [REPORT.json]

Prints what differs and exits 1, or exits 0. Used by tests/cli/t_export.sh.
"""
import csv
import json
import re
import sqlite3
import sys


def fail(msg):
    print("check_export:", msg)
    sys.exit(1)


def one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


def api_tables(db):
    """(runtime, driver) API calls as SQL sources: version 1 keeps driver calls in their own
    table, version 2 in CUPTI_ACTIVITY_KIND_RUNTIME with eventClass 1 (docs/trace-format.md)."""
    if one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_DRIVER'"):
        return "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"
    return ("(SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IS NOT 1)",
            "(SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1)")


def torch_op(text):
    """An NVTX range text that names a PyTorch operator: emit_nvtx's ", seq = N" or
    ", op_id = N" suffix, an autograd Node ("AddmmBackward0"), or aten:: / autograd::."""
    m = re.search(r", (?:seq|op_id) = [0-9]", text)
    name = text[:m.start()] if m else text
    return bool(m or re.search(r"Backward[0-9]*$", name) or
                text.startswith(("aten::", "autograd::")))


def timeline(fmt, path, trace, run=None, gpus=None):
    text = open(path, encoding="utf-8").read()
    doc = json.loads(text)
    db = sqlite3.connect(trace)
    cond = "runId = %d" % int(run) if run and int(run) else "1"
    runtime, driver = api_tables(db)
    ev = doc["traceEvents"]
    got = {}
    for e in ev:
        got[(e["ph"], e.get("cat"))] = got.get((e["ph"], e.get("cat")), 0) + 1
    want = {
        ("X", "kernel"): one(db, f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE {cond}"),
        ("X", "cuda_runtime"): one(db, f"SELECT count(*) FROM {runtime} WHERE {cond}"),
        ("X", "cuda_driver"): one(db, f"SELECT count(*) FROM {driver} WHERE {cond}"),
        ("X", "gpu_memcpy"): one(db, f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE {cond}"),
        ("X", "gpu_memset"): one(db, f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE {cond}"),
        ("X", "cuda_sync"): one(db, f"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE {cond}"),
    }
    nvtx = one(db, f"SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND {cond}")
    if fmt == "perfetto":
        want[("X", "nvtx")] = nvtx
    else:
        # PyTorch's operators are cpu_op (docs/skip-export.md "kineto"), the rest
        # user_annotation
        texts = [t or "" for (t,) in db.execute(
            f"SELECT text FROM NVTX_EVENTS WHERE eventType = 59 AND {cond}")]
        want[("X", "user_annotation")] = sum(1 for t in texts if not torch_op(t))
        want[("X", "cpu_op")] = len(texts) - want[("X", "user_annotation")]
    # one arrow per GPU operation whose launch call was recorded in the same process
    linked = 0
    for t in ("KERNEL", "MEMCPY", "MEMSET"):
        linked += one(db, f"""SELECT count(*) FROM CUPTI_ACTIVITY_KIND_{t} o WHERE {cond.replace('runId', 'o.runId')}
            AND EXISTS (SELECT 1 FROM {runtime} r WHERE r.runId = o.runId
              AND r.correlationId = o.correlationId AND r.globalTid >> 24 = o.globalPid >> 24
              UNION ALL SELECT 1 FROM {driver} r WHERE r.runId = o.runId
              AND r.correlationId = o.correlationId AND r.globalTid >> 24 = o.globalPid >> 24)""")
    want[("s", "ac2g")] = want[("f", "ac2g")] = linked
    for k, n in want.items():
        if got.get(k, 0) != n:
            fail(f"{fmt}: {n} {k} expected, {got.get(k, 0)} written")
    # exact times: the first and the last kernel, as printed (integer ns / 1000, 3 decimals)
    base = 0
    if fmt == "kineto":
        base = one(db, f"SELECT start FROM SKIP_RUNS WHERE {cond} ORDER BY runId LIMIT 1") or 0
    for order in ("ASC", "DESC"):
        s, e, dev, stream = db.execute(
            f"SELECT start, end, deviceId, streamId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE {cond} "
            f"ORDER BY start {order} LIMIT 1").fetchone()
        ts = "%d.%03d" % divmod(s - base, 1000)
        du = "%d.%03d" % divmod(e - s, 1000)
        if not re.search(r'"cat":"kernel","name":"(?:[^"\\]|\\.)*","pid":\d+,"tid":\d+,"ts":'
                         + re.escape(ts) + ',"dur":' + re.escape(du), text):
            fail(f"{fmt}: no kernel at ts {ts} with dur {du}")
        if fmt == "kineto" and not any(e.get("cat") == "kernel" and e["pid"] == dev
                                       and e["tid"] == stream for e in ev):
            fail("kineto: kernels are not under pid = device, tid = stream")
    # the GPUs in the metadata: one entry per device, whichever table version the trace has
    meta = doc["otherData"] if fmt == "perfetto" else doc["skip"]
    if gpus is not None and len(meta["gpus"]) != int(gpus):
        fail(f"{fmt}: {len(meta['gpus'])} GPUs in the metadata, {gpus} expected")
    if fmt == "kineto" and len(doc["deviceProperties"]) != len(meta["gpus"]):
        fail(f"kineto: {len(doc['deviceProperties'])} deviceProperties, {len(meta['gpus'])} GPUs")
    names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    if not any("stream" in n for n in names):
        fail(f"{fmt}: no named stream track in {names}")


def csv_dir(path, trace):
    db = sqlite3.connect(trace)
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")]
    for t in tables:
        with open(f"{path}/{t}.csv", newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        cols = [r[1] for r in db.execute(f"PRAGMA table_info('{t}')")]
        if rows[0] != cols:
            fail(f"{t}.csv header {rows[0]} != {cols}")
        dbrows = db.execute(f'SELECT * FROM "{t}"').fetchall()
        if len(rows) - 1 != len(dbrows):
            fail(f"{t}.csv has {len(rows) - 1} rows, the table {len(dbrows)}")
        for got, want in zip(rows[1:], dbrows):
            same = len(got) == len(want) and all(
                (g == "" if w is None else float(g) == w if isinstance(w, float) else g == str(w))
                for g, w in zip(got, want))
            if not same:
                fail(f"{t}.csv row {got} != {want}")


def notebook(path, min_images, report=None):
    nb = json.load(open(path, encoding="utf-8"))
    outs = [o for c in nb["cells"] for o in c.get("outputs", [])]
    errors = [o for o in outs if o.get("output_type") == "error"]
    if errors:
        fail(f"the notebook raised {errors[0].get('ename')}: {errors[0].get('evalue')}")
    images = sum("image/png" in o.get("data", {}) for o in outs)
    if images < int(min_images):
        fail(f"{images} figures, {min_images} expected")
    if report:
        text = "".join("".join(o.get("text", "")) for o in outs if o.get("name") == "stdout")
        m = json.loads(next(l for l in text.splitlines() if l.startswith('{"run"')))
        r = json.load(open(report))["regions"][0]
        for k in ("il_ns", "kernels", "tklqt_ns", "t_api_ns", "t_queue_ns", "kernel_ns",
                  "busy_ns", "idle_ns", "host_wait_ns", "sync_stall_ns", "device_latency_ns",
                  "launch_latency_ns"):
            if m[k] != r[k]:
                fail(f"notebook {k} = {m[k]}, skip report {r[k]}")


{"timeline": timeline, "csv": csv_dir, "notebook": notebook}[sys.argv[1]](*sys.argv[2:])
