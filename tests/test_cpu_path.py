"""CPU path: the kernel's own Python function over the grid, compared with plain NumPy."""

from __future__ import annotations

import hybrid_runtime as hr
import numpy as np
import pytest
from conftest import KERNEL_PRELUDE as HEADER
from conftest import SAXPY_SOURCE


def test_saxpy_matches_numpy(build):
    b = build(SAXPY_SOURCE)
    rng = np.random.default_rng(1)
    x = rng.random(1000, dtype=np.float32)
    y = rng.random(1000, dtype=np.float32)
    expected = np.float32(1.5) * x + y
    b.module.saxpy.launch(128, 8, np.float32(1.5), x, y, device="cpu")
    assert np.array_equal(y, expected)
    b.module.saxpy[8, 128](2.0, x, y)  # numba-style; HYBRID_DEVICE decides (cpu here)
    hr.launch(b.module.saxpy, 128, 8, 2.0, x, y, device="cpu")


def test_2d_strided_arrays(build):
    b = build(
        HEADER
        + """
@kernel
def scale_t(a: Array[f64, 2], out: Array[f64, 2]):
    r = gpu.global_tid_y()
    c = gpu.global_tid_x()
    if r < out.shape[0] and c < out.shape[1]:
        out[r, c] = a[c, r] * 2.0 + a[-1, -1]
"""
    )
    a = np.arange(35, dtype=np.float64).reshape(5, 7)
    big = np.zeros((14, 10))
    out = big[::2, ::2]  # non-contiguous output, written in place
    b.module.scale_t.launch((4, 4), (2, 2), a, out, device="cpu")
    assert np.array_equal(out, a.T * 2.0 + a[-1, -1])
    assert np.count_nonzero(big[1::2]) == 0


def test_block_reduction_with_shared_memory_and_syncthreads(build):
    b = build(
        HEADER
        + """
@kernel
def block_sum(x: Array[i32], out: Array[i32]):
    buf = gpu.shared_array(i32, 64)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    buf[t] = x[i] if i < len(x) else i32(0)
    gpu.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        gpu.syncthreads()
        s //= 2
    if t == 0:
        out[gpu.block_idx_x()] = buf[0]
"""
    )
    x = np.arange(300, dtype=np.int32)
    out = np.zeros(5, dtype=np.int32)
    b.module.block_sum.launch(64, 5, x, out, device="cpu")
    padded = np.concatenate([x, np.zeros(20, np.int32)])
    assert np.array_equal(out, padded.reshape(5, 64).sum(axis=1))


def test_threads_that_return_early_do_not_block_the_barrier(build):
    b = build(
        HEADER
        + """
@kernel
def k(out: Array[i32]):
    t = gpu.thread_idx_x()
    if t >= 5:
        return
    tile = gpu.shared_array(i32, 8)
    tile[t] = t * 10
    gpu.syncthreads()
    out[t] = tile[4 - t]
"""
    )
    out = np.full(8, -1, dtype=np.int32)
    b.module.k.launch(8, 1, out, device="cpu")
    assert out.tolist() == [40, 30, 20, 10, 0, -1, -1, -1]


def test_atomics_histogram(build):
    b = build(
        HEADER
        + """
@kernel
def hist(x: Array[i32], bins: Array[u32], total: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(x):
        gpu.atomic_add(bins, x[i] % len(bins), 1)
        gpu.atomic_add(total, 0, f64(x[i]))
        gpu.atomic_max(bins, len(bins) - 1, u32(0))
"""
    )
    x = np.random.default_rng(2).integers(0, 1000, 500).astype(np.int32)
    bins = np.zeros(16, dtype=np.uint32)
    total = np.zeros(1)
    b.module.hist.launch(64, 8, x, bins, total, device="cpu")
    assert np.array_equal(bins, np.bincount(x % 16, minlength=16).astype(np.uint32))
    assert total[0] == x.sum()


def test_3d_grid_indices(build):
    b = build(
        HEADER
        + """
@kernel
def k(out: Array[i64, 3]):
    x = gpu.global_tid_x()
    y = gpu.global_tid_y()
    z = gpu.global_tid_z()
    out[z, y, x] = x + 10 * y + 100 * z + 1000 * (gpu.global_size_x() + gpu.grid_dim_y() + gpu.block_dim_z())
"""
    )
    out = np.zeros((2, 4, 6), dtype=np.int64)
    b.module.k.launch((3, 2, 1), (2, 2, 2), out, device="cpu")
    z, y, x = np.indices(out.shape)
    assert np.array_equal(out, x + 10 * y + 100 * z + 1000 * (6 + 2 + 1))


@pytest.fixture
def simple(build):
    return build(
        HEADER
        + """
@kernel
def k(a: f32, n: i32, flag: bool, x: Array[f32], m: Array[i64, 2]):
    x[0] = a
""",
        shared=True,
    ).module.k


@pytest.mark.parametrize(
    "args, error, message",
    [
        (
            (1.0, 1, True, np.zeros(3, np.float64), np.zeros((2, 2), np.int64)),
            TypeError,
            "`x` expects Array[f32], got an array of float64",
        ),
        (
            (1.0, 1, True, np.zeros(3, np.float32), np.zeros(4, np.int64)),
            ValueError,
            "`m` expects Array[i64, 2], got an array with 1 dimension",
        ),
        (
            (1.0, 1.5, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)),
            TypeError,
            "`n` expects i32, got float",
        ),
        (
            (1.0, 2**40, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)),
            ValueError,
            "`n` expects i32, got 1099511627776, which is out of range",
        ),
        ((np.float64(1), 1, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)), None, None),
        ((1.0, np.int64(3), True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)), None, None),
        (
            (1.0, np.float32(3), True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)),
            TypeError,
            "`n` expects i32, got float32",
        ),
        (
            (1.0, 1, 1, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)),
            TypeError,
            "`flag` expects boolean, got int",
        ),
        (("1", 1, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64)), TypeError, "`a` expects f32, got str"),
        ((1.0, 1, True, [0.0], np.zeros((2, 2), np.int64)), TypeError, "`x` expects Array[f32], got list"),
        ((1.0, 1, True), TypeError, "takes 5 arguments (a, n, flag, x, m), got 3"),
    ],
)
def test_bad_arguments_name_the_parameter(simple, args, error, message):
    if error is None:
        simple.launch(1, 1, *args, device="cpu")
        return
    with pytest.raises(error) as info:
        simple.launch(1, 1, *args, device="cpu")
    assert message in str(info.value)
    assert str(info.value).startswith("k()")


@pytest.mark.parametrize(
    "threads, blocks, error, message",
    [
        (0, 1, ValueError, "`threads` must be positive"),
        ((32, 64), 1, ValueError, "2048 threads per block"),
        (1.5, 1, TypeError, "`threads` must be an int"),
        (1, (1, 2, 3, 4), ValueError, "`blocks` must be an int or a tuple of 1 to 3 ints"),
    ],
)
def test_bad_launch_configuration(simple, threads, blocks, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        simple.launch(threads, blocks, 1.0, 1, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64))


def test_device_selection(simple, monkeypatch):
    args = (1.0, 1, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64))
    with pytest.raises(ValueError, match="device must be 'auto', 'cuda', 'cuda:N', 'wgpu', 'cpu' or 'cpu-python'"):
        simple.launch(1, 1, *args, device="tpu")
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    x = np.zeros(3, np.float32)
    simple[1, 1](7.0, 1, True, x, np.zeros((2, 2), np.int64))
    assert x[0] == 7.0
    assert hr.default_device_name() == "cpu"


def test_every_device_has_one_interface(simple, monkeypatch):
    """The CPU, the Python path (and CUDA, WebGPU where present) are objects of one small interface: the choice
    of device= is made once, by select, and the device launches the kernel and synchronises."""
    from hybrid_runtime import CPU, PYTHON, CpuDevice, LaunchConfig, select_device

    assert select_device("cpu") is CPU and select_device("cpu-python") is PYTHON
    assert (CPU.kind, CPU.describe(), PYTHON.kind, PYTHON.describe()) == ("cpu", "cpu", "cpu-python", "cpu-python")
    monkeypatch.setenv("HYBRID_DEVICE", "cpu-python")
    assert select_device(None) is PYTHON and hr.default_device_name() == "cpu-python"
    for device in (CPU, PYTHON):
        x = np.zeros(3, np.float32)
        device.launch(simple, LaunchConfig.make(1, 1), (5.0, 1, True, x, np.zeros((2, 2), np.int64)))
        device.synchronize()  # CPU launches are done when they return
        assert x[0] == 5.0
    if hr.cuda_available():
        gpu = select_device("cuda")
        assert gpu.kind == "cuda" and not isinstance(gpu, CpuDevice) and gpu.describe().startswith("cuda:0 (")
    else:
        assert isinstance(select_device("auto"), CpuDevice) or select_device("auto").kind == "wgpu"


def test_kernels_are_launched_not_called(simple):
    with pytest.raises(TypeError, match=r"must be launched: k\[blocks, threads\]"):
        simple(1.0)
    assert simple.py_func.__name__ == "k"


@pytest.mark.skipif(hr.cuda_available(), reason="checks the message when no GPU is present")
def test_cuda_requested_without_gpu_says_so(simple):
    with pytest.raises(hr.NoCudaError, match="device 'cuda' was requested but"):
        simple.launch(1, 1, 1.0, 1, True, np.zeros(3, np.float32), np.zeros((2, 2), np.int64), device="cuda")


WARP_SOURCE = """
@kernel
def warp_ops(x: Array[f32], out: Array[f32], votes: Array[i64]):
    i = gpu.global_tid_x()
    v = x[i] if i < len(x) else f32(0)
    s = v
    k = 16
    while k > 0:
        s += gpu.shfl_down(s, k)
        k //= 2
    b = gpu.shfl_xor(v, 1) - gpu.shfl_up(v, 1) + gpu.shfl_idx(v, 3)
    lane = gpu.lane_id()
    mask = gpu.ballot(v > 0.5)
    everyone = gpu.all_(v >= 0.0)
    someone = gpu.any_(v > 0.99)
    gpu.threadfence()
    if i < len(x):
        out[i] = b
        if lane == 0:
            out[i] = s
            votes[3 * (i // 32)] = mask
            votes[3 * (i // 32) + 1] = i64(everyone)
            votes[3 * (i // 32) + 2] = i64(someone)
"""


def warp_reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros_like(x)
    votes = np.zeros(3 * (len(x) // 32), dtype=np.int64)
    for w in range(len(x) // 32):
        lanes = x[32 * w : 32 * w + 32]
        for lane in range(32):
            up = lanes[lane - 1] if lane >= 1 else lanes[lane]
            out[32 * w + lane] = lanes[lane ^ 1] - up + lanes[3]
        s = lanes.copy()  # the same tree as shfl_down: partial sums in the same order, same rounding
        k = 16
        while k > 0:
            s = s + np.concatenate([s[k:], s[32 - k :]])
            k //= 2
        out[32 * w] = s[0]
        votes[3 * w] = sum(1 << k for k in range(32) if lanes[k] > 0.5)
        votes[3 * w + 1] = int(bool((lanes >= 0).all()))
        votes[3 * w + 2] = int(bool((lanes > 0.99).any()))
    return out, votes


def test_warp_shuffles_and_votes(build):
    b = build(HEADER + WARP_SOURCE)
    x = np.random.default_rng(4).random(128, dtype=np.float32)
    out = np.zeros_like(x)
    votes = np.zeros(12, dtype=np.int64)
    b.module.warp_ops.launch(64, 2, x, out, votes, device="cpu")
    ref_out, ref_votes = warp_reference(x)
    assert np.array_equal(out, ref_out)
    assert np.array_equal(votes, ref_votes)
