"""Dense HOG against scikit-image's own hog on every patch (independent method)."""

from __future__ import annotations

import numpy as np
import pytest
from skimage.feature import hog

from geomargin.featurize.vision.hog import dense_hog, hog_length


@pytest.mark.parametrize("patch,cell,orient", [(21, 7, 9), (16, 8, 6), (12, 4, 4)])
def test_dense_hog_equals_skimage_on_every_patch(patch, cell, orient):
    rng = np.random.default_rng(patch)
    # 8-bit-like intensities (as the UIUC crops) plus flat and saturated areas,
    # so that zero gradients and exact 0/90 degree orientations occur
    img = rng.integers(0, 256, (patch + 9, patch + 13)) / 255.0
    img[:5, :7] = 0.5
    img[-4:, 3:9] = 1.0
    D = dense_hog(img, patch, cell, orient)
    assert D.shape == (10, 14, hog_length(patch, cell, orient))
    for r in range(D.shape[0]):
        for c in range(D.shape[1]):
            ref = hog(img[r:r + patch, c:c + patch], orient, (cell, cell), (2, 2), "L2-Hys")
            np.testing.assert_allclose(D[r, c], ref, atol=1e-6, err_msg=f"patch at {(r, c)}")


def test_dense_hog_depends_only_on_the_patch():
    """A patch's descriptor is the same wherever the patch sits (as in
    skimage: the gradient is taken inside the patch)."""
    rng = np.random.default_rng(3)
    patch = rng.random((21, 21))
    a = np.zeros((40, 60))
    a[5:26, 30:51] = patch
    b = rng.random((30, 30))
    b[9:30, 0:21] = patch
    np.testing.assert_allclose(dense_hog(a)[5, 30], dense_hog(b)[9, 0], atol=1e-12)


def test_dense_hog_bad_input():
    with pytest.raises(ValueError, match="multiple .* of cell_size"):
        dense_hog(np.zeros((30, 30)), 21, 8)
    with pytest.raises(ValueError, match="at least 21x21"):
        dense_hog(np.zeros((20, 30)))
