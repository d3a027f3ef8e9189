"""Write the candidate browser results/enzyme_ranking.html (report/browser.py)."""

import pandas as pd

from geomargin.common.io import atomic_path
from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.rank.history import credible_possible
from geomargin.report.browser import (browser_data, history_test_summary, render_browser, time_split_summary,
                            unearned_top_gene, validated_quality)

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

ranking = pd.read_csv(smk.input.ranking, sep="\t", keep_default_na=False, na_values=[""])
orphans = pd.read_csv(smk.input.orphans, sep="\t", keep_default_na=False, na_values=[""])
featurizer = FeatureBundle.load(smk.input.featurizer).featurizer
validation = pd.read_csv(smk.input.validation, sep="\t")
quality_table = pd.read_csv(smk.input.quality, sep="\t")
if hasattr(smk.input, "history_test"):
    # with a release history the candidates are listed by score: the ranking's own validation row
    quality = {**validated_quality(validation, ranking), "order": "score"}
else:
    # the ranking's validated quality in the order its rows are listed (the calibration step's
    # shown_validation.tsv), else its row of the ranking validation
    shown = pd.read_csv(smk.input.shown_validation, sep="\t")
    shown = shown[shown["shown"].astype(bool)] if len(shown) else shown
    quality = validated_quality(shown, ranking) or validated_quality(validation, ranking)
    if len(shown):  # how the candidates are listed: the header says so
        quality["order"] = str(shown["order"].iloc[0])
log.info("method %s, validated quality %s", ", ".join(sorted(set(ranking["method"]))), quality)
time_split = None
if smk.input.time_split:
    time_split = time_split_summary(pd.read_csv(smk.input.time_split[0], sep="\t"),
                                    *smk.params.time_split_releases)
    log.info("time split %s -> %s: %s", *smk.params.time_split_releases, time_split)
history_test = None
if hasattr(smk.input, "history_test"):
    # the release history's test pair leads the header; the confidence and threshold are the history's
    history_test = history_test_summary(pd.read_csv(smk.input.history_test, sep="\t"), quality_table)
    log.info("release history, test %s: %s", history_test["test_split"], history_test)
# the gene first for the most orphans, named in the header when the validation does not earn it
top_gene = unearned_top_gene(quality_table, ranking)
log.info("gene first for the most orphans, unearned: %s", top_gene)
credible = None
if history_test is not None:
    # the flags' threshold is today's, learned with the test pair (the quality table), not the test's own
    row = quality_table.iloc[0]
    credible = {"threshold": float(row["threshold"]), "possible": credible_possible(row["threshold_rule"])}
    log.info("no credible candidate below %.4f (%s)", credible["threshold"], row["threshold_rule"])
calibration = pd.read_csv(smk.input.calibration, sep="\t")
calibration = calibration[calibration["reaction_kind"] == "all"]
calibration = ({k: calibration.iloc[0][k] for k in ("threshold", "ece", "brier", "check")}
               if len(calibration) else None)
data = browser_data(ranking, orphans, featurizer, quality=quality, dataset=smk.params.dataset,
                    reaction_url=smk.params.reaction_url, time_split=time_split,
                    calibration=None if history_test is not None else calibration, history_test=history_test,
                    top_gene=top_gene, credible=credible)
html = render_browser(data)
with atomic_path(smk.output[0]) as tmp:
    tmp.write_text(html, encoding="utf-8")
log.info("wrote %s: %d orphan reactions, %d with candidates, %d expression profiles, %.1f MB",
         smk.output[0], len(data["reactions"]), len(data["candidates"]), len(data["profiles"]),
         len(html.encode()) / 1e6)
