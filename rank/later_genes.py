"""Which later genes a time split finds, by what the older release showed of them.

Each pair of a benchmark reaction and one of its later genes
(:func:`geomargin.rank.time_split.later_genes`) is put in one
:data:`LATER_GENE_EVIDENCE` class (:func:`later_gene_evidence`); per ranking
and class, :func:`later_gene_table` gives hit@k, MRR and median rank of the
later genes themselves, and :func:`later_gene_columns` writes each later
gene's class into the time split's reaction rows. Like the rest of the time
split, these tables are reported, never read back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from geomargin.rank.time_split import reaction_clusters, time_split_metrics

__all__ = ["LATER_GENE_EVIDENCE", "later_gene_evidence", "later_gene_columns", "later_gene_table"]

#: What the older release showed of a later gene for its benchmark reaction
#: (:func:`later_gene_evidence`), the first that applies: the older run did
#: not rank the reaction; the gene is not a candidate; the gene already
#: catalysed a related reaction, another reaction of the subsystem, or a
#: reaction on similar compounds (the evidence of the ranking's
#: ``catalyses_adjacent``, ``catalyses_in_subsystem`` and
#: ``similar_compounds`` columns); the gene had other reactions only; the
#: gene had no reaction in the older release.
LATER_GENE_EVIDENCE = ("reaction_not_ranked", "not_a_candidate", "catalyses_adjacent", "catalyses_in_subsystem",
                       "similar_compounds", "other_reactions", "no_older_reaction")


def later_gene_evidence(featurizer, benchmark: Mapping[str, frozenset], ranked: Sequence[str],
                        candidates: Sequence[str], model_genes: set) -> pd.DataFrame:
    """What the older release showed of each later gene: one row per
    (benchmark reaction, later gene) with its :data:`LATER_GENE_EVIDENCE`
    class, the first that applies.

    Parameters
    ----------
    featurizer : PairFeaturizer
        The older release's; its candidate features give the flags of
        :func:`geomargin.rank.evidence_flags.evidence_flags`.
    benchmark : mapping
        :func:`geomargin.rank.time_split.later_genes`: directed id -> later genes.
    ranked : sequence of str
        The benchmark reactions the older run ranked.
    candidates : sequence of str
        The older run's candidate genes.
    model_genes : set
        Genes with at least one reaction in the older release's network.

    Returns
    -------
    DataFrame
        ``reaction``, ``gene``, ``later_gene_evidence`` and ``candidate``
        (the gene is one of ``candidates``), in the order of ``benchmark``
        and of the gene ids; with the ``homology`` block, then ``homolog``:
        the gene's protein is like one of the older model's genes that the
        block weighs for the reaction (some item > 0,
        :func:`geomargin.rank.evidence_flags.homology_flags`), whatever its class.
    """
    from geomargin.rank.evidence_flags import HOMOLOGY_FLAG, candidate_flag_names, evidence_flags, homology_flags

    in_cands, ranked = set(candidates), set(ranked)
    homology = HOMOLOGY_FLAG in candidate_flag_names(featurizer)
    rows = []
    for r, genes in benchmark.items():
        genes = sorted(genes)
        scored = [g for g in genes if g in in_cands] if r in ranked else []
        flags = dict(zip(scored, evidence_flags(featurizer, featurizer.candidate_matrix(r, scored)))) \
            if scored else {}
        similar = homology_flags(featurizer, featurizer.candidate_matrix(r, genes)) if homology else None
        for g in genes:
            if r not in ranked:
                kind = "reaction_not_ranked"
            elif g not in in_cands:
                kind = "not_a_candidate"
            elif flags[g].any():
                kind = LATER_GENE_EVIDENCE[2 + int(np.argmax(flags[g]))]
            elif g in model_genes:
                kind = "other_reactions"
            else:
                kind = "no_older_reaction"
            rows.append({"reaction": r, "gene": g, "later_gene_evidence": kind, "candidate": g in in_cands,
                         **({"homolog": bool(similar[genes.index(g)])} if homology else {})})
    return pd.DataFrame(rows, columns=["reaction", "gene", "later_gene_evidence", "candidate",
                                       *(["homolog"] if homology else [])])


def later_gene_columns(rows: pd.DataFrame, evidence: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (:func:`geomargin.rank.time_split.time_split_rows`) with, per later gene (``;``-joined,
    in the order of ``later_genes``), its ``later_gene_evidence`` class and,
    where ``evidence`` (:func:`later_gene_evidence`) has ``homolog``,
    ``later_gene_homolog`` (``yes``/``no``).

    >>> rows = pd.DataFrame({"reaction": ["a"], "later_genes": ["G1;G2"]})
    >>> ev = pd.DataFrame({"reaction": ["a", "a"], "gene": ["G1", "G2"], "candidate": True,
    ...                    "later_gene_evidence": ["other_reactions", "no_older_reaction"], "homolog": [False, True]})
    >>> later_gene_columns(rows, ev)[["later_gene_evidence", "later_gene_homolog"]].values.tolist()
    [['other_reactions;no_older_reaction', 'no;yes']]
    """
    out = rows.copy()
    kind_of = {(r, g): k for r, g, k in evidence[["reaction", "gene", "later_gene_evidence"]].itertuples(index=False)}
    pairs = [[(r, g) for g in str(genes).split(";")] for r, genes in zip(out["reaction"], out["later_genes"])]
    for pair in (p for ps in pairs for p in ps):
        if pair not in kind_of:
            raise ValueError(f"later_gene_columns: no evidence class for later gene {pair[1]!r} of {pair[0]!r}; "
                             "pass later_gene_evidence of the same benchmark")
    out["later_gene_evidence"] = [";".join(kind_of[p] for p in ps) for ps in pairs]
    if "homolog" in evidence.columns:
        similar = {(r, g): bool(h) for r, g, h in evidence[["reaction", "gene", "homolog"]].itertuples(index=False)}
        out["later_gene_homolog"] = [";".join("yes" if similar[p] else "no" for p in ps) for ps in pairs]
    return out


def later_gene_table(rows: pd.DataFrame, evidence: pd.DataFrame, n_boot: int = 1000, seed: int = 0
                     ) -> pd.DataFrame:
    """Which later genes each ranking finds: hit@k, MRR and median rank of
    the later genes themselves, one row per ranking and
    :data:`LATER_GENE_EVIDENCE` class (``all`` first; a class without
    genes is left out).

    Parameters
    ----------
    rows : DataFrame
        :func:`geomargin.rank.time_split.time_split_rows`: one row per (ranking, benchmark reaction)
        with ``later_genes`` and ``later_gene_ranks`` (``;``-joined, in the
        same order; rank 0 = not ranked or not a candidate) and
        ``n_candidates``.
    evidence : DataFrame
        :func:`later_gene_evidence`: ``reaction``, ``gene``, ``later_gene_evidence``,
        ``candidate``, and ``homolog`` with the ``homology`` block.

    Returns
    -------
    DataFrame
        ``ranking``, ``later_gene_evidence``, ``later_genes`` (the (reaction,
        later gene) pairs of the class), ``with_homolog`` (those of them
        with ``homolog``; only where ``evidence`` has it), ``reactions``, ``share`` (of the
        ranking's pairs), then the metrics of :func:`geomargin.rank.time_split.time_split_metrics`
        over the pairs (a gene at rank k or better is a hit; intervals by
        resampling model reactions, their pairs and both directions together), ``random_*`` being
        what a random order of the candidates gives one gene (for every
        benchmark reaction, ranked or not, as in :func:`geomargin.rank.time_split.time_split_table`).

    Examples
    --------
    >>> rows = pd.DataFrame({"ranking": ["m"] * 2, "reaction": ["a", "b"], "n_candidates": [50, 50],
    ...                      "later_genes": ["G1;G2", "G3"], "later_gene_ranks": ["1;30", "0"]})
    >>> ev = pd.DataFrame({"reaction": ["a", "a", "b"], "gene": ["G1", "G2", "G3"],
    ...                    "later_gene_evidence": ["catalyses_adjacent", "no_older_reaction", "not_a_candidate"],
    ...                    "candidate": [True, True, False]})
    >>> t = later_gene_table(rows, ev, n_boot=50)
    >>> t[["later_gene_evidence", "later_genes", "reactions", "hit@1", "hit@50"]].values.tolist()
    ... # doctest: +NORMALIZE_WHITESPACE
    [['all', 3, 2, 0.3333333333333333, 0.6666666666666666], ['not_a_candidate', 1, 1, 0.0, 0.0],
     ['catalyses_adjacent', 1, 1, 1.0, 1.0], ['no_older_reaction', 1, 1, 0.0, 1.0]]
    """
    kind = {(r, g): (k, bool(c)) for r, g, k, c in
            evidence[["reaction", "gene", "later_gene_evidence", "candidate"]].itertuples(index=False)}
    homolog = "homolog" in evidence.columns
    similar = {(r, g): bool(h) for r, g, h in evidence[["reaction", "gene", "homolog"]].itertuples(index=False)} \
        if homolog else {}
    pairs = []
    for rec in rows.to_dict("records"):
        genes, ranks = str(rec["later_genes"]).split(";"), str(rec["later_gene_ranks"]).split(";")
        if len(genes) != len(ranks):
            raise ValueError(f"later_gene_table: reaction {rec['reaction']!r} under {rec['ranking']!r} has "
                             f"{len(genes)} later genes but {len(ranks)} ranks")
        for g, k in zip(genes, ranks):
            if (rec["reaction"], g) not in kind:
                raise ValueError(f"later_gene_table: no evidence class for later gene {g!r} of "
                                 f"{rec['reaction']!r}; pass later_gene_evidence of the same benchmark")
            c, candidate = kind[(rec["reaction"], g)]
            pairs.append({"ranking": rec["ranking"], "reaction": rec["reaction"], "class": c,
                          "best_rank": int(k), "n_candidates": rec["n_candidates"],
                          "n_later_candidates": int(candidate), "homolog": similar.get((rec["reaction"], g), False)})
    pairs = pd.DataFrame(pairs, columns=["ranking", "reaction", "class", "best_rank", "n_candidates",
                                         "n_later_candidates", "homolog"])
    out = []
    for ranking in dict.fromkeys(pairs["ranking"]):
        p = pairs[pairs["ranking"] == ranking]
        groups = [("all", p)] + [(c, p[p["class"] == c]) for c in LATER_GENE_EVIDENCE if (p["class"] == c).any()]
        for c, g in groups:
            m = time_split_metrics(g, n_boot=n_boot, seed=seed, clusters=reaction_clusters(g["reaction"]))
            counts = {"later_genes": m.pop("reactions")}
            if homolog:
                counts["with_homolog"] = int(g["homolog"].sum())
            out.append({"ranking": ranking, "later_gene_evidence": c, **counts,
                        "reactions": int(g["reaction"].nunique()), "share": len(g) / len(p), **m})
    return pd.DataFrame(out)
