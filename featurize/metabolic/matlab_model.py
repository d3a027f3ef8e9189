"""Reading COBRA/RAVEN MATLAB (``.mat``) models with their gene rules.

cobrapy's :func:`cobra.io.load_matlab_model` reads the stoichiometry, bounds,
genes and annotations of a COBRA-style ``model`` struct, but not every field
that RAVEN's exports use: yeast-GEM's ``.mat`` releases keep their gene
rules in ``rules`` (``x(146) & x(243)``, 1-based indices into ``genes``), with
no ``grRules``, and their subsystems in ``subSystems`` (a cell array per
reaction). cobrapy then returns every reaction without a gene, and a
pipeline that trusts it ranks "orphans" that all have genes.

:func:`load_matlab` reads the struct once more with SciPy and completes the
model:

* gene rules from ``grRules`` (gene ids) or else ``rules`` (``x(i)``, ``&``,
  ``|``), checked to name only the model's genes;
* subsystems from ``subSystems`` (a list per reaction, as cobrapy's YAML
  reader gives them);
* EC numbers from ``rxnECNumbers`` as written (cobrapy drops preliminary
  numbers such as ``1.1.1.n12``);
* compartment names from ``comps`` / ``compNames``;
* MetaNetX ids from ``metMetaNetXID`` where cobrapy left them out.

Example
-------
>>> from geomargin.featurize.metabolic.matlab_model import load_matlab  # doctest: +SKIP
>>> model = load_matlab("yeastGEM-8.3.0.mat")  # doctest: +SKIP
>>> model.reactions.get_by_id("r_0003").gene_reaction_rule  # doctest: +SKIP
'YAL060W'

References
----------
Heirendt L et al. (2019) Creation and analysis of biochemical constraint-based
models using the COBRA Toolbox v.3.0. Nat Protoc 14:639-702 (the ``model``
struct). Wang H et al. (2018) RAVEN 2.0. PLoS Comput Biol 14:e1006541.
"""

from __future__ import annotations

import re
from pathlib import Path

import cobra
import numpy as np

from geomargin.common.exceptions import InputFileError, UnknownGeneError

__all__ = ["load_matlab"]

_X_RE = re.compile(r"x\((\d+)\)")


def _strings(value, n: int | None = None) -> list:
    """A MATLAB cell array / char array (as loaded by SciPy) as a list of
    str or list-of-str entries."""
    if value is None:
        return []
    if isinstance(value, str):
        out = [value]
    else:
        out = [v for v in np.atleast_1d(value)]
    res = []
    for v in out:
        if isinstance(v, np.ndarray):
            items = [str(x).strip() for x in np.atleast_1d(v) if str(x).strip()]
            res.append(items)
        else:
            res.append(str(v).strip())
    if n is not None and len(res) != n:
        return []
    return res


def _struct(path: Path):
    import scipy.io

    try:
        data = scipy.io.loadmat(str(path), squeeze_me=True, struct_as_record=False)
    except Exception as exc:  # scipy raises many types for bad .mat files
        raise InputFileError(path, f"cannot read MATLAB file: {type(exc).__name__}: {exc}",
                             "expected a COBRA Toolbox or RAVEN .mat model") from exc
    structs = [v for k, v in data.items() if not k.startswith("__") and hasattr(v, "_fieldnames")]
    if not structs:
        raise InputFileError(path, "no model struct in the MATLAB file",
                             "expected a COBRA Toolbox or RAVEN .mat model (a struct with S, rxns, mets)")
    return structs[0]


def _rule_from_indices(rule: str, genes: list[str], path: Path, rid: str) -> str:
    def repl(m):
        i = int(m.group(1))
        if not 1 <= i <= len(genes):
            raise UnknownGeneError(
                f"{path}: reaction {rid!r} has rule {rule!r} naming gene x({i}), but the model's 'genes' "
                f"field has {len(genes)} genes; correct the rule or the gene list")
        return genes[i - 1]

    text = _X_RE.sub(repl, rule).replace("&", " and ").replace("|", " or ")
    return re.sub(r"\s+", " ", text).replace("( ", "(").replace(" )", ")").strip()


def load_matlab(path: str | Path) -> cobra.Model:
    """Read a COBRA/RAVEN ``.mat`` model with its gene rules (module docstring).

    Raises
    ------
    InputFileError
        The file cannot be read as a MATLAB model.
    UnknownGeneError
        A rule names a gene index or id that is not in ``genes``.
    """
    path = Path(path)
    try:
        model = cobra.io.load_matlab_model(str(path))
    except Exception as exc:  # scipy/cobra raise many types for bad .mat files
        raise InputFileError(path, f"cannot read MATLAB model: {type(exc).__name__}: {exc}",
                             "expected a COBRA Toolbox or RAVEN .mat model") from exc
    s = _struct(path)
    fields = set(s._fieldnames)
    rxn_ids = _strings(getattr(s, "rxns", None))
    n = len(rxn_ids)
    genes = _strings(getattr(s, "genes", None))
    known = {g.id for g in model.genes}
    rules: list = []
    if "grRules" in fields:
        rules = [("ids", r) for r in _strings(s.grRules, n)]
    if not any(r for _, r in rules) and "rules" in fields:
        rules = [("x", r) for r in _strings(s.rules, n)]
    if rules and not any(r.genes for r in model.reactions):
        for rid, (style, rule) in zip(rxn_ids, rules):
            if isinstance(rule, list):
                rule = " ".join(rule)
            if not rule:
                continue
            text = _rule_from_indices(rule, genes, path, rid) if style == "x" else rule
            tokens = {t for t in re.split(r"[()\s]+", text) if t and t.lower() not in ("and", "or")}
            unknown = sorted(tokens - known)
            if unknown:
                raise UnknownGeneError(
                    f"{path}: reaction {rid!r} has gene rule {text!r} naming gene(s) {unknown[:5]} that are "
                    f"not in the model's 'genes' field ({len(known)} genes); correct the rule or the gene list")
            model.reactions.get_by_id(rid).gene_reaction_rule = text
    if "subSystems" in fields:
        for rid, sub in zip(rxn_ids, _strings(s.subSystems, n)):
            items = sub if isinstance(sub, list) else ([sub] if sub else [])
            if items and not model.reactions.get_by_id(rid).subsystem:
                model.reactions.get_by_id(rid).subsystem = items if len(items) > 1 else items[0]
    if "rxnECNumbers" in fields:
        # cobrapy keeps only EC numbers that match its pattern (it drops
        # "1.1.1.n12", a preliminary number); the file's own list is kept
        for rid, ecs in zip(rxn_ids, _strings(s.rxnECNumbers, n)):
            items = ecs if isinstance(ecs, list) else [ecs]
            items = [e.strip() for x in items for e in re.split(r"[;,]", x) if e.strip()]
            rxn = model.reactions.get_by_id(rid)
            if items:
                rxn.annotation["ec-code"] = items
            else:
                rxn.annotation.pop("ec-code", None)
    comps, names = _strings(getattr(s, "comps", None)), _strings(getattr(s, "compNames", None))
    if comps and len(comps) == len(names):
        model.compartments = {c: nm for c, nm in zip(comps, names) if c in model.compartments}
    mnx = _strings(getattr(s, "metMetaNetXID", None), len(model.metabolites))
    met_ids = _strings(getattr(s, "mets", None))
    for mid, ids in zip(met_ids, mnx):
        ids = ids if isinstance(ids, list) else ([ids] if ids else [])
        if ids and mid in model.metabolites:
            met = model.metabolites.get_by_id(mid)
            met.annotation.setdefault("metanetx.chemical", ids[0] if len(ids) == 1 else ids)
    model.notes["geomargin_source"] = f"{path} (MATLAB model, gene rules read by featurize.metabolic.matlab_model)"
    return model
