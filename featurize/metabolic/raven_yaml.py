"""Reading RAVEN's YAML exports of 2018, which cobrapy's YAML reader rejects.

RAVEN 2.0 wrote yeast-GEM's ``.yml`` releases of 2018 (e.g. 8.3.0) in
cobrapy's layout, but left scalar values unquoted. A metabolite named
``[cytochrome c]-L-lysine`` then opens a YAML flow sequence, and a value
with ``": "`` opens a mapping, so the file is not valid YAML.
:func:`quote_raven_scalars` quotes exactly those values (a plain scalar
that starts with a YAML indicator or holds ``": "`` or ``" #"``), and
nothing else; the repaired text is then read as any cobrapy YAML model.

Example
-------
>>> text = "- metabolites:\\n  - !!omap\\n    - id: s_3816\\n    - name: [cytochrome c]-L-lysine\\n"
>>> fixed, n = quote_raven_scalars(text)
>>> n, fixed.splitlines()[3]
(1, '    - name: "[cytochrome c]-L-lysine"')
"""

from __future__ import annotations

import json
import re

__all__ = ["quote_raven_scalars"]

_ITEM_RE = re.compile(r"^(\s*- (?:[A-Za-z0-9_.\-]+: )?)(.*)$")
_NEEDS_QUOTES_RE = re.compile(r"^[\[\]{}*&!%@`|>]|: | #|:$")
_NESTED_KEY_RE = re.compile(r"[A-Za-z0-9_.\-]+:")


def quote_raven_scalars(text: str) -> tuple[str, int]:
    """``text`` with every plain scalar that YAML would misread quoted, and
    how many were quoted."""
    out, n = [], 0
    for line in text.split("\n"):
        m = _ITEM_RE.match(line)
        if m:
            value = m.group(2)
            if (value and not value.startswith(('"', "'", "!!")) and not _NESTED_KEY_RE.fullmatch(value)
                    and _NEEDS_QUOTES_RE.search(value)):
                line = m.group(1) + json.dumps(value)
                n += 1
        out.append(line)
    return "\n".join(out), n
