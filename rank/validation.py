"""Held-out validation of the enzyme ranking.

Every candidate gene is ranked for the held-out reactions with known genes,
using, for each method, the model of the outer fold that held the reaction
out, beside the non-learned baselines (:data:`geomargin.rank.non_learned.BASELINES`).
All methods share the outer folds (they depend only on labels, reaction
groups and the seed), so each candidate matrix is built once and scored by
every method's fold model (:func:`geomargin.rank.scoring.score_matrix`). A
geometric-margin model is also scored by the margin rule that is not
configured (``"<method>@<rule>"`` rows, never chosen by "auto"), and each
method and baseline is also ranked after each configured gene correction
(``"<method>+<correction>"`` rows), whose reference set is the fold's ranked
reactions. :func:`validate_ranking` returns the ranks of the true genes, the
rank-1 gene of every (ranking, reaction), and one summary row per ranking
with percentile bootstrap intervals over reactions.

Each fold's reactions are split into one part per worker, scored in worker
processes; the main process ranks a fold (and its gene corrections) as soon
as its parts are back, while the workers score the next folds. Processes,
not threads: building the candidate matrices holds the GIL. The workers are
forked, so they share the featurizer and the fold models without pickling
them (threads on other platforms than Linux, where fork is unsafe). BLAS
and OpenMP get one thread each: the parts already use every core, and
oversubscribed OpenMP slows gradient boosting's scoring by an order of
magnitude.
"""

from __future__ import annotations

import copy
import logging
import multiprocessing as mp
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.rank.non_learned import ADJACENCY, BASELINES, baseline_scores
from geomargin.rank.calibration import CALIBRATION_COLUMNS, calibration_rows
from geomargin.rank.evidence_flags import CANDIDATE_FLAGS, HOMOLOGY_FLAG, candidate_flag_names, candidate_flags
from geomargin.rank.metrics import bootstrap_ranking_metrics, choose_ranking_method, top1_concentration, top1_record
from geomargin.rank.scoring import (MARGIN_RULES, candidate_order, correct_scores, gene_id_ranks, no_evidence_last,
                          ranking_decisions, ranking_name, ranks_in_order, score_matrix)

__all__ = ["RANK_COLUMNS", "TOP_COLUMNS", "check_same_folds", "validated_rankings", "fold_reactions",
           "beats_baselines", "validation_table", "validate_ranking", "calibration_table"]

#: Outer folds whose held-out reactions are being scored at once.
_FOLDS_AHEAD = 2

#: Columns of the ranks of the true genes (``true_gene_ranks.tsv``).
RANK_COLUMNS = ["method", "fold", "reaction", "gene", "rank", "n_candidates"]
#: Columns of the rank-1 genes (``top_genes.tsv``).
TOP_COLUMNS = ["method", "fold", "reaction", "top_gene", "top_is_true", "reaction_kind"]


def check_same_folds(cvs: Mapping[str, object]) -> list:
    """The outer test folds shared by every cross-validation in ``cvs``
    ({method: :class:`geomargin.models.selection.CVResult`}).

    Raises
    ------
    ValueError
        When the folds of a method differ from those of the first.
    """
    methods = list(cvs)
    reference = cvs[methods[0]].test_index
    for method, cv in cvs.items():
        if len(cv.test_index) != len(reference) or any(
                not np.array_equal(a, b) for a, b in zip(cv.test_index, reference)):
            raise ValueError(f"the outer folds of {method!r} differ from those of {methods[0]!r}; "
                             "rerun their cross-validation with the same seed and data")
    return reference


def validated_rankings(featurizer, cvs: Mapping[str, object], margin_rule: str,
                       gene_corrections: Sequence[str]) -> dict:
    """What the validation ranks.

    Returns
    -------
    dict
        ``baselines`` (the adjacency baseline only with the featurizer's net
        blocks), ``other_rule`` (the margin rule that is not ``margin_rule``),
        ``with_scales`` (the methods scored by both rules), ``scored`` (the
        baselines, the methods and the ``"<method>@<other_rule>"`` rows),
        ``corrections`` ({scored name: ["none", *gene corrections]}; the
        other rule's rows are not corrected) and ``names`` (every ranking
        name, :func:`geomargin.rank.scoring.ranking_name`).

    Examples
    --------
    >>> class _Geo:
    ...     def scales(self, X): ...
    >>> class _CV:
    ...     models = [_Geo()]
    >>> class _F:
    ...     adjacency = False
    >>> v = validated_rankings(_F(), {"geometric": _CV()}, "scaled", ["centred"])
    >>> v["scored"], v["names"]
    (['coexpr', 'geometric', 'geometric@unscaled'], ['coexpr', 'coexpr+centred', 'geometric', 'geometric+centred', 'geometric@unscaled'])
    """
    baselines = [b for b in BASELINES if b != ADJACENCY or getattr(featurizer, "adjacency", False)]
    other_rule = next(r for r in MARGIN_RULES if r != margin_rule)
    with_scales = [m for m, cv in cvs.items() if hasattr(cv.models[0], "scales")]
    scored = [*baselines, *cvs, *(f"{m}@{other_rule}" for m in with_scales)]
    corrections = {name: ["none", *(gene_corrections if "@" not in name else [])] for name in scored}
    names = [ranking_name(n, c) for n in scored for c in corrections[n]]
    return {"baselines": baselines, "other_rule": other_rule, "with_scales": with_scales,
            "scored": scored, "corrections": corrections, "names": names}


def fold_reactions(instances: pd.DataFrame, test_idx, fold: int, *, per_fold: int, seed: int,
                   gene_corrections: Sequence[str] = ()) -> tuple[list[str], int]:
    """The fold's held-out reactions with known genes (all of them, or a
    seeded sample of ``per_fold`` when 0 < ``per_fold`` < their number),
    and the number held out.

    Raises
    ------
    ValueError
        When gene corrections are configured and fewer than 2 reactions are
        ranked (a correction compares each gene's scores over them).

    Examples
    --------
    >>> inst = pd.DataFrame({"reaction": ["b", "a", "a", "c"], "label": [1, 1, 0, 0]})
    >>> fold_reactions(inst, [0, 1, 2, 3], 1, per_fold=0, seed=0)
    (['a', 'b'], 2)
    """
    held = instances.iloc[test_idx]
    reactions = sorted(held.loc[held["label"] == 1, "reaction"].unique())
    n_held = len(reactions)
    if 0 < per_fold < n_held:
        rng = np.random.default_rng([seed, fold])
        reactions = sorted(rng.choice(reactions, size=per_fold, replace=False))
    if gene_corrections and len(reactions) < 2:
        raise ValueError(f"outer fold {fold} ranks {len(reactions)} reaction(s) with known genes, "
                         f"but the gene corrections {list(gene_corrections)} compare each gene's "
                         "scores over at least 2 reactions ranked together; set "
                         "metabolic.ranking.gene_corrections to [], "
                         "metabolic.ranking.validation_reactions_per_fold to 0 or >= 2, "
                         "or use fewer folds (metabolic.n_splits)")
    return reactions, n_held


class _PartScorer:
    """Scores a part of a fold's reactions against every candidate with the
    baselines and every method's fold model: ``(reactions, candidates,
    len(scored))``, the last axis in the order of ``plan["scored"]``, and
    the candidates' flags ``(reactions, candidates, n_flags)``
    (:func:`geomargin.rank.evidence_flags.candidate_flags`)."""

    def __init__(self, featurizer, cvs, candidates, plan, margin_rule, batch_size, shared_models):
        self.featurizer, self.cvs, self.candidates = featurizer, cvs, candidates
        self.plan, self.margin_rule, self.batch_size = plan, margin_rule, batch_size
        self.shared_models = shared_models

    def __call__(self, fold: int, reactions: list[str]) -> np.ndarray:
        plan, featurizer, margin_rule = self.plan, self.featurizer, self.margin_rule
        # every model once per batch; a geometric-margin model gives both rules from one pass.
        # A forked worker has its own copy of the models; with threads each part copies them,
        # as some keep per-call state
        own = (lambda model: model) if self.shared_models else copy.deepcopy
        score_fns = {m: ranking_decisions(own(cv.models[fold - 1]),
                                          [margin_rule, plan["other_rule"]] if m in plan["with_scales"]
                                          else [margin_rule])
                     for m, cv in self.cvs.items()}

        def score(reaction: str, genes: list[str]) -> np.ndarray:
            X = featurizer.candidate_matrix(reaction, genes)
            columns = {name: baseline_scores(name, featurizer, X) for name in plan["baselines"]}
            for method, fn in score_fns.items():
                for rule, s in fn(X).items():
                    name = method if rule == margin_rule else f"{method}@{rule}"
                    columns[name] = no_evidence_last(s, X)
            # the candidate flags ride along as the last columns
            return np.column_stack([*(columns[name] for name in plan["scored"]), candidate_flags(featurizer, X)])
        S = score_matrix(score, reactions, self.candidates, self.batch_size,
                         n_scores=len(plan["scored"]) + len(candidate_flag_names(featurizer)))
        n = len(plan["scored"])
        return S[:, :, :n], S[:, :, n:].astype(bool)


#: The part scorer of a worker (set in each worker by :func:`_init_worker`:
#: a forked process inherits it without pickling)
_part_scorer: _PartScorer | None = None


def _init_worker(scorer: _PartScorer) -> None:
    global _part_scorer
    _part_scorer = scorer


def _score_part(fold: int, reactions: list[str]) -> tuple[np.ndarray, np.ndarray]:
    return _part_scorer(fold, reactions)


def _rank_fold(fold: int, reactions: list[str], S3: np.ndarray, plan: dict, net, candidates,
               gene_rank: np.ndarray, E: np.ndarray | None = None, featurizer=None, top_n: int = 0
               ) -> tuple[list[tuple], list[tuple], dict]:
    """Ranks of the true genes, and the rank-1 gene, of the fold's reactions,
    for every ranking (the gene corrections take the fold's reactions as the
    reference set); with ``top_n`` > 0, also each ranking's calibration rows
    of the fold ({name: [dict of arrays per reaction]},
    :func:`geomargin.rank.calibration.calibration_rows`, with ``E`` the evidence flags)."""
    rows, tops = [], []
    calib: dict[str, list[dict]] = {}
    cand_ids = np.array([canonical_gene_id(g)[0] for g in candidates], dtype=object) if top_n else None
    motifs = [bool(featurizer.has_motif_gene(r)) for r in reactions] if top_n else None
    flags = candidate_flag_names(featurizer) if top_n else None
    kind_of = net.reactions["reaction_kind"] if "reaction_kind" in net.reactions.columns else None
    true = [list(net.reactions.at[reaction, "genes"]) for reaction in reactions]
    where = {g: i for i, g in enumerate(candidates)}  # distinct (validate_ranking checks)
    true_ids = [{canonical_gene_id(g)[0] for g in genes} for genes in true]
    kinds = [kind_of.get(reaction, "") if kind_of is not None else "" for reaction in reactions]
    for j, method in enumerate(plan["scored"]):
        for correction in plan["corrections"][method]:
            name = ranking_name(method, correction)
            S = correct_scores(S3[:, :, j], correction)
            for i, reaction in enumerate(reactions):
                s = S[i]
                order = candidate_order(s, gene_rank)
                ranks = ranks_in_order(order, where, true[i])
                rows += [(name, fold, reaction, g, r, len(candidates)) for g, r in ranks.items()]
                first = order[0]
                top = candidates[first] if not np.isnan(s[first]) else ""
                tops.append((name, fold, reaction, top,
                             bool(top) and canonical_gene_id(top)[0] in true_ids[i], kinds[i]))
                if top_n:
                    c = calibration_rows(s, order, top_n, E[i], flags)
                    c.update(fold=fold, reaction=reaction, reaction_kind=kinds[i], motifs=motifs[i],
                             label=np.isin(cand_ids[c["index"]], list(true_ids[i])))
                    calib.setdefault(name, []).append(c)
    return rows, tops, calib


def validation_table(ranks: pd.DataFrame, tops: pd.DataFrame, names: Sequence[str], n_candidates: int,
                     n_bootstrap: int, seed: int) -> pd.DataFrame:
    """One row per ranking ``names``: the bootstrap metrics of its true
    gene ranks (:func:`geomargin.rank.metrics.bootstrap_ranking_metrics`), and its
    most frequent rank-1 gene (:func:`geomargin.rank.metrics.top1_concentration`) with
    how often that gene was right when first (``top1_precision``, against
    hit@1)."""
    summary = []
    for method in names:
        r = ranks[ranks["method"] == method]
        m = bootstrap_ranking_metrics(r, n_candidates, n_boot=n_bootstrap, seed=seed)
        top_gene, best, share = top1_concentration(tops.loc[tops["method"] == method, "top_gene"])
        precision = top1_record(tops, method, top_gene)["precision"] if best else np.nan
        summary.append({"method": method, "n_reactions": m.pop("n_reactions"),
                        "n_true_pairs": m.pop("n_true"), **m,
                        "top1_gene": top_gene, "top1_share": share,
                        "top1_precision": precision})
    return pd.DataFrame(summary)


def beats_baselines(table: pd.DataFrame, baselines: Sequence[str], methods: Sequence[str],
                    log: logging.Logger | None = None) -> pd.DataFrame:
    """Add a ``beats_<baseline>`` column per baseline to ``table`` (in
    place, returned): whether a ranking beats the baseline in both hit@50
    and MRR (False for the baselines' own rows); a warning is logged for
    each of ``methods`` that does not.

    Examples
    --------
    >>> t = pd.DataFrame({"method": ["coexpr", "a", "b"], "hit@50": [0.2, 0.3, 0.3],
    ...                   "mrr": [0.05, 0.1, 0.01]})
    >>> beats_baselines(t, ["coexpr"], ["a", "b"])["beats_coexpr"].tolist()
    [False, True, False]
    """
    for b in baselines:
        base = table.set_index("method").loc[b]
        col = f"beats_{b}"
        table[col] = (table["hit@50"] > base["hit@50"]) & (table["mrr"] > base["mrr"])
        table.loc[table["method"].isin(baselines), col] = False
        for method in table.loc[~table[col] & table["method"].isin(methods), "method"]:
            if log is not None:
                log.warning("%s does not beat the %s baseline (hit@50 and MRR)", method, b)
    return table


def validate_ranking(featurizer, net, candidates: Sequence[str], instances: pd.DataFrame,
                     cvs: Mapping[str, object], *, margin_rule: str, gene_corrections: Sequence[str] = (),
                     per_fold: int = 0, batch_size: int = 2048, n_bootstrap: int = 1000, seed: int = 0,
                     n_jobs: int = 1, log: logging.Logger | None = None, calibration_top_n: int = 0,
                     calibrate: str = "auto"
                     ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Rank every candidate for the held-out reactions of every outer fold.

    Parameters
    ----------
    featurizer : PairFeaturizer
    net : DirectedNetwork
        Gives each reaction's true genes and ``reaction_kind``.
    candidates : sequence of str
    instances : DataFrame
        The training pairs (``reaction``, ``label``), indexed as the folds'
        ``test_index``.
    cvs : mapping
        {method: :class:`geomargin.models.selection.CVResult`} with the same outer folds.
    margin_rule : {"scaled", "unscaled"}
    gene_corrections : sequence of str
    per_fold : int, default 0
        Held-out reactions ranked per fold (0: all of them).
    batch_size, n_bootstrap, seed : int
    n_jobs : int, default 1
        Worker processes (threads where fork is unsafe).
    log : Logger, optional
    calibration_top_n : int, default 0
        Calibration rows per held-out reaction (the rows the final ranking
        shows, ``metabolic.ranking.top_n``); 0: none.
    calibrate : str, default "auto"
        The ranking whose calibration rows are returned: a ranking name, or
        "auto" for the one the final ranking's "auto" chooses (best MRR,
        :func:`geomargin.rank.metrics.choose_ranking_method`).

    Returns
    -------
    ranks : DataFrame
        :data:`RANK_COLUMNS`, one row per (ranking, true pair).
    tops : DataFrame
        :data:`TOP_COLUMNS`, one row per (ranking, held-out reaction).
    table : DataFrame
        :func:`validation_table` with the ``beats_<baseline>`` columns
        (:func:`beats_baselines`).
    calibration : DataFrame
        :func:`calibration_table` of the ranking ``calibrate``: its
        ``calibration_top_n`` best candidates of every held-out reaction
        (empty when ``calibration_top_n`` is 0 or ``calibrate`` is not a
        validated ranking).
    """
    log = log if log is not None else logging.getLogger(__name__)
    candidates = list(candidates)
    if len(set(candidates)) != len(candidates):
        dup = next(g for g in candidates if candidates.count(g) > 1)
        raise ValueError(f"validate_ranking: candidate gene {dup!r} is listed more than once; expected "
                         "distinct candidates")
    reference = check_same_folds(cvs)
    plan = validated_rankings(featurizer, cvs, margin_rule, gene_corrections)
    n_folds = len(reference)
    gene_rank = gene_id_ranks(candidates)
    start = time.perf_counter()
    n_workers = max(1, n_jobs)
    fork = sys.platform.startswith("linux")  # fork is unsafe after BLAS/ObjC start-up on macOS
    scorer = _PartScorer(featurizer, cvs, candidates, plan, margin_rule, batch_size, shared_models=fork)
    results = []
    with threadpool_limits(1):
        with (ProcessPoolExecutor(max_workers=n_workers, mp_context=mp.get_context("fork"),
                                  initializer=_init_worker, initargs=(scorer,)) if fork
              else ThreadPoolExecutor(max_workers=n_workers, initializer=_init_worker,
                                      initargs=(scorer,))) as pool:
            folds = []
            for fold, idx in enumerate(reference, start=1):
                reactions, n_held = fold_reactions(instances, idx, fold, per_fold=per_fold, seed=seed,
                                                   gene_corrections=gene_corrections)
                log.info("fold %d/%d: ranking %d of %d held-out reactions against %d candidates",
                         fold, n_folds, len(reactions), n_held, len(candidates))
                folds.append((fold, reactions))
            def submit(k):
                fold, reactions = folds[k]
                return [pool.submit(_score_part, fold, list(part)) for part in np.array_split(
                    np.array(reactions, dtype=object), min(n_workers, max(1, len(reactions))))]

            # at most _FOLDS_AHEAD folds in flight: the workers score the next
            # fold while this process ranks one, and finished score arrays
            # (reactions x candidates x rankings) do not pile up here
            pending = {k: submit(k) for k in range(min(_FOLDS_AHEAD, len(folds)))}
            for k, (fold, reactions) in enumerate(folds):
                futures = pending.pop(k)
                parts = [f.result() for f in futures]
                if k + _FOLDS_AHEAD < len(folds):
                    pending[k + _FOLDS_AHEAD] = submit(k + _FOLDS_AHEAD)
                S3 = np.concatenate([p[0] for p in parts])
                E = np.concatenate([p[1] for p in parts])
                futures.clear()
                del parts
                log.info("fold %d/%d: %d reactions scored (%.0f s)", fold, n_folds, len(reactions),
                         time.perf_counter() - start)
                results.append(_rank_fold(fold, reactions, S3, plan, net, candidates, gene_rank, E,
                                          featurizer, calibration_top_n))
                del S3, E
    _init_worker(None)  # the thread fallback set it in this process
    ranks = pd.DataFrame([row for fold_rows, _, _ in results for row in fold_rows], columns=RANK_COLUMNS)
    tops = pd.DataFrame([t for _, fold_tops, _ in results for t in fold_tops], columns=TOP_COLUMNS)
    table = validation_table(ranks, tops, plan["names"], len(candidates), n_bootstrap, seed)
    beats_baselines(table, plan["baselines"], list(cvs), log)
    log.info("ranked %d reactions in %.0f s\n%s", ranks["reaction"].nunique(),
             time.perf_counter() - start, table.to_string(index=False))
    calibration = pd.DataFrame(columns=CALIBRATION_COLUMNS)
    if calibration_top_n:
        name = choose_ranking_method(table, "mrr") if calibrate == "auto" else calibrate
        if name not in plan["names"]:
            log.warning("the final ranking %r is not validated (validated: %s): its candidates get no "
                        "confidence", name, ", ".join(plan["names"]))
        else:
            calibration = calibration_table(
                [c for _, _, calib in results for c in calib.get(name, [])], candidates, name)
            log.info("calibration rows of %s: %d (%d true genes) over %d held-out reactions", name,
                     len(calibration), int(calibration["label"].sum()), calibration["reaction"].nunique())
    return ranks, tops, table, calibration


def calibration_table(parts: Sequence[dict], candidates: Sequence[str], name: str) -> pd.DataFrame:
    """The calibration rows (:data:`geomargin.rank.calibration.CALIBRATION_COLUMNS`, plus
    ``ranking`` = ``name`` first, and :data:`geomargin.rank.evidence_flags.HOMOLOGY_FLAG`
    before ``label`` where the parts have it) from :func:`_rank_fold`'s
    per-reaction parts."""
    cands = np.asarray(list(candidates), dtype=object)
    frames = []
    for c in parts:
        n = len(c["index"])
        frames.append(pd.DataFrame({
            "fold": np.full(n, c["fold"]), "reaction": np.full(n, c["reaction"], dtype=object),
            "reaction_kind": np.full(n, c["reaction_kind"], dtype=object), "gene": cands[c["index"]],
            "rank": c["rank"], "score": c["score"], "score_z": c["score_z"], "gap_next_z": c["gap_next_z"],
            "gap_top_z": c["gap_top_z"], "motifs": np.full(n, c["motifs"]),
            **{flag: c[flag] for flag in (*CANDIDATE_FLAGS, HOMOLOGY_FLAG) if flag in c},
            "label": c["label"].astype(int)}))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=CALIBRATION_COLUMNS)
    out.insert(0, "ranking", name)
    return out
