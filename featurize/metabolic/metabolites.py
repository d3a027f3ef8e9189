"""Compartment-free metabolite keys: one compound in several compartments is one key.

The directed network (:mod:`geomargin.featurize.metabolic.network`: currency metabolites,
substrates and products, formulas) and the reaction kinds
(:mod:`geomargin.featurize.metabolic.reaction_kinds`: a transport moves one key between
compartments) both compare metabolites by these keys, so the keys must not
depend on how a model file writes its ids: yeast-GEM's YAML names a compound
``s_0001`` in one compartment and ``s_0002`` in the next (the compartment is a
field), RAVEN's ``.mat`` writes ``s_0001[ce]``, BiGG models ``glc__D_c``, some
SBML exports ``glc__D__91__c__93__``.

:func:`metabolite_keys` links the copies of one compound, by evidence in
this order:

1. the model's own annotations: MetaNetX, ChEBI, KEGG compound, InChIKey,
   InChI;
2. the name without its compartment tag (``ATP [cytoplasm]`` -> ``ATP``);
3. the id without its compartment suffix (``glc__D_c``, ``glc__D[c]``,
   ``glc__D(c)``, ``glc__D__91__c__93__`` -> ``glc__D``).

An identifier links metabolites only if it names **at most one metabolite
per compartment** (a ChEBI id that two lipid species of the cytoplasm share
is a class, not an identity), and two groups are joined only if they have no
compartment in common (a compound has one copy per compartment). Links are
applied in the order above, so stronger evidence wins a conflict.

A group's key is its id without the compartment suffix when the model's ids
name compounds (every id carries its compartment and the copies linked
share their stripped id: BiGG models, ``glc__D``); else its name without the compartment tag
when all members share it (yeast-GEM in any of its files, iFF708: ``ATP``);
else the first member's stripped id. So the keys of one release do not
depend on which of its files was read. Two groups with the same key get ``#2``, ``#3`` ...
in id order.

Example
-------
>>> import cobra
>>> m = cobra.Model("m")
>>> m.add_metabolites([cobra.Metabolite("glc__D_c", compartment="c"),
...                    cobra.Metabolite("glc__D_e", compartment="e")])
>>> metabolite_keys(m)
{'glc__D_c': 'glc__D', 'glc__D_e': 'glc__D'}
>>> y = cobra.Model("y")
>>> y.add_metabolites([
...     cobra.Metabolite("s_0001", name="glucan", compartment="c"),
...     cobra.Metabolite("s_0002[e]", name="glucan [extracellular]", compartment="e")])
>>> y.compartments = {"c": "cytoplasm", "e": "extracellular"}
>>> metabolite_keys(y)
{'s_0001': 'glucan', 's_0002[e]': 'glucan'}
"""

from __future__ import annotations

import re
from collections import defaultdict

import cobra

__all__ = ["ANNOTATION_NAMESPACES", "metabolite_keys", "strip_compartment_id", "strip_compartment_name"]

#: Annotation namespaces (cobrapy / identifiers.org prefixes) that identify a
#: compound, strongest first.
ANNOTATION_NAMESPACES = ("metanetx.chemical", "chebi", "kegg.compound", "inchikey", "inchi")

_NAME_TAG_RE = re.compile(r"^(.*?)\s*\[([^\]]+)\]$")


def strip_compartment_id(met_id: str, compartment: str | None) -> str | None:
    """``met_id`` without its compartment suffix, or None if it has none."""
    c = compartment or ""
    if not c:
        return None
    for suf in (f"_{c}", f"[{c}]", f"({c})", f"__91__{c}__93__"):
        if met_id.endswith(suf) and len(met_id) > len(suf):
            return met_id[: -len(suf)]
    return None


def strip_compartment_name(name: str, compartment_tags: set[str]) -> str:
    """``name`` without a trailing ``[compartment]`` tag that names one of
    ``compartment_tags`` (lower case ids or names)."""
    name = (name or "").strip()
    tag = _NAME_TAG_RE.match(name)
    if tag and tag.group(2).strip().lower() in compartment_tags:
        return tag.group(1).strip()
    return name


def _annotation_values(met: cobra.Metabolite, namespace: str) -> list[str]:
    values = (met.annotation or {}).get(namespace) or []
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values:
        v = str(v).strip()
        if namespace == "chebi" and v and not v.upper().startswith("CHEBI:"):
            v = f"CHEBI:{v}"
        if v:
            out.append(v.upper() if namespace != "inchi" else v)
    return out


def metabolite_keys(model: cobra.Model) -> dict[str, str]:
    """Compartment-free key for every metabolite id of ``model`` (rules in the
    module docstring)."""
    mets = sorted(model.metabolites, key=lambda m: m.id)
    tags = {str(c).lower() for c in model.compartments} | {
        str(n).lower() for n in model.compartments.values() if n}
    tags |= {str(m.compartment).lower() for m in mets if m.compartment}
    stripped_id = {m.id: strip_compartment_id(m.id, m.compartment) for m in mets}
    stripped_name = {m.id: strip_compartment_name(m.name, tags) for m in mets}

    parent = {m.id: m.id for m in mets}
    comps = {m.id: {m.compartment} for m in mets}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def link(ids: list[str]) -> None:
        for other in ids[1:]:
            a, b = find(ids[0]), find(other)
            if a != b and not comps[a] & comps[b]:
                a, b = min(a, b), max(a, b)
                parent[b] = a
                comps[a] |= comps.pop(b)

    evidence = [lambda m, ns=ns: _annotation_values(m, ns) for ns in ANNOTATION_NAMESPACES]
    evidence.append(lambda m: [stripped_name[m.id]] if stripped_name[m.id] else [])
    evidence.append(lambda m: [stripped_id[m.id]] if stripped_id[m.id] else [])
    for values_of in evidence:
        groups: dict[str, list] = defaultdict(list)
        for m in mets:
            for v in dict.fromkeys(values_of(m)):
                groups[v].append(m)
        for members in groups.values():
            compartments = [m.compartment for m in members]
            if len(members) > 1 and len(set(compartments)) == len(compartments):
                link([m.id for m in members])

    members: dict[str, list[str]] = defaultdict(list)
    for m in mets:
        members[find(m.id)].append(m.id)
    # ids name compounds (BiGG: glc__D_c, glc__D_e) when every id carries its
    # compartment and the copies linked above share their stripped id;
    # RAVEN's s_0001[ce], s_0002[c] carry it but name each copy apart
    ids_name_compounds = all(v is not None for v in stripped_id.values()) and all(
        len({stripped_id[i] for i in ids}) == 1 for ids in members.values())
    labels: dict[str, str] = {}
    for root, ids in members.items():
        sid = {stripped_id[i] for i in ids}
        names = {stripped_name[i] for i in ids}
        if ids_name_compounds and len(sid) == 1:
            labels[root] = sid.pop()
        elif len(names) == 1 and "" not in names:
            labels[root] = names.pop()
        else:
            labels[root] = stripped_id[ids[0]] or ids[0]
    seen: dict[str, int] = defaultdict(int)
    unique: dict[str, str] = {}
    for root in sorted(members):
        seen[labels[root]] += 1
        unique[root] = labels[root] if seen[labels[root]] == 1 else f"{labels[root]}#{seen[labels[root]]}"
    return {m.id: unique[find(m.id)] for m in model.metabolites}
