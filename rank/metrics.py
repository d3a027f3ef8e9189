"""How good a ranking is: metrics of the ranks of the true genes with
bootstrap intervals over reactions, the concentration of rank-1 genes and
whether the validation earns it, the choice of the ranking method, and the
quality table of the orphan ranking.

Example
-------
>>> ranking_metrics([1, 4, 60], n_candidates=100)["mrr"]
0.4222222222222222
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geomargin.common.checks import check_param, int_at_least, open_unit_interval
from geomargin.rank.calibration import fold_group_weights

__all__ = ["RANKING_METRICS", "ranking_metrics", "bootstrap_ranking_metrics", "top1_concentration",
           "top1_group_concentration", "top1_record", "top1_by_kind", "choose_ranking_method", "QUALITY_KEYS", "ranking_quality"]

#: Metrics of :func:`ranking_metrics` that get a bootstrap interval.
RANKING_METRICS = ("hit@1", "hit@10", "hit@50", "mrr", "median_rank")


def ranking_metrics(ranks_of_true_genes, n_candidates) -> dict[str, float]:
    """Summary of 1-based ranks of the true genes.

    Parameters
    ----------
    ranks_of_true_genes : array-like of int >= 1
        One rank per (reaction, true gene).
    n_candidates : int or array-like
        Number of candidates each rank was taken among (scalar or one per
        rank); reported as its median.

    Returns
    -------
    dict
        ``hit@1``, ``hit@10``, ``hit@50`` (fraction of true genes ranked at
        or above k), ``mrr`` (mean of 1/rank), ``median_rank``, ``n_true``,
        ``n_candidates``. With no ranks the metrics are NaN.
    """
    r = np.asarray(ranks_of_true_genes, dtype=np.float64).reshape(-1)
    n = np.broadcast_to(np.asarray(n_candidates, dtype=np.float64), r.shape) if r.size else \
        np.asarray(n_candidates, dtype=np.float64).reshape(-1)
    if r.size and (np.isnan(r).any() or (r < 1).any() or (r != np.round(r)).any()):
        raise ValueError("ranks_of_true_genes must be integers >= 1 (1 = best); "
                         f"got {r[(r < 1) | (r != np.round(r)) | np.isnan(r)][:5].tolist()}")
    if r.size and (r > n).any():
        raise ValueError("a rank exceeds its number of candidates: "
                         f"rank {r[r > n][0]:.0f} > n_candidates {n[r > n][0]:.0f}")
    if r.size == 0:
        nan = float("nan")
        return {"hit@1": nan, "hit@10": nan, "hit@50": nan, "mrr": nan, "median_rank": nan,
                "n_true": 0, "n_candidates": float(np.median(n)) if n.size else nan}
    return {"hit@1": float(np.mean(r <= 1)), "hit@10": float(np.mean(r <= 10)),
            "hit@50": float(np.mean(r <= 50)), "mrr": float(np.mean(1.0 / r)),
            "median_rank": float(np.median(r)), "n_true": int(r.size),
            "n_candidates": float(np.median(n))}


def bootstrap_ranking_metrics(ranks: pd.DataFrame, n_candidates, n_boot: int = 1000,
                              seed: int = 0, level: float = 0.95) -> dict[str, float]:
    """:func:`ranking_metrics` with percentile bootstrap intervals over reactions.

    The true pairs of one reaction are not independent (they share the
    reaction's neighbours), so the resampling unit is the reaction: each
    replicate draws as many reactions as there are, with replacement, and
    pools all their ranks.

    Parameters
    ----------
    ranks : DataFrame
        Columns ``reaction`` and ``rank`` (one row per true pair).
    n_candidates : int
        Candidates each rank was taken among.
    n_boot : int, default 1000
    seed : int, default 0
        Seeds :func:`numpy.random.default_rng`.
    level : float, default 0.95

    Returns
    -------
    dict
        Every key of :func:`ranking_metrics`, plus ``<metric>_lo`` and
        ``<metric>_hi`` for each metric in :data:`RANKING_METRICS`, plus
        ``n_reactions``.

    Examples
    --------
    >>> df = pd.DataFrame({"reaction": ["a", "a", "b", "c"], "rank": [1, 3, 60, 2]})
    >>> m = bootstrap_ranking_metrics(df, n_candidates=100, n_boot=200, seed=0)
    >>> m["hit@10"], m["n_reactions"]
    (0.75, 3)
    >>> bool(m["hit@10_lo"] <= 0.75 <= m["hit@10_hi"])
    True
    """
    check_param("bootstrap_ranking_metrics", "n_boot", n_boot, *int_at_least(1))
    check_param("bootstrap_ranking_metrics", "level", level, *open_unit_interval())
    missing = {"reaction", "rank"} - set(ranks.columns)
    if missing:
        raise ValueError(f"ranks needs the columns 'reaction' and 'rank'; missing {sorted(missing)}")
    point = ranking_metrics(ranks["rank"].to_numpy(), n_candidates)
    codes, uniq = pd.factorize(ranks["reaction"], sort=True)
    out = {**point, "n_reactions": int(len(uniq))}
    if len(uniq) == 0:
        for m in RANKING_METRICS:
            out[f"{m}_lo"] = out[f"{m}_hi"] = float("nan")
        return out
    r = ranks["rank"].to_numpy(dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    r_sorted = r[order]
    counts = np.bincount(codes, minlength=len(uniq))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    # per-reaction sums make hit@k and MRR exact weighted means of a replicate
    sums = {f"hit@{k}": np.add.reduceat((r_sorted <= k).astype(float), starts) for k in (1, 10, 50)}
    sums["mrr"] = np.add.reduceat(1.0 / r_sorted, starts)
    rng = np.random.default_rng(seed)
    boot = {m: np.empty(n_boot) for m in RANKING_METRICS}
    for b in range(n_boot):
        pick = rng.integers(0, len(uniq), size=len(uniq))
        w = np.bincount(pick, minlength=len(uniq))
        total = float(w @ counts)
        for m, v in sums.items():
            boot[m][b] = float(w @ v) / total
        boot["median_rank"][b] = np.median(np.repeat(r_sorted, np.repeat(w, counts)))
    alpha = (1.0 - level) / 2.0
    for m in RANKING_METRICS:
        lo, hi = np.quantile(boot[m], [alpha, 1.0 - alpha])
        out[f"{m}_lo"], out[f"{m}_hi"] = float(lo), float(hi)
    return out


def top1_concentration(top_genes) -> tuple[str, int, float]:
    """The gene ranked first for the most reactions.

    Parameters
    ----------
    top_genes : sequence of str
        The rank-1 gene of each reaction, one entry per reaction (e.g. the
        ``gene`` of the ``rank == 1`` rows of :func:`geomargin.rank.scoring.rank_candidates`,
        or the ``top_gene`` column of the validation's top genes); "" (a
        reaction without a scored candidate) is left out.

    Returns
    -------
    (gene, n_reactions, share)
        ``share`` = that gene's rank-1 count / number of reactions with a
        rank-1 gene. Ties: the smallest gene id. ``("", 0, nan)`` when no
        reaction has one.

    Examples
    --------
    >>> top1_concentration(["G2", "G1", "G2", ""])
    ('G2', 2, 0.6666666666666666)
    >>> top1_concentration([])
    ('', 0, nan)
    """
    first = pd.Series(top_genes, dtype=object)
    first = first[first != ""]
    if first.empty:
        return "", 0, float("nan")
    counts = first.value_counts()
    best = int(counts.max())
    gene = sorted(counts.index[counts == best])[0]
    return str(gene), best, best / len(first)


def top1_group_concentration(first: pd.DataFrame, fold_group,
                             gene: str | None = None) -> tuple[str, float, int, float]:
    """The gene ranked first for the most reactions, each fold group counted once.

    A model can write one reaction many times (yeast-GEM writes a lipid
    transport once per acyl chain, and a reversible reaction has two
    directions); a biologist tests such a group once. Each reaction weighs
    one over the number of reactions of its group here
    (:func:`geomargin.rank.calibration.fold_group_weights`, as the calibrator weighs its
    rows), so a group whose every member has the same first gene counts one.

    Parameters
    ----------
    first : DataFrame
        One row per reaction: ``reaction`` and ``gene`` (its rank-1 gene;
        "" when nothing was scored, left out).
    fold_group : mapping
        Reaction id -> fold group
        (:func:`geomargin.featurize.metabolic.pairs.fold_groups`), for every reaction.
    gene : str, optional
        Count this gene instead of the most frequent one.

    Returns
    -------
    (gene, groups_topped, n_groups, share)
        ``groups_topped`` = the gene's summed weight, ``n_groups`` = the
        groups with a rank-1 gene, ``share`` = their ratio. Ties: the
        smallest gene id. ``("", 0.0, 0, nan)`` without any rank-1 gene.

    Examples
    --------
    >>> first = pd.DataFrame({"reaction": ["a16", "a18", "a20", "b", "c"], "gene": ["G", "G", "G", "H", "H"]})
    >>> groups = {"a16": "a", "a18": "a", "a20": "a", "b": "b", "c": "c"}
    >>> top1_group_concentration(first, groups)
    ('H', 2.0, 3, 0.6666666666666666)
    >>> top1_group_concentration(first, groups, gene="G")
    ('G', 1.0, 3, 0.3333333333333333)
    """
    first = first[first["gene"].astype(str) != ""]
    if first.empty:
        return (gene or ""), 0.0, 0, float("nan")
    weight = fold_group_weights(first, fold_group)
    by_gene = pd.Series(weight, index=first["gene"].astype(str).to_numpy()).groupby(level=0).sum()
    if gene is None:
        best = by_gene.max()
        gene = sorted(by_gene.index[np.isclose(by_gene.to_numpy(), best, rtol=0, atol=1e-9)])[0]
    topped = float(by_gene.get(str(gene), 0.0))
    n_groups = int(first["reaction"].map(fold_group).nunique())
    return str(gene), topped, n_groups, topped / n_groups


def top1_record(tops: pd.DataFrame, method: str, gene: str,
                orphan_share: float | None = None) -> dict:
    """How often ``gene`` was ranked first in the validation, and how often rightly.

    Whether a gene that tops many orphan rankings has earned it: on the
    held-out reactions (whose genes are known), how often did ``method``
    put ``gene`` first, and for how many of those was it a true gene? The
    concentration is *earned* when the validation shows it: the gene was
    first for at least as large a share of the held-out reactions as it is
    of the orphans (``orphan_share``), and when first it was right at least
    as often as the method's first candidates are overall (its hit@1 over
    the same reactions).

    Parameters
    ----------
    tops : DataFrame
        One row per (method, held-out reaction): columns ``method``,
        ``reaction``, ``top_gene`` (the method's first candidate, "" when
        nothing was scored) and ``top_is_true`` (bool), as
        ``results/metabolic/ranking/top_genes.tsv``.
    method, gene : str
    orphan_share : float, optional
        The share of the orphan reactions that ``gene`` tops; without it
        only the precision is compared.

    Returns
    -------
    dict
        ``tops`` (held-out reactions ``gene`` topped), ``share`` (tops / the
        method's held-out reactions), ``correct`` (of the tops, where it is a
        true gene), ``precision`` (correct / tops, NaN for 0 tops), ``hit1``
        (the method's share of reactions whose first candidate is a true
        gene), ``earned`` and ``reactions`` (the method's held-out reactions
        with a first candidate).

    Examples
    --------
    >>> tops = pd.DataFrame({"method": ["m"] * 4, "reaction": list("abcd"),
    ...                      "top_gene": ["G1", "G1", "G2", "G1"],
    ...                      "top_is_true": [True, True, False, True]})
    >>> r = top1_record(tops, "m", "G1", orphan_share=0.5)
    >>> r["tops"], r["share"], r["correct"], r["precision"], r["hit1"], r["earned"]
    (3, 0.75, 3, 1.0, 0.75, True)
    >>> top1_record(tops, "m", "G1", orphan_share=0.9)["earned"]   # more than validated
    False
    """
    mine = tops[(tops["method"] == method) & (tops["top_gene"].astype(str) != "")]
    is_true = mine["top_is_true"].astype(bool)
    hit1 = float(is_true.mean()) if len(mine) else float("nan")
    of_gene = mine["top_gene"].astype(str) == str(gene)
    n = int(of_gene.sum())
    share = n / len(mine) if len(mine) else float("nan")
    correct = int((of_gene & is_true).sum())
    precision = correct / n if n else float("nan")
    earned = bool(n and precision >= hit1 and (orphan_share is None or orphan_share <= share))
    return {"tops": n, "share": share, "correct": correct, "precision": precision, "hit1": hit1,
            "earned": earned, "reactions": len(mine)}


def top1_by_kind(tops: pd.DataFrame, method: str, gene: str,
                 orphan_first: pd.DataFrame) -> pd.DataFrame:
    """:func:`top1_record` within each reaction kind.

    The orphan reactions and the held-out reactions of the validation can
    differ in composition (the ranked orphans can be mostly transport
    reactions and the held-out ones mostly enzymatic), and a gene that
    is right for many reactions of one kind (a broad-specificity
    transporter) then tops a larger share of the orphans than of the
    held-out reactions without being any less right. This compares like with
    like: for every kind whose orphans ``gene`` tops, its share of that
    kind's orphans against its share of that kind's held-out reactions, and
    its precision there against the method's hit@1 on that kind.

    Parameters
    ----------
    tops : DataFrame
        As for :func:`top1_record`, with a ``reaction_kind`` column.
    method, gene : str
    orphan_first : DataFrame
        One row per ranked orphan reaction: ``reaction_kind`` and ``gene``
        (its rank-1 candidate).

    Returns
    -------
    DataFrame
        One row per kind whose orphans ``gene`` tops: ``reaction_kind``,
        ``orphans`` (of that kind), ``orphan_tops``, ``orphan_share`` and
        the :func:`top1_record` fields over that kind's held-out reactions
        (``tops``, ``share``, ``correct``, ``precision``, ``hit1``,
        ``earned``). A kind without held-out reactions is not earned.

    Examples
    --------
    >>> tops = pd.DataFrame({"method": ["m"] * 4, "reaction": list("abcd"),
    ...                      "top_gene": ["T", "T", "E", "E"], "top_is_true": [True, False, True, True],
    ...                      "reaction_kind": ["transport", "transport", "enzymatic", "enzymatic"]})
    >>> orphans = pd.DataFrame({"reaction_kind": ["transport"] * 3 + ["enzymatic"],
    ...                         "gene": ["T", "T", "X", "E"]})
    >>> t = top1_by_kind(tops, "m", "T", orphans)
    >>> t[["reaction_kind", "orphan_share", "share", "precision", "hit1", "earned"]].to_dict("records")
    [{'reaction_kind': 'transport', 'orphan_share': 0.6666666666666666, 'share': 1.0, 'precision': 0.5, 'hit1': 0.5, 'earned': True}]
    """
    if "reaction_kind" not in tops.columns:
        raise ValueError("the validation's top genes need a 'reaction_kind' column; rerun the "
                         "ranking validation")
    rows = []
    for kind, first in orphan_first.groupby("reaction_kind", sort=True):
        n_top = int((first["gene"].astype(str) == str(gene)).sum())
        if not n_top:
            continue
        share = n_top / len(first)
        record = top1_record(tops[tops["reaction_kind"].astype(str) == str(kind)], method, gene,
                             orphan_share=share)
        rows.append({"reaction_kind": kind, "orphans": len(first), "orphan_tops": n_top,
                     "orphan_share": share, **record})
    return pd.DataFrame(rows, columns=["reaction_kind", "orphans", "orphan_tops", "orphan_share", "tops",
                                       "share", "correct", "precision", "hit1", "earned", "reactions"])


def choose_ranking_method(table: pd.DataFrame, metric: str = "mrr") -> str:
    """The method with the best validated ``metric`` (ties: the earlier row).

    ``table`` has one row per method (column ``method``), as
    ``ranking_validation.tsv``. Rows ``<method>@<rule>`` (a geometric-margin
    model scored by the margin rule that is *not* configured, kept to
    measure that choice) are never chosen.

    Examples
    --------
    >>> t = pd.DataFrame({"method": ["coexpr", "hgb", "geometric", "geometric@scaled"],
    ...                   "mrr": [0.03, 0.25, 0.25, 0.4]})
    >>> choose_ranking_method(t)
    'hgb'
    """
    table = table[~table["method"].astype(str).str.contains("@")] if "method" in table else table
    if metric not in table.columns or "method" not in table.columns:
        raise ValueError(f"the validation table needs the columns 'method' and {metric!r}; "
                         f"it has {list(table.columns)}")
    values = pd.to_numeric(table[metric], errors="coerce").to_numpy()
    if np.isnan(values).all():
        raise ValueError(f"no method has a validated {metric!r}: the validation ranked no "
                         "held-out reaction (too few reactions with known genes?)")
    return str(table["method"].iloc[int(np.nanargmax(values))])


#: Validated metrics copied into the quality table (``validated_<key>``, with
#: ``_lo``/``_hi`` where the validation has an interval).
QUALITY_KEYS = ("n_reactions", "n_true_pairs", "n_candidates", "hit@1", "hit@10", "hit@50", "mrr",
                "median_rank", "top1_gene", "top1_share")


def ranking_quality(top: pd.DataFrame, validated: pd.Series | None, validated_tops: pd.DataFrame,
                    reaction_kinds: pd.Series, *, method: str, chosen_by: str, margin_rule: str,
                    gene_correction: str, fold_groups: pd.Series | None = None
                    ) -> tuple[pd.DataFrame, dict]:
    """The quality table of the orphan ranking (``enzyme_ranking_quality.tsv``).

    Parameters
    ----------
    top : DataFrame
        The orphan ranking (``reaction``, ``rank``, ``gene``, as from
        :func:`geomargin.rank.scoring.rank_candidates` without its NaN scores).
    validated : Series or None
        ``method``'s row of the ranking validation table (None when the
        validation did not rank it).
    validated_tops : DataFrame
        The validation's rank-1 genes (``top_genes.tsv``).
    reaction_kinds : Series
        Reaction kind of each directed reaction id.
    method, chosen_by, margin_rule, gene_correction : str
        Written as they are.
    fold_groups : Series, optional
        The fold group of each directed reaction id
        (:func:`geomargin.featurize.metabolic.pairs.fold_groups`); with it, the
        concentration is also counted with each group once
        (:func:`top1_group_concentration`), over the orphans and over the
        validation's held-out reactions.

    Returns
    -------
    quality : DataFrame
        One row: the method and how it was chosen, the validated metrics
        (``validated_<metric>`` of :data:`QUALITY_KEYS`), and the rank-1
        concentration over the orphans (:func:`top1_concentration`) with
        whether the validation earns it, overall (:func:`top1_record`) and
        per reaction kind (:func:`top1_by_kind`); with ``fold_groups``,
        also ``orphan_groups_ranked``, ``orphan_top1_gene_by_group``,
        ``orphan_top1_groups``, ``orphan_top1_group_share`` and
        ``orphan_top1_validated_group_share``.
    details : dict
        ``gene``, ``n_top``, ``share`` (the concentration), ``record``,
        ``by_kind`` and ``by_group`` (None without ``fold_groups``),
        for the log.

    Examples
    --------
    >>> top = pd.DataFrame({"reaction": ["a", "a", "b"], "rank": [1, 2, 1], "gene": ["G", "H", "G"]})
    >>> tops = pd.DataFrame({"method": ["m", "m"], "reaction": ["x", "y"], "top_gene": ["G", "H"],
    ...                      "top_is_true": [True, False], "reaction_kind": ["enzymatic"] * 2})
    >>> kinds = pd.Series({"a": "enzymatic", "b": "enzymatic"})
    >>> q, _ = ranking_quality(top, None, tops, kinds, method="m", chosen_by="config",
    ...                        margin_rule="scaled", gene_correction="none")
    >>> q[["orphan_top1_gene", "orphan_top1_share", "orphan_top1_earned"]].to_dict("records")
    [{'orphan_top1_gene': 'G', 'orphan_top1_share': 1.0, 'orphan_top1_earned': False}]
    """
    first = top[top["rank"] == 1]
    gene, n_top, share = top1_concentration(first["gene"])
    # has the concentration been earned? the same gene first in the validation, and how often rightly
    record = top1_record(validated_tops, method, gene, orphan_share=share)
    # the same within each reaction kind: the orphans and the held-out reactions differ in kinds
    by_kind = top1_by_kind(validated_tops, method, gene,
                           pd.DataFrame({"reaction_kind": reaction_kinds.loc[first["reaction"]].to_numpy(),
                                         "gene": first["gene"].to_numpy()}))
    earned_by_kind = bool(len(by_kind)) and bool(by_kind["earned"].all())
    quality = {"method": method, "chosen_by": chosen_by, "margin_rule": margin_rule,
               "gene_correction": gene_correction}
    for key in QUALITY_KEYS:
        for suffix in ("", "_lo", "_hi"):
            if validated is not None and key + suffix in validated.index:
                quality[f"validated_{key}{suffix}"] = validated[key + suffix]
    quality.update({"orphans_ranked": int(top["reaction"].nunique()), "orphan_top1_gene": gene,
                    "orphan_top1_reactions": n_top, "orphan_top1_share": share,
                    "orphan_top1_validated_tops": record["tops"],
                    "orphan_top1_validated_share": record["share"],
                    "orphan_top1_validated_correct": record["correct"],
                    "orphan_top1_validated_precision": record["precision"],
                    "orphan_top1_earned": record["earned"],
                    "orphan_top1_by_kind": "; ".join(
                        f"{k.reaction_kind}: orphans {k.orphan_tops}/{k.orphans}, validated {k.tops}"
                        f"/{k.reactions} (right {k.correct}, hit@1 {k.hit1:.3f})"
                        for k in by_kind.itertuples()),
                    "orphan_top1_earned_by_kind": earned_by_kind})
    by_group = None
    if fold_groups is not None:
        mine = validated_tops[validated_tops["method"] == method]
        ids = {str(r) for r in (*first["reaction"], *mine["reaction"])}
        # a reaction without a group is its own group
        group = {r: str(fold_groups.get(r, r)) for r in ids}
        g_gene, g_top, g_n, g_share = top1_group_concentration(
            pd.DataFrame({"reaction": first["reaction"].astype(str).to_numpy(),
                          "gene": first["gene"].astype(str).to_numpy()}), group)
        _, v_top, v_n, v_share = top1_group_concentration(
            pd.DataFrame({"reaction": mine["reaction"].astype(str).to_numpy(),
                          "gene": mine["top_gene"].astype(str).to_numpy()}), group, gene=g_gene)
        by_group = {"gene": g_gene, "groups_topped": g_top, "groups": g_n, "share": g_share,
                    "validated_groups_topped": v_top, "validated_groups": v_n, "validated_share": v_share}
        quality.update({"orphan_groups_ranked": g_n, "orphan_top1_gene_by_group": g_gene,
                        "orphan_top1_groups": g_top, "orphan_top1_group_share": g_share,
                        "orphan_top1_validated_group_share": v_share})
    details = {"gene": gene, "n_top": n_top, "share": share, "record": record, "by_kind": by_kind,
               "by_group": by_group}
    return pd.DataFrame([quality]), details
