"""Build the (reaction, gene) instance matrix with NaN for absent blocks."""

import logging
import sys

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from geomargin.common.io import save_npz_atomic, write_tsv_atomic
from geomargin.data.provenance import check_unchanged_since_read, input_roles, read_record
from geomargin.featurize.metabolic.annotation import parse_gaf
from geomargin.featurize.metabolic.bundle import FeatureBundle, items_by_gene
from geomargin.featurize.metabolic.compounds import compound_vectors
from geomargin.featurize.metabolic.expression import load_expression
from geomargin.featurize.metabolic.expression import usable_profiles
from geomargin.featurize.metabolic.genes import check_coverage, check_source_signal, log_notes
from geomargin.featurize.metabolic.homology import Homology, read_hits
from geomargin.featurize.metabolic.localization import load_yeastgfp
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.motifs import find_motifs
from geomargin.featurize.metabolic.network import build_directed_network
from geomargin.featurize.metabolic.pairs import PairFeaturizer, build_instances, candidate_pools, fold_groups
from geomargin.featurize.metabolic.pairs.switches import block_switches
from geomargin.featurize.metabolic.proteome import load_proteome

from _bootstrap import setup

log = setup(snakemake)
smk = snakemake
# one BLAS/OpenMP thread throughout, whatever the rule's threads (they go to the
# transform's processes): a multithreaded reduction can change the last bits
threadpool_limits(1)

p = smk.params
# the content read, taken before reading: the provenance publishes these checksums
read = read_record(input_roles(smk.input))
notes = []  # gene ids changed to their canonical form or not understood (file, line)
model = load_model(smk.input.network, notes=notes)
log.info("model %s: %d reactions, %d genes", smk.input.network, len(model.reactions), len(model.genes))
net = build_directed_network(model, n_currency=p.n_currency, extra_currency=tuple(p.extra_currency))
motifs = find_motifs(net)
log.info("directed reactions: %d (with genes %d); currency: %s", len(net.reactions),
         sum(bool(g) for g in net.reactions["genes"]), ", ".join(net.currency))

expression = load_expression(list(smk.input.expression), duplicates=p.duplicate_genes, notes=notes)
annotation = parse_gaf(smk.input.annotation, notes=notes)
if p.localization == "gaf":
    localization = annotation.localization
else:
    localization = load_yeastgfp(smk.input.localization, duplicates=p.duplicate_genes, notes=notes)
check_unchanged_since_read(read, "the features step")
if notes:
    # every id changed or left out, with file and line: in the log only (stderr is the log)
    notes_log = logging.getLogger("geomargin.gene_ids")
    notes_log.propagate = False
    notes_log.addHandler(logging.StreamHandler(sys.stderr))
    log_notes(notes, notes_log)
    log.warning("gene ids: %d changed to their canonical form or not understood (listed in %s)",
                len(notes), smk.log[0])
sources = {"expr": expression, "domain": annotation.domains, "loc": localization}
network_genes = sorted({g for gs in net.reactions["genes"] for g in gs})
# every configured source (and every expression file) must match enough of the
# network's genes; a source that matches (almost) nothing is a wrong input
# an expression profile is data only with min_conditions measured values and some variation
checks = [(f"expr:{key}", usable_profiles(expression[[c for c in expression.columns if c.startswith(f"{key}_")]],
                                          p.min_conditions, source=f"expr:{key} ({path})"), path,
           f"no profile has {p.min_conditions} or more measured conditions with some variation "
           "(config key metabolic.min_conditions)")
          for key, path in expression.attrs["files"].items()]
checks += [("domain", annotation.domains, smk.input.annotation,
            "the file has no row with evidence IEA and an InterPro id in its with/from column (column 8)"),
           ("loc", localization, smk.input.annotation if p.localization == "gaf" else smk.input.localization,
            "the file has no cellular-component (aspect C) row citing Huh et al. 2003 (PMID:14562095)"
            if p.localization == "gaf" else "the table has no localization")]
for name, table, where, empty in checks:
    left_out = [n.raw for n in notes if n.source == str(where) and n.raw and n.problem]
    matched, total = check_coverage(name, table, network_genes, p.min_source_coverage, where=str(where),
                                    source_ids=left_out, empty=empty)
    log.info("source %s: %d/%d network genes with data", name, matched, total)
for name, table in sources.items():
    log.info("source %s: %d genes x %d features", name, *table.shape)

homology = None
if p.homology_features:
    proteome = load_proteome(smk.input.proteome)
    homology = Homology(read_hits(smk.input.homology), frozenset(proteome.sequences))
    log.info("homology: %d ORFs with a sequence (%s), %d search rows (%s)", len(proteome.sequences),
             smk.input.proteome, len(homology.hits), smk.input.homology)
on = block_switches(adjacency=p.adjacency, kind_features=p.kind_features, subsystem_features=p.subsystem_features,
                    compound_features=p.compound_features, domain_kind_features=p.domain_kind_features,
                    site_features=p.site_features, membrane_features=p.membrane_features)
featurizer = PairFeaturizer(net, motifs, sources, min_domain_genes=p.min_domain_genes,
                            adjacency=p.adjacency, source_features=p.source_features,
                            reaction_kinds=on["reaction_kinds"], subsystems=on["subsystems"],
                            compounds=on["compounds"], domain_kinds=on["domain_kinds"], sites=on["sites"],
                            membrane_genes=annotation.membrane if on["membrane"] else None,
                            homology=homology,
                            # a reaction's features never read its near-copies' gene rules: the
                            # validation holds them out together (docs/metabolic.md, "Folds")
                            fold_groups=fold_groups(net))
if featurizer.compounds:
    log.info("compound blocks: %s (%d of the network's compounds have a usable formula)",
             ", ".join(featurizer.compound_kinds_) or "none: no reaction with a gene has a compound "
             "with a usable formula", len(compound_vectors(net.formulas)))
elif p.compound_features:
    log.info("compound blocks: none (compound_features needs adjacency_features and kind_features)")
if featurizer.domain_kinds:
    log.info("domain_kind blocks: %s", ", ".join(featurizer.domain_kinds_) or "none")
elif p.domain_kind_features:
    log.info("domain_kind blocks: none (domain_kind_features needs adjacency_features and kind_features)")
log.info("site block: %s", "yes" if featurizer.site_block_ else "off (site_features: false)")
if featurizer.membrane_genes is not None:
    log.info("membrane blocks: %s (%d genes with an InterPro2GO membrane term)",
             ", ".join(featurizer.membrane_kinds_) or "none", len(annotation.membrane))
elif p.membrane_features:
    log.info("membrane blocks: none (membrane_features needs adjacency_features and kind_features)")
if featurizer.homology_block_:
    log.info("homology block: on (%d network genes have a self-score)",
             len(set(homology.self_bits()) & set(network_genes)))
candidates, pool, mix = candidate_pools(p.candidates, p.impostor_pool, p.impostor_mix,
                                        sorted(g.id for g in model.genes), sources)
log.info("candidate genes for ranking: %d (%s)", len(candidates), p.candidates)
log.info("impostor genes: %d per positive, drawn from the %s (%d genes; %.0f%% from the %d "
         "candidates instead)", p.negatives_per_positive, p.impostor_pool, len(pool), 100 * mix,
         len(candidates))
instances = build_instances(net, pool, p.negatives_per_positive, p.seed, mix_genes=candidates,
                            mix_fraction=mix)
# the reactions' rows in smk.threads forked processes
X = featurizer.transform(instances["reaction"].tolist(), instances["gene"].tolist(), n_jobs=smk.threads)
# a source whose every feature takes one value over the pairs carries no signal: stop
check_source_signal(X, featurizer.feature_names_, {
    "expr": ", ".join(map(str, expression.attrs["files"].values())), "domain": str(smk.input.annotation),
    "loc": str(smk.input.annotation if p.localization == "gaf" else smk.input.localization)})
# Unit spread per feature over the instance pairs (label-free, no centring);
# the featurizer applies the same scale to every candidate it builds later
# (both rounded to float32 values: the same features on any CPU).
featurizer.fit_feature_scale(X)
X = featurizer.scaled(X)
y = instances["label"].to_numpy()
log.info("instances: %d (%d positive), features: %d, absent: %.1f%%",
         len(y), int(y.sum()), X.shape[1], 100 * np.isnan(X).mean())

save_npz_atomic(
    smk.output.features,
    X=X,
    y=y,
    groups=np.asarray(featurizer.groups_),
    feature_names=np.asarray(featurizer.feature_names_),
    instance_group=np.asarray(instances["instance_group"].astype(str).tolist(), dtype=str),
    fold_group=np.asarray(instances["fold_group"].astype(str).tolist(), dtype=str),
)
write_tsv_atomic(instances, smk.output.instances)
FeatureBundle(
    featurizer=featurizer,
    network=net,
    candidates=candidates,
    gene_names=annotation.names,
    gene_descriptions=annotation.descriptions,
    # evidence of the ranking: InterPro domains and compartments per gene
    gene_domains=items_by_gene(annotation.domains),
    gene_compartments=items_by_gene(localization),
    dataset=p.dataset,
).save(smk.output.featurizer)
summary = pd.DataFrame(
    [
        ("dataset", p.dataset),
        ("model_reactions", len(model.reactions)),
        ("model_genes", len(model.genes)),
        ("directed_reactions", len(net.reactions)),
        ("directed_reactions_with_genes", int(sum(bool(g) for g in net.reactions["genes"]))),
        ("orphan_directed_reactions", int(sum(not g for g in net.reactions["genes"]))),
        ("currency_metabolites", ";".join(net.currency)),
        ("instances", len(y)),
        ("positives", int(y.sum())),
        ("features", X.shape[1]),
        ("absent_fraction", round(float(np.isnan(X).mean()), 4)),
        ("candidate_genes", len(candidates)),
    ]
    + [(f"motif_pairs_{t}", sum(len(v) for v in m.values())) for t, m in motifs.items()],
    columns=["quantity", "value"],
)
write_tsv_atomic(summary, smk.output.summary)
write_tsv_atomic(read, smk.output.inputs_read)
