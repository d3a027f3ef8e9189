"""rank/shown_order.py against brute force: the confidence order of the shown
rows, the validation's (filtered) true-gene ranks in it, and its rank-1 rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from geomargin.rank.shown_order import shown_positions, shown_ranks, shown_tops


def _toy(seed: int, n_reactions: int = 30, top_n: int = 6):
    """Shown rows of random reactions (score ranks 1..top_n, a few true genes,
    coarse confidences so that ties happen) and the validation's true-gene
    ranks (filtered: 1 + the non-true candidates above), some beyond top_n."""
    rng = np.random.default_rng(seed)
    rows, ranks = [], []
    for r in range(n_reactions):
        n_true_in, n_true_out = int(rng.integers(0, 3)), int(rng.integers(0, 2))
        labels = np.zeros(top_n, dtype=int)
        labels[rng.choice(top_n, n_true_in, replace=False)] = 1
        conf = rng.integers(0, 4, size=top_n) / 4.0
        for k in range(top_n):
            rows.append({"fold": r % 3 + 1, "reaction": f"r{r}", "rank": k + 1, "gene": f"g{r}_{k}",
                         "label": labels[k], "reaction_kind": "transport", "confidence": conf[k]})
            if labels[k]:
                ranks.append({"reaction": f"r{r}", "gene": f"g{r}_{k}", "rank": 1 + int((labels[:k] == 0).sum())})
        for j in range(n_true_out):  # a true gene beyond the shown rows
            ranks.append({"reaction": f"r{r}", "gene": f"far{r}_{j}",
                          "rank": top_n - n_true_in + 1 + int(rng.integers(0, 50))})
    return pd.DataFrame(rows), pd.DataFrame(ranks)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_positions_sort_by_confidence_then_score_rank(seed):
    rows, _ = _toy(seed)
    rows = rows.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # row order must not matter
    pos = shown_positions(rows, rows["confidence"].to_numpy())
    for _, b in rows.assign(pos=pos).groupby("reaction"):
        want = sorted(zip(-b["confidence"], b["rank"]))
        got = list(zip(-b.sort_values("pos")["confidence"], b.sort_values("pos")["rank"]))
        assert got == want
        assert sorted(b["pos"]) == list(range(1, len(b) + 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_true_gene_ranks_in_the_shown_order_by_brute_force(seed):
    rows, ranks = _toy(seed)
    pos = shown_positions(rows, rows["confidence"].to_numpy())
    got = shown_ranks(ranks, rows, pos)
    listed = rows.assign(pos=pos)
    for t, g in zip(ranks.itertuples(), got["rank"]):
        b = listed[listed["reaction"] == t.reaction].sort_values("pos")
        if t.gene in set(b["gene"]):
            before = b[b["pos"] < int(b.loc[b["gene"] == t.gene, "pos"].iloc[0])]
            assert g == 1 + int((before["label"] == 0).sum())
        else:
            assert g == t.rank  # beyond the shown rows: unchanged
    # listed in score order, nothing changes
    pd.testing.assert_frame_equal(shown_ranks(ranks, rows, rows["rank"].to_numpy()), ranks)


def test_ranks_of_another_run_are_refused():
    rows, ranks = _toy(0)
    inside = ranks["gene"].isin(rows["gene"])
    bad = ranks.copy()
    bad.loc[inside.idxmax(), "rank"] += 1
    with pytest.raises(ValueError, match="same validation run"):
        shown_ranks(bad, rows, rows["rank"].to_numpy())


def test_tops_are_the_rows_at_position_one():
    rows, _ = _toy(3)
    pos = shown_positions(rows, rows["confidence"].to_numpy())
    tops = shown_tops(rows, pos, "m")
    assert len(tops) == rows["reaction"].nunique() and (tops["method"] == "m").all()
    best = rows.assign(neg=-rows["confidence"]).sort_values(["reaction", "neg", "rank"]).drop_duplicates("reaction")
    merged = tops.merge(best, on="reaction")
    assert (merged["top_gene"] == merged["gene"]).all()
    assert (merged["top_is_true"] == merged["label"].astype(bool)).all()


def test_positions_need_one_confidence_per_row():
    rows, _ = _toy(0)
    with pytest.raises(ValueError, match="confidences for"):
        shown_positions(rows, rows["confidence"].to_numpy()[:-1])
