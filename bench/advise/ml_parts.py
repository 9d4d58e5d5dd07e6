#!/usr/bin/env python3
"""ml_parts.py: workloads made of parts of bench/dags/ml.json, to find which part of ML's graph
executor (E3) skip advise's model gets wrong (docs/advise-model.md "Kernel starts" has the
parts' table).

    python3 bench/advise/ml_parts.py OUTDIR

writes OUTDIR/ml_PART.json for each part below and prints the parts' names. Each is ML with
only some of its tasks (the tasks unchanged, dependencies from their access sets as always):

  n          rr_normalize alone              d         nb_dot alone
  n_rr       rr_normalize -> rr_dot          n_nb      rr_normalize beside nb_dot
  nb_rr      nb_dot beside rr_dot (which then reads z of the previous iteration)
  n_rr_nb    rr_normalize -> rr_dot, beside nb_dot
  n_rrx_nb   the same, rr_dot reading x instead of z (still after rr_normalize)
  rrchain    rr_normalize -> rr_dot -> rr_intercept -> rr_softmax
  rrtail     n_rr_nb and the ridge branch's tail (rr_intercept, rr_softmax)
  nbtail     n_rr_nb and the naive Bayes branch's tail (nb_max ... nb_softmax)
  tails      n_rr_nb and both tails (no argmax)
  full       ML itself                       fullx     ML with rr_dot reading x

On a GPU machine, for each part: `skip record --repeat 3 -o P.db -- skip run OUTDIR/ml_P.json
--size small --executor serial`, interleaved rounds of `skip run OUTDIR/ml_P.json --size small
--executor all --json`; then `skip advise P.db --workload OUTDIR/ml_P.json --size small
--calibration C` against the rounds' graph medians.
"""
import copy
import json
import os
import sys

ML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dags", "ml.json")
CORE = ["rr_normalize", "rr_dot", "nb_dot"]
RR_TAIL = ["rr_intercept", "rr_softmax"]
NB_TAIL = ["nb_max", "nb_logsumexp", "nb_exp", "nb_softmax"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    ml = json.load(open(ML))
    names = [t["name"] for t in ml["tasks"]]

    def rr_x(t):  # rr_dot reading x, still ordered after rr_normalize (which writes z)
        if t["name"] != "rr_dot":
            return t
        t["args"][0] = {"buffer": "x"}
        t["reads"] = ["x", "z", "coeff"]
        return t

    parts = {
        "n": (["rr_normalize"], None), "d": (["nb_dot"], None),
        "n_rr": (["rr_normalize", "rr_dot"], None), "n_nb": (["rr_normalize", "nb_dot"], None),
        "nb_rr": (["nb_dot", "rr_dot"], None), "n_rr_nb": (CORE, None),
        "n_rrx_nb": (CORE, rr_x),
        "rrchain": (["rr_normalize", "rr_dot"] + RR_TAIL, None),
        "rrtail": (CORE + RR_TAIL, None), "nbtail": (CORE + NB_TAIL, None),
        "tails": (CORE + RR_TAIL + NB_TAIL, None),
        "full": (names, None), "fullx": (names, rr_x),
    }
    os.makedirs(out, exist_ok=True)
    for part, (keep, change) in parts.items():
        w = copy.deepcopy(ml)
        w["name"] = "ml_" + part
        w["tasks"] = [(change or (lambda t: t))(copy.deepcopy(t)) for t in ml["tasks"]
                      if t["name"] in keep]
        with open(os.path.join(out, f"ml_{part}.json"), "w") as f:
            json.dump(w, f, indent=1)
    print(" ".join(parts))


if __name__ == "__main__":
    main()
