"""The vision CV script and the two accuracy summaries run on small inputs
made here (what Snakemake would pass them), and their tables are checked by
hand: one copy of the fold logic (models.selection.evaluate_fold) and one
set of column names (report.tables.accuracy_table)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from geomargin.report.tables import sem

SCRIPTS = Path(__file__).resolve().parents[2] / "workflow" / "scripts"


class _Named(list):
    """Snakemake's input/output objects: a list with named entries."""

    def __init__(self, items=(), **named):
        super().__init__(list(items) + [v for v in named.values() if v not in items])
        for k, v in named.items():
            setattr(self, k, v)


def _run(script: str, tmp_path: Path, **smk) -> None:
    smk = {"wildcards": SimpleNamespace(), "params": SimpleNamespace(), **smk}
    fake = SimpleNamespace(rule=script, threads=1, log=[str(tmp_path / f"{script}.log")], **smk)
    saved = sys.stderr, sys.excepthook, list(sys.path)
    sys.path.insert(0, str(SCRIPTS))
    try:
        runpy.run_path(str(SCRIPTS / f"{script}.py"), init_globals={"snakemake": fake},
                       run_name="__main__")
    finally:
        log = sys.stderr
        sys.stderr, sys.excepthook, sys.path[:] = saved
        if log is not saved[0]:
            log.close()


def _fold_files(tmp_path: Path, n_folds: int = 2):
    rng = np.random.default_rng(0)
    n, d = 120, 6
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random((n, d)) < 0.3] = np.nan
    X[:, 5] = np.nan
    X[3, 5] = 1.0  # present in one training crop only: below 1 / 20 of 60
    paths = []
    for k in range(n_folds):
        te = np.arange(k, n, n_folds)
        tr = np.setdiff1d(np.arange(n), te)
        p = tmp_path / f"fold{k}.npz"
        np.savez(p, X_train=X[tr], y_train=y[tr], X_test=X[te], y_test=y[te], train_index=tr,
                 test_index=te, groups=np.arange(d), counts_test=np.zeros((len(te), 1), int))
        paths.append(str(p))
    return paths, X, y


@pytest.mark.parametrize("method", ["zero", "geometric"])
def test_vision_cv_and_accuracy_table(tmp_path, method):
    paths, X, y = _fold_files(tmp_path)
    folds_tsv, scores_tsv = tmp_path / f"{method}.tsv", tmp_path / f"{method}_scores.tsv"
    _run("vision_cv", tmp_path, input=_Named(paths),
         output=_Named(folds=str(folds_tsv), scores=str(scores_tsv)),
         wildcards=SimpleNamespace(method=method),
         params=SimpleNamespace(val_fraction=0.25, min_present_fraction=0.05,
                                grid=[{"C": [0.1, 1.0]}], seed=3))
    f = pd.read_csv(folds_tsv, sep="\t")
    assert list(f["fold"]) == [0, 1]
    assert list(f.columns[:8]) == ["fold", "accuracy", "roc_auc", "fit_seconds", "n_train",
                                   "n_test", "best_params", "select_seconds"]
    # feature 5 (present in one of 60 training crops < ceil(0.05 * 60) = 3) is dropped
    assert (f["n_features_used"] == 5).all() and (f["n_features"] == 6).all()
    s = pd.read_csv(scores_tsv, sep="\t")
    assert sorted(s["index"]) == list(range(len(y)))
    # accuracy of each fold = its share of correct out-of-fold predictions, by hand
    for k in (0, 1):
        sk = s[s["fold"] == k]
        assert f.loc[k, "accuracy"] == pytest.approx(sk["correct"].mean())
        assert ((sk["score"] > 0).astype(int) == sk["label"]).tolist() == sk["correct"].tolist()
    assert f["accuracy"].mean() > 0.65  # chance is about 0.5

    table = tmp_path / "detection_accuracy.tsv"
    _run("vision_accuracy", tmp_path, input=_Named([str(folds_tsv)]),
         output=_Named(table=str(table), plot=str(tmp_path / "acc.png")),
         params=SimpleNamespace(methods=[method]))
    t = pd.read_csv(table, sep="\t")
    assert t.loc[0, "n_features"] == 6  # the fold files' layout
    assert t.loc[0, "accuracy_mean"] == pytest.approx(f["accuracy"].mean(), abs=1e-4)
    assert t.loc[0, "accuracy_sem"] == pytest.approx(sem(f["accuracy"]), abs=1e-4)
    assert t.loc[0, "n_instances"] == len(y) and t.loc[0, "n_features_used_mean"] == 5
    for col in ("roc_auc_mean", "roc_auc_sem", "test_error_mean", "fit_seconds_mean", "n_folds"):
        assert col in t.columns


def test_mcar_accuracy_table_by_hand(tmp_path):
    data = tmp_path / "wdbc_mcar50.npz"
    np.savez(data, X=np.zeros((2, 30, 4)), missing_fraction=0.5, observed_fraction=0.5)
    rows = [{"dataset": "wdbc", "scenario": "mcar50", "method": m, "partition": p, "fold": k,
             "accuracy": acc, "roc_auc": 0.9, "fit_seconds": 0.1, "select_seconds": 0.2}
            for m, accs in (("zero", [0.8, 0.9, 0.7, 1.0]), ("geometric", [0.5, 0.6, 0.7, 0.8]))
            for (p, k), acc in zip([(0, 0), (0, 1), (1, 0), (1, 1)], accs)]
    folds = tmp_path / "folds.tsv"
    pd.DataFrame(rows).to_csv(folds, sep="\t", index=False)
    out = tmp_path / "accuracy.tsv"
    _run("mcar_accuracy", tmp_path, input=_Named(data=[str(data)], folds=[str(folds)]),
         output=_Named(table=str(out), plot=str(tmp_path / "acc.png")),
         params=SimpleNamespace(jobs=[("wdbc", "mcar50")], methods=["zero", "geometric"]))
    t = pd.read_csv(out, sep="\t").set_index("method")
    assert t.loc["zero", "accuracy_mean"] == pytest.approx(0.85)
    assert t.loc["geometric", "accuracy_mean"] == pytest.approx(0.65)
    # SEM of [0.8, 0.9, 0.7, 1.0] by hand: sd = sqrt(0.05 / 3), / 2
    assert t.loc["zero", "accuracy_sem"] == pytest.approx(np.sqrt(0.05 / 3) / 2, abs=1e-4)
    assert t.loc["zero", "n_partitions"] == 2 and t.loc["zero", "n_folds"] == 4
    assert t.loc["zero", "n_instances"] == 30 and t.loc["zero", "n_features"] == 4


def test_metabolic_homology_searches_the_model_genes(tmp_path):
    """The rule's script: the model's genes with a sequence are the queries,
    every protein of the table a target; the table holds each query's
    self-score and its homolog, read back by featurize.metabolic.homology."""
    import cobra

    from geomargin.featurize.metabolic.homology import Homology, read_hits

    rng = np.random.default_rng(1)
    aa = list("ACDEFGHIKLMNPQRSTVWY")
    a = "".join(rng.choice(aa, 180))
    near = "".join(c if rng.random() > 0.1 else rng.choice(aa) for c in a)
    other = "".join(rng.choice(aa, 180))
    proteome = tmp_path / "p.tsv"
    proteome.write_text("uniprot\tname\tgene_id\tec_code\tMW\tsequence\n"
                        f"P1\tx\tABC1 YAL001C\t\t1\t{a}\nP2\tx\tYAL002W\t\t1\t{near}\n"
                        f"P3\tx\tYAL003W\t\t1\t{other}\n")
    model = cobra.Model("toy")
    r = cobra.Reaction("r1")
    model.add_reactions([r])
    r.gene_reaction_rule = "YAL001C or YAL009W"   # YAL009W has no sequence
    cobra.io.save_json_model(model, str(tmp_path / "m.json"))
    out = tmp_path / "hits.tsv.gz"
    _run("metabolic_homology", tmp_path, input=_Named(networks=[str(tmp_path / "m.json")], proteome=str(proteome)),
         output=_Named(hits=str(out)), params=SimpleNamespace(max_evalue=1e-5))
    table = read_hits(out)
    assert set(table["query"]) == {"YAL001C"}
    assert set(table["target"]) == {"YAL001C", "YAL002W"}
    share = Homology(table, frozenset()).shares()
    assert share["target"].tolist() == ["YAL002W"] and 0.5 < share["share"].iloc[0] < 1.0
