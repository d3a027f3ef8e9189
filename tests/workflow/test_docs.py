"""The README and docs/: every relative link reaches a file (and, with an
anchor, a heading of it), and the Python examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "config" / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a markdown heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())  # markup goes; underscores stay, as on GitHub
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    body = re.sub(r"(?ms)^```.*?^```", "", page.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"(?m)^#+ (.+)$", body)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(target)
    assert not broken, f"{page.relative_to(REPO)}: links to nothing: {broken}"


def test_python_examples_of_the_methods_page_run():
    blocks = re.findall(r"(?ms)^```python\n(.*?)^```", (REPO / "docs" / "methods.md").read_text())
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/methods.md", "exec"), {})
