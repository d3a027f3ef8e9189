"""rank.quality_fields: the quality-table fields of the final ranking."""

import math

import numpy as np
import pandas as pd

from geomargin.rank.quality_fields import chosen_by, thin_support_fields, without_network_evidence_fields


class History:
    choice = {"chosen_on": "history 8.3.0 -> 8.4.0", "chosen_by": "MRR"}


class Cells:
    """A calibrator stand-in: every pattern's validated share is 0.3."""

    def cell_values(self, rows, column):
        assert column == "share"
        return np.full(len(rows), 0.3)


def test_chosen_by():
    assert chosen_by("auto", History) == "auto, on history 8.3.0 -> 8.4.0: MRR"
    assert chosen_by("hgb", History) == "config, on history 8.3.0 -> 8.4.0: MRR"


def test_thin_support_without_a_calibrator_is_unknown():
    top = pd.DataFrame({"rank": [1, 1], "held_out_like": [np.nan, np.nan], "confidence": [np.nan, np.nan]})
    out = thin_support_fields(top, False)
    assert math.isnan(out["orphan_top1_thin_support"]) and math.isnan(out["orphan_top1_thin_support_confidence"])


def _flags(adjacent):
    return {"adjacent": adjacent, "subsystem": [0] * len(adjacent), "compounds": [0] * len(adjacent)}


def test_without_network_evidence_fields():
    # orphans x (first row without network evidence, 0.5 > 0.3), y (first row without network evidence, 0.2), z (first row with evidence)
    top = pd.DataFrame({"reaction": ["x", "x", "y", "z"], "rank": [1, 2, 1, 1], "confidence": [0.5, 0.1, 0.2, 0.9]})
    shown = pd.DataFrame(_flags([0, 0, 0, 1]))
    # held-out a (first without network evidence, right) and b (first without network evidence, wrong), one fold group each
    cv = pd.DataFrame({"reaction": ["a", "b"], "label": [1, 0], **_flags([0, 0])})
    out = without_network_evidence_fields(top, shown, cv, np.array([True, True]), {"a": "a", "b": "b"}, Cells())
    assert out == {"orphan_top1_without_network_evidence": 2,
                   "orphan_top1_without_network_evidence_max_confidence": 0.5,
                   "validated_top1_without_network_evidence": 2,
                   "validated_top1_without_network_evidence_true_share": 0.5,
                   "orphan_top1_without_network_evidence_above_validated": 1}
    none = without_network_evidence_fields(top, shown, cv, np.array([True, True]), {"a": "a", "b": "b"}, None)
    assert math.isnan(none["orphan_top1_without_network_evidence_above_validated"])
    assert math.isnan(none["validated_top1_without_network_evidence_true_share"])
