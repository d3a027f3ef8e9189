"""Pure functions and small classes that turn metabolic networks, omics data
and images into feature matrices with NaN for structurally absent features.

Nothing here reads Snakemake's config: every parameter is an argument.
"""
