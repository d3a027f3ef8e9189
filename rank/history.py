"""Release history: choose the shown ranking and fit its confidence on earlier
model releases, test both on a later one.

Cross-validation holds out reactions that *have* genes; a real orphan is
another population. The release history gives real orphans with answers:
each pair ``[older, newer]`` of model releases is a time split
(:mod:`geomargin.rank.time_split`): the older release's orphans, ranked by the older
run's models, scored against the genes the newer release gave them, by
every ranking. The *history* pairs are learned from (the choice of the
ranking, :func:`choose_on_history`; the confidence,
:class:`geomargin.rank.history_calibrator.HistoryCalibrator`; the "no credible candidate" threshold,
:func:`history_threshold`); the *test* pair is scored exactly the same way
and only reported. Its older release is no earlier than the newest release
of the history (:func:`check_release_history`), so nothing learned from
history was curated after the test began.

The confidence is conditional: the probability that a shown candidate is
among the genes a later release gives the reaction, *if* it gives the
reaction any. :func:`gain_shares` gives the unconditional view: the share
of ranked orphans of a kind that gained any gene between the history's
releases.

Example
-------
>>> plan = check_release_history({"releases": ["a", "b", "c", "d"], "history": [["a", "b"]],
...                                "test": ["c", "d"]}, ["a", "b", "c", "d"])
>>> plan.olders, plan.history, plan.test
(('a', 'c'), (('a', 'b'),), ('c', 'd'))
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from geomargin.common.exceptions import ConfigValueError
from geomargin.common.io import save_pickle_atomic
from geomargin.rank.credible import lifting_threshold
from geomargin.rank.history_calibrator import FIRST_SCORE_Z, HistoryCalibrator
from geomargin.rank.time_split import time_split_metrics

__all__ = ["ReleasePlan", "HistoryModel", "check_release_history", "older_run_config", "score_order_rows", "choose_on_history",
           "labelled_rows", "history_threshold", "credible_possible", "gain_shares", "fit_history", "SCORE_ORDER",
           "NO_THRESHOLD"]

_KEY = "metabolic.release_history"

#: Suffix the time split gives a ranking's rows in score order when its
#: default ranking is listed by confidence (:mod:`geomargin.rank.time_split`).
SCORE_ORDER = " (score order)"

#: How :func:`history_threshold`'s rule begins when it found no threshold (no orphan can be credible).
NO_THRESHOLD = "none: "



@dataclass(frozen=True)
class ReleasePlan:
    """The checked release history: the pairs, and the older releases whose
    pipeline must run (history's, then the test's, each once)."""

    releases: tuple
    history: tuple
    test: tuple

    @property
    def olders(self) -> tuple:
        return tuple(dict.fromkeys([o for o, _ in self.history] + [self.test[0]]))

    def pairs(self, scope: str) -> tuple:
        """The pairs learned from: ``"history"`` alone (what the test is
        scored with), or ``"all"`` (history and test: today's ranking)."""
        if scope == "history":
            return self.history
        if scope == "all":
            return tuple(dict.fromkeys([*self.history, self.test]))
        raise ValueError(f"scope is {scope!r}; expected 'history' or 'all'")


def check_release_history(cfg: Mapping, datasets: Iterable[str]) -> ReleasePlan:
    """Check ``metabolic.release_history`` against the input sets.

    Every name is an input set; ``releases`` names each once, oldest first;
    every pair is ``[older, newer]`` in that order; the test's older release
    is no earlier than the newest release of the history (so no history
    pair was curated after the test began). A violation raises
    :class:`ConfigValueError` naming the key.

    Examples
    --------
    >>> check_release_history({"releases": ["a", "b", "c"], "history": [["a", "c"]],
    ...                        "test": ["b", "c"]}, ["a", "b", "c"])
    Traceback (most recent call last):
    ...
    geomargin.common.exceptions.ConfigValueError: config: metabolic.release_history.test starts at 'b', before 'c', the newest release of metabolic.release_history.history: the test must begin no earlier than the newest history release, so that nothing learned from history was curated after it; name a later test or an earlier history
    """
    datasets = set(datasets)
    releases = [str(r) for r in cfg["releases"]]
    for r in releases:
        if r not in datasets:
            raise ConfigValueError(f"config: {_KEY}.releases names {r!r}, which is not one of the input sets "
                                   f"under metabolic.datasets ({', '.join(sorted(datasets))})")
    if len(set(releases)) != len(releases):
        raise ConfigValueError(f"config: {_KEY}.releases names a release twice ({releases}); name each once, "
                               "oldest first")
    where = {r: i for i, r in enumerate(releases)}

    def pair(key, value):
        value = [str(v) for v in value]
        for r in value:
            if r not in where:
                raise ConfigValueError(f"config: {key} names {r!r}, which is not in {_KEY}.releases "
                                       f"({', '.join(releases)})")
        if where[value[0]] >= where[value[1]]:
            raise ConfigValueError(f"config: {key} is {value}, but {value[0]!r} is not older than {value[1]!r} "
                                   f"in {_KEY}.releases; expected [older, newer]")
        return tuple(value)

    history = tuple(dict.fromkeys(pair(f"{_KEY}.history", h) for h in cfg["history"]))
    test = pair(f"{_KEY}.test", cfg["test"])
    newest = max((n for _, n in history), key=where.__getitem__)
    if where[test[0]] < where[newest]:
        raise ConfigValueError(
            f"config: {_KEY}.test starts at {test[0]!r}, before {newest!r}, the newest release of "
            f"{_KEY}.history: the test must begin no earlier than the newest history release, so that nothing "
            "learned from history was curated after it; name a later test or an earlier history")
    return ReleasePlan(tuple(releases), history, test)


def older_run_config(config: Mapping, older: str) -> dict:
    """The workflow config of the run of input set ``older`` as an older
    release (of ``metabolic.time_split`` or of the release history).

    A deep copy of ``config`` with ``older`` as ``metabolic.dataset``,
    without the time split and the release history (an older run has none
    of its own), and with ``metabolic.older_runs`` applied: its
    ``param_grids`` replace the grids of the methods it names (the other
    methods keep theirs), its ``validation_reactions_per_fold`` replaces
    ``metabolic.ranking.validation_reactions_per_fold``. ``config`` is not
    changed.

    Examples
    --------
    >>> cfg = {"metabolic": {"dataset": "new", "param_grids": {"a": [{"C": [1, 2]}], "b": [{"C": [3]}]},
    ...                      "ranking": {"validation_reactions_per_fold": 0},
    ...                      "older_runs": {"param_grids": {"a": [{"C": [1]}]},
    ...                                     "validation_reactions_per_fold": 200}}}
    >>> met = older_run_config(cfg, "old")["metabolic"]
    >>> met["dataset"], met["param_grids"], met["ranking"], "older_runs" in met
    ('old', {'a': [{'C': [1]}], 'b': [{'C': [3]}]}, {'validation_reactions_per_fold': 200}, False)
    """
    cfg = copy.deepcopy(dict(config))
    met = cfg["metabolic"]
    met["dataset"] = older
    met.pop("time_split", None)
    met.pop("release_history", None)
    overrides = met.pop("older_runs", None) or {}
    met["param_grids"] = {**met.get("param_grids", {}), **overrides.get("param_grids", {})}
    if overrides.get("validation_reactions_per_fold") is not None:
        met["ranking"]["validation_reactions_per_fold"] = overrides["validation_reactions_per_fold"]
    return cfg


def score_order_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """A time split's per-reaction rows (``time_split_reactions.tsv``) with
    every ranking in score order: where the split lists its default ranking
    by confidence, its ``<ranking> (score order)`` rows replace them under
    the plain name.

    >>> rows = pd.DataFrame({"ranking": ["m", "m (score order)", "n"], "best_rank": [1, 2, 3]})
    >>> score_order_rows(rows).values.tolist()
    [['m', 2], ['n', 3]]
    """
    names = rows["ranking"].astype(str)
    scored = names.str.endswith(SCORE_ORDER)
    base = names.str.slice(0, -len(SCORE_ORDER)).where(scored, names)
    replaced = set(base[scored])
    keep = scored | ~names.isin(replaced)
    return rows[keep.to_numpy()].assign(ranking=base[keep].to_numpy()).reset_index(drop=True)


def choose_on_history(rows: pd.DataFrame, cv_validation: pd.DataFrame, candidates: Sequence[str], *,
                      choose_by: str = "mrr", min_reactions: int = 30) -> dict:
    """The shown ranking, chosen on the history's benchmark reactions.

    Parameters
    ----------
    rows : DataFrame
        The history pairs' per-reaction rows, pooled
        (:func:`score_order_rows` of each ``time_split_reactions.tsv``,
        with a column ``split``): ``ranking``, ``reaction``, ``best_rank``,
        ``n_candidates``, ``n_later_candidates``.
    cv_validation : DataFrame
        ``ranking_validation.tsv`` of the run the scope may know (``method``, ``mrr``,
        ``hit@1``, ``hit@10``): the fallback, and the choice's CV figures.
    candidates : sequence of str
        The rankings today's run can show (in this order: ties go to the
        earlier one).
    choose_by : {"mrr", "hit@1", "hit@5", "hit@20"}
        The history figure that chooses.
    min_reactions : int
        With fewer history benchmark reactions (per ranking, pooled over the
        pairs), the cross-validated MRR chooses instead.

    Returns
    -------
    dict
        ``ranking``, ``chosen_on`` (``"history"`` or ``"cross-validation"``),
        ``chosen_by`` (one sentence: the rule), ``history_reactions``, the
        choice's history figures ``history_<m>`` and CV figures ``cv_<m>``,
        and ``cv_best_ranking``, ``cv_best_mrr`` (the candidate the
        cross-validated MRR alone would choose, and its MRR).

    Examples
    --------
    >>> rows = pd.DataFrame({"split": "a->b", "ranking": ["m", "m", "n", "n"], "reaction": ["r", "s"] * 2,
    ...                      "best_rank": [1, 0, 3, 3], "n_candidates": 10, "n_later_candidates": 1})
    >>> cv = pd.DataFrame({"method": ["m", "n"], "mrr": [0.2, 0.5], "hit@1": [0.1, 0.4], "hit@10": [0.5, 0.7]})
    >>> choose_on_history(rows, cv, ["m", "n"], min_reactions=2)["ranking"]
    'm'
    >>> choose_on_history(rows, cv, ["m", "n"], min_reactions=3)["chosen_on"]
    'cross-validation'
    """
    if choose_by not in ("mrr", "hit@1", "hit@5", "hit@20"):
        raise ValueError(f"choose_by is {choose_by!r}; expected mrr, hit@1, hit@5 or hit@20")
    candidates = [str(c) for c in candidates]
    figures = {}
    for name in candidates:
        mine = rows[rows["ranking"].astype(str) == name]
        if len(mine):
            figures[name] = time_split_metrics(mine, n_boot=1, seed=0, ks=(1, 5, 20))
    n = max((f["reactions"] for f in figures.values()), default=0)
    cv = cv_validation.set_index(cv_validation["method"].astype(str))
    if n >= min_reactions and figures:
        values = np.array([figures[c][choose_by] if c in figures else np.nan for c in candidates])
        ranking = candidates[int(np.nanargmax(values))]
        on = "history"
        rule = (f"best {choose_by} over the {n} history benchmark reactions (at least {min_reactions} needed), "
                f"among {len(figures)} rankings")
    else:
        known = [c for c in candidates if c in cv.index]
        if not known:
            raise ValueError("no candidate ranking is in the cross-validation table: nothing to fall back on")
        mrr = pd.to_numeric(cv.loc[known, "mrr"], errors="coerce").to_numpy()
        ranking = known[int(np.nanargmax(mrr))]
        on = "cross-validation"
        rule = (f"best cross-validated MRR: the history has {n} benchmark reactions, fewer than the "
                f"{min_reactions} of {_KEY}.min_reactions")
    out = {"ranking": ranking, "chosen_on": on, "chosen_by": rule, "history_reactions": int(n)}
    f = figures.get(ranking, {})
    for m in ("hit@1", "hit@5", "hit@20", "mrr"):
        out[f"history_{m}"] = float(f.get(m, np.nan))
    for m in ("hit@1", "hit@10", "mrr"):
        out[f"cv_{m}"] = float(cv.loc[ranking, m]) if ranking in cv.index and m in cv.columns else np.nan
    # what the cross-validation alone would have shown: how much CV MRR the history's choice gives up
    known = [c for c in candidates if c in cv.index]
    mrr = pd.to_numeric(cv.loc[known, "mrr"], errors="coerce") if known else pd.Series(dtype=float)
    best = mrr.idxmax() if len(mrr) and mrr.notna().any() else ""
    out["cv_best_ranking"], out["cv_best_mrr"] = best, float(mrr[best]) if best else np.nan
    return out


def labelled_rows(rows: pd.DataFrame, ranking: str, top_n: int, ranked_on: Mapping[str, str] | None = None
                  ) -> pd.DataFrame:
    """The shown rows of ``ranking`` on a time split, labelled.

    From the per-reaction rows (``reaction``, ``reaction_kind``, ``ranked``,
    ``n_candidates``, ``later_gene_ranks``, and ``ranked_on`` unless given
    by ``ranked_on``): one row per ranked benchmark reaction and shown rank
    ``1 .. min(top_n, n_candidates)``, ``label`` 1 where a later gene
    stands at that rank, ``motifs`` whether it was ranked on motif
    neighbours. Where the rows have ``homology_ranks`` (the ``homology``
    block: :func:`geomargin.rank.time_split.time_split_rows`), also ``homology``:
    the candidate at that rank has homology evidence; where they have
    ``first_score_z``, that column too (the reaction's, on each of its rows;
    an empty field is NaN).

    >>> rows = pd.DataFrame({"ranking": "m", "reaction": ["r"], "reaction_kind": ["transport"],
    ...                      "ranked": [True], "n_candidates": [9], "later_gene_ranks": ["2;0"],
    ...                      "ranked_on": ["motifs"]})
    >>> labelled_rows(rows, "m", 3)[["rank", "label"]].values.tolist()
    [[1, 0], [2, 1], [3, 0]]
    >>> labelled_rows(rows.assign(homology_ranks="1;3"), "m", 3)["homology"].tolist()
    [True, False, True]
    """
    homology = "homology_ranks" in rows.columns
    standing = FIRST_SCORE_Z in rows.columns
    columns = ["reaction", "rank", "reaction_kind", "ranked_on", "motifs", *(["homology"] if homology else []),
               *([FIRST_SCORE_Z] if standing else []), "label"]
    mine = rows[(rows["ranking"].astype(str) == ranking) & rows["ranked"].astype(str).str.lower().eq("true")]
    out = []
    for r in mine.to_dict("records"):
        later = {int(k) for k in str(r["later_gene_ranks"]).split(";") if k not in ("", "0", "nan")}
        similar = _rank_set(r["homology_ranks"]) if homology else set()
        on = ranked_on[r["reaction"]] if ranked_on is not None else r["ranked_on"]
        for k in range(1, min(int(top_n), int(r["n_candidates"])) + 1):
            row = {"reaction": r["reaction"], "rank": k, "reaction_kind": r["reaction_kind"],
                   "ranked_on": on, "motifs": "motifs" in str(on).split("+"), "label": int(k in later)}
            if homology:
                row["homology"] = k in similar
            if standing:
                row[FIRST_SCORE_Z] = float(pd.to_numeric(r[FIRST_SCORE_Z], errors="coerce"))
            out.append(row)
    return pd.DataFrame(out, columns=columns)


def _rank_set(value) -> set[int]:
    """The ranks of a ``;``-joined field (empty or NaN: none; a lone rank
    read back as a float counts as its integer)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return set()
    return {int(float(k)) for k in str(value).split(";") if k.strip() not in ("", "nan")}


@dataclass
class HistoryModel:
    """What a release-history scope hands to the ranking: the chosen ranking
    (:func:`choose_on_history`), its confidence (a fitted
    :class:`HistoryCalibrator`), the "no credible candidate" threshold and
    its rule (:func:`history_threshold`), the per-kind share of ranked
    orphans that gained any gene (:func:`gain_shares`), and the pairs it
    was learned from."""

    choice: dict
    calibrator: HistoryCalibrator
    threshold: float
    threshold_rule: str
    gain_shares: dict
    pairs: tuple

    @property
    def ranking(self) -> str:
        return str(self.choice["ranking"])

    def save(self, path) -> None:
        """Pickle the model to ``path`` atomically
        (:func:`geomargin.common.io.save_pickle_atomic`)."""
        save_pickle_atomic(self, path)

    @classmethod
    def load(cls, path) -> "HistoryModel":
        import pickle

        try:
            with open(path, "rb") as fh:
                model = pickle.load(fh)
        except (pickle.UnpicklingError, EOFError) as exc:
            raise ValueError(f"{path}: not a complete release-history model ({exc}); delete it to rebuild it") from exc
        if not isinstance(model, cls):
            raise ValueError(f"{path}: holds a {type(model).__name__}, not a {cls.__name__}; delete it to rebuild it")
        return model


def history_threshold(confidence, label, *, factor: float = 2.0, min_reactions: int = 5) -> tuple[float, str]:
    """The "no credible candidate" threshold from the history's first rows.

    ``confidence`` and ``label`` are one per history benchmark reaction (its
    rank-1 row). The threshold is the lowest confidence ``t`` such that the
    reactions at or above it (at least ``min_reactions``) had a later gene
    first at least ``factor`` times as often as all of them. Without one,
    it is just above the highest confidence: no orphan is marked credible.

    >>> history_threshold([0.1, 0.1, 0.4, 0.4], [0, 0, 1, 0], min_reactions=2)
    (0.4, 'lowest rank-1 confidence whose history reactions at or above it had a later gene first at least 2x as often as all (2 reactions, 0.500 against 0.250)')
    """
    c = np.asarray(confidence, dtype=float)
    found = lifting_threshold(c, label, factor=factor, min_reactions=min_reactions)
    if found is not None:
        t, n, share, base = found
        return t, (f"lowest rank-1 confidence whose history reactions at or above it had a later gene "
                   f"first at least {factor:g}x as often as all ({n} reactions, {share:.3f} against {base:.3f})")
    top = float(np.nanmax(c)) if len(c) and not np.isnan(c).all() else 0.0
    return float(np.nextafter(top, 2.0)), (f"{NO_THRESHOLD}no rank-1 confidence had history reactions at or above "
                                           f"it with a later gene first {factor:g}x as often as all; no orphan is "
                                           "credible")


def credible_possible(threshold_rule: str) -> bool:
    """Whether a threshold of :func:`history_threshold` (given by its rule)
    lets any orphan be credible: False when it found none, and the threshold
    is only a value just above every history confidence.

    >>> credible_possible(history_threshold([0.1, 0.1, 0.4, 0.4], [0, 0, 1, 0], min_reactions=2)[1])
    True
    >>> credible_possible(history_threshold([0.1, 0.4], [1, 0], min_reactions=1)[1])
    False
    """
    return not str(threshold_rule).startswith(NO_THRESHOLD)


def gain_shares(counts: pd.DataFrame) -> dict[str, float]:
    """Per reaction kind, the share of the ranked orphans that gained any
    gene, pooled over the pairs of ``counts`` (rows of
    ``time_split_orphans.tsv``: ``reaction_kind``, ``ranked``,
    ``ranked_gained``); key ``"all"`` over every kind.

    >>> gain_shares(pd.DataFrame({"reaction_kind": ["a", "b", "a"], "ranked": [10, 5, 10],
    ...                           "ranked_gained": [1, 0, 3]}))
    {'a': 0.2, 'b': 0.0, 'all': 0.16}
    """
    g = counts.groupby("reaction_kind")[["ranked", "ranked_gained"]].sum()
    out = {str(k): float(r["ranked_gained"] / r["ranked"]) if r["ranked"] else float("nan")
           for k, r in g.iterrows()}
    total = g["ranked"].sum()
    out["all"] = float(g["ranked_gained"].sum() / total) if total else float("nan")
    return out


def fit_history(reactions: Mapping[str, pd.DataFrame], orphans: Mapping[str, pd.DataFrame],
                cv_validation: pd.DataFrame, candidates: Sequence[str], *, choose_by: str = "mrr",
                min_reactions: int = 30, prior_strength: float = 10.0, top_n: int = 10,
                stands_out_factor: float | None = None, stands_out_min_reactions: int = 10) -> HistoryModel:
    """Learn a :class:`HistoryModel` from the time splits of one scope.

    Parameters
    ----------
    reactions, orphans : mapping
        Pair name (``"older->newer"``) -> its ``time_split_reactions.tsv``
        and ``time_split_orphans.tsv`` (:func:`geomargin.rank.time_split.orphan_gain_table`).
        Only the pairs learned from: the caller passes no test pair.
    cv_validation, candidates, choose_by, min_reactions
        As :func:`choose_on_history`.
    prior_strength, stands_out_factor, stands_out_min_reactions
        As :class:`HistoryCalibrator`.
    top_n : int
        Shown candidates per reaction (``metabolic.ranking.top_n``).

    Examples
    --------
    >>> rows = pd.DataFrame({"ranking": ["m", "m", "n", "n"], "reaction": ["r", "s"] * 2,
    ...     "reaction_kind": "enzymatic", "ranked": True, "best_rank": [1, 0, 2, 2], "n_candidates": 5,
    ...     "n_later_candidates": [1, 0, 1, 1], "later_gene_ranks": ["1", "0", "2", "2"], "ranked_on": "motifs"})
    >>> counts = pd.DataFrame({"reaction_kind": ["enzymatic"], "ranked": [20], "ranked_gained": [2]})
    >>> cv = pd.DataFrame({"method": ["m", "n"], "mrr": [0.1, 0.2], "hit@1": [0.1, 0.1], "hit@10": [0.3, 0.3]})
    >>> model = fit_history({"a->b": rows}, {"a->b": counts}, cv, ["m", "n"], min_reactions=2, top_n=3)
    >>> model.ranking, model.gain_shares["enzymatic"], model.pairs
    ('m', 0.1, ('a->b',))
    """
    if not reactions:
        raise ValueError("fit_history: no time split to learn from")
    pooled = []
    for name, rows in reactions.items():
        rows = score_order_rows(rows).assign(split=name)
        # the same reaction id in two pairs is two benchmark reactions
        pooled.append(rows.assign(reaction=name + ":" + rows["reaction"].astype(str)))
    pooled = pd.concat(pooled, ignore_index=True)
    choice = choose_on_history(pooled, cv_validation, candidates, choose_by=choose_by, min_reactions=min_reactions)
    labelled = labelled_rows(pooled, choice["ranking"], top_n)
    calibrator = HistoryCalibrator(prior_strength=prior_strength, stands_out_factor=stands_out_factor,
                                   stands_out_min_reactions=stands_out_min_reactions).fit(labelled)
    first = labelled[labelled["rank"] == 1]
    threshold, rule = history_threshold(calibrator.predict_proba(first), first["label"])
    gains = gain_shares(pd.concat(list(orphans.values()), ignore_index=True))
    return HistoryModel(choice, calibrator, threshold, rule, gains, tuple(reactions))
