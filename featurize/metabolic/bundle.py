"""What the features step hands to the ranking: one typed, documented object.

``results/metabolic/features/featurizer.pkl`` holds a :class:`FeatureBundle`,
written by ``workflow/scripts/metabolic_features.py`` and read by the
ranking, its validation, the browser and the benchmarks with
:meth:`FeatureBundle.load`.

Examples
--------
>>> import tempfile, os
>>> b = FeatureBundle(featurizer=None, network=None, candidates=["YAL001C"], gene_names={},
...                   gene_descriptions={}, gene_domains={}, gene_compartments={}, dataset="toy")
>>> path = os.path.join(tempfile.mkdtemp(), "featurizer.pkl")
>>> b.save(path)
>>> FeatureBundle.load(path).candidates
['YAL001C']
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from geomargin.common.exceptions import InputFileError
from geomargin.common.io import load_pickle, save_pickle_atomic
from geomargin.featurize.metabolic.genes import canonical_gene_id

__all__ = ["FeatureBundle", "items_by_gene"]


@dataclass
class FeatureBundle:
    """The fitted featurizer, its network and the gene annotations of one run.

    Attributes
    ----------
    featurizer : PairFeaturizer
        With its feature scale fitted on the training pairs
        (:class:`geomargin.featurize.metabolic.pairs.PairFeaturizer`).
    network : DirectedNetwork
        The directed network the features were built on
        (:func:`geomargin.featurize.metabolic.network.build_directed_network`).
    candidates : list of str
        Genes the ranking scores (config key ``metabolic.ranking.candidates``).
    gene_names : dict
        Canonical gene id -> standard name (from the GO annotation file).
    gene_descriptions : dict
        Canonical gene id -> description (from the GO annotation file).
    gene_domains : dict
        Canonical gene id -> InterPro domains (:func:`items_by_gene`).
    gene_compartments : dict
        Canonical gene id -> compartments (:func:`items_by_gene`).
    dataset : str
        Name of the configured dataset (config key ``metabolic.dataset``).
    """

    featurizer: Any
    network: Any
    candidates: list[str]
    gene_names: dict[str, str]
    gene_descriptions: dict[str, str]
    gene_domains: dict[str, tuple[str, ...]]
    gene_compartments: dict[str, tuple[str, ...]]
    dataset: str

    def save(self, path: str | os.PathLike) -> None:
        """Pickle the bundle to ``path`` atomically."""
        save_pickle_atomic(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "FeatureBundle":
        """The bundle pickled at ``path``.

        Raises
        ------
        InputFileError
            If the file does not hold a :class:`FeatureBundle` (e.g. the
            dictionary of another program), or is truncated.
        """
        obj = load_pickle(path)
        if not isinstance(obj, cls):
            raise InputFileError(path, f"holds a {type(obj).__name__}, not a FeatureBundle",
                                 "rerun the features step (rule metabolic_features)")
        return obj


def items_by_gene(table: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Gene (canonical id) -> the columns where a genes x items 0/1 table
    (InterPro domains, compartments) is non-zero.

    >>> items_by_gene(pd.DataFrame({"IPR1": [1, 0], "IPR2": [1, 1]}, index=["yal001c", "B"]))
    {'YAL001C': ('IPR1', 'IPR2'), 'B': ('IPR2',)}
    """
    x = table.to_numpy()
    cols = [str(c) for c in table.columns]
    out = {}
    for g, row in zip(table.index, x):
        items = tuple(cols[j] for j in np.flatnonzero(row > 0))
        if items:
            out[canonical_gene_id(g)[0]] = items
    return out
