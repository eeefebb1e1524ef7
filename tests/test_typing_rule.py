"""The one typing rule (numba's): a variable has one type, a literal takes the type of what it meets,
NEP 50 for the rest. Kernels that rely on it, published ones first, run natively, on the Python path
(which runs the kernel's source with the compiler's conversions) and on the GPU, against NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

PUBLISHED = (
    KERNEL_PRELUDE
    + """

# GPU Gems 3, chapter 39 (Harris, Sengupta, Owens): the work-efficient exclusive scan of one block
@kernel
def prescan(g_odata: Array[f32], g_idata: Array[f32], n: i32):
    temp = gpu.shared_array(f32, 512)
    thid = gpu.thread_idx_x()
    offset = 1
    temp[2 * thid] = g_idata[2 * thid]
    temp[2 * thid + 1] = g_idata[2 * thid + 1]
    d = n >> 1
    while d > 0:
        gpu.syncthreads()
        if thid < d:
            ai = offset * (2 * thid + 1) - 1
            bi = offset * (2 * thid + 2) - 1
            temp[bi] += temp[ai]
        offset *= 2
        d >>= 1
    if thid == 0:
        temp[n - 1] = 0
    d = 1
    while d < n:
        offset >>= 1
        gpu.syncthreads()
        if thid < d:
            ai = offset * (2 * thid + 1) - 1
            bi = offset * (2 * thid + 2) - 1
            t = temp[ai]
            temp[ai] = temp[bi]
            temp[bi] += t
        d *= 2
    gpu.syncthreads()
    g_odata[2 * thid] = temp[2 * thid]
    g_odata[2 * thid + 1] = temp[2 * thid + 1]


# NVIDIA's blog, "Faster Parallel Reductions on Kepler" (Luitjens)
def warpReduceSum(val):
    offset = 16
    while offset > 0:
        val += gpu.shfl_down(val, offset)
        offset //= 2
    return val


def blockReduceSum(val):
    shared = gpu.shared_array(i32, 32)
    lane = gpu.thread_idx_x() % 32
    wid = gpu.thread_idx_x() // 32
    val = warpReduceSum(val)
    if lane == 0:
        shared[wid] = val
    gpu.syncthreads()
    val = shared[lane] if gpu.thread_idx_x() < gpu.block_dim_x() // 32 else 0
    if wid == 0:
        val = warpReduceSum(val)
    return val


@kernel
def deviceReduceKernel(inp: Array[i32], out: Array[i32], N: i32):
    total = 0
    i = gpu.global_tid_x()
    while i < N:
        total += inp[i]
        i += gpu.block_dim_x() * gpu.grid_dim_x()
    total = blockReduceSum(total)
    if gpu.thread_idx_x() == 0:
        gpu.atomic_add(out, 0, total)


# CUDA samples, fastWalshTransform: fwtBatch1Kernel
@kernel
def fwtBatch1Kernel(d_Output: Array[f32], d_Input: Array[f32], log2N: i32):
    N = 1 << log2N
    base = gpu.block_idx_x() << log2N
    s_data = gpu.dynamic_shared_array(f32)
    pos = gpu.thread_idx_x()
    while pos < N:
        s_data[pos] = d_Input[base + pos]
        pos += gpu.block_dim_x()
    pos = gpu.thread_idx_x()
    stride = N >> 2
    while stride > 0:
        lo = pos & (stride - 1)
        i0 = ((pos - lo) << 2) + lo
        i1 = i0 + stride
        i2 = i1 + stride
        i3 = i2 + stride
        gpu.syncthreads()
        D0 = s_data[i0]
        D1 = s_data[i1]
        D2 = s_data[i2]
        D3 = s_data[i3]
        T = D0
        D0 = D0 + D2
        D2 = T - D2
        T = D1
        D1 = D1 + D3
        D3 = T - D3
        T = D0
        s_data[i0] = D0 + D1
        s_data[i1] = T - D1
        T = D2
        s_data[i2] = D2 + D3
        s_data[i3] = T - D3
        stride >>= 2
    if log2N & 1:
        gpu.syncthreads()
        pos = gpu.thread_idx_x()
        while pos < N // 2:
            i0 = pos << 1
            i1 = i0 + 1
            D0 = s_data[i0]
            D1 = s_data[i1]
            s_data[i0] = D0 + D1
            s_data[i1] = D0 - D1
            pos += gpu.block_dim_x()
    gpu.syncthreads()
    pos = gpu.thread_idx_x()
    while pos < N:
        d_Output[base + pos] = s_data[pos]
        pos += gpu.block_dim_x()
"""
)

# each: a kernel body over x (f32), k (i8), n (i32), out (f64); every line once refused
MERGES = {
    "ternary_float": "v = x[t] if t > 2 else 0.1\nout[t] = v * 3",
    "merged_then_scaled": "v = max(n, t)\nw = v * 2**28\nout[t] = w",
    "merged_then_len": "v = max(n, 7)\nw = v * len(x)\nout[t] = w",
    "ternary_then_int": "v = x[t] if t > 2 else 1\nw = v + n\nout[t] = w",
    "negative_into_unsigned": "o = gpu.shared_array(u8, 8)\no[t] = -1 if t > 4 else i8(k[t])\nout[t] = o[t]",
    "wide_into_narrow": "v = i8(300 if t > 4 else i32(n))\nout[t] = v",
    "annotated_float": "v: f32 = 0.1\nout[t] = v * 3",
    "annotated_int": "v: i8 = n + t\nout[t] = v * 2",
    "float_then_f32": "v = 0.1\nif t > 3:\n    v = x[t]\nout[t] = v * 0.1",
    "runtime_float": "v = math.sqrt(f64(t))\nif t > 5:\n    v = x[t]\nout[t] = v * 0.1",
    "runtime_division": "v = x[t]\nif t > 3:\n    v = x.size / 3\nout[t] = f64(v)",
    "runtime_int_wraps": "v = n\nif t > 3:\n    v = x.size * 2000000000\nout[t] = v",
    "min_runtime_overflow": "v = min(k[t], t - 200)\nout[t] = v",
    "ternary_runtime_overflow": "v = k[t] if t > 3 else t * 100\nout[t] = v",
    "literal_then_int": "v = 3\nif t > 5:\n    v = n\nout[t] = v * 2**28",
    "counter_merged": "v = k[t]\nfor v in range(t, t + 3):\n    out[t] += v * 100",
    "returns_merged": "out[t] = pick(t, k[t]) * 100",
    "helper_gets_merged": "v = 0\nif t > 2:\n    v = k[t]\nout[t] = twice(v)",
    # a Python bool or a NumPy bool, as Python returns one operand: a NumPy bool on every path
    "bool_or_then_add": "v = (x[t] > 0.0 or t > 4) + 1\nout[t] = v",
    "bool_max_inverted": "v = ~max(x[t] > 0.0, t > 4)\nout[t] = v",
    "bool_ternary_inverted": "v = x[t] > 0.0 if t > 2 else t > 4\nw = ~v\nout[t] = w",
    "bool_merged_local": "c = False\nif t > 1:\n    c = x[t] > 0.0\nout[t] = c + 0",
    "bool_chain_inverted": "v = ~(t < 5 < x[t] * 10) + 0\nout[t] = v",
    "bool_helper_returns": "out[t] = either(x[t], t) + 1",
    # numbers of two types: the type NumPy promotes them to (Python would return one unconverted)
    "min_int_and_float": "v = min(n, 0.5 * t)\nout[t] = v // 1 + v",
    "ternary_i8_and_float": "v = k[t] if t > 3 else 2.5\nout[t] = v / 3 + v // 2",
    "ternary_f32_and_i8": "v = x[t] if t > 3 else k[t]\nout[t] = v * 1e10",
    "ternary_python_int_and_float": "v = t if t > 3 else 2.5\nout[t] = v // 2 + v / 4",
    "max_i8_and_bool": "v = max(k[t], x[t] > 0.0)\nout[t] = v + 1",
    "or_bool_and_i32": "v = (x[t] > 0.0) or n\nout[t] = v * 2",
    "and_i32_and_float": "v = (n - 100 + t % 2) and 0.5\nout[t] = v",
    # Python ints computed at run time are i64 on every path: beyond 64 bits they wrap (the fuzzer's
    # kernel: natively +1.4e17, where Python's big integer gave -1.5e23)
    "python_int_doubling_wraps": (
        "d = -128\nj = 0\nwhile d < k[t] % 50 and j < 70:\n    d = d * 2 + 1\n    j += 1\nout[t] = d"
    ),
    "python_int_shift_wraps": "e = t + 9223372036854775807\ne <<= 3\nout[t] = e * 4 - t",
    "python_int_negation_wraps": "e = -(t - 9223372036854775807 - 2)\nout[t] = e",
    "python_int_power_wraps": "j = t + 40\nout[t] = 3 ** j + twice(3 ** j) - 2 ** (t + 60)",
}
MERGE_HELPERS = """

def pick(t, v):
    if t > 3:
        return v
    return 5


def twice(v):
    return v * 100


def either(a, m):
    if m > 5:
        return False
    return a > 0.0
"""


def merge_source() -> str:
    kernels = [
        f"@kernel\ndef {name}(x: Array[f32], k: Array[i8], n: i32, out: Array[f64]):\n"
        "    t = gpu.thread_idx_x()\n" + "".join(f"    {line}\n" for line in body.splitlines())
        for name, body in MERGES.items()
    ]
    return KERNEL_PRELUDE + MERGE_HELPERS + "\n\n" + "\n\n".join(kernels)


@pytest.fixture(scope="module")
def published(build_module):
    return build_module(PUBLISHED)


@pytest.fixture(scope="module")
def merges(build_module):
    return build_module(merge_source())


@pytest.fixture(scope="module")
def build_module(tmp_path_factory):
    from conftest import built_package

    opened = []

    def make(source: str):
        name = f"typing_rule_{len(opened)}"
        context = built_package(tmp_path_factory.mktemp(name), name, source, native=True)
        opened.append(context)
        return context.__enter__()

    yield make
    for context in opened:
        context.__exit__(None, None, None)


def _launch(kernel, threads, blocks, args, device, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a conversion the runtime could not place would warn
        kernel.launch(threads, blocks, *args, device=device, **kwargs)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [8, 64, 512])
def test_gpu_gems_scan(published, device: str, n: int) -> None:
    x = np.random.default_rng(n).integers(0, 10, n).astype(np.float32)
    out = np.zeros_like(x)
    _launch(published.prescan, n // 2, 1, (out, x, np.int32(n)), device)
    expected = np.concatenate([[0], np.cumsum(x)[:-1]]).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "blocks", "threads"), [(1000, 4, 128), (100_000, 8, 256), (33, 1, 64)])
def test_blog_block_reduction(published, device: str, n: int, blocks: int, threads: int) -> None:
    x = np.random.default_rng(n).integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(1, np.int32)
    _launch(published.deviceReduceKernel, threads, blocks, (x, out, np.int32(n)), device)
    assert out[0] == x.sum()


def _hadamard(log2n: int) -> np.ndarray:
    h = np.ones((1, 1))
    for _ in range(log2n):
        h = np.block([[h, h], [h, -h]])
    return h


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("log2n", [6, 7, 8])
def test_cuda_samples_walsh_transform(published, device: str, log2n: int) -> None:
    n, batch = 1 << log2n, 3
    x = np.random.default_rng(log2n).integers(-4, 5, (batch, n)).astype(np.float32)
    out = np.zeros_like(x)
    args = (out.reshape(-1), x.reshape(-1), np.int32(log2n))
    _launch(published.fwtBatch1Kernel, min(n // 4, 256), batch, args, device, shared_bytes=4 * n)
    np.testing.assert_array_equal(out, (x.astype(np.float64) @ _hadamard(log2n)).astype(np.float32))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("name", sorted(MERGES))
def test_merged_values_mean_the_same_everywhere(merges, name: str, device: str) -> None:
    """Each kernel gives the Python path's outcome and bits natively and on the GPU; on the Python path
    the merged values have the compiler's types (the record in the manifest is applied, with no warning)."""
    kernel = getattr(merges, name)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(8).astype(np.float32)
    k = rng.integers(-128, 128, 8).astype(np.int8)
    results = {d: _outcome(kernel, (x, k, np.int32(100)), d) for d in (device, "cpu-python")}
    assert results[device][0] == results["cpu-python"][0], results
    if results[device][0] is None:  # after a failure, what the other threads wrote is the device's
        np.testing.assert_array_equal(results[device][1], results["cpu-python"][1])


def _outcome(kernel, args, device):  # type: ignore[no-untyped-def]
    """(the exception's type or None, the output) of one launch."""
    out = np.zeros(8)
    try:
        _launch(kernel, 8, 1, (*args, out), device)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        return type(exc).__name__, out
    return None, out


def test_python_path_holds_the_compilers_types(merges) -> None:
    """What the Python path computes with: the literal merged into an i8 is an i8 there too (as written,
    Python would keep the int 0 and ``twice`` would give 0 * 100 as a Python int, but 7 * 100 wraps)."""
    kernel = merges.helper_gets_merged
    func = kernel._cpu_func(0)
    assert func is not kernel.py_func and func.__code__.co_filename == kernel.py_func.__code__.co_filename
    assert "__hh_t" in func.__code__.co_freevars  # the conversions (twice() of an i8 needs none)
    out = np.zeros(8)
    k = np.full(8, 7, np.int8)
    kernel.launch(8, 1, np.zeros(8, np.float32), k, np.int32(1), out, device="cpu-python")
    assert out.tolist() == [0, 0, 0] + [-68.0] * 5  # 7 * 100 in i8: 700 wraps to -68


@pytest.mark.parametrize("device", ["cpu-python", "cpu"])
def test_numbers_of_two_types_take_numpy_s_promotion(merges, device: str) -> None:
    """``k_i8 if c else 2.5`` is an f64 and ``t if c else 2.5`` a Python float on every path, so ``//`` is
    a float floor division wherever the int is chosen (Python would keep the i8 or the int)."""
    x, k = np.zeros(8, np.float32), np.arange(-4, 4, dtype=np.int8) * 9
    out = np.zeros(8)
    merges.ternary_i8_and_float.launch(8, 1, x, k, np.int32(0), out, device=device)
    v = [float(k[t]) if t > 3 else 2.5 for t in range(8)]
    assert out.tolist() == [a / 3 + a // 2 for a in v]
    merges.ternary_python_int_and_float.launch(8, 1, x, k, np.int32(0), out, device=device)
    assert out.tolist() == [a // 2 + a / 4 for a in (float(t) if t > 3 else 2.5 for t in range(8))]


@pytest.mark.parametrize("device", ["cpu-python", "cpu"])
def test_python_ints_wrap_at_64_bits(merges, device: str) -> None:
    """A Python int computed at run time wraps as an i64 on the Python path too (it stays a Python int:
    ``t + 2**63 - 1`` then ``<<= 3`` is ``8 * t - 8`` in 64 bits), whatever the device."""
    out = np.zeros(8)
    _launch(
        merges.python_int_shift_wraps, 8, 1, (np.zeros(8, np.float32), np.zeros(8, np.int8), np.int32(1), out), device
    )
    assert out.tolist() == [float(((t + 2**63 - 1) * 8 * 4 + 2**63) % 2**64 - 2**63 - t) for t in range(8)]
