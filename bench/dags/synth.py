#!/usr/bin/env python3
"""synth.py: synthetic task graphs of spin tasks for the persistent executor's benchmarks.

  synth.py chain N US OUT.json          a dependent chain of N tasks of US microseconds
  synth.py random N SEED OUT.json       a random DAG of N tasks (seeded): each task waits on
                                        0 to 3 of the 64 tasks before it, spins 1-5 us, on a
                                        grid of 1-8 blocks of 32-128 threads

Tasks are bench/dags/kernels/spin.cu's adv_spin (module spin.fatbin): they touch no memory,
so the executors' mechanics are all that differs; dependencies are "after" edges. Run with
`skip run OUT.json --executor graph|persistent ...` (SKIP_MODULE_PATH at the built modules).
"""
import json
import random
import sys


def workload(name, desc, tasks):
    # one buffer, untouched: the format asks for at least one
    return {"skip_workload": 1, "name": name, "description": desc, "module": "spin.fatbin",
            "buffers": [{"name": "unused", "type": "u8", "count": 4}], "tasks": tasks}


def task(i, ns, grid, block, after):
    t = {"name": "t%d" % i, "kernel": "adv_spin", "grid": grid, "block": block,
         "args": [{"i64": ns}], "reads": [], "writes": []}
    if after:
        t["after"] = ["t%d" % j for j in after]
    return t


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("chain", "random"):
        sys.exit(__doc__)
    kind, n, x, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if kind == "chain":
        ns = int(float(x) * 1000)
        tasks = [task(i, ns, 1, 32, [i - 1] if i else []) for i in range(n)]
        w = workload("chain%d" % n, "synth.py: a chain of %d spin tasks of %s us" % (n, x), tasks)
    else:
        rng = random.Random(int(x))
        tasks = []
        for i in range(n):
            k = rng.randint(0, min(3, i))
            after = sorted(rng.sample(range(max(0, i - 64), i), k)) if k else []
            tasks.append(task(i, rng.randint(1000, 5000), rng.randint(1, 8),
                              rng.choice((32, 64, 128)), after))
        w = workload("random%d" % n, "synth.py: a random DAG of %d spin tasks, seed %s"
                     % (n, x), tasks)
    with open(out, "w") as f:
        json.dump(w, f)


if __name__ == "__main__":
    main()
