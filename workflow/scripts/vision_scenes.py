"""Sliding-window detections of every scene method's trained model
(vision_scene_model) on the 170 single-scale scenes, or with ``multiscale`` on
the 108 scenes of TestImages_Scale (image pyramid, NMS across scales). The
window features of a scene are computed once and scored by every method."""

import time

import joblib

from geomargin.common.io import write_tsv_atomic
from geomargin.detect.evaluation import load_test_scenes
from geomargin.detect.scenes import detect_scenes, load_scorers

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

f = joblib.load(smk.input.featurizer)["featurizer"]
t0 = time.perf_counter()
scorers = load_scorers(smk.params.methods, smk.input.models)
log.info("%d models loaded and prepared in %.1f s", len(scorers), time.perf_counter() - t0)
multi = bool(smk.params.multiscale)
scenes, truths, names = load_test_scenes(smk.input.data, scale=multi)
t0 = time.perf_counter()
det = detect_scenes(scenes, f, scorers, stride=smk.params.stride,
                    nms_radius=tuple(smk.params.nms_radius), progress=log.info,
                    pyramid=dict(smk.params.pyramid) if multi else None, n_jobs=smk.threads)
sec = time.perf_counter() - t0
log.info("%d methods: %d scenes in %.1f s on %d processes (%.2f s/scene)", len(scorers), len(scenes), sec,
         smk.threads, sec / len(scenes))
det.insert(1, "name", [names[k] for k in det["scene"]])
for method, out in zip(smk.params.methods, smk.output):
    write_tsv_atomic(det[det["method"] == method].drop(columns="method"), out)
