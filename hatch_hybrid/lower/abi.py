"""Names the lowered code and the stages after it agree on: the target triple, the error slot's
global (which the runtime reads by name) and the suffix of a kernel's 32-bit-index entry point."""

from __future__ import annotations

TRIPLE = "nvptx64-nvidia-cuda"
ERROR_SLOT = "hybrid_error"  # see function.ModuleLowerer.error_slot; the runtime's checks.ERROR_SLOT
PRINT_BUFFER = "hybrid_print"  # see printing.PrintSites.buffer; the runtime's prints.PRINT_BUFFER
PRINT_HEADER = 16  # the print buffer: u64 cursor, u64 dropped records, then the records
INDEX32_SUFFIX = "__i32"  # the 32-bit-index entry point of a kernel
