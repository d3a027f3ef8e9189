"""Features of (reaction, candidate gene) pairs: metabolic networks, gene ids,
omics loaders, motifs and the pair features with NaN blocks."""
