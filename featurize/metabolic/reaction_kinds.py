"""What kind of reaction a model reaction is: pseudo, transport, spontaneous or enzymatic.

A biologist looks for a transporter differently from a metabolic enzyme, a
spontaneous reaction may need no gene at all, and a pseudoreaction is
bookkeeping of the model that no enzyme catalyses; the ranking labels every
orphan reaction with its kind (by default it ranks every kind but
``pseudo``: curated yeast models later gave genes to several reactions
first written as diffusion).

:func:`reaction_kind` holds every rule, in this order:

0. ``pseudo`` when

   a. its SBO term is in :data:`PSEUDO_SBO` (yeast-GEM marks its SLIME
      reactions and its biomass, protein, lipid, ... pseudoreactions
      ``SBO:0000395``, encapsulating process; its growth ``SBO:0000629`` and
      non-growth maintenance ``SBO:0000630``), or
   b. its name says so: ``SLIME``, ``pseudoreaction``, ``biomass``,
      ``growth`` or ``maintenance`` (iMM904's ``ATPM``, "ATP maintenance
      requirement"), or
   c. its structure does: :data:`PSEUDO_MIN_METABOLITES` or more
      metabolites (a biomass or component drain; far more than a reaction
      with a gene has, see docs/metabolic.md).

   Lumped reactions (iMM904's ``FAS80_L``, "Fatty acid synthase ... lumped
   reaction") are enzyme chains that have genes, and keep their kind.

1. ``transport`` when

   a. the same compound is consumed in one compartment and produced in
      another (compartment-free keys of
      :func:`geomargin.featurize.metabolic.metabolites.metabolite_keys`: BiGG ids
      without their compartment suffix, or metabolite names), or
   b. the model says so: an SBO term of :data:`TRANSPORT_SBO` (iFF708
      marks its 553 transport reactions ``SBO:0000185``, translocation
      reaction), or a subsystem starting with ``transport`` (iMM904:
      ``S_Transport__Mitochondrial`` ...).

2. ``spontaneous`` when the reaction's name or notes say *spontaneous* or
   *non-enzymatic* (also ``nonenzymatic``, ``non enzymatic``), or its SBO term
   is in :data:`SPONTANEOUS_SBO` (neither default model uses one).
3. ``enzymatic`` otherwise.

``named_diffusion`` is independent of the kind: the name or notes contain
*diffusion* (e.g. iMM904's ``SBT_Dt``, "D sorbitol transport via passive
diffusion").

Example
-------
>>> import cobra
>>> m = cobra.Model("m")
>>> a_e = cobra.Metabolite("sbt__D_e", name="D-Sorbitol", compartment="e")
>>> a_c = cobra.Metabolite("sbt__D_c", name="D-Sorbitol", compartment="c")
>>> r = cobra.Reaction("SBT_Dt", name="D sorbitol transport via passive diffusion")
>>> m.add_reactions([r]); r.add_metabolites({a_e: -1, a_c: 1})
>>> reaction_kind(r, metabolite_keys(m))
('transport', True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import cobra

from geomargin.featurize.metabolic.metabolites import metabolite_keys

__all__ = ["PSEUDO_MIN_METABOLITES", "PSEUDO_SBO", "REACTION_KINDS", "TRANSPORT_SBO", "SPONTANEOUS_SBO",
           "reaction_kind", "reaction_kinds"]

#: The kinds, in the order the README and the browser list them.
REACTION_KINDS = ("enzymatic", "transport", "spontaneous", "pseudo")
#: SBO terms of model bookkeeping: encapsulating process (395), biomass
#: production (629), ATP maintenance (630).
PSEUDO_SBO = frozenset({"SBO:0000395", "SBO:0000629", "SBO:0000630"})
#: A reaction with this many metabolites or more is a biomass or component
#: drain (``pseudo``).
PSEUDO_MIN_METABOLITES = 20
#: SBO terms that mark a transport reaction: translocation reaction (185) and
#: transport reaction (655, "across a membrane, mediated by a transporter").
TRANSPORT_SBO = frozenset({"SBO:0000185", "SBO:0000655"})
#: SBO terms that mark a spontaneous reaction. The SBO has no term that either
#: default model uses for this (iFF708 gives its "Spontaneous conversion" and
#: "Non-enzymatic reaction" the generic SBO:0000176, biochemical reaction), so
#: the set is empty and names/notes decide; extend it for models that have one.
SPONTANEOUS_SBO: frozenset[str] = frozenset()

_PSEUDO_RE = re.compile(r"\bSLIME\b|pseudo[\s_-]?reaction|biomass|\bgrowth\b|maintenance", re.IGNORECASE)
_SPONTANEOUS_RE = re.compile(r"spontaneous|non[\s_-]?enzymatic", re.IGNORECASE)
_DIFFUSION_RE = re.compile(r"diffusion", re.IGNORECASE)
_TRANSPORT_SUBSYSTEM_RE = re.compile(r"\s*(?:s_)?transport", re.IGNORECASE)


def _text(rxn: cobra.Reaction) -> str:
    """Name and notes (every value, flattened) of a reaction."""
    parts = [rxn.name or ""]

    def walk(v):
        if isinstance(v, Mapping):
            for k, x in v.items():
                parts.append(str(k))
                walk(x)
        elif isinstance(v, (list, tuple, set)):
            for x in v:
                walk(x)
        elif v is not None:
            parts.append(str(v))

    walk(rxn.notes or {})
    return " ".join(parts)


def _sbo(rxn: cobra.Reaction) -> set[str]:
    sbo = (rxn.annotation or {}).get("sbo") or (rxn.annotation or {}).get("SBO") or []
    if isinstance(sbo, str):
        sbo = [sbo]
    return {str(s).strip().replace("_", ":").upper() for s in sbo}


def reaction_kind(rxn: cobra.Reaction, keys: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """``(reaction_kind, named_diffusion)`` of one model reaction (rules in
    the module docstring).

    Parameters
    ----------
    rxn : cobra.Reaction
    keys : mapping, optional
        Metabolite id -> compartment-free key, as from
        :func:`geomargin.featurize.metabolic.metabolites.metabolite_keys` of the reaction's model
        (computed from ``rxn.model`` when not given; pass it when classifying
        many reactions).
    """
    if keys is None:
        keys = metabolite_keys(rxn.model) if rxn.model is not None else {}
    text = _text(rxn)
    sbo = _sbo(rxn)
    diffusion = bool(_DIFFUSION_RE.search(text))
    if sbo & PSEUDO_SBO or _PSEUDO_RE.search(rxn.name or "") or len(rxn.metabolites) >= PSEUDO_MIN_METABOLITES:
        return "pseudo", diffusion
    consumed: dict[str, set] = {}
    produced: dict[str, set] = {}
    for met, coeff in rxn.metabolites.items():
        key = keys.get(met.id, met.id)
        (consumed if coeff < 0 else produced).setdefault(key, set()).add(met.compartment)
    moved = any(consumed[k] != produced[k] for k in set(consumed) & set(produced))
    said = bool(sbo & TRANSPORT_SBO) or bool(_TRANSPORT_SUBSYSTEM_RE.match(str(rxn.subsystem or "")))
    if moved or said:
        return "transport", diffusion
    if _SPONTANEOUS_RE.search(text) or sbo & SPONTANEOUS_SBO:
        return "spontaneous", diffusion
    return "enzymatic", diffusion


def reaction_kinds(model: cobra.Model) -> dict[str, tuple[str, bool]]:
    """:func:`reaction_kind` of every reaction of ``model``, by reaction id."""
    keys = metabolite_keys(model)
    return {r.id: reaction_kind(r, keys) for r in model.reactions}
