"""Reading metabolic models: any cobrapy format, with canonical gene ids.

:func:`load_model` reads SBML (``.xml``/``.sbml``), JSON, MATLAB (``.mat``,
with the gene rules of RAVEN's exports: :mod:`geomargin.featurize.metabolic.matlab_model`)
and YAML (``.yml``/``.yaml``; RAVEN's exports of 2018:
:mod:`geomargin.featurize.metabolic.raven_yaml`) models with cobrapy. SBML files that store
genes as *modifier species* (e.g. iFF708, Förster et al. 2003, Chalmers
export), for which cobrapy reads no genes and treats every reaction as
reversible, are detected automatically (no FBC gene products, no
``GENE_ASSOCIATION`` notes, but ``modifierSpeciesReference`` elements) and
read with python-libsbml:

* each modifier species becomes a gene named by the species ``name`` (the
  systematic ORF, e.g. ``YCL040W``); a modifier that is a complex formed by
  an assembly reaction (a reaction without modifiers whose products are all
  modifier species, e.g. iFF708's ``R_1380``: ``E_619 + E_136 + E_137 ->
  Cx_1``) becomes the AND of its subunits' genes; the reaction's
  ``gene_reaction_rule`` is the OR over its modifiers;
* complex-assembly pseudo-reactions are not metabolic and are left out of
  the model (their ids are kept in ``model.notes['geomargin_dropped_assembly_reactions']``);
* flux bounds come from the kineticLaw parameters ``LOWER_BOUND`` /
  ``UPPER_BOUND`` (``OBJECTIVE_COEFFICIENT`` sets the objective);
* species with ``boundaryCondition="true"`` are constant by SBML semantics
  and are left out of the stoichiometry, so uptake/excretion reactions become
  ordinary exchange reactions (``model.boundary``);
* EC numbers come from MIRIAM ``urn:miriam:ec-code:`` (or identifiers.org)
  annotations into ``reaction.annotation['ec-code']``. (iFF708 has no
  subsystems; its KEGG pathway annotations are on the gene species, so
  orphan reactions have none.)

Reaction and metabolite ids are kept as in the file (``R_GLK1_1``, ``M_m220``);
gene ids are canonical (:mod:`geomargin.featurize.metabolic.genes`).

Every problem with the file raises a typed error from :mod:`geomargin.common.exceptions`
(:class:`InputFileError`, :class:`UnknownGeneError`, :class:`GeneIdError`)
that names the file and says how to fix it.

:mod:`geomargin.featurize.metabolic.network` builds the directed network from the model.

Example
-------
>>> from geomargin.featurize.metabolic.model_io import load_model  # doctest: +SKIP
>>> model = load_model("iFF708.xml")  # doctest: +SKIP
>>> model.reactions.get_by_id("R_GLK1_1").gene_reaction_rule  # doctest: +SKIP
'YCL040W'
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import re
import unicodedata
import warnings
from collections import Counter
from pathlib import Path

import cobra

from geomargin.common.exceptions import GeneIdError, InputFileError, UnknownGeneError
from geomargin.featurize.metabolic.genes import GeneIdNote, canonical_gene_id, canonical_ids, remove_invisible
from geomargin.featurize.metabolic.matlab_model import load_matlab
from geomargin.featurize.metabolic.raven_yaml import quote_raven_scalars
from geomargin.featurize.metabolic.yaml12 import load_yaml12

__all__ = ["MIN_GENES_IN_RULES", "load_model"]

log = logging.getLogger(__name__)

#: A model whose gene rules name fewer than this fraction of its listed genes
#: stops at load time: its rules were most likely not read (cobrapy reads a
#: RAVEN .mat's genes but none of its rules), and every reaction would look
#: like an orphan.
MIN_GENES_IN_RULES = 0.5

SBML_SUFFIXES = (".xml", ".sbml")
JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yml", ".yaml")
MAT_SUFFIXES = (".mat",)
_DEFAULT_BOUND = 1000.0
_EC_RE = re.compile(r"(?:urn:miriam:ec-code:|identifiers\.org/ec-code[:/])([0-9n.\-]+)")
_RULE_TOKEN_RE = re.compile(r"[()\s]+")


def load_model(path: str | Path, notes: list | None = None) -> cobra.Model:
    """Read a metabolic model with gene rules from any cobrapy-readable file.

    Parameters
    ----------
    path : str or Path
        ``.xml``/``.sbml`` (SBML, any level; modifier-species genes handled,
        see the module docstring), ``.json``, ``.yml``/``.yaml`` or ``.mat``;
        SBML, JSON and YAML may be gzip-compressed (``.xml.gz``,
        ``.sbml.gz``, ``.json.gz``, ``.yml.gz``, ``.yaml.gz``).
    notes : list, optional
        Receives a :class:`geomargin.featurize.metabolic.genes.GeneIdNote` for every gene id that
        had to be changed to its canonical form (see :mod:`geomargin.featurize.metabolic.genes`),
        and for every invisible character removed from an SBML file.

    Gene ids are returned in canonical form (upper case, no invisible
    characters, ``_A`` suffix written ``-A``): a model's own case convention
    does not change any result.

    Returns
    -------
    cobra.Model

    Raises
    ------
    InputFileError
        Missing, unreadable or truncated file, an unsupported suffix,
        (JSON/YAML) a reaction using a metabolite missing from the model's
        ``metabolites`` list, or gene rules that were not read (no reaction
        with a gene, or rules naming fewer than :data:`MIN_GENES_IN_RULES`
        of the listed genes).
    UnknownGeneError
        (JSON/YAML) a gene rule names a gene missing from the model's gene list.
    GeneIdError
        A gene id not valid after normalisation, or a gene rule cobrapy
        cannot parse (it would silently read it as "no gene").
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "no such file", "check the path, or fetch it with `python -m geomargin.data.fetch`")
    notes = [] if notes is None else notes
    suffixes = [s.lower() for s in path.suffixes]
    compressed = bool(suffixes) and suffixes[-1] == ".gz"
    suffix = (suffixes[-2] if compressed and len(suffixes) > 1 else path.suffix.lower())
    # cobrapy logs a traceback for a gene rule it cannot parse and goes on with
    # an empty rule; it also issues a warning, which is turned into an error
    # below, so its log is silenced while reading
    gene_log = logging.getLogger("cobra.core.gene")
    level = gene_log.level
    gene_log.setLevel(logging.ERROR)
    caught: list = []
    try:
        model = _load_any(path, suffix, compressed, notes, caught)
    finally:
        gene_log.setLevel(level)
    malformed = [str(w.message) for w in caught if "gene_reaction_rule" in str(w.message)]
    if malformed:
        raise GeneIdError(
            f"{path}: cobrapy cannot parse {len(malformed)} gene rule(s), e.g. {malformed[0]!r}; it would "
            "read such a reaction as having no known gene (expected gene ids joined by 'and'/'or' "
            "with parentheses)")
    _canonical_model_genes(model, path, notes)
    _check_gene_rules(model, path)
    _check_reserved_ids(model, path)
    check_text_fields(model, path)
    return model


def check_text_fields(model: cobra.Model, path: str | Path) -> None:
    """Every id and name of the model's reactions, metabolites and genes, and
    every reaction's subsystem, is valid text (encodable as UTF-8; a JSON
    ``\\udXXX`` escape can give a lone surrogate, which no output can hold).

    Raises
    ------
    InputFileError
        Naming the file, the reaction, metabolite or gene, the field and the
        position of the first character that is not text.
    """
    for kind, items, fields in (("reaction", model.reactions, ("id", "name", "subsystem")),
                                ("metabolite", model.metabolites, ("id", "name", "formula")),
                                ("gene", model.genes, ("id", "name"))):
        for item in items:
            for field in fields:
                value = getattr(item, field, None)
                if not isinstance(value, str):
                    continue
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise InputFileError(
                        path, f"{kind} '{_escaped(item.id)}': {field} '{_escaped(value)}' is not valid text "
                              f"(U+{ord(value[exc.start]):04X}, a lone surrogate, at position {exc.start})",
                        "expected Unicode text; correct the character or its escape") from None


def _escaped(text: str) -> str:
    """``text`` with every character that is not text written as a ``\\u`` escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _check_reserved_ids(model: cobra.Model, path: Path) -> None:
    """``<id>__rev`` names the reverse direction of reversible reaction
    ``<id>`` in the directed network; a model reaction may not take it."""
    ids = {r.id for r in model.reactions}
    for r in model.reactions:
        if r.id.endswith("__rev") and r.id[: -len("__rev")] in ids:
            base = model.reactions.get_by_id(r.id[: -len("__rev")])
            if base.lower_bound < 0:
                raise InputFileError(
                    path, f"reaction {r.id!r} has the id that the directed network gives the reverse "
                          f"direction of reversible reaction {base.id!r}",
                    "rename it: ids ending in '__rev' are reserved for reverse directions")


def _check_gene_rules(model: cobra.Model, path: Path) -> None:
    """Stop on a model whose gene rules were not read (see MIN_GENES_IN_RULES)."""
    with_gene = sum(1 for r in model.reactions if r.genes)
    used = {g.id for r in model.reactions for g in r.genes}
    listed = len(model.genes)
    if with_gene == 0:
        raise InputFileError(
            path, f"no reaction has a gene rule ({len(model.reactions)} reactions, {listed} genes listed)",
            "the file's gene rules were not read or it has none; a ranking needs reactions with known "
            "genes: use a file with gene rules (SBML with FBC gene products, cobrapy JSON/YAML, or a "
            "COBRA/RAVEN .mat with 'grRules' or 'rules')")
    if listed and len(used) < MIN_GENES_IN_RULES * listed:
        raise InputFileError(
            path, f"the gene rules name only {len(used)} of the {listed} genes the model lists "
                  f"({with_gene} reactions with a gene)",
            f"expected at least {MIN_GENES_IN_RULES:.0%}; the rules were most likely read incompletely: "
            "check the file, or load the same model from another format")


def _load_any(path: Path, suffix: str, compressed: bool, notes: list, caught: list) -> cobra.Model:
    with warnings.catch_warnings(record=True) as recorded:
        warnings.simplefilter("always")
        if suffix in SBML_SUFFIXES:
            model = _load_sbml(path, compressed, notes)
        elif suffix in JSON_SUFFIXES or suffix in YAML_SUFFIXES:
            model = _load_dict_model(path, "json" if suffix in JSON_SUFFIXES else "yaml", compressed, notes)
        elif suffix in MAT_SUFFIXES and not compressed:
            model = load_matlab(path)
        else:
            raise InputFileError(path, f"unsupported model file type {''.join(path.suffixes[-2:])!r}",
                                 "expected SBML (.xml/.sbml, optionally .gz), JSON (.json/.json.gz), "
                                 "YAML (.yml/.yaml, optionally .gz) or MATLAB (.mat)")
    caught.extend(recorded)
    return model


def _read_text(path: Path, compressed: bool) -> str:
    try:
        if compressed:
            with gzip.open(path, "rt", encoding="utf-8-sig") as fh:
                return fh.read()
        return path.read_text(encoding="utf-8-sig")   # a byte-order mark is not data
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"cannot be read: {type(exc).__name__}: {exc}",
                             "check the file's permissions, compression and encoding (UTF-8)") from exc


def _line_of(text: str, needle: str) -> int | None:
    for form in (needle, json.dumps(needle)[1:-1]):
        i = text.find(form)
        if i >= 0:
            return text.count("\n", 0, i) + 1
    return None


def _canonical_model_genes(model: cobra.Model, path: Path, notes: list) -> None:
    """Rename the model's genes to their canonical ids (reporting each)."""
    from cobra.manipulation import rename_genes

    ids = [g.id for g in model.genes]
    canon = canonical_ids(ids, source=str(path), expected="a gene id of letters, digits and _ . : -")
    rename = {a: b for a, b in zip(ids, canon) if a != b}
    if not rename:
        return
    text = None
    if path.suffix.lower() not in MAT_SUFFIXES:
        try:
            text = _read_text(path, path.suffix.lower() == ".gz")
        except InputFileError:
            text = None
    for a, b in rename.items():
        _, changes = canonical_gene_id(a)
        notes.append(GeneIdNote(str(path), _line_of(text, a) if text else None, a, b, changes))
    rename_genes(model, rename)


def _canonical_rule(rule: str, mapping: dict[str, str]) -> str:
    """``rule`` with every whitespace character (tab, newline, ...) read as a
    space, other invisible characters removed and every gene id canonical."""
    rule, _ = remove_invisible(re.sub(r"[^\S ]", " ", rule), keep="")

    def repl(m):
        tok = m.group(0)
        if tok.lower() in ("and", "or"):
            return tok.lower()
        return mapping.get(tok) or canonical_gene_id(tok)[0]

    return re.sub(r"[^()\s]+", repl, rule)


def _ec_numbers_into_annotation(rxn: dict) -> None:
    """RAVEN's YAML (yeast-GEM 9) keeps EC numbers in a reaction key
    ``eccodes``, which cobrapy drops: move them to ``annotation['ec-code']``."""
    ecs = rxn.pop("eccodes", None)
    if ecs is None:
        return
    ecs = [ecs] if isinstance(ecs, str) else list(ecs)
    ecs = [e.strip() for x in ecs for e in re.split(r"[;,]", str(x)) if e.strip()]
    annotation = rxn.setdefault("annotation", {})
    if ecs and "ec-code" not in annotation:
        annotation["ec-code"] = ecs


def _parse_yaml(text: str):
    """The YAML text of a model: libyaml with YAML 1.2 scalars
    (:mod:`geomargin.featurize.metabolic.yaml12`, the same data as cobrapy's
    reader), else cobrapy's own (ruamel) reader; a file both reject is read
    again with the plain scalars that RAVEN's exports of 2018 left unquoted
    quoted (:mod:`geomargin.featurize.metabolic.raven_yaml`), and the first error is
    raised if that fails too."""
    from cobra.io.yaml import yaml as cobra_yaml

    raw = load_yaml12(text)
    if raw is not None:
        return raw
    try:
        return cobra_yaml.load(io.StringIO(text))
    except Exception as first:
        fixed, n = quote_raven_scalars(text)
        if not n:
            raise
        raw = load_yaml12(fixed)
        if raw is None:
            try:
                raw = cobra_yaml.load(io.StringIO(fixed))
            except Exception:
                raise first from None
        log.info("YAML model read after quoting %d plain scalar(s) as RAVEN's exports of 2018 need", n)
        return raw


def _load_dict_model(path: Path, fmt: str, compressed: bool, notes: list) -> cobra.Model:
    from cobra.io.dict import model_from_dict

    text = _read_text(path, compressed)
    try:
        if fmt == "json":
            raw = json.loads(text)
        else:
            raw = _parse_yaml(text)
    except Exception as exc:
        first = str(exc).strip().splitlines()
        hint = f"expected a cobrapy {fmt.upper()} model (cobra.io.save_{fmt}_model)"
        if fmt == "yaml":
            hint += "; for a model release, load the same release's SBML (.xml) or MATLAB (.mat) file instead"
        raise InputFileError(path, f"cannot parse {fmt.upper()}: {' '.join(first[-2:])}", hint) from exc
    if not isinstance(raw, dict) or "reactions" not in raw or "metabolites" not in raw:
        raise InputFileError(path, f"not a cobrapy {fmt.upper()} model: needs 'metabolites' and 'reactions'",
                             f"write it with cobra.io.save_{fmt}_model")
    for field in ("metabolites", "reactions", "genes"):
        items = raw.get(field) or []
        bad = next((x for x in items if not isinstance(x, dict)), None) if isinstance(items, list) else items
        if bad is not None:
            raise InputFileError(path, f"not a cobrapy {fmt.upper()} model: '{field}' holds {str(bad)[:60]!r} "
                                       "where a mapping (id, name, ...) is expected",
                                 f"write it with cobra.io.save_{fmt}_model")
    # canonical gene ids, before cobrapy parses any rule (an invisible
    # character in a rule makes cobrapy drop the whole rule)
    genes = raw.get("genes") or []
    raw_ids = [str(g.get("id")) for g in genes]
    lines = [_line_of(text, r) for r in raw_ids] if any(canonical_gene_id(r)[1] for r in raw_ids) \
        else [None] * len(raw_ids)
    canon = canonical_ids(raw_ids, source=str(path), lines=lines, notes=notes,
                          expected="a gene id of letters, digits and _ . : -")
    mapping = dict(zip(raw_ids, canon))
    merged_genes, seen = [], set()
    for g, c in zip(genes, canon):
        if c not in seen:
            seen.add(c)
            merged_genes.append({**g, "id": c})
    if genes:
        raw["genes"] = merged_genes
    known = set(canon)
    met_ids = {str(m.get("id")) for m in raw["metabolites"]}
    for rxn in raw["reactions"]:
        undefined = sorted(str(m) for m in (rxn.get("metabolites") or {}) if str(m) not in met_ids)
        if undefined:
            raise InputFileError(
                path, f"reaction {rxn.get('id')!r} uses metabolite(s) {undefined[:5]} that are not in the "
                      f"model's 'metabolites' list ({len(met_ids)} metabolites)",
                "add them to 'metabolites' or correct the reaction")
        _ec_numbers_into_annotation(rxn)
        rule = str(rxn.get("gene_reaction_rule") or "")
        new_rule = _canonical_rule(rule, mapping)
        tokens = {t for t in _RULE_TOKEN_RE.split(new_rule) if t and t.lower() not in ("and", "or")}
        unknown = sorted(tokens - known)
        if unknown:
            raise UnknownGeneError(
                f"{path}: reaction {rxn.get('id')!r} has gene rule {rule!r} naming gene(s) {unknown} "
                f"that are not in the model's 'genes' list ({len(known)} genes); add them to 'genes' "
                "or correct the rule")
        if new_rule != rule:
            rxn["gene_reaction_rule"] = new_rule
    try:
        return model_from_dict(raw)
    except Exception as exc:
        raise InputFileError(path, f"invalid cobrapy model: {type(exc).__name__}: {exc}") from exc


def _load_sbml(path: Path, compressed: bool, notes: list) -> cobra.Model:
    import libsbml

    text = _read_text(path, compressed)
    # invisible characters (e.g. a zero-width space in a GENE_ASSOCIATION
    # note) make cobrapy drop a whole gene rule: remove them, line by line
    if any(unicodedata.category(c) in ("Cf", "Cc") and c not in "\n\r\t" for c in text):
        clean_lines = []
        for lineno, line in enumerate(text.split("\n"), start=1):
            clean, removed = remove_invisible(line)
            if removed:
                notes.append(GeneIdNote(str(path), lineno, "", "", (), problem=(
                    f"removed {', '.join(dict.fromkeys(removed))} from {clean.strip()[:100]!r}")))
            clean_lines.append(clean)
        text = "\n".join(clean_lines)
    doc = libsbml.readSBMLFromString(text)
    fatal = []
    for i in range(doc.getNumErrors()):
        err = doc.getError(i)
        if err.getSeverity() >= libsbml.LIBSBML_SEV_ERROR and (
            err.getSeverity() == libsbml.LIBSBML_SEV_FATAL or err.getCategory() == libsbml.LIBSBML_CAT_XML
        ):
            fatal.append(f"line {err.getLine()}: {err.getMessage().strip()}")
    smodel = doc.getModel()
    if fatal or smodel is None:
        problem = "; ".join(fatal[:3]) if fatal else "no <model> element"
        raise InputFileError(path, f"not a readable SBML file ({problem})",
                             "the file may be truncated or not SBML; fetch it again")
    if _uses_modifier_genes(smodel):
        return _model_from_modifier_sbml(path, smodel)
    _check_gene_products_declared(path, smodel)
    try:
        return cobra.io.read_sbml_model(text)
    except Exception as exc:
        raise InputFileError(path, f"cobrapy cannot read this SBML model: {type(exc).__name__}: {exc}") from exc


def _gene_product_refs(node) -> list[str]:
    import libsbml

    if node is None:
        return []
    if isinstance(node, libsbml.GeneProductRef):
        return [node.getGeneProduct()]
    if isinstance(node, (libsbml.FbcAnd, libsbml.FbcOr)):
        return [g for i in range(node.getNumAssociations()) for g in _gene_product_refs(node.getAssociation(i))]
    return []


def _check_gene_products_declared(path: Path, smodel) -> None:
    """An FBC gene rule that names an undeclared gene product: cobrapy would
    invent the gene silently."""
    fbc = smodel.getPlugin("fbc")
    if fbc is None:
        return
    declared = {fbc.getGeneProduct(i).getId() for i in range(fbc.getNumGeneProducts())}
    for r in smodel.getListOfReactions():
        rf = r.getPlugin("fbc")
        if rf is None or not rf.isSetGeneProductAssociation():
            continue
        unknown = sorted(set(_gene_product_refs(rf.getGeneProductAssociation().getAssociation())) - declared)
        if unknown:
            raise UnknownGeneError(
                f"{path}: reaction {r.getId()!r} has a gene rule naming gene product(s) {unknown[:5]} that "
                f"are not declared in the model's listOfGeneProducts ({len(declared)} declared); declare "
                "them or correct the rule")


def _uses_modifier_genes(smodel) -> bool:
    fbc = smodel.getPlugin("fbc")
    if fbc is not None and fbc.getNumGeneProducts() > 0:
        return False
    has_modifiers = False
    for r in smodel.getListOfReactions():
        notes = r.getNotesString() or ""
        if "GENE_ASSOCIATION" in notes or "GENE ASSOCIATION" in notes or "GPR" in notes:
            return False
        rfbc = r.getPlugin("fbc")
        if rfbc is not None and rfbc.isSetGeneProductAssociation():
            return False
        has_modifiers = has_modifiers or r.getNumModifiers() > 0
    return has_modifiers


def _kinetic_params(r) -> dict[str, float]:
    out = {}
    kl = r.getKineticLaw()
    if kl is None:
        return out
    params = list(kl.getListOfParameters())
    if hasattr(kl, "getListOfLocalParameters"):
        params += list(kl.getListOfLocalParameters())
    for p in params:
        for key in (p.getName(), p.getId()):
            if key:
                out[key.strip().upper()] = float(p.getValue())
    return out


def _model_from_modifier_sbml(path: Path, smodel) -> cobra.Model:
    species = {s.getId(): s for s in smodel.getListOfSpecies()}
    modifier_ids = {m.getSpecies() for r in smodel.getListOfReactions() for m in r.getListOfModifiers()}
    # complex assembly: no modifiers, every product is a modifier species
    assembly: dict[str, list[str]] = {}
    assembly_rxns = []
    for r in smodel.getListOfReactions():
        prods = [p.getSpecies() for p in r.getListOfProducts()]
        if r.getNumModifiers() == 0 and prods and all(p in modifier_ids for p in prods):
            assembly_rxns.append(r.getId())
            for p in prods:
                assembly[p] = [s.getSpecies() for s in r.getListOfReactants()]
    gene_species = set(modifier_ids) | {s for subs in assembly.values() for s in subs}

    def gene_name(sid: str) -> str:
        sp = species.get(sid)
        name = (sp.getName() if sp is not None else "") or sid
        return name.strip()

    def rule_of(sid: str, seen=()) -> str:
        if sid in assembly and sid not in seen:
            parts = [rule_of(s, seen + (sid,)) for s in assembly[sid]]
            return "(" + " and ".join(parts) + ")" if len(parts) > 1 else parts[0]
        name = gene_name(sid)
        if re.search(r"[\s()]", name):
            raise InputFileError(path, f"modifier species {sid!r} has name {name!r}, which is not a gene id",
                                 "modifier species names must be gene ids (e.g. systematic ORF names)")
        return name

    model = cobra.Model(smodel.getId() or path.stem, name=smodel.getName() or None)
    model.compartments = {c.getId(): (c.getName() or c.getId()) for c in smodel.getListOfCompartments()}
    mets = {}
    for sid, sp in species.items():
        if sid in gene_species or sp.getBoundaryCondition():
            continue
        mets[sid] = cobra.Metabolite(sid, name=sp.getName() or sid, compartment=sp.getCompartment() or None)
    model.add_metabolites(list(mets.values()))

    reactions, objective = [], {}
    for r in smodel.getListOfReactions():
        rid = r.getId()
        if rid in assembly_rxns:
            continue
        rxn = cobra.Reaction(rid, name=r.getName() or "")
        stoich: Counter = Counter()
        for sign, refs in ((-1.0, r.getListOfReactants()), (1.0, r.getListOfProducts())):
            for ref in refs:
                if ref.getSpecies() in mets:
                    stoich[ref.getSpecies()] += sign * float(ref.getStoichiometry())
        params = _kinetic_params(r)
        lb = params.get("LOWER_BOUND", -_DEFAULT_BOUND if r.getReversible() else 0.0)
        ub = params.get("UPPER_BOUND", _DEFAULT_BOUND)
        reactions.append((rxn, {mets[s]: c for s, c in stoich.items() if c != 0}, lb, ub))
        rules = []
        for m in r.getListOfModifiers():
            rl = rule_of(m.getSpecies())
            if rl not in rules:
                rules.append(rl)
        rxn._geomargin_rule = " or ".join(rules)
        ecs = sorted(set(_EC_RE.findall(r.getAnnotationString() or "")))
        if ecs:
            rxn.annotation["ec-code"] = ecs
        if r.isSetSBOTerm():
            rxn.annotation["sbo"] = r.getSBOTermID()
        if params.get("OBJECTIVE_COEFFICIENT", 0.0):
            objective[rid] = params["OBJECTIVE_COEFFICIENT"]
    model.add_reactions([t[0] for t in reactions])
    for rxn, stoich, lb, ub in reactions:
        rxn.add_metabolites(stoich)
        rxn.bounds = (lb, ub) if lb <= ub else (ub, lb)
        if rxn._geomargin_rule:
            rxn.gene_reaction_rule = rxn._geomargin_rule
        del rxn._geomargin_rule
    if objective:
        model.objective = {model.reactions.get_by_id(k): v for k, v in objective.items()}
    model.notes["geomargin_source"] = f"{path} (SBML with modifier-species genes, read by featurize.metabolic.model_io)"
    model.notes["geomargin_dropped_assembly_reactions"] = list(assembly_rxns)
    return model
