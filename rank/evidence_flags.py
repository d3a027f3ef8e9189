"""The evidence flags of a ranked candidate, read from its candidate matrix:
which evidence the reaction and the candidate have (:data:`EVIDENCE_FLAGS`),
whether the candidate already does the reaction's kind of work
(:data:`OWN_KIND_FLAGS`), where it is localized against the reaction
(:data:`SITE_FLAGS`) and, with the ``homology`` block, whether its protein is
like one of the genes around the reaction (:data:`HOMOLOGY_FLAG`); and the
flags of a ranking's shown rows (:func:`shown_rows`). The calibrator
(:mod:`geomargin.rank.calibration`) reads them."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from geomargin.common.parallel import fork_map


__all__ = ["EVIDENCE_FLAGS", "NETWORK_FLAGS", "OWN_KIND_FLAGS", "SITE_FLAGS", "CANDIDATE_FLAGS", "HOMOLOGY_FLAG", "candidate_flag_names", "homology_flags", "evidence_flags", "candidate_flags", "shown_rows"]


#: Candidate evidence flags: ``motifs`` (the reaction has motif neighbour
#: genes), ``adjacent`` (the candidate already catalyses a related reaction:
#: the ``net`` block), ``subsystem`` (another reaction of the subsystem) and
#: ``compounds`` (a reaction of this kind on similar compounds).
EVIDENCE_FLAGS = ("motifs", "adjacent", "subsystem", "compounds")


#: The candidate flags that are network evidence: a row with none of them is
#: without network evidence (the reaction's motif genes alone do not say anything of this gene).
NETWORK_FLAGS = ("adjacent", "subsystem", "compounds")


#: What the candidate's own record says of the reaction's kind of work:
#: ``role`` (it catalyses another reaction of that kind: the ``role_<kind>``
#: block) and ``kind_domain`` (it carries an InterPro domain that another gene
#: catalysing a reaction of that kind carries: the ``domain_kind_<kind>``
#: block). Calibrator inputs, not part of the evidence pattern.
OWN_KIND_FLAGS = ("role", "kind_domain")


#: Where the candidate is seen against where the reaction runs (the ``site``
#: block, ``featurize/metabolic/pairs/site.py``): ``site_match``, localized in
#: one of the reaction's compartments (``match_share`` > 0);
#: ``site_elsewhere``, localized, but only elsewhere (``match_share`` = 0);
#: neither without localization data (or without the block). Calibrator
#: inputs, not part of the evidence pattern.
SITE_FLAGS = ("site_match", "site_elsewhere")


#: The flags of a candidate read from its candidate matrix (:func:`candidate_flags`).
CANDIDATE_FLAGS = (*NETWORK_FLAGS, *OWN_KIND_FLAGS, *SITE_FLAGS)


#: The candidate has homology evidence: one of the ``homology`` block's items
#: is > 0 (its protein is like one of the model genes around the reaction,
#: :mod:`geomargin.featurize.metabolic.pairs.homology`). A flag of
#: :func:`candidate_flags`, a column of the calibration rows (before
#: ``label``) and a calibrator input only when the block is in the features
#: (:func:`candidate_flag_names`); not part of the evidence pattern.
HOMOLOGY_FLAG = "homology"


#: Feature-name endings (``PairFeaturizer.feature_names_``) behind the candidate
#: flags ``adjacent``, ``subsystem`` and ``compounds``: a flag is set when one of
#: its features is > 0.
FLAG_FEATURES = {"adjacent": (":net:adjacent_log1p_count",),
                 "subsystem": (":subsystem:same_subsystem_log1p_count",),
                 "compounds": (":max_similarity",)}


#: Feature names (regular expressions) behind the :data:`OWN_KIND_FLAGS`; only
#: the block of the reaction's kind is present in its candidate matrix.
OWN_KIND_FEATURES = {"role": r":role_[^:]+:same_kind_log1p_count$",
                     "kind_domain": r":domain_kind_[^:]+:max_share$"}


#: Feature name (regular expression) behind the :data:`SITE_FLAGS`.
SITE_FEATURE = r":site:match_share$"


#: Feature names (regular expression) behind :data:`HOMOLOGY_FLAG`.
HOMOLOGY_FEATURE = r"(^|:)homology:[^:]+$"


def _homology_columns(featurizer) -> list[int]:
    return [i for i, n in enumerate(featurizer.feature_names_) if re.search(HOMOLOGY_FEATURE, n)]


def candidate_flag_names(featurizer) -> tuple[str, ...]:
    """The flags :func:`candidate_flags` gives for ``featurizer``:
    :data:`CANDIDATE_FLAGS`, then :data:`HOMOLOGY_FLAG` when the
    ``homology`` block is in its features.

    >>> from types import SimpleNamespace
    >>> candidate_flag_names(SimpleNamespace(feature_names_=["candidate:homology:motif_max"]))[-2:]
    ('site_elsewhere', 'homology')
    """
    return (*CANDIDATE_FLAGS, HOMOLOGY_FLAG) if _homology_columns(featurizer) else CANDIDATE_FLAGS


def homology_flags(featurizer, X: np.ndarray) -> np.ndarray | None:
    """:data:`HOMOLOGY_FLAG` of the rows of a candidate matrix ``X``: some
    feature of the ``homology`` block is > 0 (absent counts as 0); None
    when the block is not in the features.

    >>> from types import SimpleNamespace
    >>> f = SimpleNamespace(feature_names_=["fork:loc:a", "candidate:homology:motif_max",
    ...                                     "candidate:homology:subsystem_max"])
    >>> homology_flags(f, np.array([[1.0, np.nan, 0.2], [1.0, 0.0, np.nan], [1.0, np.nan, np.nan]])).tolist()
    [True, False, False]
    >>> homology_flags(SimpleNamespace(feature_names_=["fork:loc:a"]), np.ones((1, 1))) is None
    True
    """
    cols = _homology_columns(featurizer)
    if not cols:
        return None
    X = np.asarray(X, dtype=np.float64)
    return (np.nan_to_num(X[:, cols], nan=0.0) > 0).any(axis=1)


def evidence_flags(featurizer, X: np.ndarray) -> np.ndarray:
    """The candidate flags ``adjacent``, ``subsystem`` and ``compounds`` of
    the rows of a candidate matrix ``X`` (:data:`FLAG_FEATURES`; absent
    features count as 0), shape ``(n, 3)``: the same evidence the ranking's
    ``catalyses_adjacent``, ``catalyses_in_subsystem`` and
    ``similar_compounds`` columns name.

    >>> from types import SimpleNamespace
    >>> f = SimpleNamespace(feature_names_=["fork:net:adjacent_log1p_count", "candidate:x:max_similarity"],
    ...                     feature_scale_=None)
    >>> evidence_flags(f, np.array([[0.7, np.nan], [0.0, 0.2]])).tolist()
    [[True, False, False], [False, False, True]]
    """
    names = list(featurizer.feature_names_)
    X = np.asarray(X, dtype=np.float64)
    out = np.zeros((X.shape[0], 3), dtype=bool)
    for j, flag in enumerate(NETWORK_FLAGS):
        cols = [i for i, n in enumerate(names) if n.endswith(FLAG_FEATURES[flag])]
        if cols:
            out[:, j] = (np.nan_to_num(X[:, cols], nan=0.0) > 0).any(axis=1)
    return out


def candidate_flags(featurizer, X: np.ndarray) -> np.ndarray:
    """The flags of :func:`candidate_flag_names` of the rows of a candidate
    matrix ``X``, shape ``(n, 7)``: :func:`evidence_flags`, then ``role``
    and ``kind_domain`` (:data:`OWN_KIND_FEATURES`; a flag is set when one
    of its features is > 0, absent features counting as 0), then
    ``site_match`` and ``site_elsewhere`` (:data:`SITE_FEATURE` > 0, and
    = 0; both False where it is absent); with the ``homology`` block, shape
    ``(n, 8)``, :func:`homology_flags` last.

    >>> from types import SimpleNamespace
    >>> f = SimpleNamespace(feature_names_=["candidate:role_transport:same_kind_log1p_count",
    ...                                     "candidate:domain_kind_transport:max_share",
    ...                                     "candidate:site:match_share"], feature_scale_=None)
    >>> candidate_flags(f, np.array([[0.7, 0.0, 0.5], [np.nan, 0.5, 0.0], [0.0, 0.0, np.nan]])).astype(int).tolist()
    [[0, 0, 0, 1, 0, 1, 0], [0, 0, 0, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0, 0]]
    """
    names = list(featurizer.feature_names_)
    X = np.asarray(X, dtype=np.float64)
    own = np.zeros((X.shape[0], len(OWN_KIND_FLAGS)), dtype=bool)
    for j, flag in enumerate(OWN_KIND_FLAGS):
        cols = [i for i, n in enumerate(names) if re.search(OWN_KIND_FEATURES[flag], n)]
        if cols:
            own[:, j] = (np.nan_to_num(X[:, cols], nan=0.0) > 0).any(axis=1)
    site = np.zeros((X.shape[0], len(SITE_FLAGS)), dtype=bool)
    cols = [i for i, n in enumerate(names) if re.search(SITE_FEATURE, n)]
    if cols:
        if len(cols) != 1:
            raise ValueError(f"candidate_flags: {len(cols)} features match {SITE_FEATURE!r}; expected one "
                             "(the site block's match_share)")
        match = X[:, cols[0]]
        site[:, 0] = match > 0
        site[:, 1] = match == 0
    homology = homology_flags(featurizer, X)
    return np.hstack([evidence_flags(featurizer, X), own, site,
                      *([] if homology is None else [homology[:, None]])])


def shown_rows(top: pd.DataFrame, featurizer, kind_of, n_jobs: int = 1) -> pd.DataFrame:
    """The calibration features of ranked rows ``top`` (columns ``reaction``,
    ``rank``, ``gene``, ``score_z``, ``gap_next_z``, ``gap_top_z``, as
    :func:`geomargin.rank.scoring.rank_candidates` with ``standardised=True`` gives
    them): ``top`` plus ``reaction_kind`` (``kind_of``: reaction -> kind)
    and the :data:`EVIDENCE_FLAGS`, :data:`OWN_KIND_FLAGS` and :data:`SITE_FLAGS`, computed as
    the validation computes them for its calibration rows (per reaction, by ``n_jobs`` forked
    processes, :func:`geomargin.common.parallel.fork_map`); with the ``homology`` block
    also :data:`HOMOLOGY_FLAG` (:func:`candidate_flag_names`)."""
    out = top.reset_index(drop=True).copy()
    names = candidate_flag_names(featurizer)
    flags = np.zeros((len(out), len(names)), dtype=bool)
    groups = out.groupby("reaction", sort=False).indices
    genes = out["gene"].to_numpy()

    def flags_of(r):
        return candidate_flags(featurizer, featurizer.candidate_matrix(r, list(genes[groups[r]])))

    for r, f in zip(groups, fork_map(flags_of, list(groups), n_jobs=n_jobs)):
        flags[groups[r]] = f
    motifs = {r: bool(featurizer.has_motif_gene(r)) for r in pd.unique(out["reaction"])}
    out["reaction_kind"] = [kind_of.get(r, "") if hasattr(kind_of, "get") else kind_of[r] for r in out["reaction"]]
    out["motifs"] = out["reaction"].map(motifs).astype(bool) if len(out) else pd.Series(dtype=bool)
    for j, flag in enumerate(names):
        out[flag] = flags[:, j]
    return out
