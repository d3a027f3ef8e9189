# Older model releases: the whole metabolic pipeline once more per older
# release that a time split needs (time_split.smk, release_history.smk), each
# a Snakemake module of metabolic_release.smk with its results under
# results/time_split/<older>/ and its inputs fetched by this workflow's fetch
# rules. Its rules are named <older>_<rule>.

for _older in older_releases():
    _release_module = f"release_{_older}"
    _release_rules = f"{_older}_"

    module:
        name: _release_module
        snakefile:
            "metabolic_release.smk"
        config:
            older_release_config(_older)
        replace_prefix:
            {
                "results/": older_file(_older, ""),
                "logs/": f"logs/time_split/{_older}/",
            }

    use rule * from _release_module as _release_rules*
