"""Every named input of a rule is read by the rule's script, and every named
input a script reads is declared by its rule: a rule's inputs are what its
script reads, no more (an input kept only to order outputs would make the
rule rerun for nothing), and no less (Snakemake would not know the job
depends on it). Read from the .smk text, which snakefmt keeps in one layout."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "workflow" / "rules"
SCRIPTS = REPO / "workflow" / "scripts"
#: Named inputs read by library code the script calls rather than through
#: ``snakemake.input``: (rule, input) -> (file, text that file must contain).
READ_ELSEWHERE = {
    # render_browser inlines report/browser_assets/*; the input makes
    # an edit of the assets rebuild the page
    ("enzyme_browser", "assets"): ("report/browser.py", 'with_name("browser_assets")'),
}
#: Inputs that only order a job, (rule, input) -> why.
ORDER_ONLY = {
    # the inputs are checked against what the features step read after every
    # result is staged, as close to the publish as a job of its own can be
    ("metabolic_inputs_read", "staged"): "runs after the staged results",
}
#: Inputs spread from a helper of common.smk: the keys it can return.
_SPLIT = ("featurizer", "features", "validation", "cv", "calibrator", "older_calibration", "older_reliability",
          "newer_network")
SPREAD = {"**metabolic_inputs()": ("network", "expression", "annotation", "localization"),
          "**homology_inputs()": ("proteome", "homology"),
          "**history_ranking_inputs()": ("history", "history_test"),
          "**history_test_input()": ("history_test",),
          "**metabolic_staged()": ("staged_history_test", "staged_history_test_rankings",
                                   "staged_history_test_confidence", "staged_ranking", "staged_quality",
                                   "staged_orphans", "staged_browser", "staged_accuracy", "staged_accuracy_plot",
                                   "staged_validation", "staged_shown_validation", "staged_calibration",
                                   "staged_calibration_reliability", "staged_calibration_plot"),
          '**release_split_inputs(TIME_SPLIT["older"], TIME_SPLIT["newer"])': _SPLIT,
          "unpack(lambda wc: release_split_inputs(wc.older, wc.newer))": _SPLIT}


def _section(block: str, name: str) -> list[str]:
    """The lines of the rule's ``name:`` section (4-space directive indent)."""
    lines = block.splitlines()
    for i, line in enumerate(lines):
        if line.rstrip() == f"    {name}:":
            out = []
            for nxt in lines[i + 1:]:
                if re.match(r"^    \S", nxt) or re.match(r"^\S", nxt):
                    break
                out.append(nxt)
            return out
    return []


def rules() -> dict[str, dict]:
    """rule name -> {"inputs": named inputs or None (section absent), "script": path}."""
    found: dict[str, dict] = {}
    uses: list[tuple[str, str, str]] = []
    for smk in sorted(RULES.glob("*.smk")):
        text = smk.read_text()
        heads = list(re.finditer(r"^(rule (\w+)|use rule (\w+) as (\w+) with):\s*$", text, re.M))
        for k, m in enumerate(heads):
            block = text[m.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)]
            inputs = _section(block, "input")
            named = None
            if inputs:
                named = set()
                for line in inputs:
                    if mm := re.match(r"^        (\w+)=", line):
                        named.add(mm.group(1))
                    elif line.strip().rstrip(",") in SPREAD:
                        named.update(SPREAD[line.strip().rstrip(",")])
            script = _section(block, "script")
            path = (smk.parent / script[0].strip().strip('"')).resolve() if script else None
            if m.group(2):
                found[m.group(2)] = {"inputs": named, "script": path}
            else:
                uses.append((m.group(3), m.group(4), named))
    for parent, child, named in uses:
        found[child] = {"inputs": named if named is not None else found[parent]["inputs"],
                        "script": found[parent]["script"]}
    return found


def _reads(script: Path) -> tuple[set[str], bool]:
    """Named inputs the script reads, and whether it reads every input."""
    text = script.read_text()
    names = set(re.findall(r"\b(?:smk|snakemake)\.input\.(\w+)\b", text)) - {"items"}
    return names, bool(re.search(r"\b(?:smk|snakemake)\.input\.items\(\)", text))


def test_the_parser_sees_the_workflow():
    found = rules()
    assert {"metabolic_features", "enzyme_ranking", "vision_scene_detection_scale", "mcar_accuracy",
            "fetch_file"} <= set(found)
    assert found["enzyme_ranking"]["inputs"] >= {"cv", "features", "featurizer", "validation"}
    assert found["metabolic_features"]["inputs"] == set(SPREAD["**metabolic_inputs()"] + SPREAD["**homology_inputs()"])
    assert found["metabolic_homology"]["inputs"] == {"networks", "proteome"}
    assert found["vision_scene_detection_scale"]["script"] == SCRIPTS / "vision_scene_report.py"


def test_named_inputs_are_what_the_scripts_read():
    problems = []
    for rule, info in sorted(rules().items()):
        if info["script"] is None or not info["inputs"]:
            continue
        reads, reads_all = _reads(info["script"])
        if reads_all:
            continue
        for name in sorted(info["inputs"] - reads):
            elsewhere = READ_ELSEWHERE.get((rule, name))
            if elsewhere and elsewhere[1] in (REPO / elsewhere[0]).read_text():
                continue
            if (rule, name) in ORDER_ONLY:
                continue
            problems.append(f"{rule}: input {name!r} is not read by {info['script'].name}")
        for name in sorted(reads - info["inputs"]):
            problems.append(f"{rule}: {info['script'].name} reads input {name!r} the rule does not declare")
    assert not problems, "\n".join(problems)
