"""Ranking candidate genes for reactions: scores, metrics and baselines,
evidence, and the candidate browser."""
