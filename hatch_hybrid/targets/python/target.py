"""The Python path as a target: typed IR -> the conversions the compiler's typing adds to the source.

``device="cpu-python"`` runs the kernel's own Python function, so that pdb, tracebacks and coverage
show the user's lines. Where the compiler's typing gives a value a type that Python would not (a
literal merged into an i32 local, the literal operand of ``x if c else 0``: see
:mod:`...typecheck.conversions`), the runtime compiles the user's source again with those values
converted, from what this target records: per function reached from the kernel, its module and
``def`` line, each converted place (line, column, end column: the node that :mod:`ast` gives the
runtime) with its dtype (``int64-wrapped``: a Python-int operation wrapped at 64 bits, as the devices
compute it), and the calls of helpers that need such a copy too. No compiler runs at
run time.

In: a :class:`~..base.KernelJob`. Out: :class:`PythonCode` (empty when nothing needs converting: the
function runs as written).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from hybrid_runtime.abi import NOT_NONE, OPTIONAL, PYTHON_NUMBER

from ... import ir
from ...errors import Loc
from ...typecheck.conversions import WRAPPED_INT
from ...typecheck.typed import TypedFunction
from ...types import Scalar, Weak
from ..base import BuildOptions, Capabilities, Code, KernelJob, Target


@dataclass
class PythonCode(Code):
    functions: list[dict[str, Any]] = field(default_factory=list)  # [0] is the kernel; [] nothing to convert

    def manifest_entry(self) -> dict[str, Any]:
        return {"functions": self.functions}

    def manifest_fields(self, symbol: str) -> dict[str, Any]:
        return {"python": self.manifest_entry()} if self.functions else {}

    def cache_entry(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_cache(cls, entry: dict[str, Any]) -> PythonCode:
        return cls(**entry)


def _site(loc: Loc) -> list[Any]:
    return [loc.line, loc.col, loc.end_col]


class PythonTarget(Target):
    name = "python"
    stages = ("typed IR", "conversions", "the runtime: the function's source with them, compiled at first launch")
    caps = Capabilities(warp_size=32, shared_bytes=None)
    code = PythonCode

    @classmethod
    def configured(cls, options: BuildOptions) -> PythonTarget:
        return cls()  # (always: the conversions are what device="cpu-python" runs)

    def build(self, job: KernelJob) -> PythonCode:
        converting = _converting(job.typed)
        if job.typed not in converting:
            return PythonCode()
        order = [job.typed] + [tf for tf in converting if tf is not job.typed]
        number = {id(tf): k for k, tf in enumerate(order)}
        return PythonCode([self._function(tf, number) for tf in order])

    @staticmethod
    def _function(tf: TypedFunction, number: dict[int, int]) -> dict[str, Any]:
        # (IR a statement was rewritten into has no expression of its own in the source to convert)
        converts = [
            [*_site(loc), OPTIONAL + _dtype(t), "value"] if how == "optional" else [*_site(loc), _dtype(t), how]
            for loc, t, how in tf.conversions.values()
            if not loc.synthetic
        ]
        converts += [[*_site(loc), WRAPPED_INT, how] for loc, how in tf.wraps.values() if not loc.synthetic]
        converts += [[*_site(loc), NOT_NONE, "value"] for loc in tf.unwraps.values() if not loc.synthetic]
        converts.sort()
        calls = []
        for node in ir.walk(tf.fn):
            callee = tf.callees.get(node.nid) if isinstance(node, ir.Call) else None
            if callee is not None and callee.target is not None and id(callee.target) in number:
                calls.append([*_site(node.loc), number[id(callee.target)], callee.kind])
        return {
            "module": tf.fn.module,
            "name": tf.fn.name,
            "line": tf.fn.loc.line,
            "convert": converts,
            "calls": sorted(calls),
        }


def _dtype(t: Scalar | Weak) -> str:
    """The name of the conversion to ``t``: NumPy's dtype, or a Python number's kind (``python-float``)."""
    return PYTHON_NUMBER + t.kind if isinstance(t, Weak) else str(t.dtype)


def _converting(root: TypedFunction) -> list[TypedFunction]:
    """The functions reached from ``root`` that convert something or call one that does, in the order
    first reached."""
    order: list[TypedFunction] = []
    seen: set[int] = set()

    def visit(tf: TypedFunction) -> None:
        if id(tf) in seen:
            return
        seen.add(id(tf))
        order.append(tf)
        for callee in tf.callees.values():
            if callee.target is not None:
                visit(callee.target)

    visit(root)
    needed = {id(tf) for tf in order if tf.conversions or tf.wraps or tf.unwraps}
    changed = True
    while changed:
        changed = False
        for tf in order:
            if id(tf) not in needed and any(
                c.target is not None and id(c.target) in needed for c in tf.callees.values()
            ):
                needed.add(id(tf))
                changed = True
    return [tf for tf in order if id(tf) in needed]
