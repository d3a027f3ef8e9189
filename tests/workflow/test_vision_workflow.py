"""The car-detection and MCAR parts of the real workflow, end to end, on
inputs this test writes (:mod:`toy_vision`): synthetic car crops and scenes
in the UIUC layout, and two small tables. Every vision_* and mcar_* script
runs through its real rule, from a working directory other than the
repository."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from toy_vision import CROP_H, CROP_W, write_toy_cars, write_toy_tables
from workflow_helpers import REPO, console, run_snakemake, toy_config

pytestmark = pytest.mark.slow

TARGETS = (
    "results/detection_accuracy.tsv",
    "results/vision/scene_detection.tsv",
    "results/vision/scene_detection_scale.tsv",
    "results/vision/candidates_easy.png",
    "results/vision/candidates_hard.png",
    "results/vision/candidate_counts.tsv",
    "results/mcar/accuracy.tsv",
)
N_SPLITS = 2
N_LANDMARKS, MAX_CANDIDATES = 3, 2
METHODS = ["geometric", "zero"]
# (dataset, scenario) of the MCAR part and the share of each row it removes
MCAR_JOBS = {("wdbc", "mcar50"): 0.5, ("digits56", "patch25"): 0.25}
N_PARTITIONS = 2


def vision_config(base: dict, cars) -> dict:
    vision = copy.deepcopy(base["vision"])
    vision.update({
        "data": f"file:{cars}",
        "n_landmarks": N_LANDMARKS, "patch_size": 15, "min_distance": 9.0,
        "max_candidates": MAX_CANDIDATES, "detector": "ncc", "threshold": 0.3,
        "search_radius": 4, "n_pca": 2, "n_splits": N_SPLITS, "val_fraction": 0.25,
        "methods": METHODS, "scene_methods": METHODS,
        "param_grids": {"geometric": [{"kernel": ["linear"], "C": [0.1, 1.0], "n_iter": [2]}],
                        "zero": [{"kernel": ["linear"], "C": [1.0]}]},
    })
    return vision


def mcar_config(base: dict, tables: dict) -> dict:
    mcar = copy.deepcopy(base["mcar"])
    datasets: dict[str, list[str]] = {}
    for ds, sc in MCAR_JOBS:
        datasets.setdefault(ds, []).append(sc)
    mcar.update({
        "datasets": datasets,
        "inputs": {"wdbc": f"file:{tables['wdbc']}", "digits56": f"file:{tables['digits']}"},
        "n_partitions": N_PARTITIONS, "n_splits": 2, "val_fraction": 0.25, "methods": METHODS,
        "param_grids": {"geometric": [{"kernel": ["linear"], "C": [1.0], "n_iter": [2]}],
                        "zero": [{"kernel": ["linear"], "C": [1.0]}]},
    })
    return mcar


@pytest.fixture(scope="module")
def vision_run(tmp_path_factory, toy_inputs):
    tmp = tmp_path_factory.mktemp("vision_workflow")
    cars = write_toy_cars(tmp / "inputs" / "uiuc_cars")
    tables = write_toy_tables(tmp / "inputs" / "tabular")
    config = toy_config(toy_inputs, tmp)
    config["vision"] = vision_config(config, tmp / "inputs" / "uiuc_cars")
    config["mcar"] = mcar_config(config, tables)
    work = tmp / "work"
    work.mkdir()
    proc = run_snakemake(work, config, *TARGETS, timeout=1500)
    assert proc.returncode == 0, console(proc)[-6000:]
    return work, cars, tables, config


def test_the_run_starts_outside_the_repository(vision_run):
    work, *_ = vision_run
    assert not work.resolve().is_relative_to(REPO)
    for target in TARGETS:
        assert (work / target).stat().st_size > 0, target


def test_cross_validation_covers_every_crop_once(vision_run):
    work, cars, _, _ = vision_run
    n = cars["n_pos"] + cars["n_neg"]
    for method in METHODS:
        folds = pd.read_csv(work / f"results/vision/cv/{method}.tsv", sep="\t")
        assert list(folds["fold"]) == list(range(N_SPLITS))
        assert folds["n_test"].sum() == n
        assert ((folds["accuracy"] >= 0) & (folds["accuracy"] <= 1)).all()
        scores = pd.read_csv(work / f"results/vision/cv/{method}_scores.tsv", sep="\t")
        assert sorted(scores["index"]) == list(range(n))
    # the synthetic cars are obvious: a featurization that lost them would be near 0.5
    table = pd.read_csv(work / "results/detection_accuracy.tsv", sep="\t")
    assert sorted(table["method"]) == sorted(METHODS)
    assert (table["accuracy_mean"] >= 0.9).all(), table
    assert (table["roc_auc_mean"] <= 1).all()


def test_candidate_counts_describe_every_test_crop(vision_run):
    work, cars, _, _ = vision_run
    t = pd.read_csv(work / "results/vision/candidate_counts.tsv", sep="\t")
    assert list(t["candidates"]) == list(range(MAX_CANDIDATES + 1))
    # every crop is a test crop once; one count per (crop, landmark)
    assert t["cars"].sum() == cars["n_pos"] * N_LANDMARKS
    assert t["non_cars"].sum() == cars["n_neg"] * N_LANDMARKS
    assert np.isclose(t["cars_fraction"].sum(), 1) and np.isclose(t["non_cars_fraction"].sum(), 1)
    # the landmarks are car parts: cars get more candidates than textured noise
    def mean(col):
        return float((t["candidates"] * t[col]).sum() / t[col].sum())

    assert mean("cars") > mean("non_cars")


def _inside(det_row, truth, tolerance=0.25) -> bool:
    """The dataset README's criterion, computed here from the planted car."""
    if len(truth) == 2:
        (r0, c0), w0, h0 = truth, CROP_W, CROP_H
        return ((det_row["row"] - r0) / (tolerance * h0)) ** 2 \
            + ((det_row["col"] - c0) / (tolerance * w0)) ** 2 <= 1
    r0, c0, w0 = truth
    return ((det_row["row"] - r0) / (tolerance * 0.4 * w0)) ** 2 \
        + ((det_row["col"] - c0) / (tolerance * w0)) ** 2 \
        + ((det_row["width"] - w0) / (tolerance * w0)) ** 2 <= 1


@pytest.mark.parametrize("scale", [False, True], ids=["single_scale", "multi_scale"])
def test_the_planted_car_is_each_scenes_best_detection(vision_run, scale):
    work, cars, _, _ = vision_run
    truth = cars["truth_scale" if scale else "truth"]
    folder = "scenes_scale" if scale else "scenes"
    for method in METHODS:
        det = pd.read_csv(work / f"results/vision/{folder}/{method}_detections.tsv", sep="\t")
        assert set(det["scene"]) == set(truth)
        for k, planted in truth.items():
            best = det[det["scene"] == k].sort_values("score", ascending=False).iloc[0]
            assert best["name"] == f"test-{k}.pgm"
            assert _inside(best, planted), (method, k, best.to_dict(), planted)
        report = pd.read_csv(work / f"results/vision/scene_detection{'_scale' if scale else ''}.tsv",
                             sep="\t")
        rows = report[report["method"] == method]
        assert len(rows) > 0
        assert rows["precision"].between(0, 1).all() and rows["recall"].between(0, 1).all()
        # one car per scene, found first everywhere, with a wide score margin
        assert rows["recall_at_eer"].iloc[0] == 1.0
        assert rows["average_precision"].iloc[0] == pytest.approx(1.0)


def test_figures_are_png_images(vision_run):
    from matplotlib.image import imread

    work, *_ = vision_run
    for name in ("candidates_easy.png", "candidates_hard.png", "scene_detection.png",
                 "scene_detection_scale.png"):
        path = work / "results/vision" / name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        img = imread(path)
        if name.startswith("candidates"):
            # vision_candidates_figure.py: figsize (8, 4.2) inches at 130 dpi, not cropped
            assert img.shape[:2] == (546, 1040)
        else:
            # report.figures.plot_precision_recall: two panels of a (11, 4.8)-inch figure at
            # 120 dpi, cropped to its content with the legend on the right
            assert 0.8 * 576 <= img.shape[0] <= 1.2 * 576 and img.shape[1] > 1.5 * img.shape[0]
        # drawn, not blank: many distinct colours (curves, text, an image of a crop)
        colours = np.unique(img.reshape(-1, img.shape[2]), axis=0)
        assert len(colours) > 50, (name, len(colours))


def test_mcar_removes_exactly_the_scenario_share(vision_run):
    work, _, tables, _ = vision_run
    for (ds, sc), fraction in MCAR_JOBS.items():
        d = np.load(work / f"results/mcar/data/{ds}_{sc}.npz")
        X = d["X"]
        n = tables["n_wdbc"] if ds == "wdbc" else tables["n_digits56"]
        n_features = tables["d_wdbc"] if ds == "wdbc" else 64
        assert X.shape == (N_PARTITIONS, n, n_features)
        # every row loses round(fraction * d) features (mcar) or a square
        # patch of fraction * 64 pixels (patch); the source tables are complete
        assert (np.isnan(X).sum(axis=2) == round(fraction * n_features)).all()
        assert not np.array_equal(np.isnan(X[0]), np.isnan(X[1]))  # partitions redraw
        assert list(d["seeds"]) == [0, 1]
    table = pd.read_csv(work / "results/mcar/accuracy.tsv", sep="\t")
    assert len(table) == len(MCAR_JOBS) * len(METHODS)
    for (ds, sc), fraction in MCAR_JOBS.items():
        rows = table[(table["dataset"] == ds) & (table["scenario"] == sc)]
        assert sorted(rows["method"]) == sorted(METHODS)
        assert (rows["observed_fraction"] == 1 - fraction).all()
        assert (rows["n_partitions"] == N_PARTITIONS).all()
        assert rows["accuracy_mean"].between(0.7, 1).all(), rows   # separable toy classes
    assert (work / "results/mcar/accuracy.png").read_bytes()[:4] == b"\x89PNG"

