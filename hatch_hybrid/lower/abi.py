"""Names the lowered code and the stages after it agree on: the target triple, the error slot's
global (which the runtime reads by name) and the suffix of a kernel's 32-bit-index entry point."""

from __future__ import annotations

from hybrid_runtime.abi import ERROR_SLOT, INDEX32_SUFFIX, PRINT_BUFFER, PRINT_HEADER

__all__ = ["ERROR_SLOT", "INDEX32_SUFFIX", "PRINT_BUFFER", "PRINT_HEADER", "TRIPLE"]

TRIPLE = "nvptx64-nvidia-cuda"
