"""The native CPU backend (typed IR -> host LLVM IR -> object -> shared library)."""
