"""The candidate browser: one self-contained HTML page over the enzyme ranking.

:func:`browser_data` collects what the page shows (orphan reactions, their
ranked candidates with the evidence columns of ``enzyme_ranking.tsv``, the
standardized expression profiles of the candidates and their neighbours'
mean profiles, the method and its validated quality) and
:func:`render_browser` writes it into one HTML page.

The page needs no network at view time: no CDN, its CSS and JavaScript are
inlined (both written here, no library: a sortable, searchable table and a
line plot need little plain JavaScript, and nothing is fetched at build
time). The data are embedded
as JSON in a ``<script type="application/json">`` element with ``<``, ``>``
and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026``, so no input text
can close the element; the script builds every element with
``createElement``/``textContent`` (never ``innerHTML``), so text from the
inputs (gene descriptions, reaction names) is shown as text and never runs.
Links go to SGD (``https://www.yeastgenome.org/locus/<ORF>``) and, when the
input set gives its ``reaction_url``, to the model's own page of a reaction.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from geomargin.featurize.metabolic.genes import canonical_gene_id
from geomargin.rank.calibration import THIN_SUPPORT

__all__ = ["history_test_summary", "time_split_summary", "unearned_top_gene", "browser_data", "render_browser",
           "embed_json", "validated_quality"]

_ASSETS = Path(__file__).with_name("browser_assets")


def _num(v, nd=4):
    """JSON-safe rounded float (None for NaN/inf/missing)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return round(f, nd) if math.isfinite(f) else None


def _str(v) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)


def _split(v) -> list[str]:
    return [x for x in _str(v).split(";") if x]


def validated_quality(validation: pd.DataFrame, ranking: pd.DataFrame) -> dict:
    """The validated quality of the method that made ``ranking`` (read from
    its ``method`` column, one method expected): the row of ``validation``
    (``ranking_validation.tsv``, or any table with a ``method`` column and
    ``hit@10``, ``hit@50``, ``mrr``, optional ``<metric>_lo``/``_hi``,
    ``n_true``, ``n_candidates``) for that method; {} when it has none.

    >>> v = pd.DataFrame({"method": ["a", "b"], "hit@10": [0.5, 0.2], "mrr": [0.3, 0.1],
    ...                   "median_rank": [9, 40]})
    >>> validated_quality(v, pd.DataFrame({"method": ["b", "b"]}))
    {'hit@10': 0.2, 'mrr': 0.1}
    """
    methods = sorted(set(ranking["method"].astype(str))) if "method" in ranking.columns else []
    if len(methods) != 1 or "method" not in validation.columns:
        return {}
    rows = validation[validation["method"].astype(str) == methods[0]]
    if rows.empty:
        return {}
    keep = re.compile(r"^(hit@10|hit@50|mrr)(_lo|_hi)?$|^n_true(_pairs)?$|^n_candidates$")
    return {str(k): float(v) for k, v in rows.iloc[0].items()
            if keep.match(str(k)) and pd.notna(v)}


def time_split_summary(table: pd.DataFrame, older: str, newer: str) -> dict:
    """What the header shows of the time split: the older run's own ranking
    (``default``), over every reaction kind, from ``time_split_validation.tsv``.

    >>> t = pd.DataFrame({"ranking": ["a", "b"], "default": [False, True], "reaction_kind": "all",
    ...                   "reactions": [9, 9], "hit@1": [0.1, 0.2], "hit@20": [0.3, 0.5],
    ...                   "random_hit@20": [0.01, 0.01], "later_genes": [12, 12]})
    >>> time_split_summary(t, "old", "new")
    {'older': 'old', 'newer': 'new', 'ranking': 'b', 'reactions': 9.0, 'hit@1': 0.2, 'hit@20': 0.5, 'random_hit@20': 0.01}
    """
    for col in ("ranking", "default", "reaction_kind"):
        if col not in table.columns:
            raise ValueError(f"time-split table has no column {col!r}; expected the "
                             "time_split_validation.tsv of the metabolic_time_split rule")
    default = table["default"].astype(str).str.lower() == "true"
    rows = table[default & (table["reaction_kind"].astype(str) == "all")]
    if rows.empty:
        raise ValueError("time-split table has no row of the default ranking over all reaction kinds")
    keep = re.compile(r"^(random_)?(hit@(1|20)|mrr)(_lo|_hi)?$|^reactions$")
    row = rows.iloc[0]
    return {"older": older, "newer": newer, "ranking": str(row["ranking"]),
            **{str(k): float(v) for k, v in row.items() if keep.match(str(k)) and pd.notna(v)}}


#: Columns of ``enzyme_ranking_quality.tsv`` the header shows of the shown
#: ranking's choice with a release history, as ``shown_<column>``.
SHOWN_CHOICE = ("method", "shown_chosen_on", "shown_learned_from", "history_reactions", "history_hit@1",
                "history_mrr", "cv_hit@1", "cv_mrr")


def history_test_summary(table: pd.DataFrame, quality: pd.DataFrame | None = None) -> dict:
    """What the header shows first with a release history: the test pair's
    headline (``history_test.tsv``, one row), its figures as numbers and
    its names as text; and from the quality table (one row), what today's
    shown ranking was chosen on with its history and cross-validated
    figures (:data:`SHOWN_CHOICE`, each as ``shown_<column>``).

    >>> t = pd.DataFrame([{"test_split": "a->b", "ranking": "m", "chosen_on": "history", "test_reactions": 37,
    ...                    "test_hit@1": 0.1, "test_hit@1_lo": 0.0, "test_hit@1_hi": 0.2}])
    >>> q = pd.DataFrame([{"method": "n", "shown_chosen_on": "history", "history_mrr": 0.2, "cv_mrr": 0.5}])
    >>> s = history_test_summary(t, q)
    >>> s["test_hit@1"], s["ranking"], s["shown_method"], s["shown_history_mrr"]
    (0.1, 'm', 'n', 0.2)
    """
    if len(table) != 1 or "test_split" not in table.columns:
        raise ValueError(f"the release history's test table has {len(table)} rows and columns "
                         f"{list(table.columns)}; expected the one row of history_test.tsv")
    text = ("test_split", "ranking", "chosen_on", "chosen_by", "learned_from", "threshold_rule")
    out = {str(k): (str(v) if k in text else float(v)) for k, v in table.iloc[0].items()
           if k in text or (pd.notna(v) and not isinstance(v, str))}
    if quality is not None and len(quality):
        row = quality.iloc[0]
        for k in SHOWN_CHOICE:
            if k in row.index and pd.notna(row[k]):
                out[f"shown_{k.removeprefix('shown_')}"] = row[k] if isinstance(row[k], str) else float(row[k])
    return out


def unearned_top_gene(quality: pd.DataFrame, ranking: pd.DataFrame) -> dict | None:
    """The gene first for the most orphans, when the validation does not
    earn it (``orphan_top1_earned`` of the quality table, one row: see
    :func:`geomargin.rank.metrics.top1_record`) and it is first for more than one
    orphan; else None. The header names it, so a reader weighs its first
    places against its record on held-out reactions.

    Returns ``gene``, ``name`` (its ``gene_name`` in ``ranking``, "" if
    none), ``reactions`` and ``share`` (of the ``orphans_ranked`` it tops),
    ``validated_tops`` and ``validated_correct`` (held-out reactions it
    topped, and of those where it was a true gene).

    >>> q = pd.DataFrame([{"orphans_ranked": 1710, "orphan_top1_gene": "YAL026C", "orphan_top1_reactions": 112,
    ...                    "orphan_top1_validated_tops": 16, "orphan_top1_validated_correct": 0,
    ...                    "orphan_top1_earned": False}])
    >>> r = pd.DataFrame({"gene": ["YAL026C"], "gene_name": ["DRS2"]})
    >>> unearned_top_gene(q, r)["name"], unearned_top_gene(q.assign(orphan_top1_earned=True), r)
    ('DRS2', None)
    """
    if len(quality) != 1:
        raise ValueError(f"the quality table has {len(quality)} rows; expected one (enzyme_ranking_quality.tsv)")
    row = quality.iloc[0]
    keys = ("orphans_ranked", "orphan_top1_gene", "orphan_top1_reactions", "orphan_top1_validated_tops",
            "orphan_top1_validated_correct", "orphan_top1_earned")
    missing = [k for k in keys if k not in row.index]
    if missing:
        raise ValueError(f"the quality table has no column {missing[0]!r} (enzyme_ranking_quality.tsv)")
    earned = str(row["orphan_top1_earned"]).strip().lower() == "true"
    if earned or not _str(row["orphan_top1_gene"]) or not int(row["orphan_top1_reactions"]) > 1:
        return None
    gene = _str(row["orphan_top1_gene"])
    names = ranking.loc[ranking["gene"].astype(str) == gene, "gene_name"] if "gene_name" in ranking else []
    return {"gene": gene, "name": _str(names.iloc[0]) if len(names) else "",
            "reactions": int(row["orphan_top1_reactions"]),
            # from the counts: the table's share is rounded
            "share": int(row["orphan_top1_reactions"]) / int(row["orphans_ranked"]),
            "validated_tops": int(row["orphan_top1_validated_tops"]),
            "validated_correct": int(row["orphan_top1_validated_correct"])}


def browser_data(ranking: pd.DataFrame, orphans: pd.DataFrame, featurizer, *,
                 quality: Mapping[str, object] | None = None, dataset: str = "",
                 reaction_url: str = "", time_split: Mapping[str, object] | None = None,
                 calibration: Mapping[str, object] | None = None,
                 history_test: Mapping[str, object] | None = None,
                 top_gene: Mapping[str, object] | None = None,
                 credible: Mapping[str, object] | None = None) -> dict:
    """Everything the page shows, as JSON-ready Python objects.

    Parameters
    ----------
    ranking : DataFrame
        ``results/enzyme_ranking.tsv`` (columns of
        :data:`geomargin.rank.evidence.RANKING_COLUMNS`, ``coexpr_r_<motif>``, ``method``).
    orphans : DataFrame
        ``results/orphan_reactions.tsv``.
    featurizer : PairFeaturizer
        For the motif neighbours and the expression profiles.
    quality : mapping, optional
        The method's validated ranking quality: ``hit@10``, ``hit@50``,
        ``mrr`` and optionally ``n_true``, ``n_candidates`` and
        ``<metric>_lo`` / ``<metric>_hi`` interval bounds.
    dataset : str
        Name of the input set (shown in the header).
    reaction_url : str
        Address of a reaction's page with ``{id}`` for the model reaction id
        ("" for no links).
    time_split : mapping, optional
        :func:`time_split_summary` of this run's time split; None when the
        job did not run it (the header says so).
    calibration : mapping, optional
        The confidence's check (the ``all`` row of ``calibration.tsv``):
        ``threshold`` (no credible candidate below it), ``ece``, ``brier``.
    history_test : mapping, optional
        :func:`history_test_summary` of the release history's test pair;
        the header leads with it (None: no release history in this run).
    top_gene : mapping, optional
        :func:`unearned_top_gene`: the header names it (None: no such gene).
    credible : mapping, optional
        The "no credible candidate" threshold the ranking's flags used, when
        it is not ``calibration``'s (a release history's): ``threshold`` and
        ``possible`` (False when no confidence can reach it:
        :func:`geomargin.rank.history.credible_possible`).
    """
    if reaction_url and "{id}" not in reaction_url:
        raise ValueError(f"reaction_url is {reaction_url!r}; expected an address with {{id}} for the "
                         "model reaction id, or \"\" for no links")
    methods = sorted(set(ranking["method"].astype(str))) if len(ranking) else []
    motif_types = list(featurizer.motif_types_)
    has_expr = "expr" in featurizer.sources_
    conditions = []
    profiles: dict[str, list] = {}
    nb_mean: dict[str, list] = {}
    own_mean: dict[str, list] = {}

    def zlist(row):
        return [_num(v, 2) for v in row]

    if has_expr and len(ranking):
        genes = sorted({canonical_gene_id(g)[0] for g in ranking["gene"]})
        z = featurizer.expression_zscores(genes)
        conditions = [str(c) for c in z.columns]
        for g, row in zip(genes, z.to_numpy()):
            if not np.isnan(row).all():
                profiles[g] = zlist(row)
    cands: dict[str, list] = {}
    for r, grp in ranking.groupby("reaction_id", sort=False):
        nb = featurizer.neighbour_genes(r, "")
        all_nb = sorted(set().union(*nb.values())) if nb else []
        if has_expr and all_nb:
            zn = featurizer.expression_zscores(all_nb).to_numpy()
            with np.errstate(all="ignore"):
                nb_mean[r] = zlist(np.nanmean(zn, axis=0)) if not np.isnan(zn).all() else []
        rows = []
        for row in grp.sort_values("rank").itertuples(index=False):
            rec = row._asdict()
            g = canonical_gene_id(rec["gene"])[0]
            # a candidate that is itself a neighbour gene is left out of the mean
            if has_expr and g in all_nb and len(all_nb) > 1:
                others = [h for h in all_nb if h != g]
                zo = featurizer.expression_zscores(others).to_numpy()
                if not np.isnan(zo).all():
                    with np.errstate(all="ignore"):
                        own_mean[f"{r}|{g}"] = zlist(np.nanmean(zo, axis=0))
            names = _split(rec.get("supporting_names"))
            support = []
            for k, item in enumerate(_split(rec.get("supporting_neighbours"))):
                orf, _, motifs = item.partition("(")
                support.append([orf, names[k] if k < len(names) else "", motifs.rstrip(")")])
            rows.append({
                "rank": int(rec["rank"]), "gene": _str(rec["gene"]), "key": g,
                "name": _str(rec.get("gene_name")), "desc": _str(rec.get("gene_description")),
                "score": _num(rec["score"], 6), "conf": _num(rec.get("confidence")),
                "like": _num(rec.get("held_out_like"), 1),
                "coexpr": {t: _num(rec.get(f"coexpr_r_{t}"), 3) for t in motif_types},
                "support": support, "domains": _split(rec.get("shared_domains")),
                "comps": _split(rec.get("shared_compartments")),
                "evidence": _str(rec.get("evidence")),
            })
        cands[str(r)] = rows
    best = ranking.groupby("reaction_id")["score"].max() if len(ranking) else pd.Series(dtype=float)
    reactions = []
    for row in orphans.itertuples(index=False):
        rec = row._asdict()
        rid = str(rec["reaction_id"])
        reactions.append({
            "id": rid, "model_id": _str(rec.get("model_reaction")), "name": _str(rec.get("reaction_name")),
            "equation": _str(rec.get("equation")), "kind": _str(rec.get("reaction_kind")),
            "diffusion": str(rec.get("named_diffusion")).lower() == "true",
            "subsystem": _str(rec.get("subsystem")), "ec": _str(rec.get("ec_numbers")),
            "ranked": _str(rec.get("ranked")) == "yes", "reason": _str(rec.get("reason")),
            "ranked_on": _str(rec.get("ranked_on")), "near_copy_genes": _str(rec.get("near_copy_genes")),
            "best": _num(best.get(rid)), "n": len(cands.get(rid, [])),
            "conf": _num(rec.get("best_confidence")),
            "like": _num(rec.get("best_held_out_like"), 1),
            "no_credible": _str(rec.get("no_credible_candidate")) == "yes",
            "neighbours": {t: int(rec.get(f"{t}_genes") or 0) for t in motif_types},
        })
    q = {}
    for k, v in dict(quality or {}).items():
        q[str(k)] = _num(v) if not isinstance(v, str) else v
    return {"meta": {"method": ", ".join(methods), "dataset": dataset, "reaction_url": reaction_url,
                     "motif_types": motif_types, "quality": q, "n_conditions": len(conditions),
                     "confidence_threshold": _num((credible or calibration or {}).get("threshold")),
                     "credible_possible": bool((credible or {}).get("possible", True)),
                     "thin_support": THIN_SUPPORT,
                     "calibration": {str(k): (v if isinstance(v, str) else _num(v))
                                     for k, v in dict(calibration or {}).items()},
                     "top_gene": None if top_gene is None else dict(top_gene),
                     "history_test": None if history_test is None else
                     {str(k): (v if isinstance(v, str) else _num(v)) for k, v in history_test.items()},
                     "time_split": None if time_split is None else
                     {str(k): (v if isinstance(v, str) else _num(v)) for k, v in time_split.items()}},
            "conditions": conditions, "reactions": reactions, "candidates": cands,
            "profiles": profiles, "nb_mean": nb_mean, "own_mean": own_mean}


def embed_json(data) -> str:
    """JSON text safe inside an HTML ``<script>`` element: ``<``, ``>``, ``&``
    (and the JavaScript line separators) escaped as ``\\uXXXX``.

    >>> embed_json({"d": "</script><b>&"})
    '{"d": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    for ch, rep in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, rep)
    return text


def render_browser(data: dict, title: str = "Candidate enzymes for orphan reactions") -> str:
    """The complete HTML page (CSS, JavaScript and data inlined)."""
    css = (_ASSETS / "browser.css").read_text()
    js = (_ASSETS / "browser.js").read_text()
    for name, text in (("browser.css", css), ("browser.js", js)):
        if "</" in text:
            raise ValueError(f"report/browser_assets/{name} must not contain '</' "
                             "(it is inlined into the page)")
    esc = (title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<link rel=\"icon\" href=\"data:,\">\n"
            f"<title>{esc}</title>\n<style>\n{css}\n</style>\n</head>\n<body>\n"
            "<noscript>This page needs JavaScript to show the ranking; the same data are in "
            "results/enzyme_ranking.tsv.</noscript>\n"
            f"<script type=\"application/json\" id=\"geomargin-data\">{embed_json(data)}</script>\n"
            f"<script>\n{js}\n</script>\n</body>\n</html>\n")
