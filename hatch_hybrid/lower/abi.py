"""Names the lowered code, the stages after it and the runtime agree on: the error slot's global (which the
runtime reads by name), the print buffer and the suffix of a kernel's 32-bit-index entry point. They live
once, in :mod:`hybrid_runtime.abi`; a target's own (its triple) live in its folder."""

from __future__ import annotations

from hybrid_runtime.abi import ERROR_SLOT, INDEX32_SUFFIX, NONE_USED, PRINT_BUFFER, PRINT_HEADER

__all__ = ["ERROR_SLOT", "INDEX32_SUFFIX", "NONE_USED", "PRINT_BUFFER", "PRINT_HEADER"]
