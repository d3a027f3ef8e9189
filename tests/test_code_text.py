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
    \b(?:several|many|much|twice|\d+(?:\.\d+)?)\s*(?:times|x|×)?\s*(?:as\s+fast|faster|slower)\b  # a speed claim
  | \border(?:s)?\s+of\s+magnitude\s+(?:faster|slower)\b
  | \b(?:was|were)\s+tried\b | \btried,?\s+(?:and\s+)?not\s+adopted\b | \bolder\s+version
  | \bused\s+(?:here\s+before|to\s+(?:read|be|take|give|use))\b
  | \bbefore\s+(?:commit|20\d\d-\d\d-\d\d)\b
  | (?:\b(?:at|commit|since)\s+|\()(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b   # a commit as a record
)""", re.IGNORECASE | re.VERBOSE)

#: Comment leaders of the non-Python files scanned (Snakemake rules, YAML, shell).
OTHER_KINDS = ("*.smk", "*.yaml", "*.yml", "*.sh", "Snakefile")


def _joined(comments):
    """(first line, joined text) of each run of comments on consecutive
    lines, from (line, text) pairs in line order."""
    block: list = []
    for line, text in comments:
        if block and line != block[-1][0] + 1:
            yield block[0][0], " ".join(t for _, t in block)
            block = []
        block.append((line, text))
    if block:
        yield block[0][0], " ".join(t for _, t in block)


def comments_and_docstrings(source: str):
    """(line, text) of every comment block and docstring of ``source``; the
    comments of consecutive lines are joined, so a phrase may wrap."""
    yield from _joined((tok.start[0], tok.string.lstrip("#: "))
                       for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                       if tok.type == tokenize.COMMENT)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


def hash_comments(text: str):
    """(line, text) of the ``#`` comment blocks of a Snakefile, YAML or shell
    file (consecutive comment lines joined)."""
    def comments():
        for i, line in enumerate(text.splitlines(), 1):
            code, sep, comment = line.partition("#")
            if sep and "'" not in code and '"' not in code:
                yield i, comment.strip()

    yield from _joined(comments())


def lab_notebook_lines(source: str, python: bool = True) -> list[tuple[int, str]]:
    """(line, phrase) of each measurement or bit of history in the comments
    and docstrings of ``source`` (Python, else a file of ``#`` comments).

    >>> lab_notebook_lines('x = 1  # about 40 times faster than\\n# before\\n')
    [(1, '40 times faster')]
    >>> lab_notebook_lines('def f():\\n    "Return the sum (a 95% interval)."\\n')
    []
    """
    texts = comments_and_docstrings(source) if python else hash_comments(source)
    return [(line, m.group(0).strip()) for line, text in texts for m in LAB_NOTEBOOK.finditer(text)]


def test_the_pattern_finds_what_it_is_for():
    for text in ("# ~40x faster", "# several times faster", "# twice as fast", "# a variant was tried",
                 "# Clarabel, used here\n# before", "# (docs at 6866b0d)", "# since 491803e",
                 "# guards against an older version", "# it used to read the gap"):
        assert lab_notebook_lines(text + "\n"), text
    for text in ("# the 95% Wilson lower bound; a chunk of ~128 MB", "# stops at 10000000 rows",
                 "# a faster path for one row"):
        assert not lab_notebook_lines(text + "\n"), text
    assert lab_notebook_lines("rule a:\n    # Much slower than\n    # the default\n", python=False)


def test_no_code_comment_or_docstring_is_a_lab_notebook():
    def tracked(*patterns):
        return subprocess.run(["git", "ls-files", *patterns], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.split()

    found = [f"{f}:{line}: {phrase}" for f in tracked("*.py") if not f.startswith("tests/")
             for line, phrase in lab_notebook_lines((REPO / f).read_text())]
    found += [f"{f}:{line}: {phrase}" for f in tracked(*OTHER_KINDS) if not f.startswith("tests/")
              for line, phrase in lab_notebook_lines((REPO / f).read_text(), python=False)]
    assert not found, "measurements or history in code (move them to docs/decisions.md):\n" + "\n".join(found)
