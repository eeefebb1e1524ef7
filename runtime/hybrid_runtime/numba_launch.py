"""numba-cuda's launch spellings on every kernel: ``kernel.configure(griddim, blockdim)``,
``kernel.forall(ntasks)`` and ``kernel.specialize(*args)``, in terms of ``kernel[blocks, threads, ...]``.

In: a kernel with ``__getitem__`` (:class:`~hybrid_runtime.kernel.Kernel`). Out: its launcher for that
configuration (or the kernel itself, for ``specialize``).
"""

from __future__ import annotations

from typing import Any


class NumbaLaunchSpellings:
    """Mixed into :class:`~hybrid_runtime.kernel.Kernel`."""

    def __getitem__(self, config: Any) -> Any:  # provided by Kernel
        raise NotImplementedError

    def configure(self, griddim: Any, blockdim: Any, stream: Any = 0, sharedmem: int = 0) -> Any:
        """numba's old spelling of ``kernel[griddim, blockdim, stream, sharedmem]``."""
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> Any:
        """numba's ``kernel.forall(ntasks)``: enough blocks of ``tpb`` threads (128 when 0) for ``ntasks``."""
        threads = tpb or 128
        return self[max(1, -(-int(ntasks) // threads)), threads, stream, sharedmem]

    def specialize(self, *args: Any) -> Any:
        """numba's ``specialize(*args)``: the kernel itself (its variants are chosen at each launch)."""
        return self
