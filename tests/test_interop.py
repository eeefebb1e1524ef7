"""GPU tier: other libraries' arrays (PyTorch, CuPy, numba, JAX) as launch arguments, checked once per
object and revalidated on every launch, and launches ordered with those libraries' streams.

These use the installed example wheels (hybrid_demo's saxpy: ``y <- a*x + y``, x read, y written), so
they need no compiler on the GPU machine."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

N = 1 << 16
BLOCKS = N // 256


@pytest.fixture(scope="module")
def saxpy():
    return pytest.importorskip("hybrid_demo").saxpy


def _plan(kernel):
    return next(iter(kernel._plans.values()))


def _count_general(monkeypatch, kernel) -> list[int]:
    """Counts the launches that take the general path (the rest took the generated one)."""
    plan = _plan(kernel)
    seen: list[int] = []
    real = plan.launch

    def counting(*a, **k):
        seen.append(1)
        return real(*a, **k)

    monkeypatch.setattr(plan, "launch", counting)
    return seen


def _spin_source() -> str:
    return r"""
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
}
"""


# ------------------------------------------------------------------ PyTorch
def test_torch_tensors_fast_path_and_checks(saxpy, monkeypatch):
    torch = pytest.importorskip("torch")
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    y = torch.ones(N, dtype=torch.float32, device="cuda")
    saxpy[BLOCKS, 256](2.0, x, y)  # general path: checks, leaves an entry
    general = _count_general(monkeypatch, saxpy)
    for _ in range(3):
        saxpy[BLOCKS, 256](2.0, x, y)
    torch.cuda.current_stream().synchronize()
    assert general == [], "later launches with the same tensors take the generated path"
    assert torch.equal(y, 8 * x + 1)
    with pytest.raises(TypeError, match="`x` expects Array\\[f32\\], got an array of float64"):
        saxpy[BLOCKS, 256](2.0, x.double(), y)
    with pytest.raises(ValueError, match="`y` expects Array\\[f32\\], got an array with 2 dimensions"):
        saxpy[BLOCKS, 256](2.0, x, y.view(2, N // 2))
    with pytest.raises(TypeError, match="not a CUDA array"):
        saxpy[BLOCKS, 256](2.0, x.cpu(), y)
    strided = torch.zeros(2 * N, device="cuda")[::2]  # any strides work
    saxpy[BLOCKS, 256](1.0, x, strided)
    torch.cuda.current_stream().synchronize()
    assert torch.equal(strided, x)


def test_torch_revalidated_when_resized_or_replaced(saxpy):
    torch = pytest.importorskip("torch")
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    y = torch.zeros(N, dtype=torch.float32, device="cuda")
    saxpy[BLOCKS, 256](1.0, x, y)
    saxpy[BLOCKS, 256](1.0, x, y)  # cached
    y.unsqueeze_(0)  # same object, now 2-D
    with pytest.raises(ValueError, match="got an array with 2 dimensions"):
        saxpy[BLOCKS, 256](1.0, x, y)
    y.squeeze_(0)
    y.resize_(2 * N)  # new storage, new shape: the launch must see both
    y.zero_()
    saxpy[BLOCKS, 256](1.0, x, y)
    torch.cuda.current_stream().synchronize()
    assert torch.equal(y[:N], x) and not y[N:].any()
    y.set_(torch.full((N,), 5.0, device="cuda"))  # replaced storage
    saxpy[BLOCKS, 256](1.0, x, y)
    torch.cuda.current_stream().synchronize()
    assert torch.equal(y, x + 5)
    y.data = torch.zeros(N, dtype=torch.float64, device="cuda")  # same ptr possible, dtype changed
    with pytest.raises(TypeError, match="got an array of float64"):
        saxpy[BLOCKS, 256](1.0, x, y)
    y.data = y.data.float()
    y.as_strided_((N // 2,), (2,))  # strides changed in place
    saxpy[BLOCKS, 256](1.0, x, y)
    torch.cuda.current_stream().synchronize()
    assert torch.equal(y, x[: N // 2])


def test_torch_stream_ordering_without_stream_argument(saxpy):
    """A PyTorch op, our kernel, a PyTorch op on a non-default stream; no global synchronisation."""
    torch = pytest.importorskip("torch")
    s = torch.cuda.Stream()
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    y = torch.empty(N, dtype=torch.float32, device="cuda")
    torch.cuda.current_stream().synchronize()
    for attempt in range(3):  # first launch: general path; then the generated one
        with torch.cuda.stream(s):
            torch.cuda._sleep(20_000_000)  # keeps s busy: a kernel on another stream would run first
            y.fill_(float(attempt))
            saxpy[BLOCKS, 256](2.0, x, y)  # no stream=: PyTorch's current stream, s
            y.mul_(3)
        s.synchronize()
        assert torch.equal(y, 3 * (2 * x + attempt)), attempt


def test_torch_with_an_explicit_other_stream_is_ordered_by_dlpack(saxpy):
    torch = pytest.importorskip("torch")
    hr = pytest.importorskip("hybrid_runtime")
    producer = torch.cuda.Stream()
    ours = hr.Stream()
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    y = torch.empty(N, dtype=torch.float32, device="cuda")
    torch.cuda.current_stream().synchronize()
    for attempt in range(2):
        with torch.cuda.stream(producer):
            torch.cuda._sleep(20_000_000)
            y.fill_(float(attempt))
            saxpy[BLOCKS, 256, ours](1.0, x, y)  # DLPack: torch orders its current stream before ours
        ours.synchronize()
        assert torch.equal(y, x + attempt), attempt


# ------------------------------------------------------------------ CuPy
def test_cupy_fast_path_checks_and_reshape(saxpy, monkeypatch):
    cp = pytest.importorskip("cupy")
    x = cp.arange(N, dtype=cp.float32)
    y = cp.ones(N, dtype=cp.float32)
    saxpy[BLOCKS, 256](2.0, x, y)
    general = _count_general(monkeypatch, saxpy)
    saxpy[BLOCKS, 256](2.0, x, y)
    cp.cuda.get_current_stream().synchronize()
    assert general == []
    assert cp.array_equal(y, 4 * x + 1)
    y.shape = (2, N // 2)  # in place: same object, same pointer
    with pytest.raises(ValueError, match="got an array with 2 dimensions"):
        saxpy[BLOCKS, 256](2.0, x, y)
    with pytest.raises(TypeError, match="got an array of float64"):
        saxpy[BLOCKS, 256](2.0, x.astype(cp.float64), y.ravel())


def test_cupy_fast_path_tells_a_new_array_at_a_freed_ones_address_apart(saxpy):
    """The fast path knows a CuPy array by a weak reference to it: a new array whose object reuses a freed
    one's id (and often its memory) is checked anew, so one of another dtype or shape is refused."""
    cp = pytest.importorskip("cupy")
    x = cp.arange(N, dtype=cp.float32)
    for k in range(12):
        if k % 3 == 2:
            y = cp.ones(N, dtype=cp.float64)
            with pytest.raises(TypeError, match="got an array of float64"):
                saxpy[BLOCKS, 256](2.0, x, y)
        elif k % 3 == 1:
            y = cp.ones((2, N // 2), dtype=cp.float32)
            with pytest.raises(ValueError, match="got an array with 2 dimensions"):
                saxpy[BLOCKS, 256](2.0, x, y)
        else:
            y = cp.ones(N, dtype=cp.float32)
            saxpy[BLOCKS, 256](2.0, x, y)
            saxpy[BLOCKS, 256](2.0, x, y)
            assert cp.array_equal(y, 4 * x + 1)
        del y


def test_cupy_stream_ordering_and_interface_stream(saxpy):
    cp = pytest.importorskip("cupy")
    hr = pytest.importorskip("hybrid_runtime")
    spin = cp.RawKernel(_spin_source(), "spin")
    x = cp.arange(N, dtype=cp.float32)
    y = cp.empty(N, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    s = cp.cuda.Stream(non_blocking=True)
    for attempt in range(3):
        with s:
            spin((1,), (1,), (np.int64(20_000_000),))
            y.fill(attempt)
            saxpy[BLOCKS, 256](2.0, x, y)  # no stream=: CuPy's current stream
            y *= 3
        s.synchronize()
        assert cp.array_equal(y, 3 * (2 * x + attempt)), attempt
    ours = hr.Stream()
    for attempt in range(2):
        with s:  # the interface (v3) names s: the launch on `ours` waits for it
            spin((1,), (1,), (np.int64(20_000_000),))
            y.fill(attempt)
            saxpy[BLOCKS, 256, ours](1.0, x, y)
        ours.synchronize()
        assert cp.array_equal(y, x + attempt), attempt


def test_interface_v3_stream_and_read_only_flag(saxpy):
    cp = pytest.importorskip("cupy")
    hr = pytest.importorskip("hybrid_runtime")
    spin = cp.RawKernel(_spin_source(), "spin")
    s = cp.cuda.Stream(non_blocking=True)

    class Exported:  # a v3 producer that says which stream its work is on
        def __init__(self, a, readonly=False):
            self.a, self.readonly = a, readonly

        @property
        def __cuda_array_interface__(self):
            return {**self.a.__cuda_array_interface__, "stream": s.ptr, "data": (self.a.data.ptr, self.readonly)}

    x = cp.arange(N, dtype=cp.float32)
    y = cp.zeros(N, dtype=cp.float32)
    cp.cuda.Device().synchronize()
    with s:
        spin((1,), (1,), (np.int64(20_000_000),))
        y.fill(7)
    saxpy[BLOCKS, 256](1.0, Exported(x), Exported(y))  # default stream: waits for s, as the interface says
    hr.synchronize()
    assert cp.array_equal(y, x + 7)
    with pytest.raises(ValueError, match="`y` is written by the kernel, got a read-only array"):
        saxpy[BLOCKS, 256](1.0, x, Exported(y, readonly=True))
    saxpy[BLOCKS, 256](1.0, Exported(x, readonly=True), y)  # read-only input: fine


# ------------------------------------------------------------------ numba, JAX
def test_numba_device_arrays(saxpy, monkeypatch):
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 still calls it
    cuda = pytest.importorskip("numba.cuda")
    x = cuda.to_device(np.arange(N, dtype=np.float32))
    y = cuda.to_device(np.ones(N, dtype=np.float32))
    saxpy[BLOCKS, 256](2.0, x, y)
    general = _count_general(monkeypatch, saxpy)
    saxpy[BLOCKS, 256](2.0, x, y)
    assert general == []
    assert np.array_equal(y.copy_to_host(), 4 * np.arange(N, dtype=np.float32) + 1)
    with pytest.raises(TypeError, match="got an array of float64"):
        saxpy[BLOCKS, 256](2.0, cuda.to_device(np.zeros(N)), y)


def test_jax_arrays(saxpy, monkeypatch):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jnp = pytest.importorskip("jax.numpy")
    torch = pytest.importorskip("torch")
    try:
        x = jnp.arange(N, dtype=jnp.float32) * 2  # produced asynchronously: DLPack orders it
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"JAX has no GPU here: {exc}")
    if "cuda" not in str(x.devices()).lower() and "gpu" not in str(x.devices()).lower():
        pytest.skip("JAX runs on the CPU here")
    y = torch.ones(N, dtype=torch.float32, device="cuda")
    saxpy[BLOCKS, 256](1.0, x, y)
    general = _count_general(monkeypatch, saxpy)
    saxpy[BLOCKS, 256](1.0, x, y)
    torch.cuda.current_stream().synchronize()
    assert general == []
    assert torch.equal(y.cpu(), torch.from_numpy(2 * np.asarray(x) + 1))
    with pytest.raises(TypeError, match="got an array of int32"):
        saxpy[BLOCKS, 256](1.0, jnp.arange(N, dtype=jnp.int32), y)
    x.delete()  # its memory is gone: the entry is not used, the general path refuses the array
    with pytest.raises((TypeError, RuntimeError, ValueError)):
        saxpy[BLOCKS, 256](1.0, x, y)
