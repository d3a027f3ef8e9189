"""Car detection in the UIUC test scenes and its evaluation."""
