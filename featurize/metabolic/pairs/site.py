"""The ``site`` block: is the candidate found where the reaction takes place?

A protein can only catalyse a reaction in a compartment it reaches: a
mitochondrial carrier for a transport into the mitochondrion, a vacuolar
protein for a reaction in the vacuole. The motif blocks compare the
candidate's localization with the neighbour genes' (``loc``); this block
compares it with the reaction's own compartments, so it also speaks for a
gene the network names nowhere and for a reaction whose neighbours have no
localization data.

Both sides are read as *sites* (:func:`site_of`): the model's compartment
names (``net.reactions.compartments``) and the localization source's columns
(GO cellular-component ids, or YeastGFP category names) are mapped to one of
:data:`SITES`; a name that maps to none (a bud neck, an endosome, a spindle
pole) is left out. With ``S(r)`` the sites of ``r``'s compartments and
``L(g)`` the candidate's, the items are

- ``match_share``: ``|L(g) & S(r)| / |S(r)|``, the share of the reaction's
  sites where the candidate is seen;
- ``other_share``: ``|L(g) - S(r)| / |L(g)|``, the share of the candidate's
  sites that are not the reaction's;
- ``match_rarity``: the largest ``log(n / n_s)`` over the matched sites ``s``
  (0 without a match), where ``n`` counts the genes of the localization
  source with a site and ``n_s`` those seen at ``s``: a match in the
  mitochondrion says more than a match in the cytoplasm.

Absent (NaN) where the candidate has no site (no localization data, or only
categories that map to none) and where no compartment of ``r`` maps to a
site. The block reads no gene rule, so a held-out reaction gets it exactly as
an orphan does; in the time split it reads only the localization source
(Huh et al. 2003).

References
----------
.. [1] Huh, W.-K. et al. Global analysis of protein localization in budding
       yeast. Nature 425, 686-691 (2003).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from geomargin.featurize.metabolic.pairs.base import NetworkBlock

__all__ = ["SiteBlock", "SITES", "SITE_LABELS", "site_of", "GO_SITE_TERMS"]

#: The sites compared, in this order.
SITES = ("cytoplasm", "mitochondrion", "nucleus", "er", "golgi", "vacuole", "peroxisome",
         "lipid_particle", "cell_periphery")
#: How each site is written for a reader.
SITE_LABELS = {"cytoplasm": "cytoplasm", "mitochondrion": "mitochondrion", "nucleus": "nucleus",
               "er": "ER", "golgi": "Golgi", "vacuole": "vacuole", "peroxisome": "peroxisome",
               "lipid_particle": "lipid particle", "cell_periphery": "cell periphery"}

#: GO cellular-component ids and their names (the terms a localization table
#: of GO ids is read with; other ids map to no site).
GO_SITE_TERMS = {
    "GO:0005737": "cytoplasm", "GO:0005829": "cytosol",
    "GO:0005739": "mitochondrion", "GO:0005743": "mitochondrial inner membrane",
    "GO:0005741": "mitochondrial outer membrane", "GO:0005759": "mitochondrial matrix",
    "GO:0005634": "nucleus", "GO:0005730": "nucleolus", "GO:0034399": "nuclear periphery",
    "GO:0005635": "nuclear envelope",
    "GO:0005783": "endoplasmic reticulum", "GO:0005789": "endoplasmic reticulum membrane",
    "GO:0005794": "Golgi apparatus", "GO:0000139": "Golgi membrane",
    "GO:0005773": "vacuole", "GO:0000324": "fungal-type vacuole",
    "GO:0000329": "fungal-type vacuole membrane", "GO:0005774": "vacuolar membrane",
    "GO:0005777": "peroxisome", "GO:0005811": "lipid droplet",
    "GO:0005886": "plasma membrane", "GO:0071944": "cell periphery",
    "GO:0005576": "extracellular region", "GO:0009277": "fungal-type cell wall",
}

# (pattern, site), first match wins; "ER to Golgi" vesicles are neither.
_RULES = (
    (r"\ber to golgi\b", None),
    (r"mitochondri", "mitochondrion"),
    (r"peroxisom|glyoxysom", "peroxisome"),
    (r"vacuol", "vacuole"),
    (r"golgi", "golgi"),
    (r"endoplasmic reticulum|^er$|^er ", "er"),
    (r"lipid (particle|droplet)", "lipid_particle"),
    (r"nucle", "nucleus"),
    (r"cytosol|cytoplasm", "cytoplasm"),
    (r"extracellular|cell envelope|cell periphery|plasma membrane|cell wall|periplasm", "cell_periphery"),
)


def site_of(label: str) -> str | None:
    """The site (:data:`SITES`) a compartment name, localization category or
    GO cellular-component id names, or None.

    Membranes and lumens count as their organelle's site; the extracellular
    space, the cell envelope and the plasma membrane as ``cell_periphery``
    (what crosses them is carried by proteins at the cell's periphery).

    Examples
    --------
    >>> [site_of(x) for x in ["mitochondrial membrane", "cytosol", "GO:0000329", "ER",
    ...                       "extracellular space", "bud neck", "ER to Golgi"]]
    ['mitochondrion', 'cytoplasm', 'vacuole', 'er', 'cell_periphery', None, None]
    """
    text = GO_SITE_TERMS.get(str(label).strip(), str(label)).strip().lower()
    for pattern, site in _RULES:
        if re.search(pattern, text):
            return site
    return None


class SiteBlock(NetworkBlock):
    """The ``site`` block (motif-independent; needs the ``loc`` source and
    ``net.reactions.compartments``)."""

    name = "site"
    param = "sites"
    config_key = "metabolic.site_features"
    items = ("match_share", "other_share", "match_rarity")
    per_motif = False
    source_name = "loc"

    def __init__(self, compartments: pd.Series | None = None):
        self.compartments = compartments

    @classmethod
    def create(cls, featurizer):
        return cls(featurizer.net.reactions["compartments"])

    def prepare(self, index, cache):
        """Each gene's sites and each reaction's sites, as 0/1 rows over :data:`SITES`."""
        src = self.source  # the prepared LocBlock, set by the featurizer
        self.index = index
        col_site = np.zeros((len(src.items_), len(SITES)))
        for j, label in enumerate(src.items_):
            s = site_of(label)
            if s is not None:
                col_site[j, SITES.index(s)] = 1.0
        # loc rows (the last: no data) x sites
        G = (src.arrays["A"] @ col_site > 0).astype(float)
        grow = np.full(index.n_genes, src.null, dtype=np.intp)
        for g, i in src.row.items():
            grow[index.gid[g]] = i
        self._G = G[grow]  # universe genes (and -1, last) x sites
        n_site = G.sum(axis=0)
        n = float((G.sum(axis=1) > 0).sum())
        self._rarity = np.where(n_site > 0, np.log(np.maximum(n, 1.0) / np.maximum(n_site, 1.0)), 0.0)
        self._n_sites = self._G.sum(axis=1)
        self._reaction_sites = {}
        for r, text in self.compartments.items():
            v = np.zeros(len(SITES))
            for name in str(text or "").split(";"):
                s = site_of(name) if name else None
                if s is not None:
                    v[SITES.index(s)] = 1.0
            self._reaction_sites[str(r)] = v

    def reaction_sites(self, reaction: str) -> list[str]:
        """The sites of ``reaction``'s compartments, in :data:`SITES` order."""
        return [s for s, x in zip(SITES, self._reaction_sites[reaction]) if x]

    def gene_sites(self, gid) -> list[str]:
        """The sites of the gene at index ``gid`` (None: an unknown gene)."""
        if gid is None:
            return []
        return [s for s, x in zip(SITES, self._G[gid]) if x]

    def block(self, reaction, g_gids, motif=None):
        """The three items (NaN where the candidate has no site or the
        reaction's compartments map to none)."""
        s_r = self._reaction_sites[reaction]
        out = np.full((len(g_gids), len(self.items)), np.nan)
        n_r = s_r.sum()
        if n_r == 0:
            return out
        g_gids = np.asarray(g_gids, dtype=np.intp)
        Lg = self._G[g_gids]
        n_g = self._n_sites[g_gids]
        ok = n_g > 0
        matched = Lg * s_r
        n_match = matched.sum(axis=1)
        out[ok, 0] = n_match[ok] / n_r
        out[ok, 1] = (n_g[ok] - n_match[ok]) / n_g[ok]
        out[ok, 2] = (matched[ok] * self._rarity).max(axis=1)
        return out
