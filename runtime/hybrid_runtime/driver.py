"""The CUDA driver, through cuda-bindings, imported on first use. One :func:`check` turns every
driver result into a value or a :class:`CudaError` naming the call (and the kernel)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


class CudaError(RuntimeError):
    """A CUDA driver call failed: ``"cuModuleLoadData: CUDA_ERROR_...: explanation"``."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class NoCudaError(CudaError):
    """No usable CUDA driver or device."""


@lru_cache(maxsize=1)
def driver() -> Any:
    try:
        from cuda.bindings import driver as cu
    except ImportError as exc:  # pragma: no cover - cuda-bindings is a dependency
        raise NoCudaError(
            f"cuda-bindings is not importable ({exc}); install hatch-hybrid-runtime's dependencies"
        ) from None
    return cu


def check(result: Any, call: str, kernel: str | None = None) -> Any:
    """Unpack a cuda-bindings result tuple, raising :class:`CudaError` on failure."""
    err, *values = result
    if int(err) != 0:
        cu = driver()
        name = cu.cuGetErrorName(err)[1]
        text = cu.cuGetErrorString(err)[1]
        name = name.decode() if isinstance(name, bytes) else str(err)
        text = text.decode() if isinstance(text, bytes) else ""
        where = f" (kernel {kernel})" if kernel else ""
        raise CudaError(f"{call}: {name}: {text}{where}", int(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


@lru_cache(maxsize=1)
def initialise() -> Any:
    """``cuInit`` once; raises :class:`NoCudaError` when no driver or device is usable."""
    try:
        cu = driver()
        check(cu.cuInit(0), "cuInit")
        count = check(cu.cuDeviceGetCount(), "cuDeviceGetCount")
    except NoCudaError:
        raise
    except Exception as exc:  # no libcuda.so, no device, ...
        raise NoCudaError(f"no usable CUDA driver: {exc}") from None
    if count < 1:
        raise NoCudaError("the CUDA driver reports no devices")
    return cu


def launch_function() -> Any:
    """cuda-bindings' ``cuLaunchKernel``: measured faster per call than the raw entry point through ctypes."""
    return initialise().cuLaunchKernel


def cuda_available() -> bool:
    try:
        initialise()
    except NoCudaError:
        return False
    return True
