"""Lazily typed kernels: numba-cuda's ``@cuda.jit`` without a signature or annotations.

numba types such a kernel at its first launch; here kernels are compiled when the wheel is built, so
their types come from signatures the project declares (``[tool.hatch.build.hooks.hybrid.signatures]``)
or records (``python -m hatch_hybrid record -- pytest``, into ``hybrid-signatures.json``). This module
is the runtime's half:

* :func:`signature_of`: a launch's arguments as the numba signature that would compile them
  (``"void(float32[:], int32)"``), for the message of a launch no variant fits and for recording;
* :func:`record`: with ``$HYBRID_RECORD_SIGNATURES`` set (the ``record`` command sets it), each such
  launch's signature appended to that file (one JSON object per line; the command merges them);
* :func:`params_of`: the parameters those arguments give, for running the kernel's Python function as
  written on the CPU (the Python path, with a ``SlowPathWarning`` that names the signature to add).
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .config import LaunchConfig
from .cpu import run_grid
from .errors import TypingError
from .kernel import Kernel
from .manifest import ManifestError, package_manifest
from .memory import DeviceArray
from .numba_signatures import format_signature, record_text
from .signature import Param, check_arguments, params_from_signature, record_views, signature_element
from .slowpath import TABLE, warn_once
from .structs import StructArray, dtype_to_json
from .targets import default_device_name
from .types import SCALAR_NAMES, scalar_name

RECORD = "HYBRID_RECORD_SIGNATURES"  # the file a recording run appends to


def _short_and_ndim(value: Any) -> tuple[Any, int] | None:
    """The element type (a short scalar name, or ``{"record": dtype JSON}`` for a structured dtype) and
    dimensions of one argument (None: no numba type for it)."""
    if type(value) in (bool, int, float, complex):
        return scalar_name(type(value)), 0
    if isinstance(value, tuple):  # numba's UniTuple/Tuple, or NamedTuple for a namedtuple
        items = [_short_and_ndim(v) for v in value]
        if None in items or any(isinstance(e, dict) and "record" in e and n == 0 for e, n in items if e):  # type: ignore[misc]
            return None
        element: dict[str, Any] = {"tuple": [list(i) for i in items if i is not None]}
        fields = getattr(type(value), "_fields", None)
        if fields is not None:
            element["names"] = list(fields)
        return element, 0
    if isinstance(value, StructArray):
        value = value.array
    dtype = getattr(value, "dtype", None)
    try:
        found = np.dtype(dtype) if dtype is not None else None
    except TypeError:
        found = None
    if found is not None and found.names is not None and isinstance(value, (np.ndarray, DeviceArray)):
        try:
            record_text(found)  # every field has a numba type
        except ValueError:
            return None
        return {"record": dtype_to_json(found)}, value.ndim
    short = SCALAR_NAMES.get(found.name) if found is not None else None
    if short is None:
        return None
    if isinstance(value, np.generic):
        return short, 0
    shape = getattr(value, "shape", None)
    return (short, len(shape)) if shape is not None else None


def signature_of(args: tuple[Any, ...]) -> str | None:
    """``"void(float32[:], int32)"`` for these launch arguments (None: one has no numba type, e.g. a record
    array: annotate that kernel instead)."""
    found = [_short_and_ndim(value) for value in args]
    return None if None in found else format_signature([list(f) for f in found if f is not None])


def params_of(func: Callable[..., Any], args: tuple[Any, ...]) -> list[Param]:
    """The parameters a launch's arguments give a lazily typed kernel (every array may be written)."""
    found = [_short_and_ndim(value) for value in args]
    names = list(inspect.signature(func).parameters)
    for name, value, f in zip(names, args, found):
        if f is None:
            what = f"a {type(value).__name__} of {value.dtype}" if hasattr(value, "dtype") else type(value).__name__
            hint = (
                "pass the record array and index it in the kernel (ary, i), or a one-record slice ary[i:i + 1]"
                if isinstance(value, np.void)
                else "pass a NumPy scalar, array, tuple or namedtuple"
            )
            raise TypeError(f"{func.__qualname__}(): parameter `{name}` is {what}, which kernels do not take ({hint})")
    given = [list(f) for f in found if f is not None]
    return [p.replace(writes=True) if p.kind == "array" else p for p in params_from_signature(func, given)]


def record(qualname: str, signature: str | None) -> None:
    """Append one launch's signature to the recording's file, when a recording runs."""
    path = os.environ.get(RECORD)
    if not path or signature is None:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"kernel": qualname, "signature": signature}) + "\n")


def unannotated(func: Callable[..., Any]) -> bool:
    """Whether some parameter of ``func`` has no annotation (a kernel typed at its launches, as numba's)."""
    return any(p.annotation is inspect.Parameter.empty for p in inspect.signature(func).parameters.values())


class LazyKernel(Kernel):
    """``@cuda.jit`` without a signature or annotations: the variants are the signatures the build compiled
    (declared in the hook's table or recorded), read from the manifest at the first launch. A launch whose
    arguments fit none of them is recorded when a recording runs, runs the kernel's Python function as
    written on the CPU with a :class:`SlowPathWarning` that names the signature to add, and raises a
    ``TypeError`` saying the same on a GPU."""

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        super().__init__(func, options)
        self._loaded = False
        self._signatures: list[str] = []  # the compiled ones, as numba writes them (for messages)

    def _load(self) -> None:
        """The compiled signatures: each variant's parameters, from the manifest (none: not compiled)."""
        self._loaded = True
        try:
            entry = package_manifest(self.package)
            group = entry.kernel(self.qualname) if entry is not None else None
        except ManifestError:
            group = None
        found = group.get("variants", [group]) if group else []
        self._params = [[Param.from_manifest(p) for p in v["params"]] for v in found]
        self.variants = [{} for _ in found]
        self.options = {**self.options, "signatures": [
            [[signature_element(p), p.ndim] for p in params] for params in self._params
        ]}  # fmt: skip
        self._signatures = [format_signature(sig) for sig in self.options["signatures"]]

    def _compiled_for(self, args: tuple[Any, ...]) -> bool:
        for params in self.variant_params:
            try:
                check_arguments(self.__name__, params, args)
            except (TypeError, ValueError):
                continue
            return True
        return False

    def _typed(self, config: LaunchConfig, args: tuple[Any, ...], device: str | None) -> bool:
        """Whether a compiled variant takes these arguments; if not, the launch is handled here (recorded in
        either case, when a recording runs)."""
        if not self._loaded:
            self._load()
        signature = signature_of(args)
        record(self.qualname, signature)
        if self.variants and self._compiled_for(args):
            return True
        self._uncompiled(config, args, device, signature)
        return False

    def launch(self, threads: Any, blocks: Any, *args: Any, device: str | None = None, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in ("stream", "shared_bytes", "sanitize") if k in kwargs}
        if kwargs or len(args) != self.nparams:
            args = tuple(self.bind(args, kwargs))
        config = LaunchConfig.make(threads, blocks, options.get("shared_bytes", 0))
        if self._typed(config, args, device):
            super().launch(threads, blocks, *args, device=device, **options)

    def __getitem__(self, config: Any) -> Any:
        return _Checked(self, super().__getitem__(config))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Called, not launched: a device function, as numba-cuda compiles a ``@cuda.jit`` function that a
        kernel calls (the build compiles it where kernels call it)."""
        from .python_math import with_ieee_math

        return with_ieee_math(self.py_func)(*args, **kwargs)  # type: ignore[arg-type]

    def _uncompiled(
        self, config: LaunchConfig, args: tuple[Any, ...], device: str | None, signature: str | None
    ) -> None:
        where = device if device is not None else default_device_name()
        add = (
            f'add "{signature}" to {TABLE}\'s `signatures` for "{self.qualname}" (or record the signatures your '
            "tests launch: python -m hatch_hybrid record -- pytest) and rebuild"
            if signature is not None
            else "annotate its parameters (an argument has no numba type)"
        )
        compiled = (
            f"was compiled for {'; '.join(self._signatures)}" if self._signatures else "has no compiled signature"
        )
        why = f"kernel {self.qualname} is typed at launch (no signature, no annotations) and {compiled}"
        if not (where or "").startswith("cpu"):
            raise TypingError(f"{why}, not for these arguments: {add}")
        warn_once(self.package, f"lazy {signature}", f"{why}, not for these arguments, so it runs as written: {add}")
        params = params_of(self.py_func, args)
        values = check_arguments(self.__name__, params, args)
        run_grid(self.py_func, config, record_views(params, values))


class _Checked:
    """``kernel[blocks, threads]`` of a kernel typed at launch: its launcher, once the arguments have a
    compiled variant (``on_cpu``: from ``launch``, which has checked them)."""

    __slots__ = ("kernel", "launcher")

    def __init__(self, kernel: LazyKernel, launcher: Any) -> None:
        self.kernel, self.launcher = kernel, launcher

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != self.kernel.nparams:
            args = tuple(self.kernel.bind(args, kwargs))
        if self.kernel._typed(self.launcher.config, args, None):
            self.launcher(*args)

    def on_cpu(self, args: tuple[Any, ...]) -> None:
        self.launcher.on_cpu(args)
