"""Launching a compiled kernel through the CUDA driver.

Arguments are packed into a ``void*[]`` of ctypes values (arrays as pointer, shape and strides in
elements) and passed to one ``cuLaunchKernel``. Host NumPy arrays are copied to the device first
and, when the manifest says the kernel writes them, copied back after the launch.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .config import LaunchConfig
from .device import CudaDevice
from .driver import check, initialise
from .memory import DeviceArray
from .signature import Param, array_description

_CTYPES = {
    np.dtype(n): np.ctypeslib.as_ctypes_type(np.dtype(n))
    for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
}
_CTYPES[np.dtype(bool)] = ctypes.c_uint8


def _stream_handle(stream: Any) -> Any:
    if stream is None:
        return 0
    handle = getattr(stream, "handle", stream)
    return handle


def launch_cuda(
    kernel: str,
    device: CudaDevice,
    function: Any,
    params: list[Param],
    config: LaunchConfig,
    args: list[Any],
    stream: Any = None,
) -> None:
    cu = initialise()
    holders: list[Any] = []
    temporaries: list[tuple[DeviceArray, np.ndarray | None]] = []
    for p, a in zip(params, args):
        if p.kind == "scalar":
            holders.append(_CTYPES[p.dtype](a.item() if p.dtype.kind != "b" else int(a)))
            continue
        if isinstance(a, np.ndarray):
            dev = DeviceArray(a.shape, a.dtype, device)
            dev.copy_from_host(a)
            temporaries.append((dev, a if p.writes else None))
            ptr, shape, strides = dev.ptr, dev.shape, None
        else:
            desc = array_description(a)
            assert desc is not None
            _, shape, strides = desc
            ptr = int(a.__cuda_array_interface__["data"][0])
        holders.append(ctypes.c_void_p(ptr))
        holders += [ctypes.c_int64(s) for s in shape]
        if strides is None:
            acc, elem_strides = 1, list[int]()
            for dim in reversed(shape):
                elem_strides.insert(0, acc)
                acc *= dim
        else:
            elem_strides = [s // p.dtype.itemsize for s in strides]
        holders += [ctypes.c_int64(s) for s in elem_strides]
    packed = (ctypes.c_void_p * max(len(holders), 1))(*[ctypes.addressof(h) for h in holders])
    handle = _stream_handle(stream)
    check(
        cu.cuLaunchKernel(
            function, *config.grid, *config.block, config.shared_bytes, handle, ctypes.addressof(packed), 0
        ),
        "cuLaunchKernel",
        kernel,
    )
    if temporaries:
        check(cu.cuStreamSynchronize(handle), "cuStreamSynchronize", kernel)
        for dev, host in temporaries:
            if host is not None:
                dev.copy_to_host(out=host)
            dev.free()


def synchronize(device: CudaDevice, kernel: str | None = None) -> None:
    cu = initialise()
    device.activate()
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize", kernel)
