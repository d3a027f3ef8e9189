"""Does a per-gene hub correction make the ranking less concentrated, and at
what cost? An experiment on a finished metabolic run (not used by the workflow).

    python analysis/hub_correction.py --workdir DIR [--method hgb] [--margin-rule scaled]

Some genes (GAP1 on iMM904) come first for a large share of the
orphan reactions without the validation earning it. A common remedy for such
"hubs" is to compare a gene's score for a reaction with its scores for the
other reactions being ranked. For every outer fold, this scores all of the
fold's held-out reactions (with known genes) against every candidate, using
the method's fold model exactly as ``metabolic_ranking_validation`` does.
It then ranks each reaction's candidates by:

- ``raw``: the score (the workflow's ranking);
- ``centred``: the score minus the gene's mean score over the fold's
  held-out reactions;
- ``z``: that difference divided by the gene's standard deviation over them;
- ``clr``: Faith et al.'s (2007) context likelihood of relatedness, the
  positive z-scores against the gene's and the reaction's backgrounds
  combined.

``raw``, ``centred`` and ``z`` are the workflow's ``gene_corrections``
(``rank.scoring.correct_scores``). ``--by-kind`` takes each
reaction's reference set from the reactions of its kind only.

The corrections use no labels, only the set of reactions ranked together (for
the orphans that set would be the orphans). Prints hit@1/10/50, MRR, median
rank, the largest share of reactions one gene tops, and how often that gene
was right when first. The same is printed for the orphan reactions (no labels:
concentration only) with the model refitted on all pairs, as
``enzyme_ranking`` does.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from threadpoolctl import threadpool_limits

from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.models.registry import get_method
from geomargin.models.selection import consensus_params, fit_estimator
from geomargin.rank.evidence import orphan_reactions
from geomargin.rank.metrics import ranking_metrics, top1_concentration
from geomargin.rank.scoring import (candidate_order, correct_scores, gene_id_ranks, pair_score_fn, ranking_decision,
                          score_matrix, true_gene_ranks)
from geomargin.common.cli import workdir_parser

RULES = ("raw", "centred", "z", "clr")


def corrected(S: np.ndarray, rule: str) -> np.ndarray:
    """``S`` per gene (column) compared with the gene's scores over the rows:
    the workflow's ``correct_scores``, or ``clr`` (Faith et al. 2007's context
    likelihood of relatedness: sqrt of the squared positive z-scores against
    the gene's and against the reaction's background)."""
    if rule != "clr":
        return correct_scores(S, "none" if rule == "raw" else rule)
    z_g = correct_scores(S, "z")
    z_r = correct_scores(S.T, "z").T
    out = np.sqrt(np.maximum(z_g, 0) ** 2 + np.maximum(z_r, 0) ** 2)
    out[np.isnan(S)] = np.nan
    return out


def corrected_by(S: np.ndarray, rule: str, groups) -> np.ndarray:
    """``corrected`` within each group of rows (e.g. reaction kinds)."""
    groups = np.asarray(groups)
    out = np.empty_like(S)
    for g in np.unique(groups):
        rows = groups == g
        out[rows] = corrected(S[rows], rule)
    return out


def ranks_and_tops(S, reactions, true_genes, candidates, gene_rank):
    """Filtered ranks of every true gene (``true_gene_ranks``, as the
    validation computes them) and the top gene, per reaction."""
    ranks, tops = [], []
    for i, r in enumerate(reactions):
        if true_genes.get(r):
            ranks += list(true_gene_ranks(lambda _r, _g, s=S[i]: s, r, candidates, true_genes[r],
                                          batch_size=len(candidates)).values())
        tops.append(candidates[candidate_order(S[i], gene_rank)[0]])
    return ranks, tops


def concentration(tops, true_sets=None):
    """The most frequent top gene (:func:`geomargin.rank.metrics.top1_concentration`),
    its share, and how often it was right when first."""
    gene, _, share = top1_concentration(tops)
    prec = np.nan
    if true_sets is not None:
        firsts = [k for k, t in enumerate(tops) if t == gene]
        prec = np.mean([canonical_gene_id(gene)[0] in true_sets[k] for k in firsts])
    return gene, share, prec


def main() -> None:
    ap = workdir_parser(__doc__)
    ap.add_argument("--method", default="hgb")
    ap.add_argument("--margin-rule", default="scaled")
    ap.add_argument("--no-orphans", action="store_true")
    ap.add_argument("--by-kind", action="store_true",
                    help="the reference set of each reaction: the reactions of its kind ranked together")
    ap.add_argument("--cache", type=Path, help="folder for the score matrices (reused when present)")
    a = ap.parse_args()
    w = a.workdir
    cfg = yaml.safe_load((w / "config" / "config.yaml").read_text())
    bundle = FeatureBundle.load(w / "results/metabolic/features/featurizer.pkl")
    featurizer, net, candidates = bundle.featurizer, bundle.network, bundle.candidates
    instances = pd.read_csv(w / "results/metabolic/features/instances.tsv", sep="\t")
    with open(w / f"results/metabolic/cv/{a.method}.pkl", "rb") as fh:
        cv = pickle.load(fh)
    gene_rank = gene_id_ranks(candidates)

    def groups(reactions):
        if not a.by_kind:
            return np.zeros(len(reactions), dtype=int)
        return net.reactions.loc[reactions, "reaction_kind"].to_numpy()
    out = {r: {"ranks": [], "tops": [], "true": []} for r in RULES}
    with threadpool_limits(1):
        for fold, test_idx in enumerate(cv.test_index, start=1):
            held = instances.iloc[test_idx]
            reactions = sorted(held.loc[held["label"] == 1, "reaction"].unique())
            true = {r: list(net.reactions.at[r, "genes"]) for r in reactions}
            cache = a.cache / f"{a.method}_{a.margin_rule}_fold{fold}.npy" if a.cache else None
            if cache is not None and cache.exists():
                S = np.load(cache)
            else:
                decision = ranking_decision(cv.models[fold - 1], a.margin_rule)
                S = score_matrix(pair_score_fn(featurizer, decision), reactions, candidates)
                if cache is not None:
                    np.save(cache, S)
            for rule in RULES:
                rk, tp = ranks_and_tops(corrected_by(S, rule, groups(reactions)), reactions, true, candidates, gene_rank)
                out[rule]["ranks"] += rk
                out[rule]["tops"] += tp
                out[rule]["true"] += [{canonical_gene_id(g)[0] for g in true[r]} for r in reactions]
            print(f"fold {fold}: {len(reactions)} reactions scored", flush=True)
    print(f"\n{a.method} ({a.margin_rule}), validation: every held-out reaction, {len(candidates)} candidates\n")
    print("| rule | hit@1 | hit@10 | hit@50 | MRR | median rank | top-1 gene (share, right when first) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for rule in RULES:
        m = ranking_metrics(out[rule]["ranks"], len(candidates))
        g, share, prec = concentration(out[rule]["tops"], out[rule]["true"])
        print(f"| {rule} | {m['hit@1']:.3f} | {m['hit@10']:.3f} | {m['hit@50']:.3f} | {m['mrr']:.3f} "
              f"| {m['median_rank']:.0f} | {g} ({share:.3f}, {prec:.2f}) |")
    if a.no_orphans:
        return
    kinds = cfg["metabolic"]["ranking"].get("kinds", ["enzymatic", "transport", "spontaneous"])
    orph = orphan_reactions(net, featurizer, kinds=kinds)
    reactions = orph.index[orph["eligible"]].tolist()
    cache = a.cache / f"{a.method}_{a.margin_rule}_orphans.npy" if a.cache else None
    if cache is not None and cache.exists():
        S = np.load(cache)
    else:
        data = np.load(w / "results/metabolic/features/features.npz", allow_pickle=False)
        model = get_method(a.method).make(groups=data["groups"], random_state=cfg["seed"])
        model.set_params(**consensus_params(cv.best_params))
        fit_estimator(model, data["X"], data["y"], query=data["instance_group"])
        with threadpool_limits(1):
            decision = ranking_decision(model, a.margin_rule)
            S = score_matrix(pair_score_fn(featurizer, decision), reactions, candidates)
        if cache is not None:
            np.save(cache, S)
    print(f"\norphans: {len(reactions)} ranked reactions\n")
    print("| rule | top-1 gene | share | distinct top-1 genes |")
    print("|---|---|---:|---:|")
    for rule in RULES:
        _, tops = ranks_and_tops(corrected_by(S, rule, groups(reactions)), reactions, {}, candidates, gene_rank)
        g, share, _ = concentration(tops)
        print(f"| {rule} | {g} | {share:.3f} | {len(set(tops))} |")


if __name__ == "__main__":
    main()
