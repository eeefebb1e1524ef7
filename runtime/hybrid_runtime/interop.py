"""Other libraries' GPU arrays, used in place: ``__cuda_array_interface__`` (CuPy, PyTorch, numba)
and DLPack (``__dlpack__``: PyTorch, CuPy, JAX, ...). DeviceArray exports both."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .device import CudaDevice
from .driver import check, initialise

KDL_CUDA = 2
_DL_CODES = {0: "int", 1: "uint", 2: "float", 6: "bool"}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
# A capsule destructor runs while the capsule is being freed: it must not see it as a Python object
# (ctypes would take a new reference to a dying object), so it gets a raw pointer.
_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_raw_capsule_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi)
)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _Destructor]


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides in elements of a C-contiguous array of this shape."""
    out: list[int] = []
    acc = 1
    for dim in reversed(shape):
        out.insert(0, acc)
        acc *= dim
    return tuple(out)


@dataclass
class ArrayView:
    """Where another library's device array is: pointer, shape, strides in elements, dtype, device."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None  # bytes, as __cuda_array_interface__ gives them; None: C order
    dtype: np.dtype[Any]
    device_id: int | None = None
    readonly: bool = False  # __cuda_array_interface__'s data = (ptr, read_only)
    _release: Any = field(default=None, repr=False)

    @property
    def elem_strides(self) -> tuple[int, ...]:
        if self.strides is not None:
            return tuple(s // self.dtype.itemsize for s in self.strides)
        return c_strides(self.shape)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, self.readonly),
            "strides": self.strides,
            "version": 3,
        }

    def __del__(self) -> None:
        if self._release is not None:
            self._release()


def from_dlpack(obj: Any) -> ArrayView:
    """Consume ``obj.__dlpack__()`` (a CUDA tensor) into a view; the producer keeps the memory."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and device()[0] != KDL_CUDA:
        raise TypeError(f"{type(obj).__name__} is not a CUDA array (DLPack device type {device()[0]})")
    capsule = obj.__dlpack__(stream=1)  # the legacy default stream, which launches use by default
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise TypeError(f"{type(obj).__name__}.__dlpack__() did not return a DLPack tensor capsule")
    managed = DLManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor"))
    _api.PyCapsule_SetName(capsule, b"used_dltensor")  # it is ours now: we call its deleter
    t = managed.dl_tensor
    release = (lambda m=managed: m.deleter(ctypes.addressof(m))) if managed.deleter else None
    if t.device.device_type != KDL_CUDA or t.dtype.lanes != 1 or t.dtype.code not in _DL_CODES:
        if release:
            release()
        raise TypeError(
            f"{type(obj).__name__} is not a CUDA array of plain numbers (DLPack device type "
            f"{t.device.device_type}, dtype code {t.dtype.code})"
        )
    name = "bool" if t.dtype.code == 6 else f"{_DL_CODES[t.dtype.code]}{t.dtype.bits}"
    dtype = np.dtype(name)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim)) if t.strides else None
    return ArrayView(
        t.data + t.byte_offset if t.data else 0, shape, strides, dtype, t.device.device_id, _release=release
    )


def as_array_view(obj: Any) -> ArrayView | None:
    """A device array of another library as a view, or None if it is none."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        strides = cai.get("strides")
        ptr, readonly = cai["data"]
        shape = tuple(cai["shape"])
        byte_strides = tuple(strides) if strides else None
        return ArrayView(int(ptr), shape, byte_strides, np.dtype(cai["typestr"]), readonly=bool(readonly))
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj)
    return None


def check_device(view: ArrayView, param: str, kernel: str, device: CudaDevice, device_count: int) -> None:
    """Arrays on another GPU than the launch's are an error (asked of the driver only when there are several)."""
    if device_count < 2:
        return
    ordinal = view.device_id
    if ordinal is None and view.ptr:
        cu = initialise()
        attr = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
        ordinal = int(check(cu.cuPointerGetAttribute(attr, view.ptr), "cuPointerGetAttribute", kernel))
    if ordinal is not None and ordinal != device.ordinal:
        raise ValueError(
            f"{kernel}(): parameter `{param}` is on cuda:{ordinal}, the launch on "
            f"cuda:{device.ordinal}; copy it over first"
        )


# ---------------------------------------------------------------- exporting
_exports: dict[int, Any] = {}  # DLManagedTensor address -> what must live until its deleter runs


def _forget_export(address: int) -> None:
    _exports.pop(address, None)


def _destroy_capsule(capsule: int) -> None:
    if _raw_capsule_valid(capsule, b"dltensor"):  # never consumed: free it ourselves
        _exports.pop(_raw_get_pointer(capsule, b"dltensor"), None)


_delete_export = _Deleter(_forget_export)
_capsule_destructor = _Destructor(_destroy_capsule)


def to_dlpack(owner: Any, ptr: int, shape: tuple[int, ...], dtype: np.dtype[Any], device_id: int) -> Any:
    """A DLPack capsule for C-contiguous device memory kept alive by ``owner``."""
    code = {"b": 6, "i": 0, "u": 1, "f": 2}[dtype.kind]
    shape_arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    managed = DLManagedTensor()
    managed.dl_tensor = DLTensor(
        ptr,
        DLDevice(KDL_CUDA, device_id),
        len(shape),
        DLDataType(code, dtype.itemsize * 8, 1),
        ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64)),
        None,
        0,
    )
    managed.deleter = _delete_export
    address = ctypes.addressof(managed)
    _exports[address] = (managed, shape_arr, owner)
    return _api.PyCapsule_New(address, b"dltensor", _capsule_destructor)
