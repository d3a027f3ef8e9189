# The metabolic pipeline as a Snakemake module (time_split.smk imports it to
# run the whole pipeline once more on an older model release): the helpers
# and the rules of the enzyme ranking, nothing else. Inputs are fetched by the
# importing workflow's fetch rules.


include: "common.smk"
include: "metabolic.smk"
