"""The two interfaces of a feature block, and the per-reaction cache they share.

A block *family* (one module of this package) declares once what it is:
``name`` (the block name in feature names, or its prefix when the family
has one block per reaction kind), ``param`` (the :class:`PairFeaturizer`
parameter that switches it on), ``config_key`` (the configuration key the
features step passes to that parameter) and ``items`` (the item names of
each of its blocks). It then implements one of two interfaces:

:class:`SourceBlock`
    a data source compared between the candidate and the neighbour genes of
    each motif type (``expr``, ``domain``, ``loc``): ``prepare`` (the table as
    dense arrays), ``gather`` (the candidates' rows), ``fast_block`` and
    ``fast_sum`` (candidates that are not among the neighbours: the block and
    its row sums from shared neighbour sums), ``block`` (any candidate, with
    one or two genes removed from the neighbours) and ``summaries`` (the
    per-neighbour statistics of the summary features).
    :class:`WholeRowSourceBlock` holds the absent-block rule of the sources
    whose genes have data for every item or for none (``domain``, ``loc``).
:class:`NetworkBlock`
    facts read from the network itself (``net``, ``role_<kind>``,
    ``subsystem``, ``compound_<kind>``): ``prepare`` and ``block``.

:mod:`geomargin.featurize.metabolic.pairs.registry` lists the families in feature order.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np
import pandas as pd

from geomargin.common.exceptions import GeomarginInputError
from geomargin.featurize.metabolic.genes import canonical_gene_id

__all__ = ["Block", "SourceBlock", "WholeRowSourceBlock", "NetworkBlock", "ReactionCache", "source_table"]


class ReactionCache:
    """Values computed for one reaction, kept while the same reaction is asked
    for (explaining a reaction's candidates builds its matrices many times).

    The cache is one ``(reaction, store)`` tuple, read and replaced as a
    whole, so threads sharing a featurizer never see one reaction's values
    under another's key.
    """

    def __init__(self):
        self._state: tuple = (None, {})

    def get(self, reaction: str, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` for ``(reaction, key)``, computed once per reaction."""
        cached_reaction, store = self._state
        if cached_reaction != reaction:
            store = {}
            self._state = (reaction, store)
        if key not in store:
            store[key] = compute()
        return store[key]


class Block:
    """Declarations shared by every block family (see the module docstring)."""

    #: Block name in feature names (``"<motif>:<name>:<item>"``), or its
    #: prefix for one block per reaction kind (``role`` -> ``role_<kind>``).
    name: ClassVar[str]
    #: The :class:`~geomargin.featurize.metabolic.pairs.PairFeaturizer` parameter that switches the family on.
    param: ClassVar[str]
    #: The configuration key (``config/config.yaml``) the features step passes to ``param``.
    config_key: ClassVar[str]
    #: Item names of each block of the family (for a data source: those of
    #: the summary features; the point-wise items are the table's columns).
    items: ClassVar[tuple[str, ...]]
    #: One block per motif type (True), or motif-independent blocks of the
    #: candidate, under the pseudo motif type ``"candidate"`` (False).
    per_motif: ClassVar[bool]

    @classmethod
    def enabled(cls, featurizer, sources: dict) -> bool:
        """Whether ``featurizer``'s parameters (and its ``sources``) switch the family on."""
        return bool(getattr(featurizer, cls.param))

    @classmethod
    def create(cls, featurizer) -> "Block":
        """The family's instance for ``featurizer``'s parameters."""
        return cls()

    def block_names(self) -> list[str]:
        """Names of the blocks of this family, in feature order (after ``prepare``)."""
        return [self.name]

    def block_items(self, source_features: str) -> tuple[str, ...]:
        """Item names of each block for ``source_features`` (after ``prepare``)."""
        return self.items


class SourceBlock(Block):
    """A data source (genes x items) compared between the candidate and the
    neighbour genes of each motif type.

    After :meth:`prepare`, the source is held as dense arrays over the genes
    that have its data (``row``: gene -> row), with one extra last row
    (``null``) that contributes nothing: 'no data' or 'nothing to remove'.
    """

    per_motif = True
    param = "sources"

    items_: list[str]
    row: dict[str, int]
    null: int
    arrays: dict[str, np.ndarray]

    @classmethod
    def enabled(cls, featurizer, sources: dict) -> bool:
        return cls.name in sources

    def prepare(self, df: pd.DataFrame, network_genes) -> None:
        """Check ``df`` (canonical gene ids) and keep it as arrays."""
        raise NotImplementedError

    def _keep(self, items, genes, arrays) -> None:
        self.items_ = [str(c) for c in items]
        self.row = {g: i for i, g in enumerate(genes)}
        self.null = len(genes)
        self.arrays = arrays

    def block_items(self, source_features: str) -> tuple[str, ...]:
        return tuple(self.items_) if source_features == "pointwise" else self.items

    def gather(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The data of the candidate genes at ``rows`` (null row: no data)
        that :meth:`fast_block` and :meth:`fast_sum` read."""
        raise NotImplementedError

    def fast_block(self, B_rows: np.ndarray, gd: dict, out: np.ndarray) -> None:
        """The block of candidates that are not among the neighbours (rows
        ``B_rows``): the neighbour means are shared by every row. Writes
        into ``out``."""
        raise NotImplementedError

    def fast_sum(self, B_rows: np.ndarray, gd: dict) -> np.ndarray:
        """Row sums of :meth:`fast_block` without building it (NaN where the
        block is absent): the block mean of the summary features."""
        raise NotImplementedError

    def block(self, B_rows: np.ndarray, g_rows: np.ndarray, sub_rows: list[np.ndarray]) -> np.ndarray:
        """The block of the candidates at ``g_rows`` with, per row, the
        neighbours ``sub_rows[j][i]`` (null row = nothing) removed from the
        neighbours at ``B_rows``. NaN where no neighbour with data is left."""
        raise NotImplementedError

    def similarity(self, g_rows: np.ndarray, nb_rows: np.ndarray) -> np.ndarray:
        """(candidates x neighbours) comparison that :meth:`summaries` reduces."""
        raise NotImplementedError

    def summaries(self, S: np.ndarray) -> list[np.ndarray]:
        """The summary items after the first (the block mean), from the
        comparisons ``S`` with the removed neighbours set to NaN."""
        raise NotImplementedError


class WholeRowSourceBlock(SourceBlock):
    """A data source whose genes have data for every item or for none
    (``domain``, ``loc``): ``arrays["has"]`` is 1 for a gene's row, 0 for the
    null row.

    The block is absent (NaN) where no neighbour with data is left and, in
    :meth:`block`, where the candidate has no data; this class applies that
    rule once. A subclass computes the block where it is present, from the
    number ``cn`` of neighbours with data (:meth:`_fast_block`,
    :meth:`_fast_sum`) or from the neighbour means with the removed
    neighbours left out (:meth:`_block`).
    """

    #: A key of :meth:`gather`'s dict whose array has one row per candidate.
    _rows_key: ClassVar[str]

    def fast_block(self, B_rows, gd, out):
        cn = self.arrays["has"][B_rows].sum()
        if cn < 0.5:
            out[...] = np.nan
            return
        self._fast_block(B_rows, cn, gd, out)

    def fast_sum(self, B_rows, gd):
        cn = self.arrays["has"][B_rows].sum()
        if cn < 0.5:
            return np.full(gd[self._rows_key].shape[0], np.nan)
        return self._fast_sum(B_rows, cn, gd)

    def block(self, B_rows, g_rows, sub_rows):
        a = self.arrays
        has = a["has"]
        n = len(g_rows)
        Cn = np.full(n, has[B_rows].sum()) - sum(has[s] for s in sub_rows)
        ok = (Cn > 0.5) & (has[g_rows] > 0)
        safe = np.where(Cn > 0.5, Cn, 1.0)[:, None]

        def means(key: str) -> np.ndarray:
            x = a[key]
            return (np.broadcast_to(x[B_rows].sum(axis=0), (n, x.shape[1])) - sum(x[s] for s in sub_rows)) / safe

        out = self._block(g_rows, means)
        out[~ok] = np.nan
        return out

    def _fast_block(self, B_rows: np.ndarray, cn: float, gd: dict, out: np.ndarray) -> None:
        """:meth:`fast_block` where ``cn > 0`` neighbours have data."""
        raise NotImplementedError

    def _fast_sum(self, B_rows: np.ndarray, cn: float, gd: dict) -> np.ndarray:
        """:meth:`fast_sum` where ``cn > 0`` neighbours have data."""
        raise NotImplementedError

    def _block(self, g_rows: np.ndarray, means: Callable[[str], np.ndarray]) -> np.ndarray:
        """:meth:`block` before the absent rows are set to NaN; ``means(key)``
        is, per row, the mean of ``arrays[key]`` over the neighbours left."""
        raise NotImplementedError


class NetworkBlock(Block):
    """Facts read from the network's gene rules (no data source).

    Instances are built with the featurizer's parameters, prepared with the
    shared :class:`~geomargin.featurize.metabolic.pairs.index.NetworkIndex` and the
    featurizer's :class:`ReactionCache`; :meth:`block` returns the columns
    of every block of the family (one motif type's for a ``per_motif`` family).
    """

    #: The name under which the family is *evidence about a reaction* (it
    #: ties a candidate to ``r`` through something ``r`` itself has, such as
    #: its subsystem or its compounds), so that a reaction without a motif
    #: neighbour can still be ranked on it
    #: (:meth:`~geomargin.featurize.metabolic.pairs.PairFeaturizer.reaction_evidence`);
    #: None for a family that describes only the candidate (``role``) or a
    #: motif (``net``).
    evidence_name: ClassVar[str | None] = None
    #: The data source the family reads (a key of ``sources``: ``domain_kind``
    #: reads ``"domain"``, ``site`` reads ``"loc"``), or None. The featurizer
    #: prepares it first and sets it as ``self.source``; the family is on only
    #: when the source is given.
    source_name: ClassVar[str | None] = None

    @classmethod
    def enabled(cls, featurizer, sources: dict) -> bool:
        return bool(getattr(featurizer, cls.param)) and (cls.source_name is None or cls.source_name in sources)

    def prepare(self, index, cache: ReactionCache) -> None:
        raise NotImplementedError

    def block(self, reaction: str, g_gids: np.ndarray, motif: str | None = None) -> np.ndarray:
        """Features of ``reaction`` paired with the genes ``g_gids`` (gene
        indices; -1 = a gene the network and the sources do not know)."""
        raise NotImplementedError

    def has_evidence(self, reaction: str) -> bool:
        """Whether the family's block is present for at least one gene paired
        with ``reaction`` (only for families with an ``evidence_name``)."""
        return False


def source_table(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """``sources[name]`` with canonical gene ids and float values, checked."""
    if not isinstance(df, pd.DataFrame):
        raise GeomarginInputError(f"sources[{name!r}] must be a pandas DataFrame "
                                  f"(genes x items); got {type(df).__name__}")
    df = df.copy()
    df.index = [canonical_gene_id(g)[0] for g in df.index]
    if df.index.has_duplicates:
        dup = sorted(set(df.index[df.index.duplicated()]))[:5]
        raise GeomarginInputError(f"sources[{name!r}] has duplicate genes {dup} "
                                  "(after upper-casing); give one row per gene")
    try:
        df = df.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise GeomarginInputError(f"sources[{name!r}] has non-numeric values: {exc}") from exc
    if np.isinf(df.to_numpy()).any():
        raise GeomarginInputError(f"sources[{name!r}] contains infinite values")
    return df
