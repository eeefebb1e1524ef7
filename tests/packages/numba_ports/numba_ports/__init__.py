"""Well-known numba-cuda examples, ported by changing the decorator, the annotations and one import."""
