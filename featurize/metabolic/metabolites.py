"""Compartment-free metabolite keys: one compound in several compartments is one key.

The directed network (:mod:`featurize.metabolic.network`: currency metabolites,
substrates and products, formulas) and the reaction kinds
(:mod:`featurize.metabolic.reaction_kinds`: a transport moves one key between
compartments) both compare metabolites by these keys.

Example
-------
>>> import cobra
>>> m = cobra.Model("m")
>>> m.add_metabolites([cobra.Metabolite("glc__D_c", compartment="c"),
...                    cobra.Metabolite("glc__D_e", compartment="e")])
>>> metabolite_keys(m)
{'glc__D_c': 'glc__D', 'glc__D_e': 'glc__D'}
"""

from __future__ import annotations

import re

import cobra

__all__ = ["metabolite_keys"]


def metabolite_keys(model: cobra.Model) -> dict[str, str]:
    """Compartment-free key for every metabolite id of ``model``.

    If every metabolite id ends with its compartment (``glc__D_c``,
    ``glc__D[c]``, ``glc__D(c)``), the key is the id without it (BiGG-style
    models such as iMM904). Otherwise (e.g. iFF708, whose ids ``M_m220`` /
    ``M_m221`` are ATP in two compartments) the key is the metabolite name,
    without a trailing ``[compartment]`` tag; a metabolite without a name
    keeps its id.
    """
    def strip_id(m):
        c = m.compartment or ""
        for suf in (f"_{c}", f"[{c}]", f"({c})"):
            if c and m.id.endswith(suf) and len(m.id) > len(suf):
                return m.id[: -len(suf)]
        return None

    by_id = {m.id: strip_id(m) for m in model.metabolites}
    if by_id and all(v is not None for v in by_id.values()):
        return by_id
    comp_tags = set()
    for cid, cname in model.compartments.items():
        comp_tags.update({cid.lower(), str(cname).lower()})
    keys = {}
    for m in model.metabolites:
        name = (m.name or "").strip()
        tag = re.match(r"^(.*?)\s*\[([^\]]+)\]$", name)
        if tag and tag.group(2).lower() in comp_tags | {str(m.compartment).lower()}:
            name = tag.group(1).strip()
        keys[m.id] = name or m.id
    return keys
