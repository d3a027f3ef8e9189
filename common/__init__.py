"""What every package (``data``, ``featurize``, ``models``) and the workflow
scripts share: error types, atomic file writes and parameter checks."""
