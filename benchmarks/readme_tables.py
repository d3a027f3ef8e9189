"""Markdown tables of a finished metabolic run, as the README shows them.

    python benchmarks/readme_tables.py --workdir DIR

Prints results/metabolic/accuracy.tsv, results/metabolic/ranking_validation.tsv
(point estimates with 95% bootstrap intervals) and
results/enzyme_ranking_quality.tsv of the run in DIR, rounded to 3 decimals.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd


def ci(row, key, fmt="{:.3f}") -> str:
    lo, hi = row.get(f"{key}_lo"), row.get(f"{key}_hi")
    v = fmt.format(row[key])
    return v if pd.isna(lo) else f"{v} [{fmt.format(lo)}, {fmt.format(hi)}]"


def top1_right(r) -> str:
    """How often the top-1 gene was right when first (runs before top1_precision: '-')."""
    v = r.get("top1_precision")
    return "-" if v is None or pd.isna(v) else f"{v:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, required=True)
    args = ap.parse_args(argv)
    res = args.workdir / "results"
    acc = pd.read_csv(res / "metabolic" / "accuracy.tsv", sep="\t")
    print("| method | accuracy (mean ± SEM) | ROC AUC (mean ± SEM) | fit s |")
    print("|---|---|---|---|")
    for r in acc.to_dict("records"):
        print(f"| {r['method']} | {r['accuracy_mean']:.3f} ± {r['accuracy_sem']:.3f} | "
              f"{r['roc_auc_mean']:.3f} ± {r['roc_auc_sem']:.3f} | {r['fit_seconds_mean']:.1f} |")
    val = pd.read_csv(res / "metabolic" / "ranking_validation.tsv", sep="\t")
    n = val.iloc[0]
    print(f"\n{int(n['n_reactions'])} held-out reactions, {int(n['n_true_pairs'])} true pairs, "
          f"{int(n['n_candidates'])} candidates\n")
    beats = [c for c in val.columns if c.startswith("beats_")]
    print("| method | hit@1 | hit@10 | hit@50 | MRR | median rank | top-1 gene (share, right) | "
          + " | ".join(beats) + " |")
    print("|---" * (7 + len(beats)) + "|")
    for r in val.to_dict("records"):
        print(f"| {r['method']} | {ci(r, 'hit@1')} | {ci(r, 'hit@10')} | {ci(r, 'hit@50')} | "
              f"{ci(r, 'mrr')} | {ci(r, 'median_rank', '{:.0f}')} | "
              f"{r['top1_gene']} ({r['top1_share']:.3f}, {top1_right(r)}) | "
              + " | ".join("yes" if r[b] else "no" for b in beats) + " |")
    q = pd.read_csv(res / "enzyme_ranking_quality.tsv", sep="\t")
    print("\n" + q.T.to_markdown(headers=["quantity", "value"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
