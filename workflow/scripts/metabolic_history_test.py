"""Score the release history's test pair exactly as its history pairs are
scored, with the ranking, confidence and threshold learned from the history
alone (rank/history_report.py: score_test_split); write the headline, every
ranking's row on the test pair, and the check of the confidence on the test
pair's first candidates."""

import pandas as pd

from geomargin.common.io import write_tsv_atomic
from geomargin.rank.history import HistoryModel
from geomargin.rank.history_report import score_test_split

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
p = smk.params

model = HistoryModel.load(smk.input.model)
rows = pd.read_csv(smk.input.reactions, sep="\t", keep_default_na=False, na_values=[""])
summary, rankings, confidence = score_test_split(model, rows, p.test, top_n=p.top_n, n_boot=p.n_bootstrap,
                                                 seed=p.seed)
log.info("test %s, %s (chosen on %s): hit@1 %.3f [%.3f, %.3f], MRR %.3f over %d reactions; first candidates' "
         "mean confidence %.3f against a later gene first for %.3f (ECE %.3f); credible reactions %d, a later "
         "gene first %.3f against %.3f for all", p.test, summary["ranking"], summary["chosen_on"],
         summary["test_hit@1"], summary["test_hit@1_lo"], summary["test_hit@1_hi"], summary["test_mrr"],
         summary["test_reactions"], summary["test_rank1_mean_confidence"], summary["test_rank1_later_gene_share"],
         summary["test_rank1_ece"], summary["test_credible_reactions"], summary["test_credible_top1_is_later"],
         summary["test_all_top1_is_later"])
write_tsv_atomic(pd.DataFrame([summary]).round(4), smk.output.summary)
write_tsv_atomic(rankings.round(4), smk.output.rankings)
write_tsv_atomic(confidence.round(4), smk.output.confidence)
