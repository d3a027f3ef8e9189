"""Time-split validation: the older release's orphans, ranked by the older
run's models exactly as today's orphans are ranked, scored against the genes
that the newer release gave them (rank/time_split.py), also split by what
the older release showed of each later gene; and the older run's
confidence, checked on the rows its default ranking shows for them, listed
in the order the final ranking lists them (metabolic.ranking.order)."""



import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from geomargin.common.exceptions import ConfigValueError
from geomargin.common.io import load_npz, write_tsv_atomic
from geomargin.featurize.metabolic.bundle import FeatureBundle
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.rank.non_learned import BASELINES
from geomargin.rank.calibration import THIN_SUPPORT
from geomargin.rank.calibration_result import CalibrationResult
from geomargin.rank.calibration_check import CHECK_COLUMNS, check_table, reliability_table
from geomargin.rank.evidence_flags import shown_rows
from geomargin.rank.evidence import orphan_reactions
from geomargin.rank.metrics import choose_ranking_method
from geomargin.rank.refit import ranking_decisions_for
from geomargin.rank.scoring import ranking_name, split_ranking_name
from geomargin.rank.shown_order import shown_positions
from geomargin.rank.later_genes import later_gene_columns, later_gene_evidence, later_gene_table
from geomargin.rank.time_split import later_genes, orphan_gain_table, shown_order_rows, time_split_rows, time_split_table
from geomargin.report.figures import plot_reliability

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
# one BLAS/OpenMP thread throughout, whatever the rule's threads (they go to the
# scoring processes): a multithreaded reduction can change a refit's last bits
threadpool_limits(1)
p = smk.params

bundle = FeatureBundle.load(smk.input.featurizer)
featurizer, net, candidates = bundle.featurizer, bundle.network, bundle.candidates
data = load_npz(smk.input.features, allow_pickle=False)
validation = pd.read_csv(smk.input.validation, sep="\t")

# the older run's own choice, as the final ranking makes it
default = choose_ranking_method(validation, "mrr") if p.method == "auto" else p.method
log.info("older release: ranking method %s (%s)", default,
         "best cross-validated MRR of the older release" if p.method == "auto" else "config")
rankings = [default]
for m in [*p.validation_methods, *BASELINES]:
    for c in ["none", *p.gene_corrections]:
        name = ranking_name(m, c)
        if name not in rankings:
            rankings.append(name)
plan = [(name, *split_ranking_name(name)) for name in rankings]

newer = load_model(smk.input.newer_network)
later_rules = {r.id: {g.id for g in r.genes} for r in newer.reactions}
orphans = orphan_reactions(net, featurizer, kinds=p.kinds, evidence=p.evidence).set_index("reaction_id")
# every model reaction of a merged isozyme group is looked up in the newer release
orphans["model_reactions"] = net.reactions.loc[orphans.index, "model_reactions"]
benchmark = later_genes(orphans, later_rules)
if not benchmark:
    raise ConfigValueError(
        f"{p.config_key}: the newer release ({p.releases[1]}, {smk.input.newer_network}) gives no gene to "
        f"any of the {len(orphans)} orphans of the older one ({p.releases[0]}): nothing to validate; name "
        "releases further apart, or check that both use the same reaction ids")
log.info("older orphans: %d (%d to rank); the newer release gave genes to %d of them (%s)", len(orphans),
         int(orphans["eligible"].sum()), len(benchmark),
         orphans.loc[list(benchmark), "reaction_kind"].value_counts().to_dict())

decisions = ranking_decisions_for([m for _, m, _ in plan], dict(zip(p.cv_methods, smk.input.cv)), data,
                                  featurizer, seed=p.seed, margin_rule=p.margin_rule, n_jobs=smk.threads, log=log)
# the older run's calibrator, fitted on its own cross-validation: no label of the time split reaches it
calibration = CalibrationResult.load(smk.input.calibrator)
if calibration.ranking not in (None, default):
    raise ValueError(f"{smk.input.calibrator}: calibrated for {calibration.ranking!r}, but the older "
                     f"release's ranking is {default!r}; rerun its ranking validation")
# with the homology block, which shown candidates of every ranking have homology evidence (the
# release history's confidence reads it)
rows, shown = time_split_rows(featurizer, orphans, candidates, benchmark, decisions, plan,
                              batch_size=p.batch_size, shown=(default, p.top_n), n_jobs=smk.threads,
                              homology_top_n=p.top_n)
shown = shown_rows(shown, featurizer, net.reactions["reaction_kind"], n_jobs=smk.threads)
CHECK = "time split (reactions that gained a gene)"
older_reliability = pd.read_csv(smk.input.older_reliability, sep="\t")
if calibration.calibrator is None:
    log.warning("the older run has no calibrator (see its calibration log): the confidence is not checked")
    shown["confidence"] = np.nan
    check = pd.DataFrame(columns=CHECK_COLUMNS)
    reliability = reliability_table([], []).assign(check=CHECK)
    plot_reliability({}, smk.output.plot, title="No calibration in the older run")
else:
    shown["confidence"] = calibration.calibrator.predict_proba(shown)
    if calibration.order == "confidence":
        # as the final ranking lists them: the default ranking's shown rows by the older run's
        # confidence; its score order stays in the table as "<ranking> (score order)"
        shown["score_rank"] = shown["rank"]
        shown["rank"] = shown_positions(shown, shown["confidence"].to_numpy())
        scored = rows[rows["ranking"] == default].assign(ranking=f"{default} (score order)")
        rows = pd.concat([shown_order_rows(rows, shown, shown["rank"].to_numpy(), default), scored],
                         ignore_index=True)
        log.info("%s listed by confidence: a later gene first for %d benchmark reactions (%d in score order)",
                 default, int((rows.loc[rows["ranking"] == default, "best_rank"] == 1).sum()),
                 int((scored["best_rank"] == 1).sum()))
    # and again for the orphans whose first candidate rests on thin support (few held-out cases like it)
    # and for the others: is a confidence from a handful of held-out cases the worse one?
    shown["held_out_like"] = calibration.calibrator.held_out_like(shown)
    first_thin = shown.loc[shown["rank"] == 1].set_index("reaction")["held_out_like"] < THIN_SUPPORT
    thin = shown["reaction"].map(first_thin).fillna(False).astype(bool).to_numpy()
    parts = [(CHECK, np.ones(len(shown), dtype=bool)),
             (f"{CHECK}, first candidate with held_out_like < {THIN_SUPPORT}", thin),
             (f"{CHECK}, first candidate with held_out_like >= {THIN_SUPPORT}", ~thin)]
    check = pd.concat([check_table(shown[m], shown.loc[m, "confidence"], calibration.threshold, check=name,
                                   ranking=default, threshold_rule="the older release's cross-validation")
                       for name, m in parts if m.any()], ignore_index=True)
    log.info("confidence of %s on the time split:\n%s", default,
             check.drop(columns="threshold_rule").to_string(index=False))
    reliability = reliability_table(shown["label"], shown["confidence"]).assign(check=CHECK)
    older_check = pd.read_csv(smk.input.older_calibration, sep="\t")
    plot_reliability({
        f"{p.releases[0]} cross-validation, out of fold (ECE {older_check['ece'].iloc[0]:.3f})": older_reliability,
        f"time split {p.releases[0]} -> {p.releases[1]} (ECE {check['ece'].iloc[0]:.3f})": reliability},
        smk.output.plot, title=f"Confidence of {default}'s shown candidates, {p.releases[0]} run")
write_tsv_atomic(shown.round(6), smk.output.shown)
write_tsv_atomic(check.round(4), smk.output.calibration)
write_tsv_atomic(pd.concat([older_reliability, reliability], ignore_index=True), smk.output.reliability)
table = time_split_table(rows, n_boot=p.n_bootstrap, seed=p.seed)
table.insert(1, "default", table["ranking"] == default)
for r in table[table["reaction_kind"] == "all"].to_dict("records"):
    log.info("%s: hit@1 %.3f, hit@20 %.3f, MRR %.3f over %d reactions (%d not ranked); random order: "
             "hit@1 %.3f, hit@20 %.3f", r["ranking"], r["hit@1"], r["hit@20"], r["mrr"], r["reactions"],
             r["not_ranked"], r["random_hit@1"], r["random_hit@20"])
# what the older release showed of each later gene: which kinds of later gene the rankings miss
model_genes = {g for genes in net.reactions["genes"] for g in genes}
evidence = later_gene_evidence(featurizer, benchmark, [r for r in benchmark if orphans.loc[r, "eligible"]],
                               candidates, model_genes)
by_gene = later_gene_table(rows, evidence, n_boot=p.n_bootstrap, seed=p.seed)
by_gene.insert(1, "default", by_gene["ranking"] == default)
mine = by_gene[by_gene["default"]]
for r in mine.to_dict("records"):
    log.info("%s, later genes %s: %d of %d (%d reactions); hit@1 %.3f, hit@20 %.3f", default,
             r["later_gene_evidence"], r["later_genes"], mine["later_genes"].iloc[0], r["reactions"],
             r["hit@1"], r["hit@20"])
if "homolog" in evidence.columns:
    log.info("later genes with a homolog among the older model's genes the homology block weighs: %s",
             evidence.groupby("later_gene_evidence")["homolog"].agg(["sum", "size"]).to_dict("index"))
rows = later_gene_columns(rows, evidence)
# the evidence each reaction was ranked on (the release history's confidence reads it)
rows["ranked_on"] = rows["reaction"].map(orphans["ranked_on"]).fillna("")
write_tsv_atomic(rows, smk.output.reactions)
# how many older orphans of each kind gained any gene: the unconditional view of the confidence
write_tsv_atomic(orphan_gain_table(orphans, benchmark), smk.output.orphans)
write_tsv_atomic(by_gene.round(4), smk.output.later_genes)
write_tsv_atomic(table.round(4), smk.output.table)
