"""A small synthetic yeast-like input set, generated on the fly for workflow
tests: a metabolic model (cobrapy JSON), an expression table and an SGD-style
GAF file. Genes of neighbouring reactions share an expression programme, so
the pairs carry a learnable signal. Nothing here is real data. The files are
byte-identical whatever ``PYTHONHASHSEED`` is (checked by a test)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def orf(i: int) -> str:
    """A systematic-looking ORF name, unique per ``i`` (e.g. ``YAL001W``)."""
    chrom = "ABCDEFGHIJKLMNOP"[i % 16]
    return f"Y{chrom}{'LR'[i // 16 % 2]}{i + 1:03d}{'WC'[i % 2]}"


def write_toy_inputs(directory: Path, n_pathways: int = 6, pathway_len: int = 6,
                     n_orphans: int = 4, n_conditions: int = 16, seed: int = 0) -> dict:
    """Write ``model.json``, ``expression.tsv`` and ``annotation.gaf`` into
    ``directory``; return their paths and the ids of orphan reactions."""
    import cobra

    rng = np.random.default_rng(seed)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model = cobra.Model("toy")
    gene_i = 0
    genes_of_pathway: dict[int, list[str]] = {}
    orphans = []
    reactions = []
    for p in range(n_pathways):
        mets = [cobra.Metabolite(f"p{p}m{k}_c", name=f"pathway {p} metabolite {k}", compartment="c")
                for k in range(pathway_len + 1)]
        genes_of_pathway[p] = []
        for k in range(pathway_len):
            rxn = cobra.Reaction(f"R_p{p}_{k}", name=f"pathway {p} step {k}", lower_bound=0.0,
                                 upper_bound=1000.0)
            rxn.add_metabolites({mets[k]: -1, mets[k + 1]: 1})
            if p < n_orphans and k == pathway_len // 2:
                orphans.append(rxn.id)
            else:
                n_genes = 1 + (k % 2)
                names = [orf(gene_i + j) for j in range(n_genes)]
                gene_i += n_genes
                genes_of_pathway[p].extend(names)
                rxn.gene_reaction_rule = " or ".join(names)
            reactions.append(rxn)
        # a side branch that forks from the first metabolite
        side = cobra.Reaction(f"R_p{p}_side", name=f"pathway {p} branch", lower_bound=-1000.0,
                              upper_bound=1000.0)
        side.add_metabolites({mets[0]: -1, cobra.Metabolite(f"p{p}x_c", compartment="c",
                                                            name=f"pathway {p} side product"): 1})
        name = orf(gene_i)
        gene_i += 1
        genes_of_pathway[p].append(name)
        side.gene_reaction_rule = name
        reactions.append(side)
    model.add_reactions(reactions)
    # one exchange reaction, which the directed network must drop
    exchange = cobra.Reaction("EX_p0m0_c", name="exchange", lower_bound=-10.0, upper_bound=1000.0)
    exchange.add_metabolites({model.metabolites.get_by_id("p0m0_c"): -1})
    model.add_reactions([exchange])
    # genes that are in no reaction but have data: extra ranking candidates
    extra = [orf(gene_i + j) for j in range(12)]

    programmes = rng.normal(size=(n_pathways, n_conditions))
    rows = []
    for p, genes in genes_of_pathway.items():
        for g in genes:
            rows.append((g, programmes[p] + 0.35 * rng.normal(size=n_conditions)))
    for g in extra:
        rows.append((g, rng.normal(size=n_conditions)))
    expr_path = directory / "expression.tsv"
    with open(expr_path, "w") as fh:
        fh.write("gene\t" + "\t".join(f"c{k}" for k in range(n_conditions)) + "\n")
        for k, (g, values) in enumerate(rows):
            cells = [f"{v:.4f}" for v in values]
            if k % 7 == 3:
                cells[k % n_conditions] = "NA"
            fh.write(g + "\t" + "\t".join(cells) + "\n")

    gaf_path = directory / "annotation.gaf"
    compartments = ["GO:0005739", "GO:0005634", "GO:0005737"]
    with open(gaf_path, "w") as fh:
        fh.write("!gaf-version: 2.2\n")
        all_genes = [g for genes in genes_of_pathway.values() for g in genes] + extra
        for i, g in enumerate(all_genes):
            p = next((p for p, gs in genes_of_pathway.items() if g in gs), n_pathways)
            sgd = f"S{i:09d}"
            std = f"TOY{i}"
            desc = f"Toy protein {i}"
            base = ["SGD", sgd, std, "", "", "", "", "", "", desc, f"{g}|{std}", "protein",
                    "taxon:559292", "20220517", "SGD"]
            loc = base.copy()
            loc[3], loc[4], loc[5], loc[6], loc[8] = "located_in", compartments[p % 3], \
                "PMID:14562095", "IDA", "C"
            fh.write("\t".join(loc) + "\n")
            dom = base.copy()
            dom[3], dom[4], dom[5], dom[6], dom[7], dom[8] = "enables", "GO:0003824", \
                "GO_REF:0000002", "IEA", f"InterPro:IPR{p % 4:06d}", "F"
            fh.write("\t".join(dom) + "\n")
    model_path = directory / "model.json"
    # cobrapy lists a model's genes in the order of frozensets (it depends on
    # PYTHONHASHSEED): write them sorted by id, in cobrapy's own JSON layout,
    # so the file is byte-identical in every interpreter
    obj = cobra.io.model_to_dict(model, sort=False)
    obj["genes"] = sorted(obj["genes"], key=lambda g: g["id"])
    with open(model_path, "w") as fh:
        json.dump(obj, fh, indent=0, separators=(",", ":"), sort_keys=False, allow_nan=False)
    return {"model": model_path, "expression": expr_path, "annotation": gaf_path,
            "orphans": orphans}


def geometric_margin(w, b, X, y) -> float:
    """``min_i y_i (w.x_i + b) / ||w^(i)||`` (Chechik et al. eq. 4), by hand:
    NaN = absent, ``y`` in {0, 1}."""
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    ys = np.where(np.asarray(y) == 1, 1.0, -1.0)
    return float(np.min(ys * (X0 @ w + b) / np.sqrt(M @ (w * w))))


def noisy_linear(n: int, d: int = 4, seed: int = 0, frac: float = 0.0, noise: float = 0.5):
    """``(X, Xm, y)``: Gaussian X, labels from ``x_0 + 0.5 x_1`` plus noise,
    and ``Xm`` = X with a ``frac`` share of the values removed at random."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=n) > 0).astype(int)
    Xm = X.copy()
    Xm[rng.random(X.shape) < frac] = np.nan
    return X, Xm, y
