"""numba's CPU decorators, for the helpers numba-cuda modules share with their kernels.

``from numba import njit, prange`` becomes ``from hybrid_runtime import njit, prange``: a function
decorated with ``@njit`` / ``@jit`` (any options, any signature) stays the plain Python function, which
kernels call as a helper (the build compiles it per call, as every helper) and host code calls as
Python; ``prange`` is ``range`` (in a kernel, a thread runs the loop in order).

``@vectorize`` and ``@guvectorize`` (numba's CPU ufunc builders, which such modules import alongside) make
NumPy's ``np.vectorize`` of the function: the same results, element by element in Python, with the output
dtype of the first signature when one is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

prange = range


def njit(func: Any = None, *args: Any, **options: Any) -> Any:
    """``@njit``, ``@njit(...)``, ``@njit("f8(f8)")``: the function as it is."""
    if callable(func):
        return func

    def keep(f: Callable[..., Any]) -> Callable[..., Any]:
        return f

    return keep


jit = njit


def _output_dtype(signatures: Any) -> Any:
    """The NumPy dtype a numba signature list gives the (first) output: ``"float64(float64, float64)"``'s
    result, or ``"void(f8[:], f8[:])"``'s last parameter; None when there is none."""
    import numpy as np

    from .numba_signatures import NUMBA_SCALARS, SignatureError, result_and_params
    from .types import SCALAR_DTYPES

    first = signatures[0] if isinstance(signatures, (list, tuple)) and signatures else signatures
    if isinstance(first, tuple):  # (float64[:], float64, float64[:]): the types written as Python
        first = "void(" + ", ".join(map(str, first)) + ")"
    if not isinstance(first, str):
        return None
    try:
        name, params = result_and_params(first)
    except SignatureError:
        return None
    if name in NUMBA_SCALARS:
        return np.dtype(SCALAR_DTYPES[NUMBA_SCALARS[name]])
    return np.dtype(SCALAR_DTYPES[params[-1][0]]) if params else None


def vectorize(signatures: Any = None, **options: Any) -> Any:
    """numba's ``@vectorize`` / ``@vectorize([sigs])``: ``np.vectorize`` of the function."""
    import numpy as np

    if callable(signatures):
        return np.vectorize(signatures)
    out = _output_dtype(signatures) if signatures is not None else None

    def make(f: Callable[..., Any]) -> Any:
        return np.vectorize(f, otypes=[out]) if out is not None else np.vectorize(f)

    return make


def guvectorize(signatures: Any, layout: str, **options: Any) -> Any:
    """numba's ``@guvectorize([sigs], "(n),()->(n)")``: the function writes its outputs into its last
    parameters; called with the inputs only, it returns the outputs (allocated in the core shapes the
    layout gives them, of the signature's dtype), broadcast over the loop dimensions as NumPy does."""
    import numpy as np

    from .numba_signatures import parse_layout

    ins, outs = parse_layout(layout)
    dtype = _output_dtype(signatures) or np.dtype(np.float64)

    def make(f: Callable[..., Any]) -> Any:
        def core(*args: Any) -> Any:
            sizes: dict[str, int] = {}
            for dims, a in zip(ins, args):
                for d, n in zip(dims, np.shape(a)):
                    sizes.setdefault(d, n)
            results = [np.zeros(tuple(sizes[d] for d in dims), dtype) for dims in outs]
            f(*args, *results)
            return tuple(results) if len(results) > 1 else results[0]

        text = ",".join(f"({','.join(d)})" for d in ins) + "->" + ",".join(f"({','.join(d)})" for d in outs)
        return np.vectorize(core, signature=text)

    return make
