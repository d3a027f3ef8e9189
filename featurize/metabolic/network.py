"""Directed metabolic networks: the reactions of a model, split by direction.

:func:`build_directed_network` turns a model (read by
:func:`geomargin.featurize.metabolic.model_io.load_model`) into the directed reactions
used by :mod:`geomargin.featurize.metabolic.motifs` (see its docstring for every rule).

Example
-------
>>> from geomargin.featurize.metabolic.model_io import load_model  # doctest: +SKIP
>>> from geomargin.featurize.metabolic.network import build_directed_network  # doctest: +SKIP
>>> net = build_directed_network(load_model("iFF708.xml"), n_currency=14)  # doctest: +SKIP
>>> net.reactions.loc["R_GLK1_1", "equation"]   # doctest: +SKIP
'alpha-D-glucose + ATP -> ADP + alpha-D-glucose 6-phosphate'
"""

from __future__ import annotations

import difflib
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

import cobra
import pandas as pd

from geomargin.common.exceptions import ConfigValueError
from geomargin.featurize.metabolic.metabolites import metabolite_keys, strip_compartment_name
from geomargin.featurize.metabolic.reaction_kinds import reaction_kind

#: The suffix of a directed reaction id for the reverse direction of a model reaction (``<id>__rev``).
REVERSE_SUFFIX = "__rev"

__all__ = ["DirectedNetwork", "build_directed_network", "lipid_class", "chain_class"]

log = logging.getLogger(__name__)


@dataclass
class DirectedNetwork:
    """Directed reactions of a metabolic model.

    Attributes
    ----------
    reactions : pandas.DataFrame
        Index: directed reaction id (model id, ``<id>__rev`` for the backward
        direction). Columns: ``reaction_id`` (model id), ``name``,
        ``equation`` (metabolite names, ``" -> "``; compartments in brackets
        when a reaction spans several), ``ec_numbers`` (";"-joined),
        ``genes`` (sorted tuple of gene ids; ``()`` for orphans),
        ``direction`` ("forward"/"reverse"), ``model_reactions`` (";"-joined
        model ids merged into this one), ``subsystem`` (the model's
        subsystem, else the reaction's KEGG pathway annotations, ";"-joined;
        "" when the model has neither, as iFF708), ``reaction_kind`` and ``named_diffusion``
        (:func:`geomargin.featurize.metabolic.reaction_kinds.reaction_kind` of the first model
        reaction of the group), ``compartments`` (the names of the
        compartments of its metabolites, as the model names them, sorted and
        ";"-joined).
    substrates, products : dict[str, frozenset[str]]
        Compartment-free metabolite keys per directed reaction, currency removed.
    currency : tuple[str, ...]
        Removed metabolite keys, most connected first, then ``extra_currency``.
    degree : dict[str, int]
        Number of directed reactions using each key (before currency removal).
    merged : dict[str, tuple[str, ...]]
        Kept model reaction id -> the model reactions merged into it (only
        groups of two or more).
    dropped : dict[str, tuple[str, ...]]
        Model reactions left out, by reason ("boundary", "biomass", "empty").
    formulas : dict[str, str]
        Compartment-free metabolite key -> the model's molecular formula (of
        the first metabolite with that key, by id, that has one); keys
        without a formula are left out.
    lipid_reactions : dict[str, frozenset]
        For every directed reaction with a lipid species or fatty acyl chain
        (a key that :func:`chain_class` shortens), the reaction without its
        acyl chains: the unordered pair of its sides, each a frozenset of
        ``(chain_class(key), compartment)``, currency metabolites and
        compartments kept. The reactions that a model writes once per
        acyl-chain combination or chain length of one reaction share it; a
        transport between other compartments, or a reaction with other
        cofactors, does not.
    """

    reactions: pd.DataFrame
    substrates: dict[str, frozenset[str]]
    products: dict[str, frozenset[str]]
    currency: tuple[str, ...]
    degree: dict[str, int] = field(default_factory=dict)
    merged: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)
    formulas: dict[str, str] = field(default_factory=dict)
    lipid_reactions: dict[str, frozenset] = field(default_factory=dict)

    @property
    def n_merged(self) -> int:
        """Number of model reactions absorbed into another by isozyme merging."""
        return sum(len(v) - 1 for v in self.merged.values())


def _is_biomass(rxn: cobra.Reaction) -> bool:
    text = f"{rxn.id} {rxn.name}".lower()
    return "biomass" in text or "growth" in text


def _ec_numbers(rxn: cobra.Reaction) -> list[str]:
    ec = rxn.annotation.get("ec-code", [])
    if isinstance(ec, str):
        ec = [ec]
    return [str(e).strip() for e in ec if str(e).strip()]


def _subsystems(rxn: cobra.Reaction) -> list[str]:
    """The model's subsystems of a reaction (one string, or a list as
    yeast-GEM's YAML and RAVEN's .mat give them); else its KEGG pathway
    annotations (``kegg.pathway:sce00010``, as cobrapy reads them from
    SBML/JSON reaction annotations); else none."""
    sub = rxn.subsystem
    items = [str(x).strip() for x in sub] if isinstance(sub, (list, tuple)) else [str(sub or "").strip()]
    items = list(dict.fromkeys(x for x in items if x))
    if items:
        return items
    kegg = rxn.annotation.get("kegg.pathway", [])
    if isinstance(kegg, str):
        kegg = [kegg]
    return [f"kegg.pathway:{str(k).strip()}" for k in kegg if str(k).strip()]


def _side(coeffs: dict, model: cobra.Model, multi_comp: bool, tags: set[str]) -> str:
    parts = []
    for met, c in coeffs:
        # a name that carries its compartment (RAVEN: "ATP [cytoplasm]") gets it once
        label = strip_compartment_name(met.name, tags) or met.id
        if multi_comp and met.compartment:
            label += f" [{model.compartments.get(met.compartment, met.compartment) or met.compartment}]"
        c = abs(c)
        parts.append(label if c == 1 else f"{c:g} {label}")
    return " + ".join(parts)


_CHAIN_SPEC = r"(?:\d+-)?C?\d{1,2}(?::\d{1,2})?"
_CHAINS_RE = re.compile(rf"\s*\({_CHAIN_SPEC}(?:,\s*{_CHAIN_SPEC})*\)")


def lipid_class(key: str) -> str:
    """``key`` without its acyl-chain specification (``diglyceride (1-16:0,
    2-18:1)`` -> ``diglyceride``; ``ceramide-1 (C24)`` -> ``ceramide-1``).

    >>> lipid_class("1-acylglycerophosphocholine (16:0)"), lipid_class("ATP")
    ('1-acylglycerophosphocholine', 'ATP')
    """
    return _CHAINS_RE.sub("", key).strip()


_ACYL_STEMS = ("hexadec|octadec|tetradec|dodec|hexacos|tetracos|docos|eicos|icos|dec|hex|oct|"
               "palmitole|palmit|myrist|laur|stear|linolen|linole|ole|arachid|behen|lignocer|cerot")
_NAMED_CHAIN_RE = re.compile(
    r"(?:(?<![A-Za-z])|(?<=3-hydroxy)|(?<=3-oxo))(?P<prefix>(?:cis|trans)-)?"
    rf"(?:{_ACYL_STEMS})(?P<unsat>an|en|adien|-\d+(?:,\d+)*-(?:en|dien))?"
    r"(?P<suffix>oyl|oate|oic acid|ate|ic acid)(?![A-Za-z])", re.IGNORECASE)
_N_CHAIN_RE = re.compile(r"\s*\(n-C\d{1,2}:\d{1,2}\)")


def _named_chain(match: re.Match) -> str:
    unsat = match["unsat"] or ""
    return ((match["prefix"] or "") + "<acyl>" + (unsat if unsat.startswith("-") else "")
            + ("oyl" if match["suffix"].lower() == "oyl" else "ate"))


def chain_class(key: str) -> str:
    """``key`` without its fatty acyl chain, written as a chain specification
    (:func:`lipid_class`, and BiGG's ``(n-C16:0)``) or in the name: a chain of
    6 to 26 carbons by its systematic or trivial stem (``hexadecanoyl``,
    ``palmitoyl``, ``oleoyl``, ``cerotic acid``) becomes ``<acyl>``, an acyl
    group ``<acyl>oyl`` and a fatty acid or ester ``<acyl>ate``; a
    ``cis``/``trans`` prefix and numbered double bonds (``-2-en``) are kept.

    A model that writes one reaction once per chain length (yeast-GEM's
    beta-oxidation, acyl-CoA transports, sterol esters) writes its copies
    with the same ``chain_class`` on every side.

    >>> chain_class("palmitoyl-CoA"), chain_class("hexacosanoyl-CoA")
    ('<acyl>oyl-CoA', '<acyl>oyl-CoA')
    >>> chain_class("trans-tetradec-2-enoyl-CoA"), chain_class("3-oxopalmitoyl-CoA")
    ('trans-<acyl>-2-enoyl-CoA', '3-oxo<acyl>oyl-CoA')
    >>> chain_class("cerotic acid"), chain_class("ergosteryl oleate"), chain_class("hexadecanoate (n-C16:0)")
    ('<acyl>ate', 'ergosteryl <acyl>ate', '<acyl>ate')
    >>> chain_class("2-oxohexanoate"), chain_class("hexaprenyl diphosphate"), chain_class("diglyceride (1-16:0, 2-18:1)")
    ('2-oxohexanoate', 'hexaprenyl diphosphate', 'diglyceride')
    """
    return _NAMED_CHAIN_RE.sub(_named_chain, _N_CHAIN_RE.sub("", lipid_class(key))).strip()


def _currency_degree(subs: dict, prods: dict) -> Counter:
    """Degree of every key over the directed reactions of ``subs``; the
    reactions one lipid-class reaction is written as, once per acyl-chain
    combination, count once together (each ``1/n`` of them, exactly)."""
    signature, n_of = {}, Counter()
    for did, s in subs.items():
        keys = s | prods[did]
        if any(lipid_class(k) != k for k in keys):
            signature[did] = (frozenset(map(lipid_class, s)), frozenset(map(lipid_class, prods[did])))
            n_of[signature[did]] += 1
    degree = Counter()
    for did, s in subs.items():
        weight = Fraction(1, n_of[signature[did]]) if did in signature else 1
        for k in s | prods[did]:
            degree[k] += weight
    return degree


def build_directed_network(model: cobra.Model, n_currency: int = 14,
                           extra_currency: tuple[str, ...] | list[str] = (),
                           merge_isozymes: bool = True) -> DirectedNetwork:
    """Directed, currency-free reaction network of a metabolic model.

    Rules, in order:

    1. **Drop** boundary reactions: exchange, demand and sink
       (``model.boundary``: reactions with one metabolite), biomass
       reactions (non-zero objective coefficient, or ``biomass`` / ``growth``
       in the id or name, case-insensitive), and reactions without
       metabolites.
    2. **Merge isozymes** (``merge_isozymes=True``): reactions with identical
       stoichiometry (same metabolite ids and coefficients) become one,
       keeping the first id in model order, the union of genes and EC
       numbers, and the widest bounds (iFF708 splits isozymes into
       ``R_<NAME>_<k>``), subsystems and the kind of the first reaction.
    3. **Split** by bounds: ``lb < 0 < ub`` gives ``<rid>`` (forward) and
       ``<rid>__rev`` (backward); ``ub <= 0`` and ``lb < 0`` (irreversible
       backward) gives only ``<rid>__rev``; otherwise only ``<rid>``
       (blocked ``lb = ub = 0`` reactions keep their written direction).
    4. **Currency**: metabolite keys are compartment-free
       (:func:`geomargin.featurize.metabolic.metabolites.metabolite_keys`); a key's
       degree is the number of directed reactions having it as substrate or
       product, leaving out ``pseudo`` reactions (SLIME and other model
       bookkeeping) and counting the reactions that one lipid-class reaction
       is written as, once per acyl-chain combination (as yeast-GEM writes
       its lipid acyltransferases), once together (:func:`lipid_class`);
       the ``n_currency`` keys of highest degree (ties by key) plus ``extra_currency`` (keys, e.g.
       ``"h2o"`` for iMM904 or ``"H2O"`` for iFF708) are removed from
       substrates and products. Equations keep every metabolite.

    Parameters
    ----------
    model : cobra.Model
    n_currency : int, default 14
        Number of most connected metabolites to remove (14 in Chechik et al.).
    extra_currency : sequence of str
        Additional metabolite keys to remove; a key that no metabolite of
        the network has raises :class:`geomargin.common.exceptions.ConfigValueError`
        naming the closest keys.
    merge_isozymes : bool, default True

    Returns
    -------
    DirectedNetwork

    Examples
    --------
    >>> import cobra
    >>> m = cobra.Model("toy")
    >>> a, b = cobra.Metabolite("a_c", name="A", compartment="c"), cobra.Metabolite("b_c", name="B", compartment="c")
    >>> r = cobra.Reaction("R1", lower_bound=-1000, upper_bound=1000)
    >>> m.add_reactions([r]); r.add_metabolites({a: -1, b: 1})
    >>> net = build_directed_network(m, n_currency=0)
    >>> list(net.reactions.index), net.reactions.loc["R1__rev", "equation"]
    (['R1', 'R1__rev'], 'B -> A')
    """
    if isinstance(n_currency, bool) or not isinstance(n_currency, int) or n_currency < 0:
        raise ValueError(f"The 'n_currency' parameter of build_directed_network must be an int >= 0. "
                         f"Got {n_currency!r} instead.")
    if isinstance(extra_currency, str):
        extra_currency = (extra_currency,)
    boundary_ids = {r.id for r in model.boundary}
    objective_ids = set()
    try:
        objective_ids = {r.id for r in model.reactions if r.objective_coefficient != 0}
    except Exception:  # pragma: no cover - objective not linear
        pass
    dropped: dict[str, list[str]] = {"boundary": [], "biomass": [], "empty": []}
    kept = []
    for r in model.reactions:
        if not r.metabolites:
            dropped["empty"].append(r.id)
        elif r.id in boundary_ids:
            dropped["boundary"].append(r.id)
        elif r.id in objective_ids or _is_biomass(r):
            dropped["biomass"].append(r.id)
        else:
            kept.append(r)

    # --- merge identical stoichiometry
    groups: dict[object, list[cobra.Reaction]] = {}
    for r in kept:
        key = frozenset((m.id, round(float(c), 9)) for m, c in r.metabolites.items()) if merge_isozymes else r.id
        groups.setdefault(key, []).append(r)
    merged = {g[0].id: tuple(x.id for x in g) for g in groups.values() if len(g) > 1}

    keys = metabolite_keys(model)
    tags = {str(c).lower() for c in model.compartments} | {
        str(n).lower() for n in model.compartments.values() if n}
    rows, subs, prods, lipid_reactions = [], {}, {}, {}
    for group in groups.values():
        first = group[0]
        lb = min(x.lower_bound for x in group)
        ub = max(x.upper_bound for x in group)
        genes = tuple(sorted({g.id for x in group for g in x.genes}))
        ecs = []
        subsystems = []
        for x in group:
            ecs += [e for e in _ec_numbers(x) if e not in ecs]
            subsystems += [s for s in _subsystems(x) if s not in subsystems]
        kind, diffusion = reaction_kind(first, keys)
        items = list(first.metabolites.items())
        left = [(m, c) for m, c in items if c < 0]
        right = [(m, c) for m, c in items if c > 0]
        multi = len({m.compartment for m, _ in items}) > 1
        compartments = ";".join(sorted({str(model.compartments.get(m.compartment) or m.compartment)
                                        for m, _ in items if m.compartment}))
        directions = []
        if lb < 0 < ub:
            directions = ["forward", "reverse"]
        elif ub <= 0 and lb < 0:
            directions = ["reverse"]
        else:
            directions = ["forward"]
        for d in directions:
            s_side, p_side = (left, right) if d == "forward" else (right, left)
            did = first.id if d == "forward" else f"{first.id}{REVERSE_SUFFIX}"
            rows.append({
                "id": did, "reaction_id": first.id, "name": first.name or "",
                "equation": f"{_side(s_side, model, multi, tags)} -> {_side(p_side, model, multi, tags)}",
                "ec_numbers": ";".join(ecs), "genes": genes, "direction": d,
                "model_reactions": ";".join(x.id for x in group),
                "subsystem": ";".join(subsystems), "reaction_kind": kind,
                "named_diffusion": diffusion, "compartments": compartments,
            })
            subs[did] = frozenset(keys[m.id] for m, _ in s_side)
            prods[did] = frozenset(keys[m.id] for m, _ in p_side)
            if any(chain_class(keys[m.id]) != keys[m.id] for m, _ in items):
                lipid_reactions[did] = frozenset(
                    frozenset((chain_class(keys[m.id]), m.compartment) for m, _ in side) for side in (left, right))

    seen: dict[str, str] = {}
    for row in rows:
        if row["id"] in seen:
            raise ValueError(
                f"model {model.id!r}: reaction {row['id']!r} has the id that the directed network gives the "
                f"reverse direction of reaction {seen[row['id']]!r}; rename it (ids ending in '__rev' are "
                "reserved for reverse directions)")
        seen[row["id"]] = row["reaction_id"]
    kind_of = {row["id"]: row["reaction_kind"] for row in rows}
    degree = _currency_degree({d: s for d, s in subs.items() if kind_of[d] != "pseudo"}, prods)
    ranked = sorted(degree.items(), key=lambda kv: (-kv[1], kv[0]))
    currency = [k for k, _ in ranked[:n_currency]]
    all_keys = sorted(set(keys.values()))
    unknown = [k for k in extra_currency if k not in set(all_keys)]
    if unknown:
        k = unknown[0]
        close = difflib.get_close_matches(k, all_keys, n=3, cutoff=0.6)
        raise ConfigValueError(
            f"metabolic.extra_currency: {k!r} is not a metabolite key of this network (keys are "
            "compartment-free: the id without its compartment suffix, or the name without its "
            f"compartment tag); closest: {close or 'none'}")
    currency += [k for k in extra_currency if k not in currency]
    cset = frozenset(currency)
    if degree and set(degree) <= cset:
        raise ConfigValueError(
            f"metabolic.n_currency is {n_currency}"
            + (f" (with {len(extra_currency)} metabolic.extra_currency)" if extra_currency else "")
            + f": every one of the network's {len(degree)} metabolites became currency, so no reaction keeps "
            f"a substrate or product; expected fewer than {len(degree)} currency metabolites (yeast networks "
            "use about 14)")
    substrates = {d: s - cset for d, s in subs.items()}
    products = {d: p - cset for d, p in prods.items()}

    formulas: dict[str, str] = {}
    for m in sorted(model.metabolites, key=lambda m: m.id):
        formula = (m.formula or "").strip()
        if formula and keys[m.id] not in formulas:
            formulas[keys[m.id]] = formula

    cols = ["reaction_id", "name", "equation", "ec_numbers", "genes", "direction", "model_reactions",
            "subsystem", "reaction_kind", "named_diffusion", "compartments"]
    df = pd.DataFrame(rows, columns=["id"] + cols).set_index("id")
    df.index.name = "directed_id"
    n_merged = sum(len(v) - 1 for v in merged.values())
    log.info("directed network: %d directed reactions from %d model reactions (%d merged isozymes; dropped %s)",
             len(df), len(model.reactions), n_merged, {k: len(v) for k, v in dropped.items()})
    return DirectedNetwork(reactions=df, substrates=substrates, products=products, currency=tuple(currency),
                           degree={k: (int(v) if v == int(v) else float(v)) for k, v in degree.items()},
                           merged=merged,
                           dropped={k: tuple(v) for k, v in dropped.items()}, formulas=formulas,
                           lipid_reactions=lipid_reactions)
