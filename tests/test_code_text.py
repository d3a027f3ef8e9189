"""Code comments and docstrings state contracts: no measured speed-up, no
tried-and-dropped idea, no commit cited as a record. Those belong in the
decision log (``docs/decisions.md``), with the command that measures them."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Phrases that record a measurement or history rather than a contract.
LAB_NOTEBOOK = re.compile(r"""(
    \b(?:several|many|much|\d+(?:\.\d+)?)\s*(?:times|x|×)?\s*(?:faster|slower)\b   # a speed claim
  | \b(?:was|were)\s+tried\b | \bolder\s+version | \bused\s+here\s+before\b
  | \bbefore\s+(?:commit|20\d\d-\d\d-\d\d)\b
  | \b(?:at|commit)\s+[0-9a-f]{7,40}\b                                             # a commit as a record
)""", re.IGNORECASE | re.VERBOSE)


def comments_and_docstrings(source: str):
    """(line, text) of every comment and docstring of ``source``."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


def lab_notebook_lines(source: str) -> list[tuple[int, str]]:
    """(line, phrase) of each measurement or bit of history in the comments
    and docstrings of ``source``.

    >>> lab_notebook_lines('x = 1  # about 40 times faster than before\\n')
    [(1, '40 times faster')]
    >>> lab_notebook_lines('def f():\\n    "Return the sum (a 95% interval)."\\n')
    []
    """
    return [(line, m.group(0).strip()) for line, text in comments_and_docstrings(source)
            for m in LAB_NOTEBOOK.finditer(text)]


def test_the_pattern_finds_what_it_is_for():
    for text in ("# ~40x faster", "# several times faster", "# a variant was tried",
                 "# Clarabel, used here before", "# (docs at 6866b0d)", "# guards against an older version"):
        assert lab_notebook_lines(text + "\n"), text
    assert not lab_notebook_lines("# the 95% Wilson lower bound; a chunk of ~128 MB\n")


def test_no_code_comment_or_docstring_is_a_lab_notebook():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.split()
    found = [f"{f}:{line}: {phrase}" for f in files if not f.startswith("tests/")
             for line, phrase in lab_notebook_lines((REPO / f).read_text())]
    assert not found, "measurements or history in code (move them to docs/decisions.md):\n" + "\n".join(found)
