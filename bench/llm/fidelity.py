"""fidelity.py: skip advise's predicted graph gain on LLM prefill, checked by measurement.

    python3 bench/llm/fidelity.py [--models gpt2,bert-base] [--batches 1,2,4,8] [--repeat 3]
                                  [--warmup 60] [--passes 60] [--rec-warmup 30]
                                  [--rec-passes 20] [--measured GG.json] [--out DIR]
                                  [--one-process [--recorded K]] [--keep-trace] [--dry-run]

The closed loop of docs/BENCHMARKS.md "skip advise: predicted graph gain against a measured
replay (`bench/llm`)", on the GPU machine after `make all`:

1. Measured: graph_gain.py (same directory) times every (model, batch) eager and as one CUDA
   graph replay, interleaved, in one process -> DIR/graph_gain.json (--measured reuses one).
2. Recorded: `skip record --repeat N` (with `--baseline` when this build's skip record has it)
   of `graph_gain.py --eager-only`, the same eager program, with the NVTX range
   prefill_MODEL_bBATCH around each timed pass (one process holds every configuration).
3. Predicted: `skip advise TRACE --region prefill_MODEL_bBATCH --json` for each configuration
   (runs pooled as skip advise does): the graph item's now (baseline_il_ns), predicted graph time
   (predicted_il_ns) and gain (speedup).
4. The tables: predicted against measured graph time and gain, errors in %, each row marked
   against the 10% target; then what recording cost the eager pass (the program's own median
   per run kind, and skip advise's recorded IL, over the measured eager median).

With --one-process, steps 1 and 2 are one program: `skip record --repeat N --capture-range
cudaProfilerApi` of graph_gain.py (eager and graph) with --recorded K (default 2): each run
measures eager and graph replay passes unrecorded and records one more eager pass after every
K-th pair, so skip advise models the recorded passes and takes its unprofiled time from the
unrecorded ones of the same processes (source 'uncaptured'), and the measured columns are the
medians over the runs of the same processes' APP lines: no process-to-process spread between
what is predicted and what it is checked against (--warmup and --passes then apply). Since
skip advise pools the runs and processes differ (the eager pass of one configuration ran 7-14 ms
from one process to the next on the H100), a second table compares each run on its own: `skip
advise --region R --run N` against run N's APP line, with the medians over runs of the errors.

Writes DIR/graph_gain.json and DIR/fidelity.json (everything above, the advise JSON's model and
graph item included); the trace stays in a temporary directory unless --keep-trace (then
DIR/fidelity.skip.db.gz, when under 16 MiB). DIR defaults to $OUT, else ./fidelity-out.
Without PyTorch, a GPU or build/skip it exits with 1 and one line saying which.
"""
import argparse
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from benchlib import (ROOT, SKIP, int_list, model_list, parse_app, preflight, show,
                      skip_has_option)

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPH_GAIN = os.path.join(HERE, "graph_gain.py")
TARGET = 10.0  # percent
REGION = "prefill_{model}_b{batch}"


def region(model, batch):
    return REGION.replace("{model}", model).replace("{batch}", str(batch))


def sel(args):
    return ["--models", ",".join(args.models), "--batches", ",".join(map(str, args.batches))]


def commands(args, out, work, baseline):
    measure = [sys.executable, GRAPH_GAIN] + sel(args) + [
        "--warmup", str(args.warmup), "--passes", str(args.passes),
        "--json", os.path.join(out, "graph_gain.json")]
    record = [args.skip, "record", "-q", "-f", "-o", os.path.join(work, "fidelity.skip.db"),
              "--repeat", str(args.repeat)]
    if args.one_process:
        record += ["--capture-range", "cudaProfilerApi", "--label", "graph_gain one process",
                   "--", sys.executable, GRAPH_GAIN] + sel(args) + [
            "--warmup", str(args.warmup), "--passes", str(args.passes), "--nvtx", REGION,
            "--recorded", str(args.recorded)]
    else:
        record += (["--baseline"] if baseline else []) + [
            "--label", "graph_gain eager", "--", sys.executable, GRAPH_GAIN, "--eager-only"] + sel(
            args) + ["--warmup", str(args.rec_warmup), "--passes", str(args.rec_passes),
                     "--nvtx", REGION]
    advise = {(m, b): [args.skip, "advise", os.path.join(work, "fidelity.skip.db"), "--region",
                       region(m, b), "--json"] for m in args.models for b in args.batches}
    if args.one_process:  # each run against its own process's measurement too
        for (m, b), cmd in list(advise.items()):
            for r in range(1, args.repeat + 1):
                advise[(m, b, r)] = cmd + ["--run", str(r)]
    return measure, record, advise


def measured_from_app(stdout):
    """(model, batch) -> graph_gain.json-like figures from the recorded runs' APP lines: the
    medians over the runs of eager_ms, graph_ms and gain (--one-process)."""
    got = {}
    for line in stdout.splitlines():
        a = parse_app(line)
        if not a or a["app"] != "graph_gain":
            continue
        g = got.setdefault((a["model"], int(a["batch"])), {"eager": [], "graph": [], "gain": []})
        for k, key in (("eager", "eager_ms"), ("graph", "graph_ms"), ("gain", "gain")):
            if a.get(key, "-") != "-":
                g[k].append(float(a[key]))
    return {key: {"eager": {"median": med(g["eager"])} if g["eager"] else None,
                  "graph": {"median": med(g["graph"])} if g["graph"] else None,
                  "gain": med(g["gain"]) if g["gain"] else None,
                  "capture_error": None if g["graph"] else "no graph replay measured"}
            for key, g in got.items()}


def measured_per_run(stdout):
    """(model, batch, run) -> {"eager", "graph", "gain"} from each recorded run's APP line
    (--one-process: the process that the run's recorded passes come from)."""
    got = {}
    for line in stdout.splitlines():
        a = parse_app(line)
        if not a or a["app"] != "graph_gain" or not a.get("run", "-").isdigit():
            continue
        got[(a["model"], int(a["batch"]), int(a["run"]))] = {
            k: float(a[key]) if a.get(key, "-") != "-" else None
            for k, key in (("eager", "eager_ms"), ("graph", "graph_ms"), ("gain", "gain"))}
    return got


def per_run_rows(args, per_run, advised):
    """One row per (model, batch): each run's predicted gain and graph time against the same
    process's measured ones, and the medians over runs of the errors."""
    out = []
    for m in args.models:
        for b in args.batches:
            runs = []
            for r in range(1, args.repeat + 1):
                meas = per_run.get((m, b, r)) or {}
                g = (advised.get((m, b, r)) or {}).get("graph") or {}
                p_graph = g["predicted_il_ns"] / 1e6 if "predicted_il_ns" in g else None
                runs.append({"run": r, "measured_gain": meas.get("gain"),
                             "predicted_gain": g.get("speedup"),
                             "measured_graph_ms": meas.get("graph"),
                             "predicted_graph_ms": p_graph,
                             "gain_err_pct": pct(g.get("speedup"), meas.get("gain")),
                             "graph_err_pct": pct(p_graph, meas.get("graph"))})
            ge = [x["gain_err_pct"] for x in runs if x["gain_err_pct"] is not None]
            gr = [x["graph_err_pct"] for x in runs if x["graph_err_pct"] is not None]
            row = {"model": m, "batch": b, "runs": runs,
                   "gain_err_pct": med(ge) if ge else None,
                   "graph_err_pct": med(gr) if gr else None,
                   "worst_gain_err_pct": max(ge, key=abs) if ge else None}
            errs = (row["gain_err_pct"], row["graph_err_pct"])
            row["within_target"] = None if None in errs else all(abs(e) <= TARGET for e in errs)
            out.append(row)
    return out


def per_run_table(prs):
    t = ["Each run against its own process (skip advise --run N; measured: that run's APP line), "
         "errors in %",
         "| model | batch | gain, measured per run | predicted per run | gain error per run | "
         "graph error per run | median errors, gain / graph | within 10% |",
         "|---|---|---|---|---|---|---|---|"]
    for r in prs:
        mark = {True: "yes", False: "**no**", None: "-"}[r["within_target"]]
        runs = r["runs"]
        t.append(f"| {r['model']} | {r['batch']} | "
                 + " / ".join(f(x["measured_gain"], ".2f") for x in runs) + " | "
                 + " / ".join(f(x["predicted_gain"], ".2f") for x in runs) + " | "
                 + " / ".join(f(x["gain_err_pct"], "+.1f") for x in runs) + " | "
                 + " / ".join(f(x["graph_err_pct"], "+.1f") for x in runs) + " | "
                 + f"{f(r['gain_err_pct'], '+.1f')} / {f(r['graph_err_pct'], '+.1f')} | {mark} |")
    return "\n".join(t)


def run_kinds(db_path):
    """runId -> kind ('full' or 'baseline'; files without SKIP_RUNS.kind: all 'full')."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    cols = [r[1] for r in db.execute("PRAGMA table_info(SKIP_RUNS)")]
    q = "SELECT runId, kind FROM SKIP_RUNS" if "kind" in cols else \
        "SELECT runId, 'full' FROM SKIP_RUNS"
    kinds = {str(r): k for r, k in db.execute(q)}
    db.close()
    return kinds


def recorded_app(stdout, kinds):
    """(model, batch) -> kind -> [eager median ms of each run] from the recording's APP lines."""
    out = {}
    for line in stdout.splitlines():
        a = parse_app(line)
        if not a or a["app"] != "graph_gain":
            continue
        kind = kinds.get(a.get("run"), "run " + a.get("run", "?"))
        key = (a["model"], int(a["batch"]))
        out.setdefault(key, {}).setdefault(kind, []).append(float(a["eager_ms"]))
    return out


def graph_item(advice):
    """The advise JSON's model, its profiler figure, and its first graph item (or None)."""
    items = [a for a in advice.get("advice", []) if a.get("kind") == "graph"]
    return {"model": advice.get("model"),
            "recorded_latencies": advice.get("recorded_latencies"),
            "graph": items[0] if items else None}


def pct(pred, meas):
    return None if pred is None or not meas else (pred - meas) / meas * 100.0


def f(v, spec=".3f", suffix=""):
    return "-" if v is None else f"{v:{spec}}{suffix}"


def rows(args, measured, app, advised):
    out = []
    for m in args.models:
        for b in args.batches:
            meas = measured.get((m, b), {})
            adv = advised.get((m, b), {})
            g = adv.get("graph") or {}
            eager = meas.get("eager", {}).get("median") if meas.get("eager") else None
            graph = meas["graph"]["median"] if meas.get("graph") else None
            gain = meas.get("gain")
            p_now = g.get("baseline_il_ns", 0) / 1e6 if g else None
            p_graph = g.get("predicted_il_ns", 0) / 1e6 if g else None
            p_gain = g.get("speedup") if g else None
            model = adv.get("model") or {}
            rec_il = model.get("recorded_il_ns", 0) / 1e6 if model else None
            r = {"model": m, "batch": b, "measured_eager_ms": eager, "measured_graph_ms": graph,
                 "measured_gain": gain, "predicted_now_ms": p_now, "predicted_graph_ms": p_graph,
                 "predicted_gain": p_gain, "now_err_pct": pct(p_now, eager),
                 "graph_err_pct": pct(p_graph, graph), "gain_err_pct": pct(p_gain, gain),
                 "recorded_il_ms": rec_il, "app_ms": app.get((m, b), {}),
                 "advise_error": adv.get("error"), "capture_error": meas.get("capture_error"),
                 "now_source": next((str(v) for k, v in model.items() if "source" in k), None)}
            errs = (r["graph_err_pct"], r["gain_err_pct"])
            r["within_target"] = None if None in errs else all(abs(e) <= TARGET for e in errs)
            out.append(r)
    return out


def med(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def tables(rs):
    t = ["| model | batch | eager ms, measured | predicted now (err) | graph ms, measured | "
         "predicted graph (err) | gain, measured | predicted gain (err) | within 10% |",
         "|---|---|---|---|---|---|---|---|---|"]
    for r in rs:
        mark = {True: "yes", False: "**no**", None: "-"}[r["within_target"]]
        why = r["advise_error"] or (r["capture_error"] and "capture failed") or ""
        t.append(f"| {r['model']} | {r['batch']} | {f(r['measured_eager_ms'])} | "
                 f"{f(r['predicted_now_ms'])} ({f(r['now_err_pct'], '+.1f', '%')}) | "
                 f"{f(r['measured_graph_ms'])} | {f(r['predicted_graph_ms'])} "
                 f"({f(r['graph_err_pct'], '+.1f', '%')}) | {f(r['measured_gain'], '.2f', 'x')} | "
                 f"{f(r['predicted_gain'], '.2f', 'x')} ({f(r['gain_err_pct'], '+.1f', '%')}) | "
                 f"{mark}{' ' + why[:60] if why else ''} |")
    if any(r["now_source"] for r in rs):
        t += ["", "skip advise's unprofiled time came from: " + "; ".join(
            f"{r['model']} {r['batch']}: {r['now_source']}" for r in rs if r["now_source"])]
    kinds = sorted({k for r in rs for k in r["app_ms"]})
    t += ["", "Recording's cost on the eager pass, over the measured eager median "
          "(program's own median per run kind, medians over runs; IL: skip advise's recorded)",
          "| " + " | ".join(["model", "batch"] + [f"{k} runs" for k in kinds] + ["recorded IL"])
          + " |", "|" + "---|" * (len(kinds) + 3)]
    for r in rs:
        e = r["measured_eager_ms"]
        cells = [f(med(r["app_ms"][k]) / e, ".2f", "x") if e and r["app_ms"].get(k) else "-"
                 for k in kinds]
        il = f(r["recorded_il_ms"] / e, ".2f", "x") if e and r["recorded_il_ms"] else "-"
        t.append("| " + " | ".join([r["model"], str(r["batch"])] + cells + [il]) + " |")
    return "\n".join(t)


def step(name, cmd, **kw):
    print(f"fidelity: {name}: {show(cmd)}", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, text=True, **kw)
    return p, time.perf_counter() - t0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=model_list, default=["gpt2", "bert-base"])
    ap.add_argument("--batches", type=int_list, default=[1, 2, 4, 8])
    ap.add_argument("--repeat", type=int, default=3, help="recorded runs (skip record --repeat)")
    ap.add_argument("--warmup", type=int, default=60, help="graph_gain.py's --warmup, measured")
    ap.add_argument("--passes", type=int, default=60, help="graph_gain.py's --passes, measured")
    ap.add_argument("--rec-warmup", type=int, default=30, help="the same, recorded")
    ap.add_argument("--rec-passes", type=int, default=20, help="the same, recorded")
    ap.add_argument("--measured", metavar="GG.json", help="reuse graph_gain.py --json output")
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "fidelity-out"))
    ap.add_argument("--skip", default=SKIP, help="the skip binary (default build/skip)")
    ap.add_argument("--one-process", action="store_true",
                    help="measure and record in the same processes (skip record "
                    "--capture-range; see above)")
    ap.add_argument("--recorded", type=int, default=2, metavar="K",
                    help="--one-process: a recorded eager pass after every K-th pair; default 2")
    ap.add_argument("--keep-trace", action="store_true", help="gzip the trace into DIR")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.passes < 1 or args.rec_passes < 1 or args.recorded < 1:
        ap.error("--repeat, --passes, --rec-passes and --recorded take 1 or more")
    return args


def main():
    args = parse_args()
    out = os.path.abspath(args.out)
    if args.dry_run:
        baseline = os.access(args.skip, os.X_OK) and skip_has_option(args.skip, "record",
                                                                     "--baseline")
        measure, record, advise = commands(args, out, "WORK", baseline)
        if not args.measured and not args.one_process:
            print(show(measure))
        print(show(record))
        for cmd in advise.values():
            print(show(cmd))
        return
    preflight("fidelity.py", ("torch", "transformers"), args.skip)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="skip-fidelity-")
    baseline = skip_has_option(args.skip, "record", "--baseline")
    measure, record, advise = commands(args, out, work, baseline)
    seconds = {}

    gg_path = args.measured or os.path.join(out, "graph_gain.json")
    if not args.measured and not args.one_process:
        p, seconds["measure"] = step("measure", measure)
        if p.returncode:  # the predictions are still worth having: go on without measurements
            print(f"fidelity: graph_gain.py failed ({p.returncode}): no measured columns",
                  file=sys.stderr)
    measured = {}
    if os.path.exists(gg_path) and not args.one_process:
        with open(gg_path) as fh:
            measured = {(c["model"], c["batch"]): c for c in json.load(fh)["configs"]}

    if not baseline and not args.one_process:
        print("fidelity: this skip record has no --baseline: full runs only", file=sys.stderr)
    p, seconds["record"] = step("record", record, stdout=subprocess.PIPE)
    if p.returncode and baseline and not args.one_process:  # one GPU call must not be lost to a new option's failure
        print(f"fidelity: the recording with --baseline failed ({p.returncode}): again without",
              file=sys.stderr)
        baseline = False
        measure, record, advise = commands(args, out, work, baseline)
        p, seconds["record"] = step("record", record, stdout=subprocess.PIPE)
    sys.stdout.write("".join(l + "\n" for l in p.stdout.splitlines() if l.startswith("APP")))
    db = os.path.join(work, "fidelity.skip.db")
    if p.returncode or not os.path.exists(db):
        sys.exit(f"fidelity.py: the recording failed ({p.returncode}); see above")
    app = recorded_app(p.stdout, run_kinds(db))
    if args.one_process:
        measured = measured_from_app(p.stdout)
        per_run = measured_per_run(p.stdout)

    advised = {}
    t0 = time.perf_counter()
    for key, cmd in advise.items():
        a = subprocess.run(cmd, capture_output=True, text=True)
        if a.returncode:
            msg = (a.stderr.strip().splitlines() or ["exit %d" % a.returncode])[0]
            msg = msg.replace("skip advise: error: ", "advise: ")
            print(f"fidelity: {show(cmd)}: {msg}", file=sys.stderr)
            advised[key] = {"error": msg}
        else:
            try:
                advised[key] = graph_item(json.loads(a.stdout))
            except ValueError as e:
                advised[key] = {"error": f"advise: its JSON does not parse ({e})"}
    seconds["advise"] = time.perf_counter() - t0

    rs = rows(args, measured, app, advised)
    print()
    print(tables(rs))
    prs = per_run_rows(args, per_run, advised) if args.one_process else None
    if prs:
        print()
        print(per_run_table(prs))
    res = {"fidelity": 1, "target_pct": TARGET, "baseline_runs": baseline,
           "one_process": args.one_process, "seconds": seconds,
           "commands": {"measure": show(measure), "record": show(record),
                        "advise": show(next(iter(advise.values())))},
           "rows": rs, "per_run_rows": prs,
           "advise": {" ".join(map(str, k)): v for k, v in advised.items()}}
    with open(os.path.join(out, "fidelity.json"), "w") as fh:
        json.dump(res, fh, indent=1)
    if args.keep_trace:
        gz = os.path.join(out, "fidelity.skip.db.gz")
        with open(db, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
        if os.path.getsize(gz) > 16 << 20:
            print(f"fidelity: {gz} is over 16 MiB: removed", file=sys.stderr)
            os.remove(gz)
    shutil.rmtree(work, ignore_errors=True)
    print(f"\nfidelity.py: measure {seconds.get('measure', 0):.0f} s, record "
          f"{seconds['record']:.0f} s, advise {seconds['advise']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
