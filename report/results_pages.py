"""Write the results pages of ``docs/results`` from the result tables of a run.

Each page holds the tables of one part of the workflow, copied cell for cell
from the run's TSV files (no number is typed by hand), and is stamped with
the commit, date and machine of the run, the command that made the run and
the command that wrote the page::

    python -m geomargin.report.results_pages results docs/results \\
        --run-command "snakemake --cores all results/enzyme_ranking.tsv"

A page is written only when every table it shows exists in the run; other
pages are left as they are. :func:`parse_tables` reads a page's tables back,
and :func:`render_table` renders them again, so a test can check that a
committed page was written by this module and not edited by hand.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from geomargin.common.io import atomic_path

__all__ = ["PAGES", "Page", "Table", "cpu_model", "machine", "main", "parse_stamp", "parse_tables", "read_table",
           "render_page", "render_table", "run_commit", "table_blocks", "write_pages"]

#: Columns that hold wall-clock times: they differ between two runs of the
#: same configuration on the same data.
VARYING_COLUMNS = ("fit_seconds_mean", "select_seconds_mean")
#: Columns of a scene-detection table shown on the page: one row per method
#: (the table itself holds one row per method and score threshold).
SCENE_SUMMARY = ("method", "recall_at_eer", "average_precision")
GENERATED = "<!-- Written by `python -m geomargin.report.results_pages`; do not edit by hand. -->"


@dataclass(frozen=True)
class Table:
    """One table of a results page.

    Parameters
    ----------
    path : str
        The TSV, relative to the run's ``results`` folder.
    caption : str
        What the table holds (one sentence, no numbers).
    view : {"all", "transpose", "scene_summary"}
        How the TSV is shown: every row and column as it is; a one-row table
        as (column, value) rows; or the :data:`SCENE_SUMMARY` columns of a
        scene-detection table, one row per method.
    """

    path: str
    caption: str
    view: str = "all"


@dataclass(frozen=True)
class Page:
    """A results page: its file name, title and tables."""

    name: str
    title: str
    tables: tuple[Table, ...]


#: The pages and their tables, in page order.
PAGES = (
    Page("metabolic.md", "Enzyme ranking: measured results", (
        Table("metabolic/accuracy.tsv",
              "Accuracy and ROC AUC of every method on the enzyme-gene pairs, mean and SEM over the "
              "outer folds (nested cross-validation grouped by reaction)."),
        Table("metabolic/ranking_validation.tsv",
              "Cross-validated ranking of the held-out reactions that have known genes: hit@k, MRR "
              "and median rank of their true genes with 95% bootstrap intervals over reactions, the "
              "gene ranked first most often, and whether each method beats each baseline."),
        Table("metabolic/shown_validation.tsv",
              "The cross-validation's choice, validated as it would be listed: its shown candidates of "
              "every held-out reaction in score order and listed by the confidence of a calibrator fitted "
              "on the other folds; shown marks the order of enzyme_ranking.tsv (no row with a release "
              "history, whose choice enzyme_ranking.tsv lists by score)."),
        Table("enzyme_ranking_quality.tsv",
              "The method that ranked the orphan reactions, its validated figures and the rank-1 "
              "concentration over the orphans (one row, shown as column and value).", "transpose"),
        Table("metabolic/calibration.tsv",
              "The cross-validated confidence of that choice's shown candidates (the one shown without a "
              "release history), checked out of fold on the cross-validation's held-out reactions: "
              "expected calibration error (10 bins) over all shown rows and over "
              "each reaction's most confident candidate (ece_best, the one the flag reads), Brier "
              "score, the \"no credible candidate\" threshold and how often the rank-1 candidate was "
              "a true gene above it."),
        Table("metabolic/calibration_reliability.tsv",
              "The reliability table behind that check: the shown rows in 10 bins of out-of-fold "
              "confidence, each bin's mean confidence beside the share of its rows that were a true "
              "gene. The expected calibration error weighs the bins by their rows, so the few rows of "
              "high confidence, the ones a biologist reads first, count little in it: read their bins here."),
    )),
    Page("release_history.md", "Enzyme ranking, release history: measured results", (
        Table("metabolic/history_test.tsv",
              "The test pair of the release history: an older release's orphans, ranked by a run that saw "
              "only that release, with the ranking, confidence and threshold chosen on the history pairs "
              "alone, against the genes a later release gave them; hit@k and MRR with 95% bootstrap "
              "intervals over model reactions and a random order's expectation, the confidence on the first "
              "candidates, and the chosen ranking's history and cross-validated figures (one row, shown "
              "as column and value).", "transpose"),
        Table("metabolic/history_test_confidence.tsv",
              "The history's confidence checked on the test pair's first candidates, over all kinds and per "
              "kind: mean confidence beside the share with a later gene first (the share and their ratio "
              "with 95% bootstrap intervals over model reactions), their expected calibration error beside the one "
              "a perfectly calibrated confidence shows on so few reactions (`_if_calibrated`: median and 95th "
              "percentile over labels drawn from the confidences; `rank1_calibrated_p`: the Poisson-binomial "
              "probability of a count of later genes first this far from the confidences' sum), and how much "
              "more often the reactions marked credible had a later gene first than all, with a 95% bootstrap "
              "interval."),
        Table("metabolic/history_test_rankings.tsv",
              "Every ranking on the test pair, in score order, per reaction kind: hit@k, MRR and median rank "
              "with 95% bootstrap intervals over model reactions and a random order's expectation; chosen marks "
              "the ranking the history chose."),
    )),
    Page("time_split.md", "Enzyme ranking, time split: measured results", (
        Table("metabolic/time_split_validation.tsv",
              "The orphans of an older model release, ranked by a run that saw only that release, "
              "against the genes a later release gave them: hit@k, MRR and median rank of the "
              "best-ranked later gene per ranking and reaction kind, 95% bootstrap intervals over "
              "model reactions, and what a random order of the same candidates would score."),
        Table("metabolic/time_split_later_genes.tsv",
              "Which later genes each ranking finds: the pairs of a benchmark reaction and a later gene, "
              "split by what the older release showed of the gene (a related reaction, a reaction of the "
              "subsystem or on similar compounds, other reactions only, none, not a candidate, the "
              "reaction not ranked), with hit@k, MRR and median rank of the genes themselves, 95% "
              "bootstrap intervals over model reactions and a random order's expectation."),
        Table("metabolic/time_split_calibration.tsv",
              "The older run's confidence, checked on the rows its default ranking shows for the "
              "orphans that later gained a gene: expected calibration error (all rows, and each "
              "reaction's most confident candidate), Brier score, and how "
              "often the rank-1 candidate was a later gene for the orphans marked credible against "
              "all of them; then the same for the orphans whose first candidate rests on few held-out "
              "cases like it (held_out_like) and for the others."),
        Table("metabolic/time_split_reliability.tsv",
              "The reliability table behind that check: the rows in 10 bins of confidence, each bin's "
              "mean confidence beside the share of its rows that were a later gene."),
    )),
    Page("vision.md", "Car detection: measured results", (
        Table("detection_accuracy.tsv",
              "Accuracy and ROC AUC of every method on the UIUC car crops, mean and SEM over the "
              "outer folds, beside the paper's figure on its own image set."),
        Table("vision/scene_detection.tsv",
              "Single-scale test scenes: recall at equal error rate and average precision per "
              "method (the table also holds the precision-recall curve).", "scene_summary"),
        Table("vision/scene_detection_scale.tsv",
              "Multi-scale test scenes: recall at equal error rate and average precision per "
              "method (the table also holds the precision-recall curve).", "scene_summary"),
    )),
    Page("mcar.md", "Missing completely at random: measured results", (
        Table("mcar/accuracy.tsv",
              "Accuracy and ROC AUC of every method per dataset and removal scenario, mean and SEM "
              "over all outer folds of all random removals."),
    )),
)


def read_table(path: str | os.PathLike, view: str = "all") -> pd.DataFrame:
    """A result TSV as the page shows it: every cell the text of the file.

    Parameters
    ----------
    path : path-like
        A tab-separated table with one header line.
    view : {"all", "transpose", "scene_summary"}
        See :class:`Table`.

    Returns
    -------
    DataFrame of str

    Examples
    --------
    >>> import io
    >>> read_table(io.StringIO("method\\tacc\\nzero\\t0.9100\\n"), "transpose")
       column   value
    0  method    zero
    1     acc  0.9100
    """
    df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    if view == "all":
        return df
    if view == "transpose":
        if len(df) != 1:
            raise ValueError(f"{path}: a transposed table must have one row, not {len(df)}")
        return pd.DataFrame({"column": list(df.columns), "value": list(df.iloc[0])})
    if view == "scene_summary":
        missing = [c for c in SCENE_SUMMARY if c not in df.columns]
        if missing:
            raise ValueError(f"{path}: not a scene-detection table (no column {missing})")
        return df[list(SCENE_SUMMARY)].drop_duplicates(ignore_index=True)
    raise ValueError(f"view must be 'all', 'transpose' or 'scene_summary', not {view!r}")


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def render_table(df: pd.DataFrame) -> str:
    """A markdown table of ``df``'s cells, exactly as their text.

    Backslashes and pipes are escaped; nothing is padded, rounded or
    reformatted, so the same table always gives the same bytes. As in
    markdown, spaces around a cell's text do not survive :func:`parse_tables`.

    Examples
    --------
    >>> print(render_table(pd.DataFrame({"a": ["1", "x|y"], "b": ["", "2"]})), end="")
    | a | b |
    |---|---|
    | 1 |  |
    | x\\|y | 2 |
    """
    lines = ["| " + " | ".join(_cell(str(c)) for c in df.columns) + " |",
             "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(_cell(str(v)) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _split_row(line: str) -> list[str]:
    cells, cur, i = [], [], 0
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            cur.append(body[i + 1])
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur))
    # as in markdown, a cell's surrounding spaces are not part of it
    return [c.strip(" ") for c in cells]


def _parse_block(block: str) -> pd.DataFrame:
    lines = block.rstrip("\n").split("\n")
    header = _split_row(lines[0])
    rows = [_split_row(line) for line in lines[2:]]
    return pd.DataFrame(rows, columns=header, dtype=object).astype(str) if rows else \
        pd.DataFrame(columns=header, dtype=str)


def table_blocks(page_text: str) -> dict[str, str]:
    """The text of each table of a page, by its TSV path.

    A table belongs to the nearest preceding level-2 heading that names a
    file in backquotes (``## `metabolic/accuracy.tsv` ``).
    """
    out, name, block = {}, None, []
    for line in page_text.split("\n"):
        heading = re.fullmatch(r"## `([^`]+)`\s*", line)
        if heading:
            name = heading.group(1)
            continue
        if line.startswith("|") and name is not None:
            block.append(line)
        elif block:
            out[name] = "\n".join(block) + "\n"
            block, name = [], None
    if block and name is not None:
        out[name] = "\n".join(block) + "\n"
    return out


def parse_tables(page_text: str) -> dict[str, pd.DataFrame]:
    """Read a page's tables back, by their TSV path (cells as text).

    Examples
    --------
    >>> text = "## `a.tsv`\\n\\n" + render_table(pd.DataFrame({"m": ["x|y"], "v": [""]}))
    >>> parse_tables(text)["a.tsv"].to_dict("list")
    {'m': ['x|y'], 'v': ['']}
    """
    return {name: _parse_block(block) for name, block in table_blocks(page_text).items()}


def parse_stamp(page_text: str) -> dict[str, str]:
    """The stamp of a page: ``- **key**: value`` lines before the first table."""
    out = {}
    for line in page_text.split("\n"):
        if line.startswith("## "):
            break
        m = re.fullmatch(r"- \*\*([^*]+)\*\*: (.*)", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _git(repo: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def run_commit(results_dir: str | os.PathLike, repo: str | os.PathLike | None = None) -> str:
    """The commit of the code that made a run, with ``(dirty)`` when its work
    tree has uncommitted changes.

    The run's ``provenance.tsv`` records its inputs, packages and
    configuration but no commit, so the commit is read from git: of ``repo``
    when given, else of the work tree holding ``results_dir``, else of the
    repository holding this module (a run made with ``snakemake -d DIR`` from
    it). Returns ``"unknown"`` when none is a git work tree.
    """
    if repo is not None and _git(Path(repo), "rev-parse", "HEAD") is None:
        raise ValueError(f"--repo {repo} is not a git work tree")
    here = Path(__file__).resolve().parent
    for where, note in ((repo, ""), (results_dir, ""), (here, " (this repository: the results folder is not in one)")):
        if where is None or not Path(where).exists():
            continue
        head = _git(Path(where), "rev-parse", "HEAD")
        if head:
            status = _git(Path(where), "status", "--porcelain")
            dirty = " (dirty)" if status else ""
            return head.strip() + dirty + note
    return "unknown"


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``, else
    :func:`platform.processor`), with ``AVX-512`` or ``AVX2`` when the CPU
    has them: timings depend on it, and so do the last bits of BLAS and
    numpy's vectorised arithmetic. "" when unknown."""
    name, flags = "", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and not name:
                    name = " ".join(value.split())
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        name = platform.processor()
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    return ", ".join(x for x in (name, isa) if x)


def machine() -> str:
    """Platform, processor, logical cores and memory of this machine.

    Examples
    --------
    >>> "cores" in machine()
    True
    """
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
        memory = f", {mem:.1f} GiB memory"
    except (ValueError, OSError, AttributeError):
        memory = ""
    cpu = cpu_model()
    return f"{platform.platform()}{f' ({cpu})' if cpu else ''}, {os.cpu_count()} cores{memory}"


def _run_date(paths: list[Path]) -> str:
    newest = max(p.stat().st_mtime for p in paths)
    return datetime.fromtimestamp(newest, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def render_page(page: Page, results_dir: str | os.PathLike, stamp: dict[str, str]) -> str:
    """The markdown text of ``page`` from the tables in ``results_dir``.

    Parameters
    ----------
    page : Page
    results_dir : path-like
        The run's ``results`` folder; every table of ``page`` must exist.
    stamp : dict
        ``key -> value`` lines written under the title (commit, date, ...).
    """
    results_dir = Path(results_dir)
    parts = [f"# {page.title}", "", GENERATED, ""]
    parts += [f"- **{k}**: {v}" for k, v in stamp.items()]
    for table in page.tables:
        df = read_table(results_dir / table.path, table.view)
        parts += ["", f"## `{table.path}`", "", table.caption, "", render_table(df).rstrip("\n")]
        varying = [c for c in VARYING_COLUMNS if c in df.columns]
        if varying:
            parts += ["", "Wall-clock columns (" + ", ".join(f"`{c}`" for c in varying) +
                      ") differ between identical runs."]
    return "\n".join(parts) + "\n"


def write_pages(results_dir: str | os.PathLike, out_dir: str | os.PathLike, run_command: str,
                generator_command: str, repo: str | os.PathLike | None = None, only: str | None = None,
                name: str | None = None, title: str | None = None) -> list[Path]:
    """Write every page of :data:`PAGES` whose tables all exist in the run
    (or only the page ``only``, as the file ``name`` with the heading ``title``).

    Parameters
    ----------
    results_dir : path-like
        The run's ``results`` folder.
    out_dir : path-like
        Where the pages go (``docs/results``); created when needed.
    run_command : str
        The command that made the run, written on every page.
    generator_command : str
        The command that writes the pages, written on every page.
    repo : path-like, optional
        The git work tree of the code that made the run (see :func:`run_commit`).
    only : str, optional
        The name of one page of :data:`PAGES` (``time_split.md``): write that
        page alone; its missing tables raise ``FileNotFoundError``.
    name : str, optional
        The file name of that page (default its own), e.g. a time split of
        another older release beside the default one: ``time_split_yeast_gem_850.md``.
    title : str, optional
        That page's heading (default its own).

    Returns
    -------
    list of Path
        The pages written; pages with a missing table are left untouched.
    """
    results_dir, out_dir = Path(results_dir), Path(out_dir)
    if not results_dir.is_dir():
        raise FileNotFoundError(f"results folder {results_dir} does not exist")
    pages = list(PAGES)
    if only is not None:
        names = [p.name for p in PAGES]
        if only not in names:
            raise ValueError(f"results pages: no page {only!r}; expected one of {names}")
        pages = [p for p in PAGES if p.name == only]
        missing = [t.path for t in pages[0].tables if not (results_dir / t.path).is_file()]
        if missing:
            raise FileNotFoundError(f"results pages: {only} needs {', '.join(missing)} in {results_dir}")
    if (name is not None or title is not None) and only is None:
        raise ValueError("results pages: a page name (--as) or title (--title) needs the page it names (--only)")
    if name is not None:
        if Path(name).name != name or not name.endswith(".md") or name in {p.name for p in PAGES} - {only}:
            raise ValueError(f"results pages: --as {name!r}; expected a file name ending in .md that is not "
                             "another page's")
    if only is not None:
        pages = [Page(name or only, title or pages[0].title, pages[0].tables)]
    commit = run_commit(results_dir, repo)
    host = machine()
    written = []
    for page in pages:
        paths = [results_dir / t.path for t in page.tables]
        if not all(p.is_file() for p in paths):
            continue
        stamp = {"commit": commit, "run date": _run_date(paths) + " (newest table of this page)",
                 "machine": host, "run command": f"`{run_command}`",
                 "written by": f"`{generator_command}`"}
        out_dir.mkdir(parents=True, exist_ok=True)
        with atomic_path(out_dir / page.name) as tmp:
            Path(tmp).write_text(render_page(page, results_dir, stamp))
        written.append(out_dir / page.name)
    return written


#: What the page says for ``--repo``: the folder is of the machine that wrote it, the commit is on the page.
REPO_PLACEHOLDER = "<work tree at the commit above>"


def _portable(argv: list[str]) -> list[str]:
    """``argv`` with the value of ``--repo`` replaced by :data:`REPO_PLACEHOLDER`.

    >>> _portable(["results", "docs/results", "--repo", "/tmp/x", "--run-command", "c"])
    ['results', 'docs/results', '--repo', '<work tree at the commit above>', '--run-command', 'c']
    >>> _portable(["--repo=/tmp/x"])
    ['--repo=<work tree at the commit above>']
    """
    out, skip = [], False
    for arg in argv:
        if skip:
            out.append(REPO_PLACEHOLDER)
            skip = False
        elif arg == "--repo":
            out.append(arg)
            skip = True
        elif arg.startswith("--repo="):
            out.append("--repo=" + REPO_PLACEHOLDER)
        else:
            out.append(arg)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m geomargin.report.results_pages RESULTS_DIR OUT_DIR --run-command CMD``."""
    parser = argparse.ArgumentParser(prog="python -m geomargin.report.results_pages", description=__doc__.split("\n")[0])
    parser.add_argument("results_dir", help="the run's results folder")
    parser.add_argument("out_dir", help="where the pages go, e.g. docs/results")
    parser.add_argument("--run-command", required=True, help="the snakemake command of the run")
    parser.add_argument("--repo", default=None,
                        help="git work tree of the code of the run (default: the one holding RESULTS_DIR)")
    parser.add_argument("--only", default=None, metavar="PAGE",
                        help="write only this page (e.g. time_split.md)")
    parser.add_argument("--as", dest="name", default=None, metavar="NAME",
                        help="with --only: the page's file name (e.g. time_split_yeast_gem_850.md)")
    parser.add_argument("--title", default=None, help="with --only: the page's heading")
    args = parser.parse_args(argv)
    generator = " ".join([parser.prog, shlex.join(_portable(list(sys.argv[1:] if argv is None else argv)))])
    try:
        written = write_pages(args.results_dir, args.out_dir, args.run_command, generator, args.repo,
                              only=args.only, name=args.name, title=args.title)
    except (ValueError, FileNotFoundError) as err:
        parser.exit(2, f"{parser.prog}: {err}\n")
    if args.only is not None:
        for path in written:
            print(f"wrote {path}")
        return 0
    skipped = [p.name for p in PAGES if Path(args.out_dir) / p.name not in written]
    for path in written:
        print(f"wrote {path}")
    if skipped:
        print(f"left untouched (a table is missing from {args.results_dir}): {', '.join(skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
