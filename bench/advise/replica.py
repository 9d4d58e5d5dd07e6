#!/usr/bin/env python3
"""replica.py: a DAG's mechanics replica for skip advise's closed loop.

  replica.py DAG.json TRACE.db OUT.json

OUT.json is DAG.json with every task's kernel replaced by adv_spin (bench/dags/kernels/spin.cu,
module spin.fatbin) of the same grid and block, told to wait the median duration its kernel
had in TRACE.db (a recording of `skip run DAG.json --executor serial`) less 800 ns (what
CUPTI adds to a spin kernel's wait on the H100: 20.0 us spins measure 20.8 us). Buffers,
sizes and access sets are kept, so the executors build the same plans, events and graphs; the
replica's kernels touch no memory and leave the multiprocessors' throughput alone. closed_loop.sh
advises on it with remote_read_cost 0: the model's error on it is the error of its mechanics
(launches, events, graph dispatch, synchronizations), apart from what real kernels do to each
other.
"""
import json
import sqlite3
import statistics
import sys

SPIN_OVERHEAD_NS = 800


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    dag, trace, out = sys.argv[1:]
    w = json.load(open(dag))
    db = sqlite3.connect(trace)
    durs = {}
    for name, d in db.execute(
            "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds s ON s.id = k.shortName"):
        durs.setdefault(name, []).append(d)
    med = {n: statistics.median(v) for n, v in durs.items()}
    missing = sorted({t["kernel"] for t in w["tasks"]} - set(med))
    if missing:
        sys.exit(f"replica.py: {trace} has no kernel {', '.join(missing)} of {dag}")
    w["name"] = w["name"] + "_spin"
    w["description"] = (f"replica.py: {dag}'s tasks as adv_spin kernels of their recorded "
                        f"durations ({trace}); the mechanics check of bench/advise")
    w["module"] = "spin.fatbin"
    for b in w["buffers"]:
        b.pop("tolerance", None)
    for t in w["tasks"]:
        ns = max(0, int(med[t["kernel"]]) - SPIN_OVERHEAD_NS)
        t["kernel"] = "adv_spin"
        t["args"] = [{"i64": ns}]
        t.pop("pdl", None)
    json.dump(w, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
