"""numba's host API on ``hybrid_runtime.cuda`` (``cuda.to_device``, ``cuda.stream()``, ``cuda.event()``...),
on a CUDA device when the launches go there, and on the CPU when they do not.

A numba-cuda program or test suite calls these around its launches. With a usable CUDA device (where
launches without ``device=`` go) they are the runtime's own: device arrays, streams, events, pinned
memory. Without one, launches run natively on the CPU, and so do these, as numba's simulator did:
device arrays are host memory (:class:`HostDeviceArray`, a NumPy array with numba's methods), a
stream's work is done when it is queued, an event is the time it was recorded at. So a suite written
for numba-cuda runs unchanged on a laptop and in CI.

In: numba's calls. Out: the runtime's objects, or their CPU stand-ins.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from .device import CudaDevice
from .targets import default_device


def _on_cuda() -> bool:
    """Do launches without ``device=`` go to a CUDA device (else: the CPU)?"""
    return isinstance(default_device(), CudaDevice)


def is_available() -> bool:
    """True: kernels launch on a CUDA device, or natively on the CPU where there is none (as under numba's
    simulator, ``NUMBA_ENABLE_CUDASIM=1``)."""
    return True


class HostDeviceArray(np.ndarray):
    """A "device array" on the CPU: host memory, with numba's ``DeviceNDArray`` methods."""

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        if ary is None:
            return np.array(self, copy=True, subok=False)
        ary[...] = self
        return ary

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        self[...] = ary

    def is_c_contiguous(self) -> bool:
        return bool(self.flags.c_contiguous)

    def is_f_contiguous(self) -> bool:
        return bool(self.flags.f_contiguous)


def _host(array: np.ndarray) -> HostDeviceArray:
    return array.view(HostDeviceArray)


def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: Any = None) -> Any:
    """A copy of ``obj`` on the device (``to``: an existing device array to copy into)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream) if hasattr(to, "copy_to_device") else to.copy_from_host(obj)
        return to
    if _on_cuda():
        from .targets import to_device as cuda_to_device

        return cuda_to_device(np.asarray(obj))
    return _host(np.array(obj, copy=True))


def device_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C", stream: Any = 0) -> Any:
    """Uninitialised device memory."""
    if _on_cuda():
        from .memory import device_array as cuda_array

        return cuda_array(shape, dtype)
    return _host(np.empty(shape, dtype, order=order))  # type: ignore[call-overload]


def device_array_like(ary: Any, stream: Any = 0) -> Any:
    return device_array(ary.shape, ary.dtype, stream=stream)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C") -> np.ndarray:
    """Host memory that copies to and from the device asynchronously (plain memory on the CPU)."""
    if _on_cuda():
        from .stream import pinned_array as cuda_pinned

        return cuda_pinned(shape, dtype)
    return np.empty(shape, dtype, order=order)  # type: ignore[call-overload, no-any-return]


@contextlib.contextmanager
def pinned(*arrays: Any) -> Iterator[None]:
    """numba's ``with cuda.pinned(a, b):`` (the arrays are used as they are)."""
    yield


class CpuStream:
    """A stream on the CPU: launches finish before they return, so there is nothing to wait for."""

    handle = 0  # (what a launch passes as the CUDA stream: the default one)

    def synchronize(self) -> None:
        pass

    @contextlib.contextmanager
    def auto_synchronize(self) -> Iterator[CpuStream]:
        yield self

    def __repr__(self) -> str:
        return "<CPU stream>"


class _CudaStream:
    """numba's stream methods on the runtime's :class:`~.stream.Stream`."""

    def __init__(self) -> None:
        from .stream import Stream

        self.stream = Stream()
        self.handle = self.stream.handle

    def synchronize(self) -> None:
        self.stream.synchronize()

    @contextlib.contextmanager
    def auto_synchronize(self) -> Iterator[_CudaStream]:
        yield self
        self.synchronize()

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


def stream() -> Any:
    return _CudaStream() if _on_cuda() else CpuStream()


def default_stream() -> Any:
    return 0 if _on_cuda() else CpuStream()


class CpuEvent:
    """An event on the CPU: the time ``record()`` was called (launches are finished when they return)."""

    def __init__(self, timing: bool = True) -> None:
        self.at: float | None = None

    def record(self, stream: Any = 0) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def wait(self, stream: Any = 0) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: CpuEvent) -> float:
        """Milliseconds from this event to ``end``."""
        if self.at is None or end.at is None:
            raise RuntimeError("both events must be recorded before elapsed_time()")
        return (end.at - self.at) * 1e3


class _CudaEvent:
    """numba's event methods on the runtime's :class:`~.stream.Event`."""

    def __init__(self, timing: bool = True) -> None:
        from .stream import Event

        self.event = Event()

    def record(self, stream: Any = 0) -> None:
        self.event.record(None if stream == 0 else stream)

    def synchronize(self) -> None:
        self.event.synchronize()

    def wait(self, stream: Any = 0) -> None:
        if stream not in (0, None) and hasattr(stream, "stream"):
            stream.stream.wait(self.event)

    def query(self) -> bool:
        self.event.synchronize()
        return True

    def elapsed_time(self, end: _CudaEvent) -> float:
        return self.event.elapsed_ms(end.event)


def event(timing: bool = True) -> Any:
    return _CudaEvent(timing) if _on_cuda() else CpuEvent(timing)


def event_elapsed_time(evtstart: Any, evtend: Any) -> float:
    return float(evtstart.elapsed_time(evtend))


def synchronize() -> None:
    """Wait for the work queued on the device (nothing to wait for on the CPU)."""
    if _on_cuda():
        default_device().synchronize()


class CpuGpu:
    """The CPU, described as numba describes a GPU (``cuda.gpus[0]``, ``cuda.select_device(0)``)."""

    id = 0
    name = b"CPU (hybrid_runtime native code)"
    compute_capability = (0, 0)

    def reset(self) -> None:
        pass

    def __repr__(self) -> str:
        return "<CPU: kernels run natively (no CUDA device)>"


def _devices() -> list[Any]:
    if _on_cuda():
        from .device import devices

        return list(devices())
    return [CpuGpu()]


class _Gpus:
    """``cuda.gpus``: the devices, indexable and iterable; ``.current`` the one in use."""

    def __getitem__(self, n: int) -> Any:
        return _devices()[n]

    def __len__(self) -> int:
        return len(_devices())

    def __iter__(self) -> Iterator[Any]:
        return iter(_devices())

    @property
    def current(self) -> Any:
        return get_current_device()


gpus = _Gpus()


def select_device(device_id: int) -> Any:
    found = _devices()
    if not 0 <= device_id < len(found):
        raise ValueError(f"select_device({device_id}): there are {len(found)} devices")
    if _on_cuda():
        found[device_id].ensure_current()
    return found[device_id]


def get_current_device() -> Any:
    return _devices()[0] if not _on_cuda() else default_device()


def close() -> None:
    pass
