"""overhead.py: what recording costs, measured on the GPU machine.

    python3 bench/overhead/overhead.py [--rounds 10] [--json OUT.json]

For three workloads - (a) 100k tiny kernels from C (launch-bound), (b) a PyTorch loop of
small ops, (c) a GPU-bound C program - it runs, in interleaved rounds (the order rotates
every round), the program bare, under the floor (bench/overhead/floor.c: a CUPTI client that
enables the same kinds and writes nothing), under `skip record`, and for (b) inside
torch.profiler. The figure is the program's own timed loop (its APP line), so start-up and
the merge after exit are not in it; whole-process wall time is reported beside it. Per round
it takes the ratio to bare of the same round; the table shows the median with min and max.
Then it measures the sustained launch rate `skip record` absorbs with 0 dropped records.
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("O", os.path.join(ROOT, "build"))
SKIP = os.path.join(BUILD, "skip")
FLOOR = os.path.join(BUILD, "bench", "libskip_floor.so")
APPS = os.path.join(BUILD, "apps")
TMP = tempfile.mkdtemp(prefix="skip-overhead-")

WORKLOADS = {
    "a_c_100k_tiny_kernels": ([os.path.join(APPS, "launch_chain"), "--kernels", "100000"], 100000),
    "b_torch_small_ops": ([sys.executable, os.path.join(ROOT, "bench", "overhead", "torch_loop.py"),
                           "--steps", "2000", "--ops", "20"], 40000),
    "c_c_gpu_bound": ([os.path.join(APPS, "gpu_bound"), "--kernels", "2000", "--us", "80"], 2001),
}


def run(variant, argv):
    env = dict(os.environ)
    cmd = list(argv)
    out = os.path.join(TMP, "t.skip.db")
    if variant == "floor":
        env["CUDA_INJECTION64_PATH"] = FLOOR
        env["NVTX_INJECTION64_PATH"] = FLOOR
    elif variant == "skip":
        cmd = [SKIP, "record", "-q", "-f", "-o", out, "--"] + cmd
    elif variant == "skip-flush1s":  # diagnosis: the periodic flush's share of the cost
        env["SKIP_FLUSH_MS"] = "1000"
        cmd = [SKIP, "record", "-q", "-f", "-o", out, "--"] + cmd
    elif variant == "torch.profiler":
        cmd = cmd + ["--profiler"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    whole = time.perf_counter() - t0
    m = re.search(r"^APP .*wall_s=([0-9.]+)", p.stdout, re.M)
    if p.returncode != 0 or not m:
        sys.exit(f"{variant} {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    res = {"loop_s": float(m.group(1)), "whole_s": whole}
    if variant.startswith("skip"):
        db = sqlite3.connect(out)
        res["kernels"] = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
        res["dropped"] = db.execute("SELECT coalesce(sum(count),0) FROM SKIP_DROPS").fetchone()[0]
        db.close()
    return res


def summary(vals):
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--only", help="comma-separated workload keys")
    args = ap.parse_args()
    results = {}
    keys = args.only.split(",") if args.only else list(WORKLOADS)
    for key in keys:
        argv, expect = WORKLOADS[key]
        variants = ["bare", "floor", "skip"] + (["torch.profiler"] if key.startswith("b_") else [])
        if key.startswith("a_"):
            variants.append("skip-flush1s")
        rounds = []
        for r in range(args.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            rounds.append({v: run(v, argv) for v in order})
            print(f"{key} round {r + 1}: " + ", ".join(
                f"{v} {rounds[-1][v]['loop_s'] * 1e3:.1f} ms" for v in variants), flush=True)
        res = {"bare_loop_ms": summary([x["bare"]["loop_s"] * 1e3 for x in rounds])}
        for v in variants[1:]:
            res[v + "/bare"] = summary([x[v]["loop_s"] / x["bare"]["loop_s"] for x in rounds])
            res[v + "/bare whole-process"] = summary([x[v]["whole_s"] / x["bare"]["whole_s"]
                                                      for x in rounds])
        res["skip/floor"] = summary([x["skip"]["loop_s"] / x["floor"]["loop_s"] for x in rounds])
        res["skip kernels recorded"] = [x["skip"]["kernels"] for x in rounds]
        res["skip dropped"] = sum(x["skip"]["dropped"] for x in rounds)
        res["expected kernels"] = expect
        results[key] = res

    # Sustained rate: many kernels from 4 threads, then from 1.
    sustained = []
    for threads, n in ((1, 1000000), (4, 2000000), (8, 4000000)):
        argv = [os.path.join(APPS, "launch_chain"), "--kernels", str(n), "--threads", str(threads)]
        out = os.path.join(TMP, "rate.skip.db")
        p = subprocess.run([SKIP, "record", "-q", "-f", "-o", out, "--"] + argv,
                           capture_output=True, text=True)
        m = re.search(r"kernels_per_s=([0-9.]+)", p.stdout)
        db = sqlite3.connect(out)
        k = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
        d = db.execute("SELECT coalesce(sum(count),0) FROM SKIP_DROPS").fetchone()[0]
        grown = db.execute("SELECT value FROM SKIP_METADATA WHERE key='buffers_grown'").fetchone()
        db.close()
        sustained.append({"threads": threads, "kernels": n, "recorded": k, "dropped": d,
                          "kernels_per_s": float(m.group(1)) if m else None,
                          "buffers_grown": grown[0] if grown else None})
        print(f"sustained: {threads} threads, {n} kernels: "
              f"{sustained[-1]['kernels_per_s']} kernels/s, recorded {k}, dropped {d}", flush=True)
    results["sustained"] = sustained

    print("\n| workload | bare loop ms | floor/bare | skip/bare | skip/floor | torch.profiler/bare |"
          " dropped |")
    print("|---|---|---|---|---|---|---|")
    fmt = lambda s: f"{s['median']:.3f} [{s['min']:.3f}, {s['max']:.3f}]"
    for key in keys:
        r = results[key]
        tp = fmt(r["torch.profiler/bare"]) if "torch.profiler/bare" in r else "-"
        print(f"| {key} | {fmt(r['bare_loop_ms'])} | {fmt(r['floor/bare'])} | {fmt(r['skip/bare'])}"
              f" | {fmt(r['skip/floor'])} | {tp} | {r['skip dropped']} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
