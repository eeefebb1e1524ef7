"""numba's host API on ``hybrid_runtime.cuda``: a numba-cuda program's calls around its launches (device
arrays, streams, events, pinned memory, devices) run unchanged, on the CPU where there is no GPU."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE

SOURCE = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import cuda


@cuda.jit("void(float32[:], float32[:], float32)")
def scale(x, out, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i]
"""
)


def _numba_program(kern, cuda):  # type: ignore[no-untyped-def]
    """What numba-cuda's documentation writes around a launch."""
    assert cuda.is_available()
    x = np.arange(1000, dtype=np.float32)
    stream = cuda.stream()
    start, end = cuda.event(timing=True), cuda.event(timing=True)
    d_x = cuda.to_device(x, stream=stream)
    d_out = cuda.device_array_like(d_x, stream=stream)
    start.record(stream)
    kern.scale[(x.size + 127) // 128, 128, stream](d_x, d_out, np.float32(3))
    end.record(stream)
    end.synchronize()
    elapsed = cuda.event_elapsed_time(start, end)
    host = cuda.pinned_array(x.shape, dtype=np.float32)
    d_out.copy_to_host(host, stream=stream)
    stream.synchronize()
    with stream.auto_synchronize():
        again = d_out.copy_to_host()
    cuda.synchronize()
    return host, again, elapsed


def test_the_host_api_runs_on_the_cpu(build, monkeypatch):
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")  # no GPU here, or the CPU asked for
    from hybrid_runtime import cuda

    kern = build(SOURCE, shared=True).module
    host, again, elapsed = _numba_program(kern, cuda)
    expected = np.arange(1000, dtype=np.float32) * 3
    np.testing.assert_array_equal(host, expected)
    np.testing.assert_array_equal(again, expected)
    assert type(again) is np.ndarray and elapsed >= 0.0
    d = cuda.device_array((2, 3), dtype=np.int32)
    d.copy_to_device(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert d.shape == (2, 3) and d.is_c_contiguous() and d.copy_to_host().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert len(cuda.gpus) == 1 and cuda.select_device(0) is not None and "CPU" in repr(cuda.gpus[0])
    with pytest.raises(ValueError, match="there are 1 devices"):
        cuda.select_device(3)


@pytest.mark.gpu
def test_the_host_api_on_a_gpu(build):
    from hybrid_runtime import DeviceArray, cuda

    kern = build(SOURCE, shared=True).module
    host, again, elapsed = _numba_program(kern, cuda)
    expected = np.arange(1000, dtype=np.float32) * 3
    np.testing.assert_array_equal(host, expected)
    np.testing.assert_array_equal(again, expected)
    assert isinstance(cuda.to_device(host), DeviceArray) and elapsed >= 0.0
