"""cost_breakdown.py: where a recording's cost goes on a launch-bound PyTorch program.

    python3 bench/overhead/cost_breakdown.py [--programs prefill,torch_loop] [--model gpt2]
                                             [--batch 1] [--variants LIST] [--rounds 10]
                                             [--min-rounds 2] [--budget-s 100] [--until EPOCH]
                                             [--ab PAIRS] [--json OUT] [--dry-run]

Programs: prefill (bench/llm/prefill.py), torch_loop (bench/overhead/torch_loop.py, small
elementwise ops) and train_step (bench/overhead/train_step.py: forward, backward and AdamW of a
2-layer GPT-2 at --batch). Runs each program bare and under each variant below, every run a
fresh process, in interleaved rounds (the order rotates every round), and compares the
program's own timed figure (its APP line: prefill.py's ms=, the median of its timed passes;
torch_loop.py's and train_step.py's us_per_step=) with the bare run of the same round.
Variants (--variants picks, comma-separated):

  bare            the program alone
  none            skip record --trace none: the collector injected, nothing enabled
  nvtx            skip record --trace nvtx: NVTX ranges only
  cuda            skip record --trace cuda: kernel activity and the launch API records
  cuda+nvtx+sync  skip record --trace cuda,nvtx,sync: the default without CUPTI's overhead records
  default         skip record: cuda,nvtx,sync,overhead
  sync-records    skip record --trace default,sync-records: the default and CUPTI's
                  synchronization records
  all-apis        skip record --trace all-apis: the default and every runtime/driver API call
  floor           the CUPTI floor (build/bench/libskip_floor.so, `make bench`): the default's
                  kinds enabled, every record walked, nothing written (default - floor: the writer)
  torch-ops       skip record --torch-ops: the default and one NVTX range per ATen operator
  torch.profiler  the program's --profiler: torch.profiler.profile(CPU+CUDA) around its timed part
  baseline        skip record --baseline (where this build has it): the figure of its baseline run

Default variants: bare, nvtx, cuda, cuda+nvtx+sync, default, floor, torch-ops, torch.profiler,
baseline (floor and baseline are left out, with a note, where not built or not supported).

Rounds: at least --min-rounds, at most --rounds, as many as fit in --budget-s per program after
the first round's time; with --until, no round starts that would end after that time (the
previous round's time is the estimate; a first round's, 10 s per variant). Prints per program a table: each variant's figure and its ratio to bare
as median [min, max] over the rounds, the pooled ratios (the variant's lower quartile and median
over all its processes, each over bare's: where separate processes run at different speeds, as
launch-bound PyTorch programs do on a shared host, steadier than the per-round ratio), the whole
process's ratio, and the records skip dropped.
--json OUT writes every run.

With --ab PAIRS each process also measures its recording's cost on itself, in-process: the
program alternates PAIRS pairs of blocks of passes with recording off and on (prefill.py's and
torch_loop.py's --ab), skip's variants record with --capture-range cudaProfilerApi (recording
only inside the on blocks) and torch.profiler runs inside the on blocks only. The table then
also has the in-process ratio (on / off, the median over a process's pairs, then median [min,
max] over processes): free of the process-to-process spread that the ratio to bare carries.
The program's own figure (its regular timed passes, outside every capture range) then
measures a switched variant with recording off: its ratio to bare is what being injected costs.
bare's in-process ratio is the method's own noise; variants that cannot be switched in-process
(nvtx, floor, baseline) show '-' there (torch-ops is switched: its operator ranges are on only
inside the capture ranges). Without PyTorch, a GPU or build/skip it exits with 1 and one line.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "llm"))
from benchlib import (BUILD, MODELS, ROOT, SKIP, fmt_stats, parse_app, preflight,  # noqa: E402
                      show, skip_has_option, stats)

FLOOR = os.path.join(BUILD, "bench", "libskip_floor.so")
TRACE = {"none": "none", "nvtx": "nvtx", "cuda": "cuda", "cuda+nvtx+sync": "cuda,nvtx,sync",
         "all-apis": "all-apis", "sync-records": "default,sync-records"}
ALL = ["bare", "none", "nvtx", "cuda", "cuda+nvtx+sync", "default", "sync-records", "all-apis",
       "floor", "torch-ops", "torch.profiler", "baseline"]
DEFAULT = ["bare", "nvtx", "cuda", "cuda+nvtx+sync", "default", "floor", "torch-ops",
           "torch.profiler", "baseline"]


SWITCHABLE = {"bare", "cuda", "cuda+nvtx+sync", "default", "sync-records", "all-apis",
              "torch-ops", "torch.profiler"}


def programs(args):
    py = sys.executable
    ab = ["--ab", str(args.ab)] if args.ab else []
    return {
        "prefill": ([py, os.path.join(ROOT, "bench", "llm", "prefill.py"), "--model", args.model,
                     "--batch", str(args.batch), "--warmup", str(args.warmup), "--passes",
                     str(args.passes)] + ab, "ms", "ms"),
        "torch_loop": ([py, os.path.join(ROOT, "bench", "overhead", "torch_loop.py"), "--steps",
                        str(args.steps), "--ops", "20"] + ab, "us_per_step", "us/step"),
        "train_step": ([py, os.path.join(ROOT, "bench", "overhead", "train_step.py"), "--batch",
                        str(args.batch)] + ab, "us_per_step", "us/step"),
    }


def command(variant, argv, out, skip, ab=False):
    """(argv, extra environment) of one run of VARIANT (with AB, switched in-process where
    the variant can be)."""
    rec = [skip, "record", "-q", "-f", "-o", out]
    if ab and variant in SWITCHABLE:
        rec += ["--capture-range", "cudaProfilerApi"]
    if variant == "bare":
        return list(argv), {}
    if variant == "torch.profiler":
        return list(argv) + ["--profiler"], {}
    if variant == "floor":
        return list(argv), {"CUDA_INJECTION64_PATH": FLOOR, "NVTX_INJECTION64_PATH": FLOOR}
    if variant == "default":
        return rec + ["--"] + argv, {}
    if variant == "torch-ops":
        return rec + ["--torch-ops", "--"] + argv, {}
    if variant == "baseline":  # --baseline compares runs: a full run, then its baseline run
        return rec + ["--repeat", "2", "--baseline", "--"] + argv, {}
    return rec + ["--trace", TRACE[variant], "--"] + argv, {}


def baseline_runs(db_path):
    """Run ids (as strings) of the baseline runs in DB_PATH (none without SKIP_RUNS.kind)."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    cols = [r[1] for r in db.execute("PRAGMA table_info(SKIP_RUNS)")]
    ids = {str(r) for (r,) in db.execute(
        "SELECT runId FROM SKIP_RUNS WHERE kind = 'baseline'")} if "kind" in cols else set()
    db.close()
    return ids


def run(variant, argv, key, out, skip, ab=False):
    """One run: {figure, whole_s, dropped[, ab]}, or {error} when it failed or printed no
    figure (ab: the in-process on / off ratio, for a variant switched in-process)."""
    cmd, extra = command(variant, argv, out, skip, ab)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKIP_")}
    env.update(extra, PYTHONUNBUFFERED="1")
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"error": f"{show(cmd)}: still running after 300 s, killed"}
    whole = time.perf_counter() - t0
    apps = [a for a in map(parse_app, p.stdout.splitlines()) if a and key in a]
    if variant == "baseline" and apps:
        ids = baseline_runs(out) if os.path.exists(out) else set()
        apps = [a for a in apps if a.get("run") in ids]
    if p.returncode != 0 or not apps:
        tail = "\n  ".join((p.stdout + p.stderr).strip().splitlines()[-8:])
        what = f"exit {p.returncode}" if p.returncode else "no APP line" + (
            " of a baseline run" if variant == "baseline" else "")
        return {"error": f"{show(cmd)} failed ({what}):\n  {tail}"}
    m = re.search(r"dropped records\s+([\d,]+)", p.stdout + p.stderr)
    res = {"figure": float(apps[-1][key]), "whole_s": whole,
           "dropped": int(m.group(1).replace(",", "")) if m else None}
    if ab and variant in SWITCHABLE and "ab_ratio" in apps[-1]:
        res["ab"] = float(apps[-1]["ab_ratio"])
        res["ab_off"] = float(apps[-1]["ab_off"])
    return res


def measure(name, argv, key, variants, args, tmp, notes):
    """Interleaved rounds of VARIANTS; a variant whose run fails is reported in NOTES and
    left out of the later rounds (a failing bare run ends the program's measurement)."""
    out = os.path.join(tmp, f"{name}.skip.db")
    rounds, t_start, live = [], time.perf_counter(), list(variants)
    nmax, est = args.rounds, 10.0 * len(variants)  # a first round's guess: 10 s a process
    for r in range(args.rounds):
        if r >= nmax:
            break
        if args.until and time.time() + est > args.until:
            notes.append(f"{name}: stopped after {r} rounds, the next would end past --until")
            print(f"cost_breakdown: {notes[-1]}", file=sys.stderr, flush=True)
            break
        order = live[r % len(live):] + live[:r % len(live)]
        t0 = time.perf_counter()
        done = {}
        for v in order:
            done[v] = run(v, argv, key, out, args.skip, args.ab > 0)
            if "error" in done[v]:
                notes.append(f"{name} {v}: {done[v].pop('error')}")
                print(f"cost_breakdown: {notes[-1]}", file=sys.stderr, flush=True)
                live.remove(v)
                del done[v]
                if v == "bare":
                    return None
        rounds.append(done)
        est = time.perf_counter() - t0
        if r == 0:  # how many rounds fit the budget
            per = est
            nmax = max(args.min_rounds, min(args.rounds, int(args.budget_s // max(per, 1e-3))))
            print(f"cost_breakdown: {name}: a round takes {per:.0f} s: {nmax} rounds",
                  file=sys.stderr, flush=True)
        print(f"{name} round {r + 1}: " + ", ".join(
            f"{v} {done[v]['figure']:.3f}" for v in variants if v in done), flush=True)
    if not rounds:
        return None
    res = {"argv": show(argv), "figure": key, "rounds": rounds,
           "seconds": time.perf_counter() - t_start, "variants": {}}
    for v in variants:
        got = [x for x in rounds if v in x]
        if not got:
            continue
        res["variants"][v] = {
            "figure": stats([x[v]["figure"] for x in got]),
            "vs_bare": stats([x[v]["figure"] / x["bare"]["figure"] for x in got]),
            "whole_vs_bare": stats([x[v]["whole_s"] / x["bare"]["whole_s"] for x in got]),
            "dropped": sum(x[v]["dropped"] or 0 for x in got)}
        ab = [x[v]["ab"] for x in got if "ab" in x[v]]
        if ab:
            res["variants"][v]["in_process"] = stats(ab)
    return res


def table(name, unit, res):
    n = len(res["rounds"])
    lines = [f"{name} ({res['argv']}), {n} rounds ({res['seconds']:.0f} s), median [min, max]:",
             f"| variant | program's figure, {unit} | / bare | pooled / bare | "
             "in-process on / off | whole process / bare | dropped |",
             "|---|---|---|---|---|---|---|"]
    bare = res["variants"].get("bare", {}).get("figure")
    for v, s in res["variants"].items():
        rec = v not in ("bare", "floor", "torch.profiler")
        lines.append(f"| {v} | {fmt_stats(s['figure'])} | {fmt_stats(s['vs_bare'])} | "
                     f"{pooled(s['figure'], bare)} | {fmt_stats(s.get('in_process'))} | "
                     f"{fmt_stats(s['whole_vs_bare'], 2)} | {s['dropped'] if rec else '-'} |")
    lines.append("(pooled: the variant's lower quartile and median over all its processes, each "
                 "over bare's; steadier than the per-round ratio where whole processes differ)")
    return "\n".join(lines)


def pooled(fig, bare):
    """'Q1 / MEDIAN' of a variant's figures over bare's (stats() dicts), or '-'."""
    if not fig or not bare:
        return "-"
    return f"{fig['q1'] / bare['q1']:.3f} / {fig['median'] / bare['median']:.3f}"


def pick(args, notes):
    joined = [v for v in args.variants.split(",") if v] if args.variants else list(DEFAULT)
    bad = [v for v in joined if v not in ALL]
    if bad:
        print(f"cost_breakdown.py: unknown variant '{bad[0]}' (known: {', '.join(ALL)})",
              file=sys.stderr)
        sys.exit(2)
    if "bare" not in joined:
        joined.insert(0, "bare")
    if "floor" in joined and not os.path.exists(FLOOR):
        joined.remove("floor")
        notes.append(f"floor left out: {FLOOR} is not built (make bench)")
    if "baseline" in joined and not (os.access(args.skip, os.X_OK) and
                                     skip_has_option(args.skip, "record", "--baseline")):
        joined.remove("baseline")
        notes.append("baseline left out: this skip record has no --baseline")
    return joined


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default="prefill,torch_loop")
    ap.add_argument("--model", default="gpt2", choices=MODELS, help="prefill.py's; default gpt2")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=30, help="prefill.py's warm-up passes")
    ap.add_argument("--passes", type=int, default=30, help="prefill.py's timed passes")
    ap.add_argument("--steps", type=int, default=2000, help="torch_loop.py's steps")
    ap.add_argument("--variants", help="comma-separated; default " + ",".join(DEFAULT))
    ap.add_argument("--rounds", type=int, default=10, help="at most; default 10")
    ap.add_argument("--min-rounds", type=int, default=2, help="at least; default 2")
    ap.add_argument("--budget-s", type=float, default=100,
                    help="seconds per program the rounds may take (after the first round's "
                    "time); default 100")
    ap.add_argument("--until", type=float, metavar="EPOCH",
                    help="start no round that would end after this time (seconds since the "
                    "epoch, as date +%%s), whatever --min-rounds says")
    ap.add_argument("--skip", default=SKIP, help="the skip binary (default build/skip)")
    ap.add_argument("--ab", type=int, default=0, metavar="PAIRS",
                    help="also measure each variant in-process: PAIRS pairs of off/on blocks")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = ap.parse_args(argv)
    if args.ab < 0:
        ap.error("--ab takes 0 or more pairs")
    if args.rounds < 1 or not 1 <= args.min_rounds <= args.rounds:
        ap.error("--rounds takes 1 or more, --min-rounds 1 to --rounds")
    return args


def main():
    args = parse_args()
    progs = programs(args)
    names = [p for p in args.programs.split(",") if p]
    if not names or any(p not in progs for p in names):
        raise SystemExit(f"cost_breakdown.py: --programs takes {', '.join(progs)}; "
                         f"got '{args.programs}'")
    notes = []
    variants = pick(args, notes)
    for n in notes:
        print(f"cost_breakdown: {n}", file=sys.stderr)
    if args.dry_run:
        for name in names:
            argv, key, _ = progs[name]
            for v in variants:
                cmd, extra = command(v, argv, f"TMP/{name}.skip.db", args.skip, args.ab > 0)
                env = " ".join(f"{k}={val}" for k, val in extra.items())
                print(f"{name} {v}: {env + ' ' if env else ''}{show(cmd)}")
        print(f"rounds: {args.min_rounds} to {args.rounds}, as many as fit {args.budget_s:.0f} s "
              "per program")
        return
    preflight("cost_breakdown.py", ("torch", "transformers"), args.skip)
    tmp = tempfile.mkdtemp(prefix="skip-cost-")
    results = {"notes": notes, "programs": {}}
    for name in names:
        argv, key, unit = progs[name]
        res = measure(name, argv, key, variants, args, tmp, notes)
        if res:
            results["programs"][name] = res
            print()
            print(table(name, unit, res), flush=True)
            print()
        if args.json:  # after each program: a run cut short keeps what it measured
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
    for n in notes:
        print(f"note: {n}")
    shutil.rmtree(tmp, ignore_errors=True)
    if not results["programs"]:
        sys.exit("cost_breakdown.py: nothing measured (a bare run failed, or no time was left)")


if __name__ == "__main__":
    main()
