"""Fit seconds of the other methods in our literature vs GeometricMarginSVC.

Same synthetic data for every method: x ~ N(0, A A') (correlated, so the
missing values are predictable from the observed ones), y = sign(w.x + noise),
n=500, d in {20, 100}, 50% of the values removed completely at random.
Prints a markdown table (fit seconds and training accuracy).

Run from the repository root::

    .venv/bin/python benchmarks/bench_other_methods.py [--d 20 100] [--n 500]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


from geomargin.models.infinite_imputation import InfiniteImputationSVC
from geomargin.models.integrated_logreg import IntegratedLogisticRegression
from geomargin.models.robust_socp import RobustSOCPClassifier


def make_data(n: int, d: int, frac: float = 0.5, seed: int = 0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, max(2, d // 4))) / np.sqrt(max(2, d // 4))
    X = rng.normal(size=(n, A.shape[1])) @ A.T + 0.3 * rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    Xm = X.copy()
    Xm[rng.random(X.shape) < frac] = np.nan
    return Xm, y


def methods(d: int):
    out = []
    try:
        from geomargin.models.geometric import GeometricMarginSVC
        out += [("GeometricMarginSVC (linear)", lambda: GeometricMarginSVC(C=1.0, kernel="linear")),
                ("GeometricMarginSVC (rbf)", lambda: GeometricMarginSVC(C=1.0, kernel="rbf"))]
    except ImportError:  # pragma: no cover - the reference method has not landed
        from sklearn.pipeline import make_pipeline
        from sklearn.impute import SimpleImputer
        from sklearn.svm import SVC
        out += [("SVC on zero-filled data (GeometricMarginSVC missing)",
                 lambda: make_pipeline(SimpleImputer(strategy="constant", fill_value=0.0),
                                       SVC(kernel="linear")))]
    socp = [("full", {})] if d <= 100 else []
    socp += [("diag", {}), ("lowrank", {"rank": 5})]
    for cov, kw in socp:
        out.append((f"RobustSOCPClassifier ({cov})",
                    lambda cov=cov, kw=kw: RobustSOCPClassifier(C=1.0, eta=0.8, covariance=cov, **kw)))
    out.append(("InfiniteImputationSVC (rbf, max_iter=10)",
                lambda: InfiniteImputationSVC(C=1.0, imputation_reg=1.0, max_iter=10)))
    out.append(("IntegratedLogisticRegression (full, K=1)",
                lambda: IntegratedLogisticRegression(C=1.0)))
    out.append(("IntegratedLogisticRegression (lowrank r=5, K=2)",
                lambda: IntegratedLogisticRegression(C=1.0, covariance="lowrank", rank=5,
                                                     n_components=2, random_state=0)))
    out.append(("IntegratedLogisticRegression (full, K=2, VB)",
                lambda: IntegratedLogisticRegression(C=1.0, n_components=2, em_method="vb",
                                                     random_state=0)))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--d", type=int, nargs="+", default=[20, 100])
    ap.add_argument("--missing", type=float, default=0.5)
    args = ap.parse_args(argv)
    rows = []
    for d in args.d:
        Xa, ya = make_data(args.n + 1000, d, args.missing)  # one distribution, then split
        X, y, Xt, yt = Xa[:args.n], ya[:args.n], Xa[args.n:], ya[args.n:]
        for name, make in methods(d):
            est = make()
            t0 = time.perf_counter()
            est.fit(X, y)
            sec = time.perf_counter() - t0
            rows.append((d, name, sec, est.score(Xt, yt)))
            print(f"d={d} {name}: {sec:.2f} s", file=sys.stderr, flush=True)
    print(f"\nn={args.n}, {int(args.missing * 100)}% MCAR, C=1; accuracy on 1000 held-out "
          "instances with the same missingness\n")
    print("| d | method | fit seconds | test accuracy |")
    print("|---|---|---:|---:|")
    for d, name, sec, acc in rows:
        print(f"| {d} | {name} | {sec:.2f} | {acc:.3f} |")


if __name__ == "__main__":
    main()
