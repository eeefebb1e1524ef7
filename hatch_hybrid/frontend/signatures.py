"""numba's eager signatures in the source (``@cuda.jit("void(float32[:], int32)")``) as the build's options.

The grammar is the runtime's (:mod:`hybrid_runtime.numba_signatures`), so that the build and a launch
read one signature alike; here its errors become located compile errors.

In: the decorator's first argument. Out: the signatures (``[[short scalar name, ndim], ...]`` each).
"""

from __future__ import annotations

import ast

from hybrid_runtime.numba_signatures import Param, SignatureError, parse_signatures

from ..errors import CompileError, Loc


def read_signatures(node: ast.expr, file: str, params: int) -> list[list[Param]]:
    try:
        return parse_signatures(node, params)
    except SignatureError as exc:
        at = exc.node if isinstance(exc.node, ast.expr) else node
        raise CompileError(Loc(file, at.lineno, at.col_offset), exc.message, exc.hint) from None
