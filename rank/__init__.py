"""Stage 4 of the metabolic pipeline: rank candidate genes for reactions.

Scores every (reaction, candidate gene) pair with a fitted model of
:mod:`geomargin.models` or a non-learned baseline, corrects per-gene hubs, validates the
ranking on held-out reactions and explains each candidate from its features.
"""
