"""Other libraries' GPU arrays, used in place: ``__cuda_array_interface__`` (CuPy, PyTorch, numba)
and DLPack (``__dlpack__``: PyTorch, CuPy, JAX, ...). DeviceArray exports both.

Streams follow the protocols: a v3 ``__cuda_array_interface__`` names the stream its producer's work
is on (the launch waits for it unless it is the launch's own stream), and ``__dlpack__`` is given the
launch's stream (the producer orders its work before it). Arrays of PyTorch, CuPy, numba and JAX are
also recognised by type (:data:`LIBRARIES`), so that a launch can check them once and then re-read only
their cheapest accessors (see plan.py).
"""

from __future__ import annotations

import ctypes
import sys
import weakref
from typing import Any

import numpy as np

from ._records import fields_repr
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


class ArrayView:
    """Where another library's device array is: pointer, shape, strides in elements, dtype, device."""

    _fields = ("ptr", "shape", "strides", "dtype", "device_id", "readonly", "stream")

    def __init__(
        self,
        ptr: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...] | None,
        dtype: np.dtype[Any],
        device_id: int | None = None,
        readonly: bool = False,
        stream: int | None = None,
        _release: Any = None,
    ) -> None:
        self.ptr, self.shape, self.dtype, self.device_id = ptr, shape, dtype, device_id
        self.strides = strides  # bytes, as __cuda_array_interface__ gives them; None: C order
        self.readonly = readonly  # __cuda_array_interface__'s data = (ptr, read_only)
        self.stream = stream  # v3 __cuda_array_interface__: the stream the producer's work is on
        self._release = _release  # called when the view goes (a DLPack tensor's deleter)

    __repr__ = fields_repr

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


def dlpack_stream(stream: int | None) -> int:
    """The launch's stream as DLPack's ``stream=`` wants it: 1 for the legacy default stream (0 is
    not allowed on CUDA), else the handle."""
    return 1 if not stream else stream


def from_dlpack(obj: Any, stream: int | None = None) -> ArrayView:
    """Consume ``obj.__dlpack__(stream=...)`` (a CUDA tensor) into a view; the producer keeps the memory
    and orders its pending work on the array before ``stream`` (the launch's; None: the default stream)."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and device()[0] != KDL_CUDA:
        raise TypeError(f"{type(obj).__name__} is not a CUDA array (DLPack device type {device()[0]})")
    capsule = obj.__dlpack__(stream=dlpack_stream(stream))
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


KDL_CPU = 1


def host_array(obj: Any) -> np.ndarray | None:
    """A CPU array of another library (a PyTorch or JAX CPU tensor through DLPack, anything with
    ``__array_interface__``) as a NumPy array sharing its memory, so that a kernel's writes reach it; None
    for anything else (a device array goes by :func:`as_array_view`)."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and hasattr(obj, "__dlpack__"):
        if device()[0] != KDL_CPU:
            return None
        try:
            return np.from_dlpack(obj)
        except (RuntimeError, BufferError, ValueError) as exc:  # e.g. a tensor that requires grad
            raise TypeError(f"{type(obj).__name__} cannot be shared with NumPy through DLPack: {exc}") from None
    if hasattr(obj, "__array_interface__") and not hasattr(obj, "__cuda_array_interface__"):
        return np.asarray(obj)
    return None


def as_array_view(obj: Any, stream: int | None = None) -> ArrayView | None:
    """A device array of another library as a view, or None if it is none. ``stream``: the launch's
    stream, given to ``__dlpack__``. A ``__cuda_array_interface__`` of version 3 is used with its
    ``stream`` field (the caller waits for it); an older one only when the object has no DLPack, which
    orders the producer's work itself (PyTorch's interface is version 2: its tensors go by DLPack)."""
    if type(obj) is LIBRARIES.torch_tensor or _is_torch(obj):
        return from_dlpack(obj, stream)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None and (cai.get("version", 0) >= 3 or not hasattr(obj, "__dlpack__")):
        strides = cai.get("strides")
        ptr, readonly = cai["data"]
        shape = tuple(cai["shape"])
        byte_strides = tuple(strides) if strides else None
        producer = cai.get("stream") if cai.get("version", 0) >= 3 else None
        return ArrayView(
            int(ptr),
            shape,
            byte_strides,
            np.dtype(cai["typestr"]),
            readonly=bool(readonly),
            stream=None if producer is None else int(producer),
        )
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj, stream)
    return None


# ---------------------------------------------------------------- libraries known by type
class _Absent:
    """A type no argument has: stands for a library that is not imported (yet)."""


class Libraries:
    """The array types of the libraries a launch can read fast, found in ``sys.modules`` when their
    arrays are first seen (nothing is imported here); ``generation`` counts the changes."""

    def __init__(self) -> None:
        self.generation = 0
        self.torch_tensor: Any = _Absent
        self.torch_stream: Any = None  # ordinal -> the current stream's handle
        self.cupy_ndarray: Any = _Absent
        self.cupy_stream: Any = None  # () -> the current stream (its .ptr: the handle)
        self.numba_array: Any = _Absent
        self.jax_array: Any = _Absent


LIBRARIES = Libraries()


def _is_torch(obj: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def _is_cupy(obj: Any) -> bool:
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(obj, getattr(cupy, "ndarray", _Absent))


def library_of(obj: Any) -> str | None:
    """ "torch", "cupy", "numba" or "jax" when ``obj``'s exact type is that library's device array (and
    records the type in :data:`LIBRARIES`), else None."""
    lib, t = LIBRARIES, type(obj)
    if t is lib.torch_tensor or t is lib.cupy_ndarray or t is lib.numba_array or t is lib.jax_array:
        return {lib.torch_tensor: "torch", lib.cupy_ndarray: "cupy", lib.numba_array: "numba"}.get(t, "jax")
    found: str | None = None
    torch = sys.modules.get("torch")
    if torch is not None and t is torch.Tensor:
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        lib.torch_stream = raw or (lambda ordinal: torch.cuda.current_stream(ordinal).cuda_stream)
        lib.torch_tensor, found = t, "torch"
    elif _is_cupy(obj) and t is sys.modules["cupy"].ndarray:
        cuda = sys.modules["cupy"].cuda
        lib.cupy_stream, lib.cupy_ndarray, found = cuda.get_current_stream, t, "cupy"  # (no frame of ours)
    elif t.__name__ == "DeviceNDArray" and t.__module__.endswith("cudadrv.devicearray"):
        lib.numba_array, found = t, "numba"
    elif "jax" in sys.modules and isinstance(obj, sys.modules["jax"].Array) and hasattr(obj, "is_deleted"):
        lib.jax_array, found = t, "jax"
    if found is not None:
        lib.generation += 1
    return found


def current_stream(args: Any, ordinal: int) -> int | None:
    """For a launch without ``stream=``: the current stream of the library of the first PyTorch tensor
    or CuPy array among ``args`` (``torch.cuda.current_stream()``, ``cupy.cuda.get_current_stream()``),
    so that the kernel runs in order with that library's work; None when there is none (the default
    stream)."""
    for a in args:
        if _is_torch(a):
            library_of(a)
            if type(a) is not LIBRARIES.torch_tensor:  # a subclass (e.g. a Parameter)
                torch = sys.modules["torch"]
                return int(torch.cuda.current_stream(ordinal).cuda_stream)
            return int(LIBRARIES.torch_stream(ordinal))
        if _is_cupy(a):
            return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
    return None


def same_stream(a: int, b: int) -> bool:
    """Handles 0 (NULL) and 1 (CU_STREAM_LEGACY) both mean the legacy default stream."""
    return a == b or (a in (0, 1) and b in (0, 1))


def fast_entry(obj: Any, view: ArrayView, signature: Any, flat: tuple[int, ...], small: bool, stream: int) -> Any:
    """What a launch keeps of another library's array once it has been checked (None: nothing), for
    the next launch to revalidate cheaply: the launch signature, the packed values, the 32-bit flag,
    then per library what changes whenever anything checked or packed does:
    PyTorch ``(data_ptr(), shape, stride(), dtype)``; CuPy a weak reference to the very object and its
    shape (an ndarray's ``data``, its pointer and its ``dtype`` are read-only; only the ``shape`` setter
    changes it in place, and with it the strides, which are a function of the shape for one layout);
    numba and JAX arrays never change, so a weak reference to the very object and the stream their
    producer's work must be ordered on (numba: the interface's stream; JAX: the stream DLPack ordered
    it before)."""
    if view.readonly:
        return None  # the general path refuses it for written parameters every time
    kind = library_of(obj)
    if kind == "torch":
        if obj.data_ptr() != view.ptr:
            return None
        return (signature, flat, small, obj.data_ptr(), obj.shape, obj.stride(), obj.dtype)
    if kind in ("cupy", "numba", "jax"):
        try:
            ref = weakref.ref(obj)
        except TypeError:
            return None
        if kind == "cupy":
            return (signature, flat, small, ref, obj.shape) if obj.data.ptr == view.ptr else None
        required = view.stream if kind == "numba" else stream
        if required is not None and required in (0, 1):
            required = 0
        return (signature, flat, small, ref, required)
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
