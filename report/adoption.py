"""Whether a feature block is adopted: the rule of ``docs/metabolic.md``
("Design decisions", the ``homology`` block), read from two runs of the
main job, one without the block (the run of record) and one with it.

The rule, fixed before the first run with the block, adopts it only if
every criterion holds:

1. the cross-validated MRR of the shown ranking (``validated_mrr`` of
   ``results/enzyme_ranking_quality.tsv``: the shown row of
   ``shown_validation.tsv``, the ranking as it is listed) is not lower than
   without the block by more than ``max_mrr_drop``;
2. no orphan gene is first for more than ``max_top1_share`` of the ranked
   orphans unless the validation earns it (``orphan_top1_share``,
   ``orphan_top1_earned``);
3. on the *history* split (``history_pair``), the median rank of the later
   genes of class ``gene_class`` (genes the older release gave no
   reaction) under the ranking the history chose (``test_ranking``) is
   lower with the block than without it.

Only the cross-validation and the history split are read; the test split
of the release history never is. The figures of the block's own goals
(hit@50 of those genes, the ranking's hit@20 over the history's benchmark
reactions) are reported beside the rule, not part of it.

Command line (prints the tables; ``--out`` also writes them as a page
stamped with both runs' commits)::

    python -m geomargin.report.adoption --without RUN_DIR --with RUN_DIR [--out FILE] [--run-command TEXT]

Example
-------
>>> a = {"validated_mrr": 0.30, "orphan_top1_share": 0.02, "orphan_top1_earned": False,
...      "history_gene_median_rank": 900.0}
>>> b = {"validated_mrr": 0.298, "orphan_top1_share": 0.04, "orphan_top1_earned": False,
...      "history_gene_median_rank": 400.0}
>>> t = adoption_table(a, b)
>>> t["holds"].tolist(), adopted(t)
([True, True, True], True)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from geomargin.common.io import atomic_path

from .results_pages import machine, render_table

__all__ = ["AdoptionRule", "run_figures", "adoption_table", "adopted", "render", "page", "main"]

GENERATED = "<!-- Written by `python -m geomargin.report.adoption`; do not edit by hand. -->"
RUN_COMMAND = ("snakemake --cores all results/enzyme_ranking.tsv in each working copy, the second with "
               "homology_features: true")


@dataclass(frozen=True)
class AdoptionRule:
    """The thresholds and the history split of the adoption rule."""

    max_mrr_drop: float = 0.005
    max_top1_share: float = 0.05
    history_pair: tuple[str, str] = ("yeast_gem_830", "yeast_gem_840")
    gene_class: str = "no_older_reaction"


def _read(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; run the main job (results/enzyme_ranking.tsv) in that "
                                "working copy first")
    return pd.read_csv(path, sep="\t")


def _field(table: pd.DataFrame, path: Path, column: str):
    if column not in table.columns:
        raise ValueError(f"{path}: no column {column!r}; a table of another version of the pipeline?")
    return table[column].iloc[0]


def run_figures(run: Path, rule: AdoptionRule = AdoptionRule()) -> dict:
    """The figures the rule reads from one working copy ``run`` (its
    ``results/``), and those of the block's goals."""
    run = Path(run)
    qpath = run / "results" / "enzyme_ranking_quality.tsv"
    q = _read(qpath)
    ranking = str(_field(q, qpath, "test_ranking"))
    out = {"shown_ranking": str(_field(q, qpath, "method")),
           "validated_mrr": float(_field(q, qpath, "validated_mrr")),
           "orphan_top1_gene": str(_field(q, qpath, "orphan_top1_gene")),
           "orphan_top1_share": float(_field(q, qpath, "orphan_top1_share")),
           "orphan_top1_earned": str(_field(q, qpath, "orphan_top1_earned")).lower() == "true",
           "history_ranking": ranking}
    split = run / "results" / "metabolic" / "release_history" / rule.history_pair[0] / rule.history_pair[1]
    gpath = split / "time_split_later_genes.tsv"
    genes = _read(gpath)
    row = genes[(genes["ranking"] == ranking) & (genes["later_gene_evidence"] == rule.gene_class)]
    if row.empty:
        raise ValueError(f"{gpath}: no row for ranking {ranking!r} and class {rule.gene_class!r}")
    row = row.iloc[0]
    out.update({"history_genes": int(row["later_genes"]),
                "history_genes_with_homolog": int(row["with_homolog"]) if "with_homolog" in row else None,
                "history_gene_median_rank": float(row["median_rank"]),
                "history_gene_hit@50": float(row["hit@50"])})
    tpath = split / "time_split_validation.tsv"
    table = _read(tpath)
    mine = table[table["ranking"] == ranking]
    if "reaction_kind" in mine.columns:
        mine = mine[mine["reaction_kind"] == "all"]
    if mine.empty:
        raise ValueError(f"{tpath}: no row for ranking {ranking!r}")
    out["history_hit@20"] = float(mine["hit@20"].iloc[0])
    return out


def adoption_table(without: dict, with_: dict, rule: AdoptionRule = AdoptionRule()) -> pd.DataFrame:
    """One row per criterion of the rule: the figure without and with the
    block, and whether the criterion holds."""
    mrr = with_["validated_mrr"] >= without["validated_mrr"] - rule.max_mrr_drop
    top1 = with_["orphan_top1_share"] <= rule.max_top1_share or bool(with_["orphan_top1_earned"])
    median = with_["history_gene_median_rank"] < without["history_gene_median_rank"]
    rows = [
        (f"shown ranking's cross-validated MRR not lower by more than {rule.max_mrr_drop:g}",
         without["validated_mrr"], with_["validated_mrr"], mrr),
        (f"no orphan gene first for more than {rule.max_top1_share:.0%} of ranked orphans unless earned",
         without["orphan_top1_share"], with_["orphan_top1_share"], top1),
        (f"history split {'->'.join(rule.history_pair)}: median rank of later genes of class "
         f"{rule.gene_class} lower", without["history_gene_median_rank"], with_["history_gene_median_rank"], median),
    ]
    return pd.DataFrame(rows, columns=["criterion", "without", "with", "holds"])


def adopted(table: pd.DataFrame) -> bool:
    """The block is adopted only if every criterion holds."""
    return bool(table["holds"].all())


def _commit(run: Path) -> str:
    """The commit of the working copy ``run``, ``(dirty)`` if its tracked
    files differ from it."""
    try:
        head = subprocess.run(["git", "-C", str(run), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(run), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git working copy)"
    return head + (" (dirty)" if dirty else "")


def _tables_read(run: Path, rule: AdoptionRule) -> list[Path]:
    split = run / "results" / "metabolic" / "release_history" / rule.history_pair[0] / rule.history_pair[1]
    return [run / "results" / "enzyme_ranking_quality.tsv", split / "time_split_later_genes.tsv",
            split / "time_split_validation.tsv"]


def _as_text(table: pd.DataFrame) -> pd.DataFrame:
    """Cells as the text written: numbers unrounded, ``None`` as empty."""
    return table.map(lambda v: "" if v is None else str(v))


def render(without: dict, with_: dict, rule: AdoptionRule = AdoptionRule()) -> str:
    """The tables of the rule and of every figure read, as markdown in the
    layout of :mod:`geomargin.report.results_pages` (each under a level-2 heading
    naming it in backquotes, cells as their exact text), and the verdict."""
    table = adoption_table(without, with_, rule)
    figures = pd.DataFrame({"figure": list(without), "without": list(without.values()),
                            "with": [with_[k] for k in without]})
    return (f"## `rule`\n\nOne row per criterion; the block is adopted only if every one holds.\n\n"
            f"{render_table(_as_text(table))}\nadopted: {adopted(table)}\n\n"
            f"## `figures`\n\nEvery figure read from the two runs, the block's own goals among them.\n\n"
            f"{render_table(_as_text(figures))}")


def page(without_run: Path, with_run: Path, without: dict, with_: dict, out: Path, run_command: str,
         rule: AdoptionRule = AdoptionRule()) -> str:
    """The whole page of the runs in ``without_run`` and ``with_run`` (their
    figures ``without`` and ``with_``, from :func:`run_figures`): title, the
    stamp of :mod:`geomargin.report.results_pages` (commit of both runs, date of the
    newest table read, machine, run command, writing command), then
    :func:`render`."""
    read = _tables_read(without_run, rule) + _tables_read(with_run, rule)
    newest = max(p.stat().st_mtime for p in read)
    stamp = {"commit": f"without the block {_commit(without_run)}; with it {_commit(with_run)}",
             "run date": f"{datetime.fromtimestamp(newest, tz=timezone.utc):%Y-%m-%d %H:%M} UTC "
                         "(newest table read)",
             "machine": machine(),
             "run command": f"`{run_command}`",
             "written by": f"`python -m geomargin.report.adoption --without <run> --with <run> --out {out}`"}
    head = ["# Homology block: adoption", "", GENERATED, "", *(f"- **{k}**: {v}" for k, v in stamp.items()), ""]
    return "\n".join(head) + "\n" + render(without, with_, rule)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--without", type=Path, required=True, help="working copy of the run without the block")
    ap.add_argument("--with", dest="with_", type=Path, required=True, help="working copy of the run with it")
    ap.add_argument("--out", type=Path, help="also write the page (stamped with both runs' commits) here")
    ap.add_argument("--run-command", default=RUN_COMMAND, help="how the two runs were made (for the stamp)")
    args = ap.parse_args(argv)
    rule = AdoptionRule()
    without, with_ = run_figures(args.without, rule), run_figures(args.with_, rule)
    print(render(without, with_, rule))
    if args.out:
        text = page(args.without, args.with_, without, with_, args.out, args.run_command, rule)
        with atomic_path(args.out) as tmp:
            Path(tmp).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
