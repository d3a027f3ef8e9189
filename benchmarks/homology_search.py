"""Wall time of the homology searches (the rule ``metabolic_homology``):
every gene of the given models with a sequence searched with phmmer against
the whole proteome.

    python benchmarks/homology_search.py [--network PATH ...] [--proteome PATH] [--cpus 2]

Defaults: yeast-GEM 9.0.2 and yeast-GEM's Swiss-Prot table of 2018 from the
real-data mirror (the main job with the release history also searches the
genes of its older releases: give their networks too). Prints the number
of queries, targets and hit rows kept, and the wall seconds of the search
alone (reading the inputs not counted).
The goal: at most 300 s on 2 cores.
"""

from __future__ import annotations

import time
from pathlib import Path

from geomargin.featurize.metabolic.homology import search_homologs
from geomargin.featurize.metabolic.model_io import load_model
from geomargin.featurize.metabolic.proteome import load_proteome
from geomargin.common.cli import mirror_dir, parser


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--network", type=Path, nargs="+",
                    default=[mirror_dir() / "yeast" / "network" / "yeast-GEM-9.0.2.yml"])
    ap.add_argument("--proteome", type=Path,
                    default=mirror_dir() / "yeast" / "proteome" / "yeast-GEM-swissprot-2018.tsv")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--max-evalue", type=float, default=1e-5)
    args = ap.parse_args(argv)
    proteome = load_proteome(args.proteome)
    genes = sorted({g.id for path in args.network for g in load_model(path).genes})
    start = time.perf_counter()
    table = search_homologs(proteome.sequences, genes, max_evalue=args.max_evalue, cpus=args.cpus)
    wall = time.perf_counter() - start
    queries = table["query"].nunique()
    print(f"| network | queries | targets | rows | cpus | wall s |\n|---|---:|---:|---:|---:|---:|\n"
          f"| {' + '.join(p.name for p in args.network)} | {queries} | {len(proteome.sequences)} | {len(table)} | {args.cpus} "
          f"| {wall:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
