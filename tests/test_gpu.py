"""GPU tier: the same kernels on the CPU path and on the GPU give bit-identical results."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import hybrid_runtime as hr
import numpy as np
import pytest
from conftest import KERNEL_PRELUDE as HEADER
from conftest import same_bits
from test_differential import differential_kernels, edge_kernels

pytestmark = pytest.mark.gpu


def both(kernel, threads, blocks, *arrays_and_scalars):
    """Run on the CPU (the Python path, the reference) and the GPU with copies of the same inputs; return
    (cpu, gpu) arrays."""
    cpu = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays_and_scalars]
    gpu = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays_and_scalars]
    kernel.launch(threads, blocks, *cpu, device="cpu-python")
    kernel.launch(threads, blocks, *gpu, device="cuda")
    return ([a for a in cpu if isinstance(a, np.ndarray)], [a for a in gpu if isinstance(a, np.ndarray)])


INT_OPS = [
    "a + b",
    "a - b",
    "a * b",
    "a // b",
    "a % b",
    "a << (b & 15)",
    "a >> (b & 7)",
    "a & b",
    "a | b",
    "a ^ b",
    "-a",
    "~a",
    "abs(a)",
    "b // (abs(a) | 1)",  # what follows an abs that wrapped (ptxas took abs to be non-negative, and folded this)
    "(abs(a) < a) * 3",
    "min(a, b)",
    "max(a, b, a ^ b)",
    "a if a > b else b",
    "a ** (b & 7)",
    "(a < b) + (a == b) * 2",
]
FLOAT_OPS = [
    "a + b",
    "a - b",
    "a * b",
    "a / b",
    "a // b",
    "a % b",
    "a * b + a",
    "-a",
    "abs(a)",
    "math.sqrt(abs(a))",
    "min(a, b)",
    "max(a, b)",
    "a * 0.1 + 3",
    "math.fabs(b) - a",
]


def _inputs(dtype: str, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        specials = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, 3.0, -7.5], dtype=dt)
        a = (rng.standard_normal(n) * 100).astype(dt)
        b = (rng.standard_normal(n) * 10).astype(dt)
        a[: len(specials)] = specials
        b[len(specials) : 2 * len(specials)] = specials
        return a, b
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    a[:4] = [0, 1, info.max, info.min]
    b[:4] = [0, -1 if info.min < 0 else 1, 0, 7]
    b[4:8] = 0
    return a, b


@pytest.mark.parametrize("dtype", ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"])
def test_arithmetic_bit_identical(build, dtype):
    ops = FLOAT_OPS if dtype.startswith("f") else INT_OPS
    if dtype.startswith("u"):
        ops = [o for o in ops if o not in ("-a", "abs(a)")]
    lines = "\n".join(f"        out[{k}, i] = {op}" for k, op in enumerate(ops))
    np_dtype = np.dtype({"i": "int", "u": "uint", "f": "float"}[dtype[0]] + dtype[1:])
    b = build(
        HEADER
        + f"""
@kernel
def ops(x: Array[{dtype}], y: Array[{dtype}], out: Array[{dtype}, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        a = x[i]
        b = y[i]
{lines}
"""
    )
    n = 4096
    a, bb = _inputs(np_dtype.name, n, np.random.default_rng(7))
    out = np.zeros((len(ops), n), dtype=np_dtype)
    (_, _, cpu), (_, _, gpu) = both(b.module.ops, 256, n // 256, a, bb, out)
    for k, op in enumerate(ops):
        assert same_bits(cpu[k], gpu[k]), f"{dtype}: {op} differs at {np.flatnonzero(cpu[k] != gpu[k])[:5]}"


def test_transcendentals_close(build):
    b = build(
        HEADER
        + """
@kernel
def k(x: Array[f64], out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        v = x[i]
        out[0, i] = math.exp(v)
        out[1, i] = math.log(abs(v) + 1)
        out[2, i] = math.sin(v) + math.cos(v) + math.tan(v)
        out[3, i] = math.tanh(v) + math.erf(v) + math.log2(abs(v) + 1)
        out[4, i] = math.pow(abs(v), 0.3) + v ** 2 + abs(v) ** 1.7
"""
    )
    x = np.random.default_rng(3).uniform(-5, 5, 2048)
    out = np.zeros((5, 2048))
    (_, cpu), (_, gpu) = both(b.module.k, 128, 16, x, out)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-14, atol=1e-15)


def test_mandelbrot_example_gpu_equals_cpu():
    hybrid_demo = pytest.importorskip("hybrid_demo")
    cpu = hybrid_demo.render_cpu_threads(160, 120, 100)
    gpu = hybrid_demo.render_kernel(160, 120, 100, device="cuda")
    assert np.array_equal(cpu, gpu)


def test_shared_memory_reduction_and_atomics(build):
    b = build(
        HEADER
        + """
@kernel
def block_sum(x: Array[i64], out: Array[i64], hist: Array[u32], total: Array[i64]):
    buf = gpu.shared_array(i64, 128)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    buf[t] = x[i] if i < len(x) else i64(0)
    gpu.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        gpu.syncthreads()
        s //= 2
    if t == 0:
        out[gpu.block_idx_x()] = buf[0]
        gpu.atomic_add(total, 0, buf[0])
    if i < len(x):
        gpu.atomic_add(hist, x[i] % len(hist), 1)
        gpu.atomic_max(total, 1, x[i])
        gpu.atomic_min(total, 2, x[i])
"""
    )
    x = np.random.default_rng(5).integers(-1000, 1000, 1000).astype(np.int64)
    out = np.zeros(8, np.int64)
    hist = np.zeros(10, np.uint32)
    total = np.array([0, -(10**9), 10**9], dtype=np.int64)
    (_, cpu_out, cpu_hist, cpu_total), (_, gpu_out, gpu_hist, gpu_total) = both(
        b.module.block_sum, 128, 8, x, out, hist, total
    )
    assert np.array_equal(cpu_out, gpu_out) and np.array_equal(cpu_hist, gpu_hist)
    assert np.array_equal(cpu_total, gpu_total)
    assert gpu_total.tolist() == [x.sum(), x.max(), x.min()]


def test_strided_views_and_read_only_inputs(build):
    b = build(
        HEADER
        + """
@kernel
def k(a: Array[f32, 2], out: Array[f32, 2]):
    r = gpu.global_tid_y()
    c = gpu.global_tid_x()
    if r < out.shape[0] and c < out.shape[1]:
        out[r, c] = a[c, r] * 3.0
"""
    )
    a = np.arange(48, dtype=np.float32).reshape(6, 8)
    a.flags.writeable = False  # not written by the kernel: never copied back
    big = np.zeros((16, 12), np.float32)
    out = big[::2, ::2]
    b.module.k.launch((8, 8), (1, 1), a, out, device="cuda")
    assert np.array_equal(out, a.T * np.float32(3))
    assert not big[1::2].any()


def test_device_arrays_and_cuda_array_interface(build):
    b = build(
        HEADER
        + """
@kernel
def add(x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = x[i] + y[i]
"""
    )
    x = np.arange(1000, dtype=np.float32)
    dx = hr.to_device(x)
    dy = hr.device_array(1000, np.float32)
    dy.copy_from_host(np.ones(1000, np.float32))
    b.module.add[4, 256](dx, dy)  # asynchronous on device arrays
    b.module.add[4, 256](dx, dy)
    assert np.array_equal(hr.copy_to_host(dy), 2 * x + 1)
    cp = pytest.importorskip("cupy")
    cy = cp.zeros(1000, dtype=cp.float32)
    b.module.add.launch(256, 4, dx, cy, device="cuda")
    assert np.array_equal(cp.asnumpy(cy), x)
    with pytest.raises(TypeError, match="`x` expects Array\\[f32\\], got an array of float64"):
        b.module.add.launch(256, 4, cp.zeros(1000), cy, device="cuda")


def test_missing_ptx_is_a_clear_error(tmp_path):
    pkg = tmp_path / "nobuild"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        from hybrid_runtime import kernel, Array, f32
        @kernel
        def k(x: Array[f32]):
            x[0] = 1.0
    """)
    )
    code = (
        "import numpy as np, nobuild, hybrid_runtime as hr\n"
        "try:\n    nobuild.k.launch(1, 1, np.zeros(1, np.float32), device='cuda')\n"
        "except hr.ManifestError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert "has no compiled GPU code" in out.stdout and "device='cpu'" in out.stdout


def test_cuda_error_names_the_kernel(build):
    b = build(
        HEADER
        + """
@kernel
def wild(x: Array[f32], offset: i64):
    x[offset] = 1.0
"""
    )
    code = (
        f"import sys, numpy as np, hybrid_runtime as hr\nsys.path.insert(0, {str(b.package_dir.parent)!r})\n"
        f"from {b.package_dir.name}.kern import wild\n"
        "try:\n    wild.launch(1, 1, np.zeros(4, np.float32), 1 << 30, device='cuda')\n"
        "except hr.CudaError as e:\n    print('CudaError:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "CudaError:" in out.stdout, out.stderr
    assert "wild" in out.stdout
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in out.stdout or "CUDA_ERROR_INVALID_ADDRESS_SPACE" in out.stdout


def test_second_package_gpu_equals_cpu():
    hybrid_ext = pytest.importorskip("hybrid_ext")
    rng = np.random.default_rng(11)
    x = rng.standard_normal(10_000).astype(np.float32)
    y = rng.standard_normal(10_000).astype(np.float32)
    for kernel, args in [
        (hybrid_ext.axpby, (np.float32(2.5), x, np.float32(-0.75), y.copy())),
        (hybrid_ext.blend, (x, y, np.float32(0.3), np.zeros_like(x))),
    ]:
        cpu, gpu = both(kernel, 256, 40, *args)
        assert same_bits(cpu[-1], gpu[-1])
    assert np.array_equal(
        hybrid_ext.histogram(300, 200, 80, device="cpu"), hybrid_ext.histogram(300, 200, 80, device="cuda")
    )
    # hybrid_demo's kernel, launched from hybrid_ext: PTX from hybrid_demo's wheel
    out_cpu, out_gpu = y.copy(), y.copy()
    hybrid_ext.scaled_saxpy(1.25, x, out_cpu, device="cpu")
    hybrid_ext.scaled_saxpy(1.25, x, out_gpu, device="cuda")
    assert same_bits(out_cpu, out_gpu)


def test_cubin_for_this_gpu_is_preferred_over_ptx():
    hybrid_demo = pytest.importorskip("hybrid_demo")
    from hybrid_runtime.device import get_device
    from hybrid_runtime.manifest import package_manifest

    manifest = package_manifest("hybrid_demo")
    entry = manifest.kernel("hybrid_demo.saxpy.saxpy")
    major, minor = get_device(0).compute_capability
    name, code = manifest.best_code(entry, (major, minor), "saxpy")
    if f"sm_{major}{minor}" in entry.get("cubin", {}):
        assert name.endswith(".cubin") and code.startswith(b"\x7fELF")
    else:
        assert name.endswith(".ptx")
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, dtype=np.float32)
    hybrid_demo.saxpy.launch(64, 1, np.float32(2), x, y, device="cuda")
    assert np.array_equal(y, 2 * np.arange(64, dtype=np.float32) + 1)


def test_warp_shuffles_and_votes_gpu_equals_cpu(build):
    from test_cpu_path import WARP_SOURCE

    b = build(HEADER + WARP_SOURCE)
    x = np.random.default_rng(9).random(256, dtype=np.float32)
    (_, cpu_out, cpu_votes), (_, gpu_out, gpu_votes) = both(
        b.module.warp_ops, 128, 2, x, np.zeros_like(x), np.zeros(24, dtype=np.int64)
    )
    assert same_bits(cpu_out, gpu_out)
    assert np.array_equal(cpu_votes, gpu_votes)


def test_streams_events_pinned_memory_and_graphs(build):
    b = build(
        HEADER
        + """
@kernel
def add_one(x: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        x[i] = x[i] + 1.0
"""
    )
    k = b.module.add_one
    n = 1 << 20
    stream = hr.Stream()
    host = hr.pinned_array(n, np.float32)
    host[:] = np.arange(n, dtype=np.float32)
    dev = hr.device_array(n, np.float32)
    start, stop = hr.Event(), hr.Event()
    start.record(stream)
    dev.copy_from_host(host, stream=stream)
    for _ in range(3):
        k[n // 256, 256, stream](dev)
    dev.copy_to_host(out=host, stream=stream)
    stop.record(stream)
    stream.synchronize()
    assert np.array_equal(host, np.arange(n, dtype=np.float32) + 3)
    assert start.elapsed_ms(stop) > 0
    with hr.Graph(stream) as graph:
        for _ in range(5):
            k[n // 256, 256, stream](dev)
    graph.launch()
    graph.launch()
    stream.synchronize()
    assert np.array_equal(dev.copy_to_host(), np.arange(n, dtype=np.float32) + 13)


def test_dlpack_and_cuda_array_interface_in_place():
    torch = pytest.importorskip("torch")
    hybrid_demo = pytest.importorskip("hybrid_demo")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    y = torch.ones(1000, dtype=torch.float32, device="cuda")

    class DLPackOnly:  # like a JAX array: DLPack, no __cuda_array_interface__
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    hybrid_demo.saxpy.launch(256, 4, np.float32(2), DLPackOnly(x), y, device="cuda")  # y via CAI, x via DLPack
    torch.cuda.synchronize()
    assert torch.equal(y, 2 * torch.arange(1000, dtype=torch.float32, device="cuda") + 1)
    d = hr.to_device(np.arange(10, dtype=np.float32))
    t = torch.from_dlpack(d)  # DeviceArray exports DLPack: same memory
    t += 1
    assert np.array_equal(d.copy_to_host(), np.arange(10, dtype=np.float32) + 1)
    with pytest.raises(TypeError, match="`x` expects Array\\[f32\\]: .*not a CUDA array"):
        hybrid_demo.saxpy.launch(256, 4, np.float32(2), DLPackOnly(torch.zeros(3)), y, device="cuda")


def test_concurrent_launches_from_threads_load_the_module_once(build):
    import threading

    b = build(
        HEADER
        + """
@kernel
def fill(x: Array[i64], v: i64):
    i = gpu.global_tid_x()
    if i < len(x):
        x[i] = v
"""
    )
    k = b.module.fill
    loads = []
    from hybrid_runtime.driver import initialise

    cu = initialise()
    real, real_ex = cu.cuModuleLoadData, cu.cuModuleLoadDataEx

    def counting(image):
        loads.append(len(image))
        return real(image)

    def counting_ex(image, *options):  # PTX: loaded with the JIT option that keeps line information
        loads.append(len(image))
        return real_ex(image, *options)

    cu.cuModuleLoadData, cu.cuModuleLoadDataEx = counting, counting_ex
    try:
        outs = [hr.device_array(4096, np.int64) for _ in range(8)]
        errors = []

        def work(j):
            try:
                for _ in range(50):
                    k[16, 256](outs[j], j)
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(j,)) for j in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        hr.synchronize()
    finally:
        cu.cuModuleLoadData, cu.cuModuleLoadDataEx = real, real_ex
    assert not errors
    assert all(np.array_equal(o.copy_to_host(), np.full(4096, j)) for j, o in enumerate(outs))
    assert len(loads) == 1  # one module per context, whichever entry points (and threads) use it


def test_devices_and_arrays_on_other_devices():
    devs = hr.devices()
    assert devs and devs[0].ordinal == 0
    with pytest.raises(ValueError, match="does not exist"):
        hr.device_array(4, np.float32, device=f"cuda:{len(devs)}")


def test_differential_gpu_equals_cpu(build):
    """The differential tier's random expressions, as kernels over arrays: GPU bits == CPU-path bits."""
    differential_kernels(build, bodies=False, device="cuda")


@pytest.mark.gpu
def test_differential_bodies_gpu_equals_cpu(build):
    """The differential tier's random kernel bodies (locals, if/else, loops with break, a helper)."""
    differential_kernels(build, bodies=True, device="cuda")


def test_both_index_entry_points_give_the_same_result(build):
    """Arrays whose offsets fit in 32 bits launch the kernel's 32-bit-index entry point; others the
    general one. Forcing the general one changes nothing but the code that runs."""
    b = build(
        HEADER
        + """
@kernel
def shift(src: Array[f32, 2], dst: Array[f32, 2]):
    j = gpu.global_tid_x()
    i = gpu.global_tid_y()
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j] * f32(2.0) + src[-1 - i, j]
"""
    )
    src = hr.to_device(np.random.default_rng(0).standard_normal((64, 48)).astype(np.float32))
    outs = []
    for small in (True, False):
        dst = hr.device_array((64, 48), np.float32)
        src._small = dst._small = small
        b.module.shift[(3, 4), (16, 16)](src, dst)
        outs.append(dst.copy_to_host())
    host = src.copy_to_host()
    assert np.array_equal(outs[0], outs[1])
    assert np.array_equal(outs[0], host * np.float32(2.0) + host[::-1])
    plan = b.module.shift._plans[(0, 0)]
    assert plan.handle32 is not None


MATH_ULPS = {"sqrt": 0, "exp": 4, "log": 4, "sin": 4, "cos": 4, "tan": 4, "erf": 4, "erfc": 6, "atan": 4, "pow": 4}


def test_math_functions_on_the_gpu_within_documented_ulps_of_the_cpu(build):
    """libdevice (GPU) against the C library (the Python path, and the native CPU code that calls the
    same functions): docs/language.md's bound, in units in the last place of the f64 result."""
    names = sorted(MATH_ULPS)
    body = "\n".join(
        f"        out[i, {k}] = math.{name}(x[i]{', 1.5' if name == 'pow' else ''})" for k, name in enumerate(names)
    )
    b = build(
        HEADER
        + f"""
@kernel
def functions(x: Array[f64], out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
{body}
"""
    )
    x = np.random.default_rng(5).uniform(0.01, 20.0, 4096)
    x[:8] = [0.5, 1.0, 2.0, 3.141592653589793, 10.0, 0.1, 7.25, 19.5]
    (cpu, gpu) = both(b.module.functions, 128, 32, x, np.zeros((4096, len(names))))
    for k, name in enumerate(names):
        a, g = cpu[1][:, k], gpu[1][:, k]
        ulps = np.abs(a.view(np.int64) - g.view(np.int64))
        assert ulps.max() <= MATH_ULPS[name], f"math.{name}: {ulps.max()} ulps (x = {x[ulps.argmax()]!r})"


@pytest.mark.gpu
def test_differential_edges_gpu_equals_python_path(build, tmp_path):
    """Issue 22's edge shapes on the GPU: the same bits or the same exception and line as the Python path."""
    edge_kernels(build, tmp_path, device="cuda", examples=12)
