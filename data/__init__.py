"""The data registry (``registry.yaml``) and the fetch step (:mod:`geomargin.data.fetch`).

Downloaded files go under ``data/downloads/`` (ignored by git) unless another
folder is configured.
"""
