"""Published numba-cuda modules, each changed only in its import line (see scripts/numba_corpus.py)."""
