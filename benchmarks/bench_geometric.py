"""Fit time and peak memory of GeometricMarginSVC versus one SVC on zero-filled data.

Synthetic block-missing data (blocks of 50 features, each block absent in an
instance with probability 1/2, seeded). For every case a fresh subprocess
fits one plain SVM on the zero-filled matrix and one ``GeometricMarginSVC``
(same kernel and solver, 5 iterations, ``first_tol`` from ``--first-tol``) and reports the fit seconds, their
ratio and the subprocess's peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``, which includes the data).
Cases: ``linear`` and ``poly2`` with libsvm (baseline ``sklearn.svm.SVC``),
``linear-liblinear`` with ``solver="liblinear"`` (baseline
``sklearn.svm.LinearSVC`` with the same hinge loss and bias feature).

Usage::

    python benchmarks/bench_geometric.py            # n in {500, 2000, 8000}, d in {500, 4000}
    python benchmarks/bench_geometric.py --quick    # n in {500, 2000}, d = 500

Prints a markdown table: n, d, kernel, svc_s (the baseline), geom_s, ratio, peak_MB,
and the CPU seconds of both fits (``time.process_time``, all threads; less
sensitive than wall time to other jobs on a shared machine).

``--representations`` compares instead, per n and d, four fits each in its
own subprocess: one plain ``SVC(kernel="linear")`` on the zero-filled rows
and ``GeometricMarginSVC`` (linear, default ``n_iter``) with
``representation="gram"`` and ``"rows"`` (libsvm) and ``"primal"`` (the
interior point, the default here); for each its wall and CPU seconds,
the subprocess's peak MB and the ratio to the plain SVC's wall (and CPU)
time, and for ``rows`` and ``primal`` the largest ``|f - f_gram|`` (absolute and
relative to ``max |f_gram|``) on a held-out set of 2000 rows::

    python benchmarks/bench_geometric.py --representations --d 59 --n 2000 8000 15000 --block 10
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BLOCK = 50


def make_data(n: int, d: int, seed: int = 0, block: int = BLOCK):
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = (X @ w + 0.5 * np.sqrt(d) * rng.normal(size=n) > 0).astype(int)
    groups = np.arange(d) // block
    absent = rng.random((n, int(groups.max()) + 1)) < 0.5
    X[absent[:, groups]] = np.nan
    return X, y, groups


def run_case(n: int, d: int, kernel: str, seed: int, C: float = 1.0,
             first_tol: float | None = None) -> dict:
    import resource
    import time

    import numpy as np
    from sklearn.svm import SVC, LinearSVC

    from geomargin.models.geometric import (LIBLINEAR_INTERCEPT_SCALING, LIBLINEAR_MAX_ITER,
                                  GeometricMarginSVC)

    X, y, groups = make_data(n, d, seed)
    kw = {"kernel": "poly", "degree": 2} if kernel == "poly2" else {"kernel": "linear"}
    kw["C"] = C
    X0 = np.nan_to_num(X)
    t, c = time.perf_counter(), time.process_time()
    if kernel == "linear-liblinear":
        kw["solver"] = "liblinear"
        LinearSVC(loss="hinge", C=C, intercept_scaling=LIBLINEAR_INTERCEPT_SCALING,
                  max_iter=LIBLINEAR_MAX_ITER, tol=1e-3, random_state=0).fit(X0, y)
    else:
        SVC(cache_size=500, **kw).fit(X0, y)
    svc_s, svc_cpu = time.perf_counter() - t, time.process_time() - c
    del X0
    t, c = time.perf_counter(), time.process_time()
    GeometricMarginSVC(n_iter=5, groups=groups, cache_size=500, first_tol=first_tol,
                       **kw).fit(X, y)
    geom_s, geom_cpu = time.perf_counter() - t, time.process_time() - c
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    return {"n": n, "d": d, "kernel": kernel, "C": C, "svc_s": svc_s, "geom_s": geom_s,
            "ratio": geom_s / svc_s, "peak_MB": peak_mb,
            "svc_cpu_s": svc_cpu, "geom_cpu_s": geom_cpu}


def run_representation(n: int, d: int, what: str, seed: int, C: float, block: int,
                       out: str) -> dict:
    """One fit of a ``--representations`` row: ``what`` is ``svc``, ``gram``,
    ``rows`` or ``primal``; the geometric fits save their held-out decision values to
    ``out`` (``.npy``)."""
    import resource
    import time

    import numpy as np
    from sklearn.svm import SVC

    from geomargin.models.geometric import GeometricMarginSVC

    # training and held-out rows from one draw (the same labelling rule)
    X, y, groups = make_data(n + 2000, d, seed, block)
    X, y, Xv = X[:n], y[:n], X[n:]
    t, c = time.perf_counter(), time.process_time()
    if what == "svc":
        SVC(kernel="linear", C=C, cache_size=500).fit(np.nan_to_num(X), y)
    else:
        est = GeometricMarginSVC(C=C, groups=groups, cache_size=500,
                                 representation=what).fit(X, y)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    if what != "svc":
        np.save(out, est.decision_function(Xv))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {"wall_s": wall, "cpu_s": cpu, "peak_MB": peak_mb,
            "n_iter": None if what == "svc" else est.n_iter_}


#: The fits of a ``--representations`` row, in order.
FITS = ("svc", "gram", "rows", "primal")


def representations_table(ns, ds, Cs, seed: int, block: int, fits=FITS) -> None:
    import tempfile

    import numpy as np

    print("| n | d | C | fit | wall_s | cpu_s | peak_MB | wall / svc | cpu / svc | QPs | "
          "max abs df | max rel df |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for d in ds:
            for n in ns:
                for C in Cs:
                    res, f = {}, {}
                    for what in [w for w in FITS if w in fits]:
                        path = f"{tmp}/{what}.npy"
                        out = subprocess.run(
                            [sys.executable, __file__, "--rep-case",
                             f"{n},{d},{what},{C},{block},{path}", "--seed", str(seed)],
                            capture_output=True, text=True)
                        if out.returncode != 0:
                            print(f"| {n} | {d} | {C:g} | {what} | failed: "
                                  f"{out.stderr.strip().splitlines()[-1]} |", flush=True)
                            continue
                        r = res[what] = json.loads(out.stdout.strip().splitlines()[-1])
                        if what != "svc":
                            f[what] = np.load(path)
                        base = res.get("svc")
                        ratio = (f"{r['wall_s'] / base['wall_s']:.2f} | "
                                 f"{r['cpu_s'] / base['cpu_s']:.2f}") if base and what != "svc" \
                            else " | "
                        diff = " | "
                        if what in ("rows", "primal") and "gram" in f:
                            df = float(np.max(np.abs(f[what] - f["gram"])))
                            diff = f"{df:.2e} | {df / float(np.max(np.abs(f['gram']))):.2e}"
                        print(f"| {n} | {d} | {C:g} | {what} | {r['wall_s']:.2f} | "
                              f"{r['cpu_s']:.2f} | {r['peak_MB']:.0f} | {ratio} | "
                              f"{r['n_iter'] or ''} | {diff} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small cases only (seconds)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--d", type=int, nargs="+", help="feature counts (default 4000 500)")
    ap.add_argument("--n", type=int, nargs="+", help="instance counts (default 500 2000 8000)")
    ap.add_argument("--C", type=float, nargs="+", default=[1.0],
                    help="soft-margin C values (default 1; the data are nearly separable at "
                         "n = 2d, so C = 1 is close to a hard margin)")
    ap.add_argument("--kernels", nargs="+", default=["linear", "linear-liblinear", "poly2"],
                    choices=["linear", "linear-liblinear", "poly2"])
    ap.add_argument("--first-tol", type=float, default=None,
                    help="GeometricMarginSVC's first_tol (default None = tol, the strict "
                         "iteration; e.g. 0.01 for the opt-in looser first QP)")
    ap.add_argument("--representations", action="store_true",
                    help="GeometricMarginSVC representation='gram' vs 'rows' vs one plain "
                         "SVC(kernel='linear') (linear kernel, default n_iter)")
    ap.add_argument("--fits", nargs="+", choices=FITS, default=list(FITS),
                    help="with --representations: which fits (default all; 'primal' costs up "
                         "to n d^2 per step, minutes at a thousand features)")
    ap.add_argument("--block", type=int, default=BLOCK,
                    help=f"features per block absent together (default {BLOCK})")
    ap.add_argument("--case", help=argparse.SUPPRESS)  # internal: run one case in this process
    ap.add_argument("--rep-case", help=argparse.SUPPRESS)  # internal: one --representations fit
    args = ap.parse_args(argv)
    if args.rep_case:
        n, d, what, C, block, out = args.rep_case.split(",")
        print(json.dumps(run_representation(int(n), int(d), what, args.seed, float(C),
                                            int(block), out)))
        return 0
    if args.case:
        n, d, kernel, C = args.case.split(",")
        print(json.dumps(run_case(int(n), int(d), kernel, args.seed, float(C), args.first_tol)))
        return 0
    if args.representations:
        representations_table(args.n or [2000, 8000, 15000], args.d or [59], args.C,
                              args.seed, args.block, args.fits)
        return 0
    ns = args.n or ([500, 2000] if args.quick else [500, 2000, 8000])
    ds = args.d or ([500] if args.quick else [4000, 500])
    print("| n | d | kernel | C | svc_s | geom_s | ratio | peak_MB | svc_cpu_s | geom_cpu_s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in ds:
        for n in ns:
            for C in args.C:
                for kernel in args.kernels:
                    out = subprocess.run(
                        [sys.executable, __file__, "--case", f"{n},{d},{kernel},{C}",
                         "--seed", str(args.seed)]
                        + ([] if args.first_tol is None else ["--first-tol", str(args.first_tol)]),
                        capture_output=True, text=True)
                    if out.returncode != 0:
                        print(f"| {n} | {d} | {kernel} | {C:g} | failed: "
                              f"{out.stderr.strip().splitlines()[-1]} | | | | | |")
                        continue
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                    print(f"| {n} | {d} | {kernel} | {C:g} | {r['svc_s']:.2f} | {r['geom_s']:.2f} | "
                          f"{r['ratio']:.2f} | {r['peak_MB']:.0f} | {r['svc_cpu_s']:.2f} | "
                          f"{r['geom_cpu_s']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
