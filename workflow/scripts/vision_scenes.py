"""Sliding-window detections of one method's trained model (vision_scene_model)
on the 170 single-scale scenes, or with ``multiscale`` on the 108 scenes of
TestImages_Scale (image pyramid, NMS across scales)."""

import time

import joblib

from common.io import write_tsv_atomic
from models.vision.detection import DecisionScorer, detect_scenes, load_test_scenes

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake

model = joblib.load(smk.input.model)
f, keep, est = model["featurizer"], model["keep"], model["estimator"]
multi = bool(smk.params.multiscale)
scenes, truths, names = load_test_scenes(smk.input.data, scale=multi)
t0 = time.perf_counter()
det = detect_scenes(scenes, f, DecisionScorer(est, keep), stride=smk.params.stride,
                    nms_radius=tuple(smk.params.nms_radius), progress=log.info,
                    pyramid=dict(smk.params.pyramid) if multi else None, n_jobs=smk.threads)
sec = time.perf_counter() - t0
log.info("%s: %d scenes in %.1f s on %d processes (%.2f s/scene)", model["method"], len(scenes), sec,
         smk.threads, sec / len(scenes))
det.insert(1, "name", [names[k] for k in det["scene"]])
write_tsv_atomic(det, smk.output[0])
