"""Names that moved to another module, still resolved from the old one, so
that an object pickled before the move (which names its class by the old
module) still loads."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["moved_names"]


def moved_names(module: str, moved: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``module`` that resolves each name of
    ``moved`` (name -> the module it lives in now) from its new module, and
    no other name.

    Examples
    --------
    >>> getattr_ = moved_names("old", {"sqrt": "math"})
    >>> getattr_("sqrt")(4.0)
    2.0
    >>> getattr_("pi")
    Traceback (most recent call last):
    ...
    AttributeError: module 'old' has no attribute 'pi'
    """
    moved = dict(moved)

    def __getattr__(name: str):
        if name in moved:
            return getattr(importlib.import_module(moved[name]), name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
