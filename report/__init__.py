"""Last stage: what a reader sees. Accuracy tables and figures, the candidate
browser, and the results pages of ``docs/results`` written from a run."""
