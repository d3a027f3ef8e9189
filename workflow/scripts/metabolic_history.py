"""Learn from the release history (rank/history.py): choose the shown ranking
on the time splits of one scope ("history": the history pairs alone, what the
test is scored with; "all": history and test, today's ranking), fit its
confidence and "no credible candidate" threshold on their real orphans, and
write the model, the choice and the confidence's cells."""

import pandas as pd

from geomargin.common.io import write_tsv_atomic
from geomargin.rank.history import fit_history
from geomargin.rank.history_calibrator import cells_table

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
p = smk.params

reactions = {name: pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""])
             for name, f in zip(p.pairs, smk.input.reactions)}
orphans = {name: pd.read_csv(f, sep="\t") for name, f in zip(p.pairs, smk.input.orphans)}
validation = pd.read_csv(smk.input.validation, sep="\t")
model = fit_history(reactions, orphans, validation, p.candidates, choose_by=p.choose_by,
                    min_reactions=p.min_reactions, prior_strength=p.prior_strength, top_n=p.top_n,
                    stands_out_factor=p.stands_out_factor, stands_out_min_reactions=p.stands_out_min_reactions)
c = model.choice
log.info("%s: learned from %s; the shown ranking is %s, chosen on %s (%s); history hit@1 %.3f, MRR %.3f; "
         "cross-validated MRR %.3f", smk.wildcards.scope, ", ".join(model.pairs), model.ranking, c["chosen_on"],
         c["chosen_by"], c["history_hit@1"], c["history_mrr"], c["cv_mrr"])
at = model.calibrator.stands_out_threshold_
log.info("confidence: %d history benchmark reactions; stands-out key: %s; threshold %.4f (%s); share of ranked "
         "orphans that gained any gene: %s", model.calibrator.n_reactions_,
         "off" if at is None else f"first_score_z >= {at:.4f}", model.threshold, model.threshold_rule,
         {k: round(v, 4) for k, v in model.gain_shares.items()})
model.save(smk.output.model)
# the stands-out threshold only where the history fitted one (the default tables keep their columns)
stands_out = {} if at is None else {"stands_out_threshold": at}
write_tsv_atomic(pd.DataFrame([{**c, "threshold": model.threshold, "threshold_rule": model.threshold_rule,
                                **stands_out, "learned_from": ";".join(model.pairs)}]).round(4), smk.output.choice)
write_tsv_atomic(cells_table(model.calibrator).round(4), smk.output.cells)
