"""Error of GeometricMarginSVC's settings against the paper's iteration.

The reference is ``tests/reference_geometric.py``: the primal QP at fixed
``s`` solved by cvxpy (Clarabel, gaps 1e-11), iterated from ``s = 1`` with
``s_i = ||w^(i)|| / ||w||``, explicit features for ``poly2``. Data (its
``make_data``, which the tests use too): 120
training and 80 test instances, 8 features, labels from a noisy linear rule;
``block`` = pairs of features absent together (each pair with probability
0.4), ``mcar`` = each value absent with probability 0.3; ``shift`` is added
to every feature (a non-centred problem needs a large bias). Two seeds per
row. For each setting the estimator runs with the reference's ``n_iter``
and ``s_tol`` (defaults 3 and 1e-3).

Usage::

    python benchmarks/geometric_vs_reference.py                 # all settings
    python benchmarks/geometric_vs_reference.py --settings default liblinear

Prints a markdown table: setting, data, kernel, shift, C, the largest
``|f - f_ref| / max|f_ref|`` over the test decision values, the largest
difference of the scales after the same QP, the test signs that differ, and
the ConvergenceWarnings raised.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from geomargin.models.geometric import GeometricMarginSVC


def _load_reference():
    """The tests' cvxpy reference, ``tests/reference_geometric.py``, loaded by
    its path (``tests/`` is not a package)."""
    path = Path(__file__).resolve().parents[1] / "tests" / "reference_geometric.py"
    spec = importlib.util.spec_from_file_location("reference_geometric", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


SETTINGS = {
    "default": {},
    "first_tol=10tol": {"first_tol": 1e-2},
    "tol=1e-8": {"tol": 1e-8},
    "liblinear": {"solver": "liblinear"},
}


def compare(setting: dict, kind: str, kernel: str, C: float, shift: float, seeds=(0, 1),
            n_iter: int = 3):
    rel = ds = 0.0
    flips = total = n_warn = 0
    for seed in seeds:
        Xt, yt, Xv, groups = reference.make_data(kind, seed, shift)
        kw = {"kernel": "poly", "degree": 2} if kernel == "poly2" else {}
        est = GeometricMarginSVC(C=C, n_iter=n_iter, groups=groups, **kw, **setting)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(Xt, yt)
        n_warn += sum(issubclass(w.category, ConvergenceWarning) for w in caught)
        f = est.decision_function(Xv)
        f_ref, hist = reference.reference_geometric(Xt, yt, Xv, kernel=kernel, C=C,
                                                    n_iter=n_iter, s_tol=est.s_tol)
        rel = max(rel, float(np.max(np.abs(f - f_ref)) / np.max(np.abs(f_ref))))
        k = min(len(hist), len(est.s_history_))
        ds = max(ds, max(float(np.max(np.abs(a - b)))
                         for a, b in zip(hist[:k], est.s_history_[:k])))
        flips += int(np.sum(np.sign(f) != np.sign(f_ref)))
        total += f.size
    return rel, ds, flips, total, n_warn


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--C", type=float, nargs="+", default=[0.01, 0.1, 1.0, 10.0])
    ap.add_argument("--shift", type=float, nargs="+", default=[0.0, 1.0])
    ap.add_argument("--n-iter", type=int, default=3)
    args = ap.parse_args(argv)
    print("| setting | data | kernel | shift | C | max rel. error | max scale diff | "
          "sign flips | ConvergenceWarnings |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.settings:
        kernels = ("linear",) if SETTINGS[name].get("solver") == "liblinear" \
            else ("linear", "poly2")
        for kind in ("block", "mcar"):
            for kernel in kernels:
                for shift in args.shift:
                    for C in args.C:
                        rel, ds, flips, total, n_warn = compare(
                            SETTINGS[name], kind, kernel, C, shift, n_iter=args.n_iter)
                        print(f"| {name} | {kind} | {kernel} | {shift:g} | {C:g} | {rel:.1e} | "
                              f"{ds:.1e} | {flips}/{total} | {n_warn} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
