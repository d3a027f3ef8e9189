"""How often the landmark candidates hit their limits on the training crops.

    python analysis/candidate_reach.py FEATURIZER.joblib [--data DIR]

FEATURIZER is the scene featurizer of the ``vision_scene_featurizer`` rule
(``results/vision/scenes/featurizer.joblib``). For the 1050 training crops
(cars and non-cars apart) the table gives the mean number of filled slots
per (crop, landmark), the fraction of (crop, landmark) pairs whose slots are
all filled (``max_candidates`` binds: more slots could add candidates), and
the fraction whose best candidate lies on the edge of its search window,
either the ``search_radius`` edge (a larger radius could move it) or the edge
where the window is clipped to keep the patch inside the 100x40 crop (a
larger radius cannot). These say where more candidates per landmark or a
larger search radius could change the features at all.
"""

from __future__ import annotations

from pathlib import Path

import joblib
import numpy as np

from geomargin.featurize.vision.candidates import _search_regions
from geomargin.featurize.vision.images import load_crops
from geomargin.common.cli import uiuc_parser


def main() -> None:
    ap = uiuc_parser(__doc__)
    ap.add_argument("featurizer", type=Path)
    args = ap.parse_args()

    f = joblib.load(args.featurizer)["featurizer"]
    X, y = load_crops(args.data)
    centres, _, _ = f.candidates(X)                      # (n, L, K, 2), oriented crop frame
    n, L, K, _ = centres.shape
    p, r = f.patch_size, int(f.search_radius)
    h = p // 2
    pos = np.asarray(f.landmarks_.positions_, int)
    reg = _search_regions(pos, r, p, X.shape[1:]) + np.array([h, h - 1, h, h - 1])  # centre limits, inclusive
    lo, hi = reg[:, [0, 2]], reg[:, [1, 3]]              # (L, 2) min and max centre (row, col)
    radius_lo, radius_hi = pos - r, pos + r

    filled = (centres[..., 0] >= 0).sum(-1)              # (n, L)
    best = centres[:, :, 0]                               # (n, L, 2)
    has = best[..., 0] >= 0
    at_lo, at_hi = best == lo[None], best == hi[None]
    radius_edge = (at_lo & (lo == radius_lo)[None]) | (at_hi & (hi == radius_hi)[None])
    clipped_edge = (at_lo & (lo != radius_lo)[None]) | (at_hi & (hi != radius_hi)[None])
    print(f"search_radius {r}, max_candidates {K}, {L} landmarks, patch {p}")
    print("| crops | n | mean slots filled | all slots filled | best on radius edge | best on clipped edge |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, m in (("cars", y == 1), ("non-cars", y == 0)):
        hm = has[m]
        print(f"| {name} | {m.sum()} | {filled[m].mean():.2f} | {(filled[m] == K).mean():.3f} | "
              f"{radius_edge[m].any(-1)[hm].mean():.3f} | {clipped_edge[m].any(-1)[hm].mean():.3f} |")


if __name__ == "__main__":
    main()
