# Release history (rank/history.py; config metabolic.release_history): the
# history pairs' time splits (release_splits.smk) choose the shown ranking and
# fit its confidence; the test pair is scored with what the history alone
# chose; today's ranking (enzyme_ranking) uses what history and test together
# chose. The test pair's tables are never an input of the "history" scope.

RELEASE_PLAN = release_plan()


rule metabolic_history:
    input:
        reactions=lambda wc: history_split_files(wc.scope, "reactions"),
        orphans=lambda wc: history_split_files(wc.scope, "orphans"),
        # the fallback of the choice, and its cross-validated figures: for the "history" scope
        # the test's older run's (today's release knows the test's answers), for "all" today's
        validation=lambda wc: history_cv_validation(wc.scope),
    output:
        model=f"{RH_DIR}/{{scope}}/history.pkl",
        choice=f"{RH_DIR}/{{scope}}/choice.tsv",
        cells=f"{RH_DIR}/{{scope}}/confidence_cells.tsv",
    log:
        "logs/metabolic/release_history/{scope}.log",
    benchmark:
        "logs/metabolic/release_history/{scope}.benchmark.tsv"
    wildcard_constraints:
        scope="history|all",
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        pairs=lambda wc: [pair_name(p) for p in RELEASE_PLAN.pairs(wc.scope)],
        candidates=history_candidates(),
        choose_by=MET["release_history"]["choose_by"],
        min_reactions=MET["release_history"]["min_reactions"],
        prior_strength=MET["release_history"]["prior_strength"],
        stands_out_factor=MET["release_history"]["stands_out_factor"],
        stands_out_min_reactions=MET["release_history"]["stands_out_min_reactions"],
        top_n=MET["ranking"]["top_n"],
    script:
        "../scripts/metabolic_history.py"


rule metabolic_history_test:
    input:
        # learned from the history pairs alone
        model=f"{RH_DIR}/history/history.pkl",
        reactions=f"{RH_DIR}/{RELEASE_PLAN.test[0]}/{RELEASE_PLAN.test[1]}/time_split_reactions.tsv",
    output:
        summary=f"{MET_STAGED}/history_test.tsv",
        rankings=f"{MET_STAGED}/history_test_rankings.tsv",
        confidence=f"{MET_STAGED}/history_test_confidence.tsv",
    log:
        "logs/metabolic/release_history/test.log",
    benchmark:
        "logs/metabolic/release_history/test.benchmark.tsv"
    conda:
        "../envs/geomargin.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        test=pair_name(RELEASE_PLAN.test),
        top_n=MET["ranking"]["top_n"],
        n_bootstrap=MET["ranking"]["n_bootstrap"],
        seed=config["seed"],
    script:
        "../scripts/metabolic_history_test.py"
