#!/usr/bin/env python3
"""table.py: docs/BENCHMARKS.md's tables from closed_loop.sh's OUTDIR.

  table.py OUTDIR [--advice advice.json|advice_default.json|starts.advice.json|window.advice.json]

advice.json: skip advise with the loop's calibration; advice_default.json: with the built-in
one (the first recording only); starts.advice.json: with the calibration and the DAG's start
costs (skip run --probe-starts, NAME.starts.json); window.advice.json: the same, with the
launch cost (runtime_launch_ns) of the launch_calib runs interleaved with the DAG's own rounds
(NAME.window.cal.json) instead of the whole loop's.

Per DAG: the model's calibration error, the predicted (the median over the DAG's recordings:
closed_loop.sh takes three) and measured speedup over serial of the plan skip advise wrote (measured: median over rounds of serial median / plan median, each round
two fresh processes), their relative error; then the same for E2 and E3 from the `--executor all`
runs. Then each executor's modelled and measured time of one run (median over rounds), for the
DAGs and for their mechanics replicas (NAME_spin). Then launch_chain's predicted and measured
CUDA-graph gain.
"""
import glob
import json
import os
import re
import statistics
import sys

DAGS = ["vec", "bs", "ml", "hits", "img", "dl", "m1", "m2"]


def load(path):
    with open(path) as f:
        return json.load(f)


def medians(out, d, kind):
    """Per round: {executor: median_ms}."""
    rounds = []
    for p in sorted(glob.glob(f"{out}/{d}.{kind}.*.json")):
        try:
            j = load(p)
        except (OSError, ValueError):
            continue
        rounds.append({r["executor"]: r["median_ms"] for r in j["results"] if "median_ms" in r})
    return rounds


def advices(out, d, which):
    """The DAG's advice on each of its recordings (the first, then NAME.2 and NAME.3 taken in
    the middle and at the end of the rounds), as many as exist."""
    paths = [f"{out}/{d}.{which}"]
    if which != "advice_default.json":
        paths += [f"{out}/{d}.{i}.{which}" for i in (2, 3)]
    return [load(p) for p in paths if os.path.exists(p)]


def med_item(advs, kind, key):
    v = [i[key] for a in advs for i in a["advice"] if i["kind"] == kind]
    return statistics.median(v) if v else float("nan")


def spread(v):
    return f"{statistics.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]"


def main():
    out = sys.argv[1]
    which = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--advice" else "advice.json"
    print("| DAG | cal. error | plan | predicted | measured, median [min, max] | error |"
          " E2 pred. / meas. | E3 pred. / meas. |")
    print("|---|---|---|---|---|---|---|---|")
    errs, notes = [], []
    for d in DAGS:
        advs = advices(out, d, which)
        if not advs:
            print(f"| {d} | - | - | - | (no advice) | - | - | - |")
            continue
        a = advs[0]
        best = a["advice"][a["best_plan"]] if a["best_plan"] >= 0 else None
        serial = medians(out, d, "serial")
        plan = medians(out, d, "plan")
        allr = medians(out, d, "all")
        meas = [s["serial"] / p[next(iter(p))] for s, p in zip(serial, plan) if p]
        e2 = [r["serial"] / r["streams"] for r in allr if "streams" in r]
        e3 = [r["serial"] / r["graph"] for r in allr if "graph" in r]
        pred = med_item(advs, best["kind"], "speedup") if best else float("nan")
        try:  # the plan that ran was written earlier (closed_loop.sh step 2)
            ran = load(f"{out}/{d}.plan.json")["advice"][0]["kind"]
            if best and ran != best["kind"]:
                notes.append(f"{d}: the plan that ran is {ran}, the final advice {best['kind']}")
        except (OSError, ValueError, KeyError, IndexError):
            pass
        m = statistics.median(meas) if meas else float("nan")
        err = abs(pred - m) / m if meas else float("nan")
        errs.append(err)
        pe2 = med_item(advs, "streams", "speedup")
        pe3 = med_item(advs, "dag-graph", "speedup")
        cal_err = statistics.median(x["model"]["calibration_error"] for x in advs)
        print(f"| {d.upper()} | {100 * cal_err:.1f}% | "
              f"{best['kind'] if best else '-'} | {pred:.2f}x | "
              f"{spread(meas) if meas else '-'}x | {100 * err:.1f}% | "
              f"{pe2:.2f}x / {statistics.median(e2) if e2 else float('nan'):.2f}x | "
              f"{pe3:.2f}x / {statistics.median(e3) if e3 else float('nan'):.2f}x |")
    if which == "window.advice.json":
        try:
            pooled = load(f"{out}/machine.cal.json")["runtime_launch_ns"]
            per = [(d, load(f"{out}/{d}.window.cal.json")["runtime_launch_ns"]) for d in DAGS
                   if os.path.exists(f"{out}/{d}.window.cal.json")]
            print(f"\nruntime_launch_ns: the whole loop's {pooled:.0f}; each DAG's rounds': " +
                  ", ".join(f"{d.upper()} {v:.0f}" for d, v in per))
        except (OSError, ValueError, KeyError):
            pass
    for n in notes:
        print(f"\nnote: {n}")
    if errs:
        print(f"\nplan speedup error: median {100 * statistics.median(errs):.1f}%, "
              f"max {100 * max(errs):.1f}%; within 10%: {sum(e <= 0.10 for e in errs)} of "
              f"{len(errs)}")
    for title, suffix in (("the DAGs", ""), ("their mechanics replicas (adv_spin kernels)", "_spin")):
        rows = []
        for d in DAGS:
            advs = advices(out, d + suffix, which if not suffix else "advice.json")
            allr = medians(out, d + suffix, "all")
            if not advs or not allr:
                continue
            model = (med_item(advs, "dag-graph", "baseline_il_ns") / 1000,
                     med_item(advs, "streams", "predicted_il_ns") / 1000,
                     med_item(advs, "dag-graph", "predicted_il_ns") / 1000)
            if any(x != x for x in model):  # nan: an item is missing
                continue
            meas = tuple(statistics.median(r[e] * 1000 for r in allr if e in r)
                         for e in ("serial", "streams", "graph"))
            rows.append((d, model, meas))
        if not rows:
            continue
        print(f"\nmodel / measured time of one run, us, {title}:\n")
        print("| DAG | E1 serial | error | E2 streams | error | E3 graph | error |")
        print("|---|---|---|---|---|---|---|")
        for d, model, meas in rows:
            cells = " | ".join(f"{a:.1f} / {b:.1f} | {100 * (a - b) / b:+.0f}%"
                               for a, b in zip(model, meas))
            print(f"| {d.upper()} | {cells} |")
    # launch_chain
    def steps(p):
        v = []
        for line in open(p):
            m = re.search(r"us_per_step_median=([0-9.]+)", line)
            if m:
                v.append(float(m.group(1)))
        return v
    cw = which if which == "advice_default.json" else "advice.json"  # no tasks, no rounds
    try:
        plain, graph = steps(f"{out}/chain.plain.txt"), steps(f"{out}/chain.graph.txt")
        meas = [p / q for p, q in zip(plain, graph)]
        m = statistics.median(meas)
        preds = []  # one per recording: (now, predicted, speedup, calibration error)
        for p in sorted(glob.glob(f"{out}/chain.[0-9].{cw}")) or [f"{out}/chain.{cw}"]:
            a = load(p)
            g = next(i for i in a["advice"] if i["kind"] == "graph")
            preds.append((g["baseline_il_ns"] / 1000, g["predicted_il_ns"] / 1000, g["speedup"],
                          a["model"]["calibration_error"]))
        sp = statistics.median(x[2] for x in preds)
        print(f"\nlaunch_chain --chain 20: step plain {spread(plain)} us, graph {spread(graph)} us;"
              f" predicted from {len(preds)} recording(s): " +
              ", ".join(f"{x[0]:.2f} -> {x[1]:.2f} us = {x[2]:.2f}x (cal. error "
                        f"{100 * x[3]:.1f}%)" for x in preds) +
              f"; median {sp:.2f}x, measured {m:.2f}x [{min(meas):.2f}, {max(meas):.2f}],"
              f" error {100 * abs(sp - m) / m:.1f}%")
    except (OSError, StopIteration, ValueError) as e:
        print(f"\nlaunch_chain: {e}")
    # two_streams: the model's unprofiled baseline of a round against the bare runs
    try:
        bare = [float(m.group(1)) for m in
                re.finditer(r"us_per_round_median=([0-9.]+)", open(f"{out}/two.bare.txt").read())]
        preds = []
        for p in sorted(glob.glob(f"{out}/two.[0-9]*.{cw}")):
            g = next(i for i in load(p)["advice"] if i["kind"] == "graph")
            preds.append(g["baseline_il_ns"] / 1000)
        m, pm = statistics.median(bare), statistics.median(preds)
        print(f"\ntwo_streams --kernels 20: a round bare {spread(bare)} us; unprofiled baseline "
              f"predicted from {len(preds)} recording(s): " +
              ", ".join(f"{x:.1f}" for x in preds) +
              f" us; median {pm:.1f} us, error {100 * (pm - m) / m:+.1f}%")
    except (OSError, StopIteration, ValueError) as e:
        print(f"\ntwo_streams: {e}")


if __name__ == "__main__":
    main()
