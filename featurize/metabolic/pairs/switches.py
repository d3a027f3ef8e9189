"""Which optional feature blocks a run builds, from the config's switches.

The reaction-kind, compound, domain-kind and membrane blocks describe a
candidate through the related reactions, so they need both
``adjacency_features`` and ``kind_features``; the subsystem and site blocks
stand alone. :func:`block_switches` is the one place that says so; the
features step passes its result to
:class:`~geomargin.featurize.metabolic.pairs.PairFeaturizer`.
"""

from __future__ import annotations

__all__ = ["block_switches"]


def block_switches(*, adjacency: bool, kind_features: bool, subsystem_features: bool, compound_features: bool,
                   domain_kind_features: bool, site_features: bool, membrane_features: bool) -> dict[str, bool]:
    """Whether each optional block is built: ``reaction_kinds``,
    ``subsystems``, ``compounds``, ``domain_kinds``, ``sites`` and
    ``membrane``, from the config keys of the same meaning.

    Examples
    --------
    >>> on = block_switches(adjacency=False, kind_features=True, subsystem_features=True, compound_features=True,
    ...                     domain_kind_features=True, site_features=True, membrane_features=True)
    >>> [name for name, value in on.items() if value]  # no adjacency: nothing that reads related reactions
    ['subsystems', 'sites']
    """
    kinds = bool(adjacency and kind_features)
    return {"reaction_kinds": kinds, "subsystems": bool(subsystem_features),
            "compounds": kinds and bool(compound_features), "domain_kinds": kinds and bool(domain_kind_features),
            "sites": bool(site_features), "membrane": kinds and bool(membrane_features)}
