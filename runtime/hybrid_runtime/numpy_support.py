"""numba's ``numpy_support`` (``from numba import numpy_support``, ``numba.np.numpy_support``): NumPy dtypes
and numba's type names, converted both ways, for the host code of numba-cuda modules.

``from_dtype(np.float32)`` is ``float32`` (a :class:`~hybrid_runtime.types.NumbaScalar`), and a structured
dtype stays the dtype itself (kernels see it as a record: arrays of it are typed at launch or declared as
``@struct`` classes); ``as_dtype(float32)`` is ``np.dtype("float32")``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import types

#: NumPy dtype name -> numba's scalar type (its own name for each)
_BY_DTYPE = {
    t.dtype.name: t
    for t in (
        types.float16, types.float32, types.float64, types.int8, types.int16, types.int32, types.int64,
        types.uint8, types.uint16, types.uint32, types.uint64, types.complex64, types.complex128,
    )
}  # fmt: skip


def from_dtype(dtype: Any) -> Any:
    """numba's type for a NumPy dtype: a scalar type name, or the structured dtype itself (a record)."""
    dt = np.dtype(dtype.dtype if isinstance(dtype, types.NumbaScalar) else dtype)
    if dt.names is not None:
        return dt
    if dt.kind == "b":
        return types.boolean
    found = _BY_DTYPE.get(dt.name)
    if found is None:
        raise NotImplementedError(f"{dt} has no numba type that kernels take")
    return found


def as_dtype(nbtype: Any) -> np.dtype[Any]:
    """The NumPy dtype of numba's type ``nbtype`` (a scalar type name, a NumPy type or a dtype)."""
    found: np.dtype[Any] = nbtype.dtype if isinstance(nbtype, types.NumbaScalar) else np.dtype(nbtype)
    return found
