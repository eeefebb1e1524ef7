"""Device arrays: memory on a CUDA device with a NumPy-like shape and dtype.

``DeviceArray`` exports ``__cuda_array_interface__`` (v3), so CuPy, PyTorch and numba can use it
in place, and any object exporting that interface can be passed to a launch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .device import CudaDevice, cuda_device, get_device
from .driver import check, initialise
from .interop import KDL_CUDA, c_strides, to_dlpack
from .stream import stream_handle

_signatures: dict[tuple[Any, ...], tuple[Any, ...]] = {}


#: Arrays whose element offsets all fit in 31 bits let a kernel run its 32-bit-index entry point.
INDEX32_LIMIT = 2**31 - 1


def spans_index32(shape: tuple[int, ...], elem_strides: tuple[int, ...]) -> bool:
    """Does every element offset of this array (in elements) fit in a signed 32-bit int?"""
    if 0 in shape:
        return True  # no elements, no offsets
    return sum(abs(s) * (n - 1) for n, s in zip(shape, elem_strides)) <= INDEX32_LIMIT


def launch_signature(dtype: np.dtype[Any], device: CudaDevice, ndim: int) -> tuple[Any, ...]:
    """One shared tuple per (dtype, device, ndim), so a launch checks an array with one ``is``."""
    key = (dtype, device.ordinal, ndim)
    return _signatures.setdefault(key, (dtype, device, ndim))


class DeviceArray:
    """A C-contiguous array in device memory."""

    def __init__(self, shape: int | tuple[int, ...], dtype: Any = np.float32, device: CudaDevice | None = None) -> None:
        self.shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.device = device or get_device(0)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        cu = initialise()
        self.device.ensure_current()
        self.ptr = int(check(cu.cuMemAlloc(max(self.nbytes, 1)), "cuMemAlloc"))
        self._cu = cu
        self.elem_strides = c_strides(self.shape)
        # what a launch needs, ready: an interned (dtype, device, ndim) key and the flat parameter values
        self._signature = launch_signature(self.dtype, self.device, self.ndim)
        self._flat = (self.ptr, *self.shape, *self.elem_strides)
        self._small = spans_index32(self.shape, self.elem_strides)  # kernels may use their 32-bit-index entry

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        """In bytes, as NumPy's."""
        return tuple(s * self.dtype.itemsize for s in self.elem_strides)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype.name}, device=cuda:{self.device.ordinal})"

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, False),
            "strides": None,
            "version": 3,
        }

    def __dlpack__(self, stream: Any = None, **kwargs: Any) -> Any:
        """DLPack export (PyTorch, CuPy, JAX ... can use this memory in place)."""
        return to_dlpack(self, self.ptr, self.shape, self.dtype, self.device.ordinal)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (KDL_CUDA, self.device.ordinal)

    def copy_from_host(self, host: np.ndarray, stream: Any = None) -> None:
        """Copy a host array in; with ``stream``, asynchronously (truly so from :func:`pinned_array` memory)."""
        src = np.ascontiguousarray(host, dtype=self.dtype)
        if src.shape != self.shape:
            raise ValueError(f"cannot copy an array of shape {src.shape} into a device array of shape {self.shape}")
        if self.nbytes:
            self.device.ensure_current()
            if stream is None:
                check(self._cu.cuMemcpyHtoD(self.ptr, src.ctypes.data, self.nbytes), "cuMemcpyHtoD")
            else:
                check(
                    self._cu.cuMemcpyHtoDAsync(self.ptr, src.ctypes.data, self.nbytes, stream_handle(stream)),
                    "cuMemcpyHtoDAsync",
                )

    def copy_to_host(self, out: np.ndarray | None = None, stream: Any = None) -> np.ndarray:
        """Copy the data into a new (or the given) NumPy array: after pending work on the default stream, or,
        with ``stream``, queued on that stream (synchronise it before reading ``out``)."""
        target = out if out is not None and out.flags.c_contiguous else np.empty(self.shape, self.dtype)
        if target.shape != self.shape or target.dtype != self.dtype:
            raise ValueError(f"out must have shape {self.shape} and dtype {self.dtype.name}")
        if self.nbytes:
            self.device.ensure_current()
            if stream is None:
                check(self._cu.cuMemcpyDtoH(target.ctypes.data, self.ptr, self.nbytes), "cuMemcpyDtoH")
                self.device.raise_pending()  # a synchronisation: report failed device-side checks
            else:
                check(
                    self._cu.cuMemcpyDtoHAsync(target.ctypes.data, self.ptr, self.nbytes, stream_handle(stream)),
                    "cuMemcpyDtoHAsync",
                )
        if out is not None and target is not out:
            out[...] = target
            return out
        return target

    def free(self) -> None:
        if getattr(self, "ptr", 0):
            try:
                self._cu.cuMemFree(self.ptr)
            except Exception:  # interpreter shutdown: the driver may be gone already
                pass
            self.ptr = 0
            self._flat = (0, *self.shape, *self.elem_strides)

    def __del__(self) -> None:
        self.free()


def to_cuda(array: Any, device: str | None = None) -> DeviceArray:
    """A copy of a NumPy array on a CUDA device (``hybrid_runtime.to_device`` chooses among devices)."""
    host = np.asarray(array)
    out = DeviceArray(host.shape, host.dtype, cuda_device(device, "device arrays"))
    out.copy_from_host(host)
    return out


def device_array(shape: int | tuple[int, ...], dtype: Any = np.float32, device: str | None = None) -> DeviceArray:
    """Uninitialised device memory of the given shape and dtype."""
    return DeviceArray(shape, dtype, cuda_device(device, "device arrays"))


def copy_to_host(array: Any) -> np.ndarray:
    """A NumPy copy of a device array (or the array itself, if it is already a NumPy array)."""
    if isinstance(array, np.ndarray):
        return array
    if isinstance(array, DeviceArray):
        return array.copy_to_host()
    raise TypeError(f"copy_to_host() takes a DeviceArray, got {type(array).__name__}")
