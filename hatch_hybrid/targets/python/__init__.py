"""The Python path as a target: what the runtime needs to run a kernel's own source with the
compiler's types (:mod:`.target`)."""
