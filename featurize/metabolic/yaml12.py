"""Reading cobrapy's YAML models with libyaml, with the data cobrapy's reader gives.

cobrapy reads YAML with ruamel.yaml, a pure-Python parser: reading a large
model (yeast-GEM) is the largest serial part of the features step. PyYAML's
``CSafeLoader`` parses with the C library libyaml (chosen for speed:
``docs/decisions.md``, "YAML models are parsed by libyaml"), but resolves plain scalars by YAML 1.1 (``on`` and ``yes`` are booleans,
``0123`` is octal, ``1:30`` is sexagesimal, ``1e3`` a string), where
cobrapy's reader follows ruamel's YAML 1.2 rules. :class:`Yaml12Loader` is
``CSafeLoader`` with ruamel's own YAML 1.2 resolvers (the regular expressions
of ``ruamel.yaml.resolver``: null, bool, int, float, timestamp), numbers
built as ruamel builds them (``0123`` is 123, ``1_000`` is 1000, ``0b101``
is 5), and ``!!omap`` read as a ``dict`` in file order.

:func:`load_yaml12` returns ``None`` when libyaml is missing or the text is
not read that way: invalid YAML, a duplicate key (ruamel refuses them), a
merge key (``<<``), or a tag other than those above. The caller then reads
the text with cobrapy's reader, which gives its own result or error. The
tests compare both readers on tricky scalars and on the yeast-GEM YAML
releases of the data mirror.

References
----------
YAML Ain't Markup Language version 1.2.2, section 10.3 (core schema),
https://yaml.org/spec/1.2.2/#103-core-schema

Examples
--------
>>> load_yaml12("- !!omap\\n  - id: on\\n  - n: 0123\\n  - x: 1e3\\n  - big: 1_000\\n")
[{'id': 'on', 'n': 123, 'x': 1000.0, 'big': 1000}]
>>> load_yaml12("a: 1\\na: 2\\n") is None   # duplicate key: left to cobrapy's reader
True
"""

from __future__ import annotations

import yaml
from ruamel.yaml.resolver import implicit_resolvers as _ruamel_resolvers

__all__ = ["Yaml12Loader", "load_yaml12"]

_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "timestamp", "merge", "value")}


class Yaml12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """``yaml.CSafeLoader`` reading scalars as cobrapy's (ruamel) reader does (see the module)."""

    yaml_implicit_resolvers: dict = {}

    def flatten_mapping(self, node):
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            raise yaml.constructor.ConstructorError(None, None, "merge key", node.start_mark)
        keys = [self.construct_object(k, deep=True) for k, _ in node.value]  # 1 and 01 are one key
        if len(set(keys)) != len(keys):
            raise yaml.constructor.ConstructorError(None, None, "duplicate key", node.start_mark)
        super().flatten_mapping(node)


def _int(loader, node):
    value = loader.construct_scalar(node).replace("_", "")
    sign = -1 if value.startswith("-") else 1
    value = value.lstrip("+-")
    for prefix, base in (("0b", 2), ("0x", 16), ("0o", 8)):
        if value.startswith(prefix):
            return sign * int(value[2:], base)
    return sign * int(value, 10)


def _float(loader, node):
    value = loader.construct_scalar(node).replace("_", "").lower()
    if value.endswith(".inf"):
        return float("-inf") if value.startswith("-") else float("inf")
    if value == ".nan":
        return float("nan")
    return float(value)


def _omap(loader, node):
    if not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(None, None, "!!omap must be a sequence", node.start_mark)
    out = {}
    for item in node.value:
        if not isinstance(item, yaml.MappingNode) or len(item.value) != 1:
            raise yaml.constructor.ConstructorError(None, None, "!!omap items must be one-key mappings",
                                                    item.start_mark)
        (k, v), = item.value
        key = loader.construct_object(k, deep=True)
        if key in out:
            raise yaml.constructor.ConstructorError(None, None, "duplicate key", item.start_mark)
        out[key] = loader.construct_object(v, deep=True)
    return out


for _versions, _tag, _regexp, _first in _ruamel_resolvers:
    if (1, 2) in _versions and _tag in _TAGS:
        Yaml12Loader.add_implicit_resolver(_tag, _regexp, _first)
Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _float)
Yaml12Loader.add_constructor("tag:yaml.org,2002:omap", _omap)
# explicit tags cobrapy never writes: left to cobrapy's reader
Yaml12Loader.yaml_constructors = {k: v for k, v in Yaml12Loader.yaml_constructors.items()
                                  if k not in {f"tag:yaml.org,2002:{t}" for t in ("binary", "set", "pairs")}}


def load_yaml12(text: str):
    """``text`` parsed by :class:`Yaml12Loader`, or ``None`` when libyaml is
    not available or the text is not read that way (see the module)."""
    if not getattr(yaml, "__with_libyaml__", False):
        return None
    try:
        return yaml.load(text, Loader=Yaml12Loader)  # noqa: S506 (a safe loader)
    except Exception:  # noqa: BLE001 (any failure: cobrapy's reader decides)
        return None
