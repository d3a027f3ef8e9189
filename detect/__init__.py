"""Stage 4 of the vision pipeline: detect cars in whole scenes.

Slides the crop classifiers of :mod:`geomargin.models` over each scene (one scale or an
image pyramid), suppresses overlapping windows, mines hard negatives, and
scores the detections against the labelled car locations.
"""
