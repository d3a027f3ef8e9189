"""What a biologist reads beside a ranked candidate: which orphan reactions
are ranked and why, and the evidence behind each (reaction, candidate gene).

:func:`orphan_reactions` lists every orphan directed reaction with its kind
(:mod:`geomargin.featurize.metabolic.reaction_kinds`), subsystem, motif neighbours per type and
whether it is ranked (and why not). :func:`explain_ranking` turns the top
candidates of :func:`geomargin.rank.scoring.rank_candidates` into the rows of
``results/enzyme_ranking.tsv``: per candidate its supporting neighbours with
gene names and motif types, its co-expression r with each motif type's
neighbours, the domains and compartments it shares with them, and its
calibrated ``confidence`` (:mod:`geomargin.rank.calibration`). Every column is
described in ``docs/outputs.md``.

Co-expression r of a candidate g with the neighbours of motif type t is the
sum over conditions of the pair's ``t:expr`` features (unscaled): ``sum_k
z_g(k) mean_h z_h(k)`` with unit-norm centred profiles, i.e. the mean over
the neighbours h of Pearson's r(g, h) (exact when the profiles have no
missing condition; otherwise each condition averages the neighbours that have
it). It is what the model sees of expression for that block.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from geomargin.common.parallel import fork_map
from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.featurize.metabolic.pairs.explanations import homology_phrase
from geomargin.featurize.metabolic.pairs.site import SITE_LABELS
from geomargin.featurize.metabolic.reaction_kinds import REACTION_KINDS
from geomargin.rank.credible import no_credible_candidate
from geomargin.rank.metrics import ranking_metrics, top1_concentration
from geomargin.rank.scoring import row_independent

__all__ = ["EVIDENCE", "ORPHAN_COLUMNS", "RANKING_COLUMNS", "supporting_neighbours", "orphan_reactions", "mark_ranked",
           "motif_less_validation", "top1_with_motifs", "coexpression_r", "candidate_evidence", "candidates_evidence", "explain_ranking",
           "supporting_neighbours_many"]

#: What an orphan reaction may be ranked on (:func:`orphan_reactions`; config
#: ``metabolic.ranking.evidence``).
EVIDENCE = ("motifs", "subsystem", "compounds", "homology")
#: Columns of results/orphan_reactions.tsv, before the per-motif counts.
ORPHAN_COLUMNS = ["reaction_id", "model_reaction", "reaction_name", "equation", "reaction_kind",
                  "named_diffusion", "subsystem", "ec_numbers"]
#: Columns of results/enzyme_ranking.tsv, before the per-motif co-expression r.
RANKING_COLUMNS = ["reaction_id", "reaction_name", "equation", "reaction_kind", "named_diffusion",
                   "subsystem", "ec_numbers", "rank", "score_rank", "gene", "gene_name", "gene_description",
                   "score", "model_score", "confidence", "held_out_like", "no_credible_candidate", "motif_blocks", "catalyses_adjacent",
                   "catalyses_in_subsystem", "similar_compounds", "supporting_neighbours", "supporting_names", "shared_domains",
                   "shared_compartments", "evidence"]


def supporting_neighbours(featurizer, decision_function: Callable[[np.ndarray], np.ndarray],
                          reaction: str, gene: str, top: int = 3) -> list[tuple[str, str, float]]:
    """Neighbour genes that support the score of ``(reaction, gene)`` most.

    Each neighbour h is removed in turn (leave-one-neighbour-out, exact, see
    :meth:`geomargin.featurize.metabolic.pairs.PairFeaturizer.leave_one_out`); its support is the
    drop of ``decision_function`` when it is removed. Returns up to ``top``
    tuples ``(gene, motif types joined by '+', drop)`` with positive drops,
    largest first (ties by gene id). :func:`supporting_neighbours_many` does
    the same for several candidates of one reaction at once.
    """
    return supporting_neighbours_many(featurizer, decision_function, reaction, [gene], top=top)[0]


def supporting_neighbours_many(featurizer, decision_function: Callable[[np.ndarray], np.ndarray],
                               reaction: str, genes: Sequence[str], top: int = 3, X: np.ndarray | None = None
                               ) -> list[list[tuple[str, str, float]]]:
    """:func:`supporting_neighbours` of every candidate in ``genes``, from
    one candidate matrix (``X``,
    :meth:`~geomargin.featurize.metabolic.pairs.PairFeaturizer.candidate_matrix` when
    not given) and one stacked leave-one-out matrix
    (:meth:`~geomargin.featurize.metabolic.pairs.PairFeaturizer.leave_one_out_many`).

    ``decision_function`` is called per candidate, on its own row and then
    on its own leave-one-out rows, as :func:`supporting_neighbours` would: a
    BLAS product can round a row differently inside a larger batch, and a
    last-bit change could reorder neighbours whose drops tie. A function
    that scores every row on its own (:func:`geomargin.rank.scoring.row_independent`,
    e.g. gradient boosting) is called once on all the rows instead: the same
    numbers, without a call's overhead per candidate.
    """
    hss, Xh = featurizer.leave_one_out_many(reaction, genes)
    if not len(Xh):
        return [[] for _ in genes]
    if X is None:
        X = featurizer.candidate_matrix(reaction, list(genes))
    together = None
    if row_independent(decision_function):
        together = np.asarray(decision_function(np.vstack([X, Xh])), dtype=np.float64).reshape(-1)
    out, start = [], 0
    for i, (gene, hs) in enumerate(zip(genes, hss)):
        first, start = start, start + len(hs)   # the candidate's leave-one-out rows of Xh
        if not hs:
            out.append([])
            continue
        if together is not None:
            base = float(together[i])
            drops = base - together[len(X) + first:len(X) + start]
        else:
            base = float(np.asarray(decision_function(X[i:i + 1])).reshape(-1)[0])
            drops = base - np.asarray(decision_function(Xh[first:start]), dtype=np.float64).reshape(-1)
        nb = featurizer.neighbour_genes(reaction, gene)
        motifs_of = {h: "+".join(t for t, members in nb.items() if h in members) for h in hs}
        order = sorted(range(len(hs)), key=lambda j: (-drops[j], hs[j]))
        out.append([(hs[j], motifs_of[hs[j]], float(drops[j])) for j in order[:top] if drops[j] > 0])
    return out


def _check_kinds(kinds) -> list[str]:
    kinds = [k for k in REACTION_KINDS if k != "pseudo"] if kinds is None else list(kinds)
    bad = [k for k in kinds if k not in REACTION_KINDS]
    if bad:
        raise ValueError(f"The 'kinds' parameter must list reaction kinds from {REACTION_KINDS}. "
                         f"Got {bad!r} instead.")
    return kinds


def _check_evidence(evidence) -> list[str]:
    evidence = list(EVIDENCE if evidence is None else evidence)
    bad = [e for e in evidence if e not in EVIDENCE]
    if bad or not evidence:
        raise ValueError(f"The 'evidence' parameter must list one or more of {EVIDENCE}. "
                         f"Got {evidence!r} instead.")
    return evidence


#: Why a reaction lacks each kind of evidence (the ``reason`` of a reaction not ranked).
_MISSING = {"subsystem": "no other reaction of its subsystem has a gene",
            "compounds": "no gene acts on compounds of known formula in another reaction of its kind",
            "homology": "no gene of its neighbours, subsystem or similar-compound reactions has a homolog"}


def orphan_reactions(net, featurizer, kinds: Sequence[str] | None = None,
                     evidence: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per orphan directed reaction (no gene in the model).

    Parameters
    ----------
    net : DirectedNetwork
        With ``reaction_kind``, ``named_diffusion`` and ``subsystem`` columns
        (:func:`geomargin.featurize.metabolic.network.build_directed_network`).
    featurizer : PairFeaturizer
        Gives the motif neighbours and the reaction's evidence
        (:meth:`~geomargin.featurize.metabolic.pairs.PairFeaturizer.reaction_evidence`).
    kinds : sequence of str, optional
        Reaction kinds to rank (default: every kind of ``REACTION_KINDS``
        but ``pseudo``, model bookkeeping that no enzyme catalyses).
    evidence : sequence of str, optional
        What a reaction may be ranked on (:data:`EVIDENCE`, the default):
        ``"motifs"`` (a motif neighbour has a gene), ``"subsystem"``
        (another reaction of its subsystem has a gene), ``"compounds"`` (a
        gene acts on compounds of known formula in another reaction of its
        kind), ``"homology"`` (a gene of those reactions has a homolog, the
        ``homology`` block). Only evidence whose feature block the
        featurizer has counts.

    Returns
    -------
    DataFrame indexed by directed reaction id
        :data:`ORPHAN_COLUMNS`, then ``<motif>_reactions`` and
        ``<motif>_genes`` per motif type (neighbour reactions, and distinct
        genes of those reactions; near-copies left out), then
        ``near_copy_genes`` (the genes of its near-copies,
        :meth:`~geomargin.featurize.metabolic.pairs.PairFeaturizer.near_copy_genes`,
        ";"-joined), ``ranked_on`` (the allowed evidence
        the reaction has, joined by "+"; "" when it is not eligible),
        ``eligible`` (bool: the kind is ranked and it has allowed evidence)
        and ``reason`` (why not, "" if eligible). :func:`mark_ranked` adds
        the final ``ranked``.
    """
    kinds = _check_kinds(kinds)
    evidence = _check_evidence(evidence)
    df = net.reactions
    rows = []
    for r, info in df.iterrows():
        if info["genes"]:
            continue
        row = {"reaction_id": r, "model_reaction": info["reaction_id"],
               "reaction_name": info["name"], "equation": info["equation"],
               "reaction_kind": info["reaction_kind"], "named_diffusion": bool(info["named_diffusion"]),
               "subsystem": info["subsystem"], "ec_numbers": info["ec_numbers"]}
        genes = featurizer.neighbour_genes(r, "")
        n_react = 0
        for t in featurizer.motif_types_:
            others = featurizer.related_reactions(r, t)
            row[f"{t}_reactions"] = len(others)
            row[f"{t}_genes"] = len(genes[t])
            n_react += len(others)
        has = featurizer.reaction_evidence(r)
        used = [e for e in evidence if e in has]
        if info["reaction_kind"] not in kinds:
            reason = (f"{info['reaction_kind']} reactions are left out "
                      "(config metabolic.ranking.kinds)")
            used = []
        elif used:
            reason = ""
        else:
            missing = []
            if "motifs" in evidence:
                missing.append("no motif neighbour" if n_react == 0 else "no motif neighbour has a gene")
            missing += [_MISSING[e] for e in evidence if e in featurizer.evidence_names_ and e in _MISSING]
            reason = "; ".join(missing) or "no evidence of the kinds allowed (config metabolic.ranking.evidence)"
        row["near_copy_genes"] = ";".join(featurizer.near_copy_genes(r))
        row["ranked_on"] = "+".join(used)
        row["eligible"] = reason == ""
        row["reason"] = reason
        rows.append(row)
    cols = ORPHAN_COLUMNS + [f"{t}_{w}" for t in featurizer.motif_types_
                             for w in ("reactions", "genes")] + ["near_copy_genes", "ranked_on", "eligible",
                                                                  "reason"]
    return pd.DataFrame(rows, columns=cols).set_index("reaction_id", drop=False)


def mark_ranked(orphans: pd.DataFrame, ranked_reactions, best_confidence: pd.Series | None = None,
                threshold: float | None = None, best_support: pd.Series | None = None) -> pd.DataFrame:
    """``orphans`` (from :func:`orphan_reactions`) with ``ranked`` ("yes"/"no")
    and the final ``reason``: an eligible reaction without any ranked
    candidate (every candidate's features absent) says so, and its
    ``ranked_on`` is emptied. Drops ``eligible``. With ``best_confidence``
    (reaction -> its best candidate's confidence) and ``threshold``, the
    columns ``best_confidence`` and ``no_credible_candidate`` ("yes"/"no";
    both empty for a reaction not ranked or without a confidence, the flag
    also without a threshold) come before ``ranked``; with ``best_support``
    too (reaction -> that candidate's ``held_out_like``), the column
    ``best_held_out_like`` follows ``best_confidence`` (empty where it is)."""
    ranked = set(ranked_reactions)
    out = orphans.copy()
    out["ranked"] = np.where(out["reaction_id"].isin(ranked), "yes", "no")
    lost = out["eligible"] & ~out["reaction_id"].isin(ranked)
    out.loc[lost, "reason"] = "no candidate has data of a source its neighbours have"
    if "ranked_on" in out.columns:
        out.loc[lost, "ranked_on"] = ""
    extra = []
    if best_confidence is not None:
        best = out["reaction_id"].map(best_confidence).where(out["ranked"] == "yes").astype(float)
        out["best_confidence"] = best.round(4)
        flag = np.full(len(out), "", dtype=object)
        if threshold is not None:
            flag = np.where(no_credible_candidate(best.to_numpy(), threshold), "yes", "no").astype(object)
        out["no_credible_candidate"] = np.where(best.isna(), "", flag)
        extra = ["best_confidence", "no_credible_candidate"]
        if best_support is not None:
            out["best_held_out_like"] = out["reaction_id"].map(best_support).where(best.notna()).astype(float).round(1)
            extra.insert(1, "best_held_out_like")
    cols = [c for c in out.columns if c not in ("eligible", "ranked", "reason", *extra)]
    return out[cols + extra + ["ranked", "reason"]].reset_index(drop=True)


def motif_less_validation(true_ranks: pd.DataFrame, method: str, featurizer, top: pd.DataFrame) -> dict:
    """How the validation did on held-out reactions without a motif neighbour
    gene, the case of an orphan ranked on its subsystem or compounds alone.

    Parameters
    ----------
    true_ranks : DataFrame
        ``true_gene_ranks.tsv``: ``method``, ``reaction``, ``rank``,
        ``n_candidates``, one row per held-out reaction and true gene.
    method : str
    featurizer : PairFeaturizer
    top : DataFrame
        The orphan ranking (``reaction`` column).

    Returns
    -------
    dict
        ``orphans_ranked_without_motifs`` (ranked orphans without a motif
        neighbour gene), ``validated_without_motifs_n_reactions`` (such
        held-out reactions of ``method``) and ``validated_without_motifs_``
        ``hit@1``, ``hit@10``, ``median_rank`` over their true genes
        (:func:`geomargin.rank.metrics.ranking_metrics`; NaN without any).
    """
    mine = true_ranks[true_ranks["method"] == method]
    without = [r for r in pd.unique(mine["reaction"]) if not featurizer.has_motif_gene(r)]
    ranks = mine[mine["reaction"].isin(without)]
    m = ranking_metrics(ranks["rank"].to_numpy(), ranks["n_candidates"].to_numpy()
                        if len(ranks) else np.array([np.nan]))
    ranked = pd.unique(top["reaction"]) if len(top) else []
    return {"orphans_ranked_without_motifs": int(sum(not featurizer.has_motif_gene(r) for r in ranked)),
            "validated_without_motifs_n_reactions": len(without),
            **{f"validated_without_motifs_{k}": m[k] for k in ("hit@1", "hit@10", "median_rank")}}


def top1_with_motifs(featurizer, top: pd.DataFrame) -> dict:
    """The rank-1 concentration over the ranked orphans that have a motif
    neighbour gene: the orphans a biologist reads a motif-based ranking for,
    and the set the yeast-GEM issue's bound ("no gene is rank 1 for more
    than 5% of them unless the validation earns it") is stated on. The
    concentration over all ranked orphans (:func:`geomargin.rank.metrics.ranking_quality`)
    also counts those ranked on their subsystem or compounds alone.

    Parameters
    ----------
    featurizer : PairFeaturizer
    top : DataFrame
        The orphan ranking (``reaction``, ``rank``, ``gene``).

    Returns
    -------
    dict
        ``orphans_ranked_with_motifs``, ``orphan_top1_gene_with_motifs``,
        ``orphan_top1_reactions_with_motifs`` and
        ``orphan_top1_share_with_motifs`` (:func:`geomargin.rank.metrics.top1_concentration`
        over those orphans' rank-1 genes).
    """
    first = top[top["rank"] == 1]
    keep = np.array([featurizer.has_motif_gene(r) for r in first["reaction"]], dtype=bool)
    gene, n, share = top1_concentration(first["gene"].astype(str).to_numpy()[keep])
    return {"orphans_ranked_with_motifs": int(first["reaction"][keep].nunique()),
            "orphan_top1_gene_with_motifs": gene, "orphan_top1_reactions_with_motifs": n,
            "orphan_top1_share_with_motifs": share}


def coexpression_r(featurizer, reaction: str, gene: str) -> dict[str, float]:
    """Per motif type, the mean Pearson r of ``gene`` with that type's
    neighbours (:meth:`geomargin.featurize.metabolic.pairs.PairFeaturizer.block_sums` of the
    ``expr`` blocks, summary or pointwise); NaN where the block is absent."""
    return _coexpression_rows(featurizer, featurizer.candidate_matrix(reaction, [gene]))[0]


def _coexpression_rows(featurizer, X: np.ndarray) -> list[dict[str, float]]:
    """:func:`coexpression_r` of every row of a candidate matrix ``X``."""
    if "expr" not in featurizer.sources_:
        return [{t: float("nan") for t in featurizer.motif_types_} for _ in range(len(X))]
    sums = featurizer.block_sums(X, "expr")
    return [{t: float(v) for t, v in zip(featurizer.motif_types_, row)} for row in sums]


def _shared(items_of: Mapping[str, Sequence[str]], gene: str, neighbours: Sequence[str]
            ) -> list[tuple[str, int]]:
    mine = set(items_of.get(gene, ()))
    counts = {}
    for h in neighbours:
        for it in set(items_of.get(h, ())) & mine:
            counts[it] = counts.get(it, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def candidate_evidence(featurizer, decision_function, reaction: str, gene: str, *,
                       names: Mapping[str, str], gene_domains: Mapping[str, Sequence[str]],
                       gene_compartments: Mapping[str, Sequence[str]], top: int = 3) -> dict:
    """Evidence for one (reaction, candidate gene) pair
    (:func:`candidates_evidence` of one candidate).

    Returns
    -------
    dict
        ``motif_blocks`` (motif types with neighbour genes, ","-joined),
        ``supporting_neighbours`` ("ORF(motifs)", ";"-joined: the up to
        ``top`` neighbours whose removal lowers the score most, see
        :func:`supporting_neighbours`), ``supporting_names``
        (their gene names, same order), ``supporting`` (list of (gene, name,
        motifs, drop)), ``coexpr`` (:func:`coexpression_r`),
        ``catalyses_adjacent`` (the related reactions whose gene rule
        already names the candidate, "REACTION(motifs)", ";"-joined: the
        evidence of the ``net`` block of
        :class:`geomargin.featurize.metabolic.pairs.PairFeaturizer`), ``catalyses_in_subsystem``
        (the other model reactions of the reaction's subsystem whose gene rule
        names the candidate, ";"-joined: the evidence of the ``subsystem``
        block; "" without that block), ``similar_compounds`` (the candidate's
        other reactions of the reaction's kind whose compounds are most like
        the reaction's, "REACTION(similarity)", up to 3, ";"-joined: the
        evidence of the ``compound`` block; "" without it), ``shared_domains`` /
        ``shared_compartments`` ("ID(n)" with n the
        number of the reaction's motif neighbour genes that share it, most
        shared first, ";"-joined; the SGD GAF names no InterPro entry, so
        ids only), ``evidence`` (one sentence) and ``neighbours`` (every
        motif neighbour gene of the pair).
    """
    return candidates_evidence(featurizer, decision_function, reaction, [gene], names=names,
                               gene_domains=gene_domains, gene_compartments=gene_compartments, top=top)[0]


def candidates_evidence(featurizer, decision_function, reaction: str, genes: Sequence[str], *,
                        names: Mapping[str, str], gene_domains: Mapping[str, Sequence[str]],
                        gene_compartments: Mapping[str, Sequence[str]], top: int = 3) -> list[dict]:
    """:func:`candidate_evidence` of every candidate in ``genes`` of one
    reaction, each as it would be alone, from one candidate matrix and one
    leave-one-out matrix (:func:`supporting_neighbours_many`)."""
    genes = list(genes)
    X = featurizer.candidate_matrix(reaction, genes)
    supports = supporting_neighbours_many(featurizer, decision_function, reaction, genes, top=top, X=X)
    coexprs = _coexpression_rows(featurizer, X)
    return [_evidence(featurizer, reaction, gene, support, coexpr, names=names, gene_domains=gene_domains,
                      gene_compartments=gene_compartments)
            for gene, support, coexpr in zip(genes, supports, coexprs)]


def _evidence(featurizer, reaction: str, gene: str, support, coexpr, *, names, gene_domains,
              gene_compartments) -> dict:
    """The evidence dict of :func:`candidate_evidence`, given the pair's
    supporting neighbours and co-expression r."""
    nb = featurizer.neighbour_genes(reaction, gene)
    blocks = [t for t, hs in nb.items() if hs]
    all_nb = sorted(set().union(*nb.values())) if nb else []
    g = canonical_gene_id(gene)[0]
    doms = _shared(gene_domains, g, all_nb)
    comps = _shared(gene_compartments, g, all_nb)
    adjacent: dict[str, list[str]] = {}
    if getattr(featurizer, "adjacency", False):
        for t, rs_ in featurizer.adjacency_reactions(reaction, gene).items():
            for o in rs_:
                adjacent.setdefault(o, []).append(t)

    in_subsystem = featurizer.subsystem_reactions(reaction, gene) \
        if getattr(featurizer, "subsystem_block_", False) else []

    similar = featurizer.compound_reactions(reaction, gene) \
        if getattr(featurizer, "compound_kinds_", []) else []

    homologs = featurizer.homologs(reaction, gene) if getattr(featurizer, "homology_block_", False) else []
    kind_doms = featurizer.kind_domains(reaction, gene) if getattr(featurizer, "domain_kinds_", []) else []
    where, here, elsewhere = featurizer.gene_sites(reaction, gene)  # empty lists without the block

    def fmt(items):
        return ";".join(f"{i}({n})" for i, n in items)

    words = []
    if adjacent:
        words.append(f"already catalyses {len(adjacent)} related reaction(s): "
                     + ", ".join(sorted(adjacent)[:5]) + (", ..." if len(adjacent) > 5 else ""))
    if in_subsystem:
        n = featurizer.distinct_reactions(in_subsystem)
        copies = f" (written as {len(in_subsystem)})" if n < len(in_subsystem) else ""
        words.append(f"catalyses {n} other reaction(s) of this subsystem{copies}: "
                     + ", ".join(in_subsystem[:5]) + (", ..." if len(in_subsystem) > 5 else ""))
    if similar:
        words.append("acts on the most similar compounds in " + ", ".join(
            f"{o} ({v:.2f})" for o, v in similar))
    if homologs:
        words.append(homology_phrase(homologs, names))
    if kind_doms and kind_doms[0][1] > 0:
        d, n, m = kind_doms[0]
        kind = featurizer.net.reactions.at[reaction, "reaction_kind"]
        who = "the one other gene" if m == 1 else f"all {m} other genes" if n == m else f"{n} of the {m} other genes"
        words.append(f"{who} with its domain {d} {'catalyses' if m == 1 else 'catalyse'} {kind} reactions")
    if where and here:
        words.append("localized where the reaction runs: " + ", ".join(SITE_LABELS[s] for s in here))
    elif where and elsewhere:
        words.append("localized only elsewhere: " + ", ".join(SITE_LABELS[s] for s in elsewhere)
                     + " (the reaction: " + ", ".join(SITE_LABELS[s] for s in where) + ")")
    if support:
        words.append("supported most by " + ", ".join(
            f"{names.get(h, h) or h} ({m})" for h, m, _ in support))
    rs = [(t, v) for t, v in coexpr.items() if np.isfinite(v)]
    if rs:
        words.append("co-expression r " + ", ".join(f"{v:+.2f} with {t} neighbours" for t, v in rs))
    if doms:
        words.append(f"shares {len(doms)} domain(s) with neighbours, e.g. {doms[0][0]} "
                     f"with {doms[0][1]} of {len(all_nb)}")
    if comps:
        words.append(f"shares {len(comps)} compartment(s), e.g. {comps[0][0]} "
                     f"with {comps[0][1]} of {len(all_nb)}")
    return {
        "motif_blocks": ",".join(blocks),
        "catalyses_adjacent": ";".join(f"{o}({'+'.join(ts)})" for o, ts in sorted(adjacent.items())),
        "catalyses_in_subsystem": ";".join(in_subsystem),
        "similar_compounds": ";".join(f"{o}({v:.2f})" for o, v in similar),
        "supporting_neighbours": ";".join(f"{h}({m})" for h, m, _ in support),
        "supporting_names": ";".join(str(names.get(h, h) or h) for h, _, _ in support),
        "supporting": [(h, str(names.get(h, h) or h), m, d) for h, m, d in support],
        "coexpr": coexpr,
        "shared_domains": fmt(doms),
        "shared_compartments": fmt(comps),
        "evidence": "; ".join(words) if words else "no neighbour supports the score",
        "neighbours": all_nb,
    }


def explain_ranking(top: pd.DataFrame, featurizer, net, decision_function, *, method: str,
                    names: Mapping[str, str], descriptions: Mapping[str, str],
                    gene_domains: Mapping[str, Sequence[str]],
                    gene_compartments: Mapping[str, Sequence[str]],
                    log=None, n_jobs: int = 1) -> pd.DataFrame:
    """Rows of ``results/enzyme_ranking.tsv`` for the ranked candidates ``top``
    (columns ``reaction, rank, gene, score`` as from
    :func:`geomargin.rank.scoring.rank_candidates`; NaN scores should be dropped; with
    ``confidence`` and ``no_credible_candidate`` when calibrated, else those
    columns are empty).

    Returns :data:`RANKING_COLUMNS`, then ``coexpr_r_<motif>`` per motif
    type (rounded to 4 decimals) and ``method``; sorted by reaction id then
    rank. The evidence is computed per reaction, for all its candidates at
    once (:func:`candidates_evidence`), by ``n_jobs`` forked processes
    (:func:`geomargin.common.parallel.fork_map`: the featurizer and fitted models are
    only read; rows keep ``top``'s order, so the table does not depend on
    ``n_jobs``).
    """
    motif_cols = [f"coexpr_r_{t}" for t in featurizer.motif_types_]
    rows = []
    positions = {r: np.flatnonzero(top["reaction"].to_numpy() == r) for r in pd.unique(top["reaction"])}

    def evidence_of(reaction):
        return candidates_evidence(featurizer, decision_function, reaction,
                                   top["gene"].to_numpy()[positions[reaction]].tolist(), names=names,
                                   gene_domains=gene_domains, gene_compartments=gene_compartments)

    evidence = [None] * len(top)
    start = time.perf_counter()
    for reaction, evs in zip(positions, fork_map(evidence_of, positions, n_jobs=n_jobs)):  # in order
        for i, ev in zip(positions[reaction], evs):
            evidence[i] = ev
    if log is not None:
        log.info("explained %d ranked candidates of %d reactions in %.1f s (%d process(es))", len(top),
                 len(positions), time.perf_counter() - start, max(1, int(n_jobs)))
    for row, ev in zip(top.itertuples(index=False), evidence):
        rows.append(_ranking_row(row, ev, net, featurizer, names, descriptions, method))
    table = pd.DataFrame(rows, columns=RANKING_COLUMNS + motif_cols + ["method"])
    return table.sort_values(["reaction_id", "rank"], kind="stable").reset_index(drop=True)


def _ranking_row(row, ev: dict, net, featurizer, names, descriptions, method: str) -> dict:
    """One row of the ranking table from a ranked candidate and its evidence."""
    r, g = row.reaction, row.gene
    info = net.reactions.loc[r]
    rec = {
        "reaction_id": r, "reaction_name": info["name"], "equation": info["equation"],
        "reaction_kind": info["reaction_kind"], "named_diffusion": bool(info["named_diffusion"]),
        "subsystem": info["subsystem"], "ec_numbers": info["ec_numbers"],
        "rank": int(row.rank), "score_rank": int(getattr(row, "score_rank", row.rank)), "gene": g,
        "gene_name": names.get(canonical_gene_id(g)[0], "") or "",
        "gene_description": descriptions.get(canonical_gene_id(g)[0], "") or "",
        "score": round(float(row.score), 6),
        "model_score": round(float(getattr(row, "model_score", row.score)), 6),
        "confidence": round(float(getattr(row, "confidence", np.nan)), 4),
        "held_out_like": round(float(getattr(row, "held_out_like", np.nan)), 1),
        "no_credible_candidate": getattr(row, "no_credible_candidate", ""),
        **{k: ev[k] for k in ("motif_blocks", "catalyses_adjacent", "catalyses_in_subsystem",
                              "similar_compounds", "supporting_neighbours",
                              "supporting_names",
                              "shared_domains", "shared_compartments", "evidence")},
        "method": method,
    }
    for t in featurizer.motif_types_:
        v = ev["coexpr"][t]
        rec[f"coexpr_r_{t}"] = round(v, 4) if np.isfinite(v) else np.nan
    return rec
