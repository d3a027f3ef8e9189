"""The tabular datasets and removal protocols of the MCAR sanity benchmark."""
