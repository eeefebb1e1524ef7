"""Streams, events, pinned host memory and CUDA graphs.

Launches and copies on a :class:`Stream` are asynchronous and ordered on that stream; an
:class:`Event` marks a point in a stream (to wait for, or to time). ``stream=None`` is the
default (legacy) stream. Any stream object of another library is accepted where its handle can be
found: ``__cuda_stream__`` (cuda.core), ``.ptr`` (CuPy), ``.cuda_stream`` (PyTorch), or an int.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .device import CudaDevice, cuda_device
from .driver import check, initialise


def stream_handle(stream: Any) -> int:
    """The ``CUstream`` handle of a stream-like object (0: the default stream)."""
    if stream is None:
        return 0
    if type(stream) is int:
        return stream
    if isinstance(stream, Stream):
        return stream.handle
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int((protocol() if callable(protocol) else protocol)[1])
    for attr in ("ptr", "cuda_stream", "handle"):
        value = getattr(stream, attr, None)
        if value is not None:
            return int(value)
    try:
        return int(stream)  # a cuda-bindings CUstream
    except TypeError:
        raise TypeError(
            f"stream must be a hybrid_runtime.Stream, a CUDA stream handle or None, not {type(stream).__name__}"
        ) from None


_order_events: dict[int, Any] = {}  # device ordinal -> the event wait_for records


def wait_for(producer: int, consumer: int, device: CudaDevice) -> None:
    """Order later work on stream ``consumer`` after the work queued so far on stream ``producer``
    (an event recorded on one and waited for on the other: nothing waits on the host)."""
    cu = initialise()
    device.ensure_current()
    event = _order_events.get(device.ordinal)
    if event is None:
        flags = cu.CUevent_flags.CU_EVENT_DISABLE_TIMING
        event = _order_events[device.ordinal] = check(cu.cuEventCreate(flags), "cuEventCreate")
    check(cu.cuEventRecord(event, producer), "cuEventRecord")
    # the wait takes the event's state now: the one event can be recorded again at once
    check(cu.cuStreamWaitEvent(consumer, event, 0), "cuStreamWaitEvent")


def _device(device: str | None) -> CudaDevice:
    return cuda_device(device, "streams")


class Stream:
    """A CUDA stream (non-blocking with respect to the default stream)."""

    def __init__(self, device: str | None = None) -> None:
        self.device = _device(device)
        cu = initialise()
        self.device.ensure_current()
        flags = cu.CUstream_flags.CU_STREAM_NON_BLOCKING
        self._stream = check(cu.cuStreamCreate(flags), "cuStreamCreate")
        self.handle = int(self._stream)

    def synchronize(self) -> None:
        """Wait until everything queued on this stream has finished."""
        check(initialise().cuStreamSynchronize(self._stream), "cuStreamSynchronize")
        self.device.raise_pending()

    def wait(self, event: Event) -> None:
        """Make later work on this stream wait for ``event``."""
        check(initialise().cuStreamWaitEvent(self._stream, event._event, 0), "cuStreamWaitEvent")

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)

    def __repr__(self) -> str:
        return f"<Stream 0x{self.handle:x} on cuda:{self.device.ordinal}>"

    def __del__(self) -> None:
        stream = getattr(self, "_stream", None)
        if stream is not None:
            try:
                initialise().cuStreamDestroy(stream)
            except Exception:  # interpreter shutdown
                pass


class Event:
    """A marker in a stream: ``record()``, ``synchronize()``, ``elapsed_ms(later_event)``."""

    def __init__(self, device: str | None = None) -> None:
        self.device = _device(device)
        cu = initialise()
        self.device.ensure_current()
        self._event = check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate")

    def record(self, stream: Any = None) -> Event:
        check(initialise().cuEventRecord(self._event, stream_handle(stream)), "cuEventRecord")
        return self

    def synchronize(self) -> None:
        check(initialise().cuEventSynchronize(self._event), "cuEventSynchronize")
        self.device.raise_pending()

    def elapsed_ms(self, end: Event) -> float:
        """Milliseconds from this event to ``end`` (both recorded and complete)."""
        end.synchronize()
        return float(check(initialise().cuEventElapsedTime(self._event, end._event), "cuEventElapsedTime"))

    def __del__(self) -> None:
        event = getattr(self, "_event", None)
        if event is not None:
            try:
                initialise().cuEventDestroy(event)
            except Exception:
                pass


class _PinnedBuffer:
    def __init__(self, nbytes: int, device: CudaDevice) -> None:
        cu = initialise()
        device.ensure_current()
        self.ptr = int(check(cu.cuMemHostAlloc(max(nbytes, 1), 0), "cuMemHostAlloc"))

    def __del__(self) -> None:
        try:
            initialise().cuMemFreeHost(self.ptr)
        except Exception:
            pass


def pinned_array(shape: int | tuple[int, ...], dtype: Any = np.float32, device: str | None = None) -> np.ndarray:
    """A NumPy array in page-locked host memory: copies to and from it can be asynchronous."""
    dt = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    owner = _PinnedBuffer(nbytes, _device(device))
    raw = (ctypes.c_byte * max(nbytes, 1)).from_address(owner.ptr)
    array = np.frombuffer(raw, dtype=dt, count=nbytes // dt.itemsize).reshape(shape)
    raw._owner = owner  # the memory lives as long as the array's buffer
    return array


class Graph:
    """Record launches on a stream once, replay them with one call::

    with hybrid_runtime.Graph(stream) as g:
        k1[blocks, threads, stream](...)
        k2[blocks, threads, stream](...)
    g.launch()          # replays both, on the same stream
    """

    def __init__(self, stream: Stream) -> None:
        if not isinstance(stream, Stream):
            raise TypeError("graph capture needs a hybrid_runtime.Stream (the default stream cannot be captured)")
        self.stream = stream
        self._exec: Any = None

    def __enter__(self) -> Graph:
        cu = initialise()
        mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        check(cu.cuStreamBeginCapture(self.stream._stream, mode), "cuStreamBeginCapture")
        return self

    def __exit__(self, *exc: Any) -> None:
        cu = initialise()
        graph = check(cu.cuStreamEndCapture(self.stream._stream), "cuStreamEndCapture")
        if exc[0] is None:
            self._exec = check(cu.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
        check(cu.cuGraphDestroy(graph), "cuGraphDestroy")

    def launch(self) -> None:
        if self._exec is None:
            raise RuntimeError("the graph was not captured")
        check(initialise().cuGraphLaunch(self._exec, self.stream._stream), "cuGraphLaunch")
