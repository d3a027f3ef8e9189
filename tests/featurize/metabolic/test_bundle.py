"""featurize.metabolic.bundle: the features step's FeatureBundle, saved and loaded."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from geomargin.common.exceptions import InputFileError
from geomargin.featurize.metabolic.bundle import FeatureBundle, items_by_gene
from geomargin.featurize.metabolic.pairs import PairFeaturizer

from toy_pairs import toy


def test_save_load_round_trip(tmp_path):
    net, motifs, sources = toy()
    f = PairFeaturizer(net, motifs, sources)
    bundle = FeatureBundle(featurizer=f, network=net, candidates=["G1", "G5"],
                           gene_names={"G1": "ONE"}, gene_descriptions={"G1": "the first"},
                           gene_domains=items_by_gene(sources["domain"]),
                           gene_compartments=items_by_gene(sources["loc"]), dataset="toy")
    path = tmp_path / "featurizer.pkl"
    bundle.save(path)
    back = FeatureBundle.load(path)
    assert isinstance(back, FeatureBundle)
    assert back.candidates == ["G1", "G5"] and back.dataset == "toy"
    assert back.gene_names == {"G1": "ONE"} and back.gene_descriptions == {"G1": "the first"}
    assert back.gene_domains["G3"] == ("D2", "D3") and back.gene_compartments["G2"] == ("nucleus", "cytoplasm")
    pd.testing.assert_frame_equal(back.network.reactions, net.reactions)
    np.testing.assert_array_equal(back.featurizer.transform(["R1", "R2"], ["G5", "G1"]),
                                  f.transform(["R1", "R2"], ["G5", "G1"]))
    assert not list(tmp_path.glob("*.tmp*"))  # written atomically, nothing left behind


def test_load_an_old_dict_names_the_file_and_the_fix(tmp_path):
    path = tmp_path / "featurizer.pkl"
    with open(path, "wb") as fh:
        pickle.dump({"featurizer": None, "candidates": []}, fh)
    with pytest.raises(InputFileError, match=rf"^{path}: holds a dict, not a FeatureBundle .*rerun the "
                                             r"features step"):
        FeatureBundle.load(path)


def test_items_by_gene_uses_canonical_ids():
    table = pd.DataFrame({"IPR1": [1, 0, 0], "IPR2": [1, 1, 0]}, index=["yal001c", "YER060W_A", "B"])
    assert items_by_gene(table) == {"YAL001C": ("IPR1", "IPR2"), "YER060W-A": ("IPR2",)}
