"""Seconds to score one reaction's candidates, per method, from a finished
metabolic run: what the ranking validation and the final ranking pay.

    python benchmarks/score_cost.py --workdir DIR [--repeats 3]

Builds one held-out reaction's candidate matrix (timed), then times each
method's ranking score (``rank.scoring.ranking_decision``) with the fold-1
model of ``results/metabolic/cv/<method>.pkl``, once with the default
BLAS/OpenMP threads and once held to one thread (threadpoolctl). Prints a
markdown table.
"""

from __future__ import annotations

import pickle
import time

from threadpoolctl import threadpool_limits

from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.rank.scoring import ranking_decision
from geomargin.common.cli import workdir_parser


def main(argv=None) -> int:
    ap = workdir_parser(__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    res = args.workdir / "results" / "metabolic"
    bundle = FeatureBundle.load(res / "features" / "featurizer.pkl")
    feat, net, cands = bundle.featurizer, bundle.network, bundle.candidates
    reaction = next(r for r, g in net.reactions["genes"].items() if g)
    t0 = time.perf_counter()
    for _ in range(args.repeats):
        X = feat.candidate_matrix(reaction, cands)
    print(f"candidate matrix of {reaction}: {X.shape[0]} x {X.shape[1]}, "
          f"{(time.perf_counter() - t0) / args.repeats:.3f} s\n")
    print("| method | seconds, default threads | seconds, one thread |")
    print("|---|---:|---:|")
    for path in sorted((res / "cv").glob("*.pkl")):
        with open(path, "rb") as fh:
            fn = ranking_decision(pickle.load(fh).models[0], "unscaled")
        times = []
        for limit in (None, 1):
            with threadpool_limits(limit):
                t0 = time.perf_counter()
                for _ in range(args.repeats):
                    fn(X)
                times.append((time.perf_counter() - t0) / args.repeats)
        print(f"| {path.stem} | {times[0]:.3f} | {times[1]:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
