"""trim.py: keep only what `skip report --region prefill` needs of a sweep trace.

    python3 bench/llm/trim.py SWEEP.skip.db

Deletes, run by run, the GPU operations and API calls that started before the run's first
"prefill" NVTX range (model building and warm-up passes), then VACUUMs. Runs, parameters,
metadata, drops and NVTX ranges are kept whole. Prints the size before and after.
"""
import os
import sqlite3
import sys

TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME",
          "PROFILER_OVERHEAD"]


def main(path):
    before = os.path.getsize(path)
    db = sqlite3.connect(path)
    firsts = db.execute("SELECT runId, min(start) FROM NVTX_EVENTS WHERE text = 'prefill' "
                        "GROUP BY runId").fetchall()
    # A schema version 1 trace keeps its driver calls in a table of their own.
    tables = TABLES + [t for (t,) in db.execute(
        "SELECT name FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_DRIVER'")]
    for run, first in firsts:
        for t in tables:
            db.execute(f"DELETE FROM {t} WHERE runId = ? AND start < ?", (run, first))
    db.commit()
    db.execute("VACUUM")
    db.close()
    print(f"{path}: {before / 1e6:.1f} MB -> {os.path.getsize(path) / 1e6:.1f} MB, "
          f"{len(firsts)} runs trimmed")


if __name__ == "__main__":
    main(sys.argv[1])
