"""Tests of featurize.vision.images: reading the UIUC training crops in
numeric order, and the input errors that name the offending file."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.vision.images import load_crops


def write_pgm(path, img):
    assert cv2.imwrite(str(path), img)


def make_dataset(tmp_path, n_pos=2, n_neg=2):
    d = tmp_path / "TrainImages"
    d.mkdir()
    rng = np.random.default_rng(0)
    for k in range(n_pos):
        write_pgm(d / f"pos-{k}.pgm", rng.integers(0, 255, (40, 100), dtype=np.uint8))
    for k in range(n_neg):
        write_pgm(d / f"neg-{k}.pgm", rng.integers(0, 255, (40, 100), dtype=np.uint8))
    return d


def test_load_crops_reads_in_numeric_order(tmp_path):
    d = tmp_path / "TrainImages"
    d.mkdir()
    for k in (0, 2, 10):
        write_pgm(d / f"pos-{k}.pgm", np.full((40, 100), 10 * k, np.uint8))
    write_pgm(d / "neg-0.pgm", np.full((40, 100), 255, np.uint8))
    X, y, paths = load_crops(tmp_path, return_paths=True)
    assert X.shape == (4, 40, 100) and X.dtype == np.float32
    assert y.tolist() == [1, 1, 1, 0]
    assert [p.name for p in paths] == ["pos-0.pgm", "pos-2.pgm", "pos-10.pgm", "neg-0.pgm"]
    np.testing.assert_allclose(X[:, 0, 0], [0, 20 / 255, 100 / 255, 1.0], rtol=1e-6)


def test_wrongly_sized_image_names_file(tmp_path):
    d = make_dataset(tmp_path)
    write_pgm(d / "neg-1.pgm", np.zeros((40, 99), np.uint8))
    with pytest.raises(InputFileError, match=r"neg-1\.pgm.*99x40.*expected 100x40"):
        load_crops(tmp_path)


def test_unreadable_image_names_file(tmp_path):
    d = make_dataset(tmp_path)
    (d / "pos-1.pgm").write_bytes(b"this is not an image")
    with pytest.raises(InputFileError, match=r"pos-1\.pgm.*cannot be read"):
        load_crops(tmp_path)


def test_missing_train_dir_is_clear(tmp_path):
    with pytest.raises(InputFileError, match="TrainImages"):
        load_crops(tmp_path)

