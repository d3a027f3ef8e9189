"""What a reaction acts on: compounds, their formulas and how alike they are.

A transport reaction's features say which membrane it crosses and whether a
candidate transports anything there; they do not say *what* is carried. This
module gives the compounds a chemical identity from the configured network's
own metabolite formulas (no other model, no external database), so that a
candidate can be compared with a reaction by what it acts on elsewhere.

* :func:`element_counts` parses a formula (``C6H12O6``) into element counts.
* :func:`compound_vectors` maps each compartment-free metabolite key to
  ``log(1 + count)`` of the heavy elements C, N, O, P and S. Hydrogen is left
  out: models write the same compound at different protonation states.
* :func:`compound_similarity` is ``exp(-||v_a - v_b||)``: 1 (to within
  2e-7 of rounding: the distance is computed from the Gram matrix) for the same
  composition (L-leucine and L-isoleucine, glucose and galactose), 0.67
  between L-leucine and L-lysine, 0.33 between L-leucine and glucose, 0.31
  between L-leucine and ethanol.
* :func:`characteristic_compounds`: the compounds a directed reaction is
  *about*: for a transport reaction the compounds found on both sides (the
  carried ones; all of them if none is), for any other reaction all of its
  substrates and products. Currency metabolites are already removed by
  :func:`geomargin.featurize.metabolic.network.build_directed_network`.

A formula is crude chemistry: it tells an amino acid from a sugar or an
alcohol, not glucose from galactose. That is the intended resolution: the
question it answers is "does this transporter carry compounds like this one".

Example
-------
>>> element_counts("C6H12O6")
{'C': 6, 'H': 12, 'O': 6}
>>> v = compound_vectors({"glc": "C6H12O6", "gal": "C6H12O6", "etoh": "C2H6O", "leu": "C6H13NO2"})
>>> keys, S = compound_similarity(v)
>>> keys
['etoh', 'gal', 'glc', 'leu']
>>> S.round(2).tolist()
[[1.0, 0.22, 0.22, 0.31], [0.22, 1.0, 1.0, 0.33], [0.22, 1.0, 1.0, 0.33], [0.31, 0.33, 0.33, 1.0]]
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from geomargin.common.exceptions import GeomarginInputError

__all__ = ["ELEMENTS", "element_counts", "compound_vectors", "compound_similarity",
           "characteristic_compounds"]

#: Elements of a compound's vector, in order (hydrogen left out on purpose).
ELEMENTS = ("C", "N", "O", "P", "S")

_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")


def element_counts(formula: str) -> dict[str, int] | None:
    """Element counts of a molecular formula such as ``C6H12O6``.

    Returns None for an empty formula and for one that is not a plain
    sequence of element symbols and counts (``C5H7O4R`` is read with ``R``
    counted, since models write residues so; ``(C6H10O5)n`` is None).

    >>> element_counts("C20H21N7O7")["N"]
    7
    >>> element_counts("") is None, element_counts("(C6H10O5)n") is None
    (True, True)
    """
    if not isinstance(formula, str) or not formula.strip():
        return None
    text = formula.strip()
    tokens = _TOKEN.findall(text)
    if "".join(sym + num for sym, num in tokens) != text:
        return None
    counts: dict[str, int] = {}
    for sym, num in tokens:
        counts[sym] = counts.get(sym, 0) + (int(num) if num else 1)
    return counts


def compound_vectors(formulas: Mapping[str, str]) -> dict[str, np.ndarray]:
    """``log(1 + count)`` of :data:`ELEMENTS` per compound key.

    Compounds whose formula is missing or not understood, or that have none
    of the elements (``H+``, an electron), are left out: they have no
    chemical identity to compare.
    """
    out = {}
    for key, formula in formulas.items():
        counts = element_counts(formula)
        if counts is None:
            continue
        v = np.array([counts.get(e, 0) for e in ELEMENTS], dtype=float)
        if v.sum() == 0:
            continue
        out[str(key)] = np.log1p(v)
    return out


def compound_similarity(vectors: Mapping[str, np.ndarray]) -> tuple[list[str], np.ndarray]:
    """Sorted keys and the matrix ``exp(-||v_a - v_b||)`` between them."""
    keys = sorted(vectors)
    if not keys:
        return keys, np.zeros((0, 0))
    V = np.vstack([np.asarray(vectors[k], dtype=float) for k in keys])
    if V.shape[1] != len(ELEMENTS) or not np.isfinite(V).all():
        raise GeomarginInputError(
            f"compound_similarity: every vector must have {len(ELEMENTS)} finite entries "
            f"({', '.join(ELEMENTS)}), as compound_vectors returns")
    sq = (V ** 2).sum(axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * V @ V.T, 0.0)
    S = np.exp(-np.sqrt(d2))
    np.fill_diagonal(S, 1.0)
    return keys, S


def characteristic_compounds(substrates: frozenset, products: frozenset, kind: str) -> frozenset:
    """The compounds a directed reaction is about (module docstring).

    >>> sorted(characteristic_compounds(frozenset({"leu", "na1"}), frozenset({"leu"}), "transport"))
    ['leu']
    >>> sorted(characteristic_compounds(frozenset({"a"}), frozenset({"b"}), "enzymatic"))
    ['a', 'b']
    """
    if kind == "transport":
        carried = frozenset(substrates) & frozenset(products)
        if carried:
            return carried
    return frozenset(substrates) | frozenset(products)
