"""Reading the UIUC car images: grey images in [0, 1] and the numbered
training crops (``TrainImages/pos-*.pgm``, ``neg-*.pgm``)."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np

from geomargin.common.exceptions import InputFileError

__all__ = ["CROP_SHAPE", "as_grey_stack", "read_grey_image", "find_train_dir", "load_crops"]

#: (height, width) of the UIUC training crops.
CROP_SHAPE = (40, 100)


def as_grey_stack(images, owner: str) -> np.ndarray:
    """``images`` as a float32 array; a complex array stops with a
    ValueError naming ``owner`` (its imaginary part would be dropped).

    >>> as_grey_stack(np.zeros((1, 2, 2), dtype=np.complex64), "LandmarkModel.fit")
    Traceback (most recent call last):
    ...
    ValueError: LandmarkModel.fit: Complex data not supported; expected real grey values
    """
    images = np.asarray(images)
    if np.iscomplexobj(images):
        raise ValueError(f"{owner}: Complex data not supported; expected real grey values")
    return images.astype(np.float32, copy=False)


def read_grey_image(path: str | Path, shape: tuple[int, int] | None = None) -> np.ndarray:
    """Read a grey image as float32 in [0, 1].

    Parameters
    ----------
    path : path of a PGM/PNG/... file OpenCV can read.
    shape : expected (height, width), or None for any size.

    Raises
    ------
    InputFileError
        Naming the file, when it is missing, unreadable or of the wrong size.
    """
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "image file does not exist",
                             "check the dataset directory (fetch uiuc_cars again)")
    img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise InputFileError(path, "cannot be read as an image (corrupt or not an image)",
                             "re-fetch the dataset; its sha256 is in data/registry.yaml")
    if shape is not None and img.shape != tuple(shape):
        raise InputFileError(
            path, f"image is {img.shape[1]}x{img.shape[0]} (width x height), "
                  f"expected {shape[1]}x{shape[0]}",
            "training crops of the UIUC car data are all 100x40")
    return img.astype(np.float32) / 255.0


def find_train_dir(dataset_dir: str | Path) -> Path:
    """``TrainImages/`` under ``dataset_dir`` (or under ``dataset_dir/CarData``)."""
    dataset_dir = Path(dataset_dir)
    for cand in (dataset_dir / "TrainImages", dataset_dir / "CarData" / "TrainImages"):
        if cand.is_dir():
            return cand
    raise InputFileError(dataset_dir, "has no TrainImages/ folder",
                         "pass the UIUC car dataset directory (the one holding "
                         "TrainImages/, TestImages/ and trueLocations.txt)")


def _numbered(folder: Path, prefix: str) -> list[Path]:
    pat = re.compile(rf"^{prefix}-(\d+)\.pgm$")
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := pat.match(p.name))]
    return [p for _, p in sorted(found)]


def load_crops(dataset_dir: str | Path, return_paths: bool = False):
    """Load the UIUC training crops.

    Parameters
    ----------
    dataset_dir : the dataset directory (holding ``TrainImages/``).
    return_paths : also return the list of file paths.

    Returns
    -------
    images : float32 array (n, 40, 100), intensities in [0, 1]; cars
        (``pos-<k>.pgm``, k ascending) first, then non-cars (``neg-<k>.pgm``).
    labels : int array (n,), 1 = car, 0 = non-car.
    paths : list[Path], only when ``return_paths``.

    Raises
    ------
    InputFileError
        Naming the file, for an unreadable or wrongly sized image, or when no
        crops are found.

    Examples
    --------
    >>> images, labels = load_crops("data/downloads/uiuc_cars")  # doctest: +SKIP
    >>> images.shape, labels.sum()                               # doctest: +SKIP
    ((1050, 40, 100), 550)
    """
    folder = find_train_dir(dataset_dir)
    pos, neg = _numbered(folder, "pos"), _numbered(folder, "neg")
    if not pos or not neg:
        raise InputFileError(folder, f"found {len(pos)} pos-<n>.pgm and {len(neg)} neg-<n>.pgm "
                                     "crops, expected both", "is this the UIUC car data?")
    paths = pos + neg
    images = np.stack([read_grey_image(p, CROP_SHAPE) for p in paths])
    labels = np.r_[np.ones(len(pos), int), np.zeros(len(neg), int)]
    return (images, labels, paths) if return_paths else (images, labels)
