"""A calibrated confidence per candidate: the probability that a ranked
candidate is a true gene of its reaction.

The cross-validation ranks every held-out reaction with known genes with the
model of the fold that held it out (:mod:`geomargin.rank.validation`). Its shown rows,
the top candidates of each held-out reaction, are the calibration rows
(:data:`CALIBRATION_COLUMNS`): a candidate's rank, its score relative to the
reaction's other candidates, the reaction kind, which evidence the reaction
and the candidate have, whether the candidate already does the reaction's
kind of work (:data:`OWN_KIND_FLAGS`), whether it is localized where the
reaction runs (:data:`SITE_FLAGS`), with the ``homology`` block whether its
protein is like one of the genes around the reaction
(:data:`HOMOLOGY_FLAG`), and whether it is a true gene.
:class:`ConfidenceCalibrator` fits a logistic regression of the label on
these (Platt scaling [1]_ with more than the score): the rank and score act
separately for each evidence pattern (:data:`EVIDENCE_PATTERNS`), the rows
are weighted so that each fold group counts once (:func:`fold_group_weights`:
one lipid reaction written for many acyl chains is one case, not dozens),
no candidate gets more than the held-out rows of its reaction kind and
pattern support at that confidence (``support_cells_``), and a candidate
without network evidence never gets more than the held-out rank-1
candidates of its kind and pattern support (``without_network_cells_``). A time
split's labels never reach it. The probability is conditional on the
reaction having a gene among the candidates: a real orphan may have none.

The check is made where the calibrator never looked
(:func:`out_of_fold_confidence`: fitted on the other folds' rows), by the
expected calibration error over 10 equal-width bins of confidence [3]_
(:func:`geomargin.rank.calibration_check.expected_calibration_error`), the Brier score and the
reliability table (:mod:`geomargin.rank.calibration_check`).

References
----------
.. [1] J. Platt, "Probabilistic outputs for support vector machines and
   comparisons to regularized likelihood methods", Advances in Large Margin
   Classifiers, MIT Press, 1999.
.. [2] A. Niculescu-Mizil and R. Caruana, "Predicting good probabilities
   with supervised learning", ICML 2005.
.. [3] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
   modern neural networks", ICML 2017.
.. [4] E. B. Wilson, "Probable inference, the law of succession, and
   statistical inference", J. Am. Stat. Assoc. 22, 209-212, 1927.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> rows = pd.DataFrame({"rank": np.tile(np.arange(1, 6), 40), "score_z": rng.normal(size=200),
...                      "gap_next_z": 0.1, "gap_top_z": 0.2, "reaction_kind": "transport",
...                      "motifs": True, "adjacent": False, "subsystem": False, "compounds": False,
...                      "role": False, "kind_domain": True, "site_match": False, "site_elsewhere": False})
>>> y = (rng.random(200) < 1 / rows["rank"]).astype(int)
>>> p = ConfidenceCalibrator().fit(rows, y).predict_proba(rows)
>>> bool(p[rows["rank"] == 1].mean() > p[rows["rank"] == 5].mean())
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from geomargin.common.checks import check_param, int_at_least, positive_float, validate_params
from geomargin.rank.calibration_check import _wilson_lower, wilson_lower
from geomargin.rank.evidence_flags import (CANDIDATE_FLAGS, EVIDENCE_FLAGS, HOMOLOGY_FLAG, NETWORK_FLAGS, OWN_KIND_FLAGS, SITE_FLAGS)

__all__ = ["CALIBRATION_COLUMNS", "KINDS", "ConfidenceCalibrator", "calibration_rows", "calibration_features",
           "out_of_fold_confidence", "EVIDENCE_PATTERNS", "evidence_pattern", "fold_group_weights",
           "without_network_evidence", "without_network_first_share", "OWN_KINDS", "own_kind", "THIN_SUPPORT"]

#: Reaction kinds the calibrator distinguishes (one indicator each; any other kind has none).
KINDS = ("enzymatic", "spontaneous", "transport")


#: The 16 evidence patterns: the :data:`EVIDENCE_FLAGS` as a string of 0/1,
#: in that order (``"1000"``: motif neighbour genes, no network evidence).
EVIDENCE_PATTERNS = tuple(f"{a}{b}{c}{d}" for a in "01" for b in "01" for c in "01" for d in "01")


#: Fewer held-out cases like a candidate than this (``held_out_like``,
#: :meth:`ConfidenceCalibrator.held_out_like`) and its confidence rests on
#: thin support: the ranking's quality table counts the orphans whose first
#: candidate is such a one. A reporting line, not a cap.
THIN_SUPPORT = 10


#: A candidate's own kind of work in one word (:func:`own_kind`).
OWN_KINDS = ("role", "domain", "none")


#: Columns of the calibration rows: one per (held-out reaction, shown candidate);
#: with the ``homology`` block, :data:`HOMOLOGY_FLAG` before ``label``.
CALIBRATION_COLUMNS = ["fold", "reaction", "reaction_kind", "gene", "rank", "score", "score_z",
                       "gap_next_z", "gap_top_z", *EVIDENCE_FLAGS, *OWN_KIND_FLAGS, *SITE_FLAGS, "label"]


def calibration_rows(scores: np.ndarray, order: np.ndarray, top_n: int, evidence: np.ndarray,
                     flags: Sequence[str] = CANDIDATE_FLAGS) -> dict[str, np.ndarray]:
    """The shown rows of one reaction's ranking, as calibration features.

    Parameters
    ----------
    scores : ndarray of shape (n_candidates,)
        The ranking's scores (after its gene correction); NaN = no evidence,
        never shown.
    order : ndarray of int
        Candidate indices, best first (:func:`geomargin.rank.scoring.candidate_order`).
    top_n : int
        Rows shown per reaction.
    evidence : ndarray of shape (n_candidates, len(flags)) of bool
        The candidate flags (:func:`candidate_flags`).
    flags : sequence of str, default :data:`CANDIDATE_FLAGS`
        Their names (:func:`candidate_flag_names`).

    Returns
    -------
    dict
        ``index`` (candidate indices of the rows), ``rank`` (1-based),
        ``score``, ``score_z`` (the score standardised over the reaction's
        scored candidates), ``gap_next_z`` (to the next row's score, in the
        same units; 0 for the last candidate) and ``gap_top_z`` (below the
        first row), and the ``flags``.

    Examples
    --------
    >>> s = np.array([0.0, 2.0, np.nan, 1.0])
    >>> out = calibration_rows(s, np.array([1, 3, 0, 2]), 2, np.zeros((4, 7), bool))
    >>> out["index"].tolist(), out["rank"].tolist(), out["gap_next_z"].round(3).tolist()
    ([1, 3], [1, 2], [1.225, 1.225])
    """
    top_n = check_param("calibration_rows", "top_n", top_n, *int_at_least(1))
    evidence, flags = np.asarray(evidence, dtype=bool), tuple(flags)
    if evidence.shape != (len(scores), len(flags)):
        raise ValueError(f"calibration_rows: evidence of shape {evidence.shape}; expected "
                         f"({len(scores)}, {len(flags)}), one column per flag of {flags}")
    scored = order[~np.isnan(scores[order])]
    finite = scores[scored]
    sd = float(np.std(finite)) if len(finite) > 1 else 0.0
    sd = sd if sd > 0 else 1.0
    z = (finite - float(np.mean(finite))) / sd if len(finite) else finite
    k = min(top_n, len(scored))
    nxt = np.append(z[1:], z[-1:])[:k] if len(z) else z
    # copies, not views: a view of the first k would keep all the candidates' arrays alive
    # (the validation holds these rows for every ranking of every held-out reaction)
    return {"index": scored[:k].copy(), "rank": np.arange(1, k + 1), "score": finite[:k].copy(),
            "score_z": z[:k].copy(), "gap_next_z": z[:k] - nxt, "gap_top_z": (z[0] - z[:k]) if k else z[:k].copy(),
            **{flag: evidence[scored[:k], j] for j, flag in enumerate(flags)}}


def evidence_pattern(rows: pd.DataFrame) -> np.ndarray:
    """Each row's evidence pattern (:data:`EVIDENCE_PATTERNS`).

    >>> evidence_pattern(pd.DataFrame({"motifs": [True, False], "adjacent": [0, 1], "subsystem": [0, 0],
    ...                                "compounds": [1, 0]})).tolist()
    ['1001', '0100']
    """
    flags = np.column_stack([rows[f].astype(bool).to_numpy() for f in EVIDENCE_FLAGS]) if len(rows) \
        else np.zeros((0, len(EVIDENCE_FLAGS)), dtype=bool)
    return np.array(["".join("1" if v else "0" for v in r) for r in flags], dtype=object)


def calibration_features(rows: pd.DataFrame, homology: bool | None = None) -> np.ndarray:
    """The calibrator's inputs: log rank, ``score_z``, ``gap_top_z``, one
    indicator per kind of :data:`KINDS`, the :data:`EVIDENCE_FLAGS`, then
    one indicator per evidence pattern of :data:`EVIDENCE_PATTERNS` and the
    same indicators times log rank and times ``score_z`` (so that rank and
    score weigh differently for each pattern), then the :data:`OWN_KIND_FLAGS`
    ``role`` and ``kind_domain``, alone and times "without network evidence"
    (:func:`without_network_evidence`), then the :data:`SITE_FLAGS`
    ``site_elsewhere`` and ``site_match``, in that order: 64 columns. With
    ``homology`` (default: whether ``rows`` has the column
    :data:`HOMOLOGY_FLAG`, i.e. the ``homology`` block is in the features)
    a 65th, that flag.

    The own-kind flags say whether the candidate does this kind of work
    elsewhere or carries a domain of genes that do. Without network evidence
    they part the candidates sharply on held-out known reactions (a
    transporter of other compounds listed first with nothing linking it to
    the reaction is rarely right), which the evidence pattern alone cannot
    tell (``analysis/calibration_own_kind.py`` compares out of fold).

    The site flags say whether the candidate was seen where the reaction
    runs, only elsewhere, or not at all. The model's score reads the same
    localization, but on held-out known reactions a first candidate seen
    only elsewhere was right less often than a fit without the flags said
    (``analysis/calibration_site.py`` compares out of fold).

    Not the gap to the next row (``gap_next_z``, still a column of the
    rows): it made a row more confident than a row of the same reaction
    and evidence with a higher score whenever the lower one was the last of
    a close group (``analysis/calibration_gap.py`` compares both out of
    fold).

    >>> r = pd.DataFrame({"rank": [1, 4], "score_z": [2.0, 0.5], "gap_next_z": [1.0, 0.0],
    ...                   "gap_top_z": [0.0, 1.5], "reaction_kind": ["transport", "other"],
    ...                   "motifs": [True, True], "adjacent": [1, 0], "subsystem": [0, 0],
    ...                   "compounds": [0, 1], "role": [True, False], "kind_domain": [True, True],
    ...                   "site_match": [False, True], "site_elsewhere": [True, False]})
    >>> X = calibration_features(r)
    >>> X.shape, X[1, :10].round(3).tolist(), X[:, 58:].tolist()
    ((2, 64), [1.386, 0.5, 1.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], [[1.0, 1.0, 0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]])
    >>> p = EVIDENCE_PATTERNS.index("1001")
    >>> X[1, [10 + p, 26 + p, 42 + p]].round(3).tolist()
    [1.0, 1.386, 0.5]
    """
    homology = HOMOLOGY_FLAG in rows.columns if homology is None else bool(homology)
    missing = [c for c in ("rank", "score_z", "gap_top_z", "reaction_kind", *EVIDENCE_FLAGS, *OWN_KIND_FLAGS,
                           *SITE_FLAGS, *((HOMOLOGY_FLAG,) if homology else ())) if c not in rows.columns]
    if missing:
        raise ValueError(f"calibration rows: missing column(s) {missing}; expected {CALIBRATION_COLUMNS} "
                         "(rerun the ranking validation, which writes them)")
    rank = rows["rank"].to_numpy(dtype=np.float64)
    if len(rank) and (not np.isfinite(rank).all() or rank.min() < 1):
        raise ValueError(f"calibration rows: column 'rank' must hold ranks >= 1; got minimum {rank.min()!r}")
    log_rank, score_z = np.log(rank), rows["score_z"].to_numpy(dtype=np.float64)
    cols = [log_rank, score_z, rows["gap_top_z"].to_numpy(dtype=np.float64)]
    kind = rows["reaction_kind"].astype(str).to_numpy()
    cols += [(kind == k).astype(np.float64) for k in KINDS]
    cols += [rows[f].astype(bool).to_numpy(dtype=np.float64) for f in EVIDENCE_FLAGS]
    pattern = evidence_pattern(rows)
    onehot = [(pattern == p).astype(np.float64) for p in EVIDENCE_PATTERNS]
    cols += onehot + [o * log_rank for o in onehot] + [o * score_z for o in onehot]
    own = [rows[f].astype(bool).to_numpy(dtype=np.float64) for f in OWN_KIND_FLAGS]
    without_network = without_network_evidence(rows).astype(np.float64) if len(rows) else np.zeros(0)
    cols += own + [o * without_network for o in own]
    cols += [rows[f].astype(bool).to_numpy(dtype=np.float64) for f in ("site_elsewhere", "site_match")]
    if homology:
        cols.append(rows[HOMOLOGY_FLAG].astype(bool).to_numpy(dtype=np.float64))
    X = np.column_stack(cols) if len(rows) else np.empty((0, len(cols)))
    if not np.isfinite(X).all():
        raise ValueError("calibration rows: score_z and gap_top_z must be finite")
    return X


def fold_group_weights(rows: pd.DataFrame, fold_group) -> np.ndarray:
    """Row weights under which every fold group counts once: ``1 / (number
    of distinct reactions of ``rows`` in the row's fold group)``.

    ``fold_group`` maps a reaction id to its cross-validation group
    (:func:`geomargin.featurize.metabolic.pairs.sampling.fold_groups`; a dict or
    Series). yeast-GEM writes one lipid reaction for many acyl chains; those
    copies share a group, are held out together and are ranked alike, so
    unweighted they would count as hundreds of independent cases.

    >>> r = pd.DataFrame({"reaction": ["a", "a", "b", "c"]})
    >>> fold_group_weights(r, {"a": "g1", "b": "g1", "c": "c"}).tolist()
    [0.5, 0.5, 0.5, 1.0]
    """
    group = rows["reaction"].map(fold_group)
    if group.isna().any():
        missing = sorted(rows.loc[group.isna(), "reaction"].astype(str).unique())
        raise ValueError(f"fold_group_weights: no fold group for reaction(s) {missing[:5]} "
                         f"({len(missing)} in all); expected every calibration row's reaction in the instances")
    size = rows.assign(_g=group.to_numpy()).groupby("_g")["reaction"].transform("nunique")
    return 1.0 / size.to_numpy(dtype=np.float64)


class ConfidenceCalibrator(BaseEstimator):
    """Probability that a shown candidate is a true gene of its reaction: a
    logistic regression (scikit-learn) of the label on the rows' features
    (``features``, by default :func:`calibration_features`), standardised,
    then capped by the support
    of its evidence pattern, and again for candidates without network
    evidence.

    **The support cap.** The logistic fit shares the gap term across
    evidence patterns and extends every slope past the fitted rows, so a
    candidate far ahead of the others can get a confidence that no held-out
    case of its kind and pattern supports. Among the fitted rows of the
    row's (reaction kind, evidence pattern) cell, ordered by the fit's own
    confidence, each set of the j most confident rows has a share of true
    genes and the lower end of its 95% Wilson interval [4]_ (weighted; the
    interval's size is the summed weight, with :func:`fold_group_weights` the
    number of fold groups). A row whose fitted confidence p places it among
    the J most confident rows of its cell (J >= 1: a row above all of them
    counts as the first) never gets more than the largest of these bounds
    over j >= J: the best that a set of held-out rows at least as confident
    as it, or that set extended by less confident rows, supports. The cap
    grows with p, and is near the fit where the cell has many rows at that
    confidence. A cell without fitted rows takes its pattern over all
    kinds; a pattern without any, 0; so does a reaction kind without any
    fitted row (when no reaction of a kind has a gene, none is held out:
    nothing backs a confidence for a gene proposed for one). The cap keeps
    an orphan's confidence within what the validation saw.

    **The cap without network evidence.** A candidate with none of the :data:`NETWORK_FLAGS` (no
    related reaction, no reaction of the subsystem, no similar compound)
    never gets more than the lower end of the 95% Wilson interval [4]_ of
    the share of right rank-1 candidates with the same reaction kind and
    evidence pattern among the fitted rows, the share weighted and the
    interval's size being the summed weight (with :func:`fold_group_weights`,
    the number of fold groups). A kind and pattern without such rows takes
    the pattern's cell over all kinds; a pattern without any, 0. On held-out
    known reactions a high score without network evidence can be right
    often; few held-out cases support carrying that to an orphan, and the
    bound says how few.

    Parameters
    ----------
    C : float, default 1.0
        Inverse L2 regularisation strength of the logistic regression.
    max_iter : int, default 1000
    features : callable or None, default None
        ``features(rows) -> ndarray of shape (n_rows, n_features)``: the
        inputs of the logistic fit. None: :func:`calibration_features`. A
        variant of the calibration is another builder here (an estimator
        parameter: ``clone`` and the out-of-fold check keep it); the caps
        read the rows' evidence flags whatever the builder.

    Attributes
    ----------
    classes_ : ndarray
        ``[0, 1]``: not a true gene, a true gene. :meth:`predict_proba`
        returns the probability of ``1`` only, one value per row.
    pipeline_ : sklearn.pipeline.Pipeline
        ``StandardScaler`` then ``LogisticRegression``.
    support_cells_ : dict
        {(``reaction_kind``, ``pattern``): (fitted confidences, best
        first; the cap of a row among the first j of them; the cell's
        summed weight)}, ``reaction_kind`` "*" for all kinds
        (:meth:`support_table` sums them up).
    without_network_cells_ : pandas.DataFrame
        One row per (``reaction_kind``, ``pattern``) without network
        evidence seen at rank 1 (``reaction_kind`` "*": all kinds):
        ``groups`` (summed weight), ``share`` (weighted share right) and
        ``cap`` (the bound above).
    without_network_share_ : float
        The (weighted) share of right rank-1 candidates without network
        evidence among the fitted rows, all patterns together (NaN when
        there is none).
    kinds_ : list of str
        The reaction kinds of the fitted rows; a row of any other kind gets 0.
    homology_ : bool
        Whether the fitted rows had the column :data:`HOMOLOGY_FLAG` (the
        ``homology`` block in the features): then the fit reads it
        (:func:`calibration_features`) and every row to predict must have
        it. The caps do not read it.
    like_cells_ : pandas.DataFrame
        One row per (``reaction_kind``, ``pattern``, ``own_kind``) of the
        fitted rows (:func:`own_kind`): ``groups``, the held-out reactions
        with a row in it, each weighing its row weight (with
        :func:`fold_group_weights`, the number of fold groups; rows without a
        ``reaction`` column count one each). What
        :meth:`held_out_like` reads: not an input of the fit or the caps.
    n_rows_ : int
    base_rate_ : float
        The (weighted) share of true genes among the fitted rows.
    """

    _parameter_constraints: dict = {"C": positive_float(), "max_iter": int_at_least(1),
                                    "features": (lambda v: v is None or callable(v),
                                                 "None or a callable rows -> feature matrix")}

    def __init__(self, C: float = 1.0, max_iter: int = 1000, features=None):
        self.C = C
        self.max_iter = max_iter
        self.features = features

    def _features(self, rows: pd.DataFrame) -> np.ndarray:
        return (calibration_features if self.features is None else self.features)(rows)

    def fit(self, rows: pd.DataFrame, y, sample_weight=None) -> ConfidenceCalibrator:
        """Fit on calibration rows and their labels (1 = true gene);
        ``sample_weight`` (e.g. :func:`fold_group_weights`) defaults to 1."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        validate_params(self)
        X = self._features(rows)
        self.homology_ = HOMOLOGY_FLAG in rows.columns
        y = np.asarray(y).astype(int).reshape(-1)
        if len(y) != len(X):
            raise ValueError(f"ConfidenceCalibrator.fit: {len(X)} rows but {len(y)} labels")
        if set(np.unique(y)) != {0, 1}:
            raise ValueError("ConfidenceCalibrator.fit: the labels must hold both 0 (not a true gene) and "
                             f"1 (a true gene); got {sorted(set(np.unique(y).tolist()))}")
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        if len(w) != len(y) or not np.isfinite(w).all() or (w <= 0).any():
            raise ValueError(f"ConfidenceCalibrator.fit: sample_weight must hold {len(y)} finite weights > 0")
        self.pipeline_ = make_pipeline(StandardScaler(), LogisticRegression(C=self.C, max_iter=self.max_iter))
        self.pipeline_.fit(X, y, logisticregression__sample_weight=w)
        self.classes_ = np.array([0, 1])
        self.support_cells_ = _support_cells(rows, y, w, self.pipeline_.predict_proba(X)[:, 1])
        self.without_network_cells_, self.without_network_share_ = _without_network_cells(rows, y, w)
        self.kinds_ = sorted(set(rows["reaction_kind"].astype(str)))
        self.like_cells_ = _like_cells(rows, w)
        self.n_rows_ = len(y)
        self.base_rate_ = float(np.average(y, weights=w))
        return self

    def predict_proba(self, rows: pd.DataFrame) -> np.ndarray:
        """The probability of a true gene, one per row (capped as above)."""
        p = self.uncapped_proba(rows)  # raises before fit
        if not len(p):
            return p
        p = np.minimum(p, self.support_cap(rows, p))
        p[~rows["reaction_kind"].astype(str).isin(self.kinds_).to_numpy()] = 0.0
        without_network = without_network_evidence(rows)
        if without_network.any():
            cap = self.cell_values(rows[without_network], "cap")
            p[without_network] = np.minimum(p[without_network], cap)
        return p

    def predict(self, rows: pd.DataFrame) -> np.ndarray:
        """1 where :meth:`predict_proba` is at least 0.5, else 0."""
        return (self.predict_proba(rows) >= 0.5).astype(int)

    def held_out_like(self, rows: pd.DataFrame) -> np.ndarray:
        """How many held-out cases back each row's confidence: the ``groups``
        of :attr:`like_cells_` with the row's reaction kind, evidence pattern
        and own kind of work (0 where the fitted rows had none)."""
        check_is_fitted(self, "pipeline_")
        cells = self.like_cells_.set_index(["reaction_kind", "pattern", "own_kind"])["groups"].to_dict()
        keys = zip(rows["reaction_kind"].astype(str), evidence_pattern(rows), own_kind(rows)) if len(rows) else []
        return np.array([cells.get(k, 0.0) for k in keys], dtype=np.float64)

    def uncapped_proba(self, rows: pd.DataFrame) -> np.ndarray:
        """The logistic fit's probability of a true gene, before either cap."""
        check_is_fitted(self, "pipeline_")
        homology = getattr(self, "homology_", False)
        if homology and HOMOLOGY_FLAG not in rows.columns:
            raise ValueError(f"ConfidenceCalibrator: fitted on rows with the column {HOMOLOGY_FLAG!r} (the homology "
                             "block), but the rows to predict have none; score them with the same features")
        if not homology and HOMOLOGY_FLAG in rows.columns:
            rows = rows.drop(columns=HOMOLOGY_FLAG)  # fitted without the block: the flag is no input
        X = self._features(rows)
        return self.pipeline_.predict_proba(X)[:, 1] if len(X) else np.empty(0)

    def support_cap(self, rows: pd.DataFrame, p) -> np.ndarray:
        """The support cap (above) of each row of ``rows`` whose fitted,
        uncapped confidence is ``p``."""
        p = np.asarray(p, dtype=np.float64).reshape(-1)
        pattern = evidence_pattern(rows)
        kind = rows["reaction_kind"].astype(str).to_numpy()
        cap = np.zeros(len(p))
        for key in set(zip(kind, pattern)):
            cell = self.support_cells_.get(key, self.support_cells_.get(("*", key[1])))
            if cell is not None:
                m = (kind == key[0]) & (pattern == key[1])
                fitted, bound, _ = cell
                # how many fitted rows of the cell are at least as confident (at least one)
                j = np.maximum(1, np.searchsorted(-fitted, -p[m], side="right"))
                cap[m] = bound[j - 1]
        return cap

    def support_table(self) -> pd.DataFrame:
        """One row per cell of :attr:`support_cells_`: ``reaction_kind``,
        ``pattern``, ``rows``, ``groups`` (summed weight) and ``highest_cap``
        (the most confidence any of its rows can get)."""
        return pd.DataFrame([{"reaction_kind": k, "pattern": q, "rows": len(f), "groups": n,
                              "highest_cap": float(b[0])}
                             for (k, q), (f, b, n) in self.support_cells_.items()],
                            columns=["reaction_kind", "pattern", "rows", "groups", "highest_cap"])

    def cell_values(self, rows: pd.DataFrame, column: str = "cap") -> np.ndarray:
        """``column`` (``cap``, ``share`` or ``groups``) of :attr:`without_network_cells_`
        for each row: its (kind, pattern) cell, else its pattern over all
        kinds, else 0."""
        cells = self.without_network_cells_.set_index(["reaction_kind", "pattern"])[column]
        pattern = evidence_pattern(rows)
        kind = rows["reaction_kind"].astype(str).to_numpy()
        own = pd.Series(list(zip(kind, pattern))).map(cells.to_dict())
        pooled = pd.Series([("*", q) for q in pattern]).map(cells.to_dict())
        return own.fillna(pooled).fillna(0.0).to_numpy(dtype=np.float64)


def without_network_evidence(rows: pd.DataFrame) -> np.ndarray:
    """Whether each row has none of the :data:`NETWORK_FLAGS`.

    >>> without_network_evidence(pd.DataFrame({"adjacent": [0, 1], "subsystem": 0, "compounds": 0})).tolist()
    [True, False]
    """
    return ~np.column_stack([rows[f].astype(bool).to_numpy() for f in NETWORK_FLAGS]).any(axis=1)


def own_kind(rows: pd.DataFrame) -> np.ndarray:
    """Each row's own kind of work (:data:`OWN_KINDS`): "role" (the candidate
    catalyses another reaction of the reaction's kind), else "domain" (it
    carries a domain of a gene that does), else "none".

    >>> own_kind(pd.DataFrame({"role": [1, 0, 0], "kind_domain": [1, 1, 0]})).tolist()
    ['role', 'domain', 'none']
    """
    return np.where(rows["role"].astype(bool), "role",
                    np.where(rows["kind_domain"].astype(bool), "domain", "none")).astype(object)


def without_network_first_share(rows: pd.DataFrame, first, fold_group) -> tuple[int, float]:
    """How many held-out reactions list a candidate without network evidence
    first, and the share of them that were right (each fold group weighing
    one: :func:`fold_group_weights` over all ``rows``).

    ``first`` marks each reaction's first listed row: ``rank == 1`` in score
    order (then the share is :attr:`ConfidenceCalibrator.without_network_share_` of a
    calibrator fitted on ``rows`` with these weights), or the first by
    confidence (:func:`geomargin.rank.shown_order.shown_positions` ``== 1``), whose
    rows without network evidence are another set. The share is NaN when
    there is none.

    >>> r = pd.DataFrame({"reaction": ["a", "a", "b", "c"], "adjacent": [0, 1, 0, 0], "subsystem": 0,
    ...                   "compounds": 0, "label": [1, 0, 0, 1]})
    >>> without_network_first_share(r, np.array([True, False, True, True]), {"a": "g1", "b": "g1", "c": "c"})
    (3, 0.75)
    """
    first = np.asarray(first, dtype=bool)
    if len(first) != len(rows):
        raise ValueError(f"without_network_first_share: {len(first)} flags for {len(rows)} rows")
    m = first & without_network_evidence(rows)
    if not m.any():
        return 0, float("nan")
    w = fold_group_weights(rows, fold_group)[m]
    return int(m.sum()), float(np.average(rows["label"].to_numpy(dtype=np.float64)[m], weights=w))


def _support_cells(rows: pd.DataFrame, y: np.ndarray, w: np.ndarray, p: np.ndarray) -> dict:
    """:attr:`ConfidenceCalibrator.support_cells_` of fitted rows with
    labels ``y``, weights ``w`` and fitted confidences ``p``."""
    kind = rows["reaction_kind"].astype(str).to_numpy()
    pattern = evidence_pattern(rows)
    cells = {}
    for key in sorted({*zip(kind, pattern), *(("*", q) for q in pattern)}):
        m = (pattern == key[1]) & ((kind == key[0]) if key[0] != "*" else True)
        order = np.argsort(-p[m], kind="mergesort")
        pm, ym, wm = p[m][order], y[m][order].astype(np.float64), w[m][order]
        n, right = np.cumsum(wm), np.cumsum(wm * ym)
        lower = _wilson_lower(right / n, n)
        # the best bound over the sets of j' >= j rows
        cells[key] = (pm, np.maximum.accumulate(lower[::-1])[::-1], float(n[-1]))
    return cells


def _like_cells(rows: pd.DataFrame, w: np.ndarray) -> pd.DataFrame:
    """:attr:`ConfidenceCalibrator.like_cells_` of fitted rows with weights ``w``."""
    t = pd.DataFrame({"reaction_kind": rows["reaction_kind"].astype(str).to_numpy(),
                      "pattern": evidence_pattern(rows), "own_kind": own_kind(rows),
                      "reaction": rows["reaction"].astype(str).to_numpy() if "reaction" in rows.columns
                      else np.arange(len(rows)).astype(str), "w": w})
    t = t.drop_duplicates(["reaction_kind", "pattern", "own_kind", "reaction"])
    return t.groupby(["reaction_kind", "pattern", "own_kind"], sort=True)["w"].sum().rename("groups").reset_index()


def _without_network_cells(rows: pd.DataFrame, y: np.ndarray, w: np.ndarray) -> tuple[pd.DataFrame, float]:
    """:attr:`ConfidenceCalibrator.without_network_cells_` and ``without_network_share_`` of fitted rows."""
    m = (rows["rank"].to_numpy() == 1) & without_network_evidence(rows)
    t = pd.DataFrame({"reaction_kind": rows["reaction_kind"].astype(str).to_numpy()[m],
                      "pattern": evidence_pattern(rows)[m], "y": y[m].astype(np.float64), "w": w[m]})
    out = []
    for kinds in (False, True):
        keys = ["reaction_kind", "pattern"] if kinds else ["pattern"]
        for key, g in t.groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            kind, pattern = (key if kinds else ("*", key[0]))
            n, share = float(g["w"].sum()), float(np.average(g["y"], weights=g["w"]))
            out.append({"reaction_kind": kind, "pattern": pattern, "groups": n, "share": share,
                        "cap": wilson_lower(share, n)})
    cells = pd.DataFrame(out, columns=["reaction_kind", "pattern", "groups", "share", "cap"])
    return cells, (float(np.average(t["y"], weights=t["w"])) if len(t) else float("nan"))


def out_of_fold_confidence(rows: pd.DataFrame, calibrator: ConfidenceCalibrator | None = None,
                           sample_weight=None) -> np.ndarray:
    """Each row's confidence from a clone of ``calibrator`` (default
    :class:`ConfidenceCalibrator`) fitted on the *other* folds' rows (column
    ``fold``), with their ``sample_weight``: the inner check of the
    cross-validation (scikit-learn's ``cross_val_predict`` over the
    predefined folds).

    >>> rng = np.random.default_rng(1)
    >>> rows = pd.DataFrame({"fold": np.repeat([1, 2, 3], 100), "rank": np.tile(np.arange(1, 11), 30),
    ...                      "score_z": 0.0, "gap_next_z": 0.0, "gap_top_z": 0.0, "reaction_kind": "transport",
    ...                      "motifs": True, "adjacent": True, "subsystem": False, "compounds": False,
    ...                      "role": False, "kind_domain": False, "site_match": False, "site_elsewhere": False})
    >>> rows["label"] = (rng.random(300) < 0.5 / rows["rank"]).astype(int)
    >>> p = out_of_fold_confidence(rows)
    >>> p.shape, bool(p[rows["rank"] == 1].mean() > p[rows["rank"] == 10].mean())
    ((300,), True)
    """
    from sklearn.model_selection import PredefinedSplit, cross_val_predict

    if "fold" not in rows.columns or "label" not in rows.columns:
        raise ValueError("out_of_fold_confidence: rows need the columns 'fold' and 'label'")
    folds = rows["fold"].to_numpy()
    if len(np.unique(folds)) < 2:
        raise ValueError("out_of_fold_confidence: rows of at least 2 folds are needed")
    w = np.ones(len(rows)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    # PredefinedSplit leaves a row of test_fold -1 out of every test set: number the folds from 0
    test_fold = np.unique(folds, return_inverse=True)[1]
    return cross_val_predict(ConfidenceCalibrator() if calibrator is None else calibrator, rows,
                             rows["label"].to_numpy(), cv=PredefinedSplit(test_fold), method="predict_proba",
                             params={"sample_weight": w})
