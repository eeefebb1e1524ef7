"""The WebGPU target (issue 21): kernels rendered to WGSL, run through the wgpu package (lavapipe's Vulkan
on a CPU in CI, a GPU's driver elsewhere) and compared with the native CPU code bit for bit; what the
target refuses is not built for it, with the reason in the manifest and at launch; failed checks and bad
arguments raise as on the other devices."""

from __future__ import annotations

import math
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import HOST_TARGETS, imported_package, same_bits
from hybrid_runtime.manifest import package_manifest

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.hook.artifacts import write_package_artifacts
from hatch_hybrid.pipeline import Options, compile_packages

ROOT = Path(__file__).resolve().parent.parent


def _options() -> Options:
    return Options(["sm_90"], cubin=False, cpu=HOST_TARGETS, cpu_sanitize=False, wgsl=True, cache=KernelCache(None))


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory):
    """benchmarks/bench_kernels built with native code and WGSL, imported as its wheel installs it."""
    root = tmp_path_factory.mktemp("wgpu_bench")
    shutil.copytree(ROOT / "benchmarks" / "bench_kernels" / "bench_kernels", root / "bench_kernels")
    kernels = compile_packages([root / "bench_kernels"], options=_options())
    write_package_artifacts(kernels, ["sm_90"], root)
    sys.path.insert(0, str(root))
    try:
        import bench_kernels.kernels as module

        yield module, {k.decl.label: k for k in kernels}
    finally:
        sys.path.remove(str(root))
        for m in [m for m in sys.modules if m.split(".")[0] == "bench_kernels"]:
            del sys.modules[m]


#: What WebGPU's results are compared with: native code where zig can build it, else the Python path (the
#: GPU host, where the wheels carried for a device run leave no room for zig's)
CPU = "cpu" if HOST_TARGETS else "cpu-python"


def _both(kernel, threads, blocks, *args):
    """Launch on the native CPU and through WebGPU with copies of the same arguments; both results."""
    results = []
    for device in (CPU, "wgpu"):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        kernel.launch(threads, blocks, *copies, device=device)
        results.append(copies)
    return results


@pytest.mark.wgpu
def test_bench_kernels_match_native_cpu_bit_for_bit(bench):
    module, compiled = bench
    rng = np.random.default_rng(1)
    x = rng.standard_normal(10_000).astype(np.float32)
    y = rng.standard_normal(10_000).astype(np.float32)
    cpu, gpu = _both(module.saxpy, 256, 40, np.float32(1.7), x, y)
    assert same_bits(cpu[2], gpu[2]) and not same_bits(cpu[2], y)
    a = rng.standard_normal((64, 48)).astype(np.float32)
    b = rng.standard_normal((48, 32)).astype(np.float32)
    cpu, gpu = _both(module.matmul, (16, 16), (2, 4), a, b, np.zeros((64, 32), np.float32))
    assert same_bits(cpu[2], gpu[2])
    np.testing.assert_allclose(gpu[2], a @ b, rtol=1e-5, atol=1e-5)
    src = rng.standard_normal((70, 90)).astype(np.float32)
    for name in ("stencil", "blur"):
        cpu, gpu = _both(getattr(module, name), (16, 16), (6, 5), src, np.zeros_like(src))
        assert same_bits(cpu[1], gpu[1]) and np.any(gpu[1] != 0), name
    keys = rng.standard_normal(4096).astype(np.float32)
    cpu, gpu = _both(module.bitonic_pass, 256, 16, keys, 4, 8)
    assert same_bits(cpu[0], gpu[0]) and not same_bits(keys, gpu[0])
    # f32 + i32 is an f64 (NumPy's promotion): the shader computes in f64 (the adapter's shader-f64)
    empty16 = compiled["empty16"].codes.get("wgsl")
    assert empty16 is not None and "shader-f64" in empty16.features
    scalars = [np.int32(-1), np.int32(7), np.int32(-3), np.int32(2**30), *np.float32([0.1, 1e8, -1e8, 3.3])]
    cpu, gpu = _both(module.empty16, 32, 1, *[x[:8].copy() for _ in range(8)], *scalars)
    assert same_bits(cpu[0], gpu[0]) and cpu[0][0] != x[0]


@pytest.mark.wgpu
def test_examples_match_native_cpu(tmp_path: Path):
    """The example projects' kernels (structs and methods, generic kernels, enums, atomics, helpers from
    other packages) through WebGPU and natively: the same bits."""
    for name in ("hybrid_demo", "mathlets", "hybrid_sort", "hybrid_ext"):
        shutil.copytree(ROOT / "example_project" / name / name, tmp_path / name)
    packages = [tmp_path / n for n in ("hybrid_demo", "hybrid_sort", "hybrid_ext")]
    kernels = compile_packages(packages, options=_options(), search_path=[str(tmp_path), *sys.path])
    assert all(k.codes.get("wgsl") is not None for k in kernels), {k.decl.label: k.not_built for k in kernels}
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    examples = ("hybrid_demo", "mathlets", "hybrid_sort", "hybrid_ext")
    for m in [m for m in sys.modules if m.split(".")[0] in examples]:
        del sys.modules[m]  # another test of this process may have imported them (built without WebGPU)
    package_manifest.cache_clear()
    sys.path.insert(0, str(tmp_path))
    try:
        import hybrid_demo
        import hybrid_ext
        import hybrid_sort.bitonic as bitonic

        out = [np.zeros((40, 56), np.int32) for _ in range(2)]
        for device, o in zip((CPU, "wgpu"), out):
            view = (np.float32(-2.0), np.float32(-1.2), np.float32(0.05), np.float32(0.06), np.int32(64))
            hybrid_demo.mandelbrot_kernel.launch((16, 16), (4, 3), o, *view, device=device)
        assert same_bits(out[0], out[1]) and len(np.unique(out[1])) > 5
        hist = [hybrid_ext.histogram(48, 40, 50, device=d) for d in (CPU, "wgpu")]
        assert same_bits(hist[0], hist[1]) and hist[1].sum() == 48 * 40
        for dtype in (np.float32, np.uint32, np.int32):
            keys = (np.random.default_rng(3).standard_normal(512) * 1000).astype(dtype)
            got = [keys.copy(), keys.copy()]
            for device, k in zip((CPU, "wgpu"), got):
                bitonic.bitonic_pass.launch(256, 1, k, 1, 2, bitonic.SortOrder.DESCENDING, device=device)
            assert same_bits(got[0], got[1]), dtype
    finally:
        sys.path.remove(str(tmp_path))
        for m in [m for m in sys.modules if m.split(".")[0] in examples]:
            del sys.modules[m]
        package_manifest.cache_clear()


CHECKS = """
from hybrid_runtime import Array, f32, f64, i32, i64, u64, gpu, kernel

@kernel
def checked(x: Array[i32], out: Array[i32], d: i64):
    i = gpu.global_tid_x()
    if i < len(x):
        assert x[i] >= 0, "negative input"
        out[i] = 100 // int(d)

@kernel
def stored(x: Array[f32], out: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = x[i]

@kernel
def wide(x: Array[f32], out: Array[f32], s: f64):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = x[i] * s

@kernel(debug=True)
def shifted(x: Array[i32, 2], out: Array[i32], k: i64, j: i64):
    i = gpu.global_tid_x()
    t = gpu.local_array(i32, 8)
    t[i] = x[i, i + k]
    out[i] = t[i - j]
    out[i] += x[j - i][0]

@kernel(debug=True)
def pick(x: Array[i32, 2], out: Array[i32], k: u64, r: u64):
    out[0] = x[k, 0]
    out[1] = x[r][1]
"""


@pytest.mark.wgpu
def test_failed_checks_and_bad_arguments_raise_as_on_other_devices(tmp_path: Path):
    kernels = compile_packages([_package(tmp_path, "wgchecks", CHECKS)], options=_options())
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    by_name = {k.decl.label: k for k in kernels}
    assert by_name["wide"].codes.get("wgsl") is not None and "shader-f64" in by_name["wide"].codes["wgsl"].features
    with imported_package(tmp_path, "wgchecks") as kern:
        x = np.arange(64, dtype=np.int32)
        out = np.zeros(64, np.int32)
        kern.checked.launch(64, 1, x, out, 7, device="wgpu")
        assert (out == 14).all()
        x[37] = -1
        with pytest.raises(
            AssertionError, match=r"kernel .*checked: assertion failed: negative input \(wgchecks/kern.py:8"
        ):
            kern.checked.launch(64, 1, x, out, 7, device="wgpu")
        with pytest.raises(ZeroDivisionError, match=r"wgchecks/kern.py:9"):
            kern.checked.launch(64, 1, np.abs(x), out, 0, device="wgpu")
        for device in (CPU, "wgpu"):  # NumPy refuses NaN and out-of-range floats stored into ints
            with pytest.raises(ValueError, match=r"cannot convert float NaN to integer \(wgchecks/kern.py:15"):
                kern.stored.launch(4, 1, np.array([1, np.nan, 2, 3], np.float32), np.zeros(4, np.int32), device=device)
            with pytest.raises(OverflowError, match=r"Python integer 3000000000 out of bounds for int32"):
                kern.stored.launch(4, 1, np.array([1, 3e9, 2, 3], np.float32), np.zeros(4, np.int32), device=device)
        # on device arrays alone a launch does not wait for the GPU: its failed check raises at the next
        # synchronisation (or copy to the host), once, as on the CUDA path
        from hybrid_runtime import synchronize, wgpu_device

        xd, outd = wgpu_device.to_device(x), wgpu_device.to_device(out)
        kern.checked.launch(64, 1, xd, outd, 7, device="wgpu")
        kern.checked.launch(64, 1, xd, outd, 7, device="wgpu")
        with pytest.raises(AssertionError, match=r"negative input \(wgchecks/kern.py:8"):
            synchronize("wgpu")
        synchronize("wgpu")  # reported once
        kern.checked.launch(64, 1, xd, outd, 7, device="wgpu")
        with pytest.raises(AssertionError, match=r"negative input \(wgchecks/kern.py:8"):
            outd.copy_to_host()
        xd.copy_from_host(np.abs(x))
        outd.copy_from_host(np.zeros(64, np.int32))
        kern.checked.launch(64, 1, xd, outd, 7, device="wgpu")
        np.testing.assert_array_equal(outd.copy_to_host(), np.full(64, 14, np.int32))
        with pytest.raises(TypeError, match="`out`"):
            kern.checked.launch(64, 1, x, out.astype(np.float32), 7, device="wgpu")
        # an array larger than the adapter binds: a ValueError naming it, before anything runs (was wgpu's
        # validation error naming a binding number); np.zeros does not touch the memory
        most = wgpu_device.get_device().limits["max-storage-buffer-binding-size"]
        huge = np.zeros(most // 4 + 1, np.int32)
        with pytest.raises(ValueError, match=rf"parameter `out` is {huge.nbytes} bytes; this WebGPU adapter binds at"):
            kern.checked.launch(64, 1, x, huge, 7, device="wgpu")
        # @kernel(debug=True): every index checked against its dimension (negative ones from the end), with
        # NumPy's IndexError and the line, as on the other devices (k = -8 wraps from the end and passes; one
        # thread fails in each of the others: x's axis 1 at 8 and at -9, the local array's axis 0 at 8, the
        # row view x[j - i]'s at 8)
        m = np.arange(64, dtype=np.int32).reshape(8, 8)
        from hybrid_runtime import cuda_available

        debug_gpu = ("cuda",) if cuda_available() else ()  # the same checks in the PTX, where there is a GPU
        for k, j, where in (
            (0, 0, None),
            (-8, 0, None),
            (1, 0, (8, 1, 27)),
            (-9, 0, (-9, 1, 27)),
            (0, -1, (8, 0, 28)),
            (0, 8, (8, 0, 29)),
        ):
            got = {}
            for device in (CPU, "wgpu", *debug_gpu):
                out8 = np.zeros(8, np.int32)
                if where is None:
                    kern.shifted.launch(8, 1, m, out8, k, j, device=device)
                    got[device] = out8
                    continue
                bad, axis, line = where
                said = rf"index {bad} is out of bounds for axis {axis} with size 8 \(wgchecks/kern.py:{line}"
                with pytest.raises(IndexError, match=said):
                    kern.shifted.launch(8, 1, m, out8, k, j, device=device)
            if got:
                for device in got:
                    np.testing.assert_array_equal(got[device], got[CPU])
                rows = np.arange(8)
                np.testing.assert_array_equal(got[CPU], m[rows, (rows + k) % 8] + m[(j - rows) % 8, 0])
        # a u64 index of 2**63 or more is not a negative one: NumPy raises OverflowError, and so does every device
        top = 2**64 - 1
        for k, r, where in ((3, 5, None), (top, 0, (top, 33)), (0, top, (top, 34)), (8, 0, (8, 33))):
            for device in (*dict.fromkeys((CPU, "cpu-python")), "wgpu", *debug_gpu):
                out8 = np.zeros(8, np.int32)
                if where is None:
                    kern.pick.launch(1, 1, m, out8, np.uint64(k), np.uint64(r), device=device)
                    np.testing.assert_array_equal(out8[:2], [m[3, 0], m[5, 1]])
                    continue
                said = rf"index {where[0]} is out of bounds for axis 0 with size 8 \(wgchecks/kern.py:{where[1]}"
                error = IndexError
                if where[0] == top:  # NumPy makes no index of it
                    error, said = (
                        OverflowError,
                        rf"Python int too large to convert to C long \(wgchecks/kern.py:{where[1]}",
                    )
                with pytest.raises(error, match=said):
                    kern.pick.launch(1, 1, m, out8, np.uint64(k), np.uint64(r), device=device)
        x32 = np.random.default_rng(2).standard_normal(64).astype(np.float32)
        wide = _both(kern.wide, 64, 1, x32, np.zeros(64, np.float32), 0.1)  # x * 0.1 in f64, rounded to f32
        assert same_bits(wide[0][1], wide[1][1])
        np.testing.assert_array_equal(wide[1][1], (x32.astype(np.float64) * 0.1).astype(np.float32))


LOOPS = """
from hybrid_runtime import Array, f32, i64, gpu, kernel
from hybrid_runtime import cuda

@kernel
def strided(x: Array[f32], out: Array[f32, 2], step: i64):
    i, j = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if i < out.shape[0] and j < out.shape[1]:
        acc = f32(0)
        first = i + j if step > 0 else len(x) - 1 - (i + j)
        last = len(x) if step > 0 else -1
        for k in range(first, last, step):  # a step known at run time, of either sign (0: ValueError)
            acc += x[k] * f32(k)
        out[i, j] = acc + f32(w * 1000 + h)
"""


@pytest.mark.wgpu
def test_grid_tuples_and_range_steps_known_at_run_time(tmp_path: Path):
    kernels = compile_packages([_package(tmp_path, "wgloops", LOOPS)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    x = np.random.default_rng(2).standard_normal(100).astype(np.float32)
    with imported_package(tmp_path, "wgloops") as kern:
        for step in (3, 1, -2):
            got = []
            for device in (CPU, "wgpu"):
                out = np.zeros((6, 5), np.float32)
                kern.strided.launch((4, 4), (2, 2), x, out, step, device=device)
                got.append(out)
            assert same_bits(got[0], got[1]), step
            assert np.all(got[1] != np.floor(got[1])), step  # every cell summed something
        for device in (
            *dict.fromkeys((CPU, "cpu-python")),
            "wgpu",
        ):  # Python's range refuses a step of 0: every path does
            with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero \(wgloops/kern.py:13"):
                kern.strided.launch((4, 4), (2, 2), x, np.zeros((6, 5), np.float32), 0, device=device)


TALK = """
from hybrid_runtime import Array, f32, gpu, kernel

@kernel
def through_memory(x: Array[f32], scratch: Array[f32], out: Array[f32]):
    # threads of a block pass values through a storage buffer across a barrier, as CUDA allows
    i = gpu.global_tid_x()
    scratch[i] = x[i] * f32(2)
    gpu.syncthreads()
    t = gpu.thread_idx_x()
    n = gpu.block_dim_x()
    out[i] = scratch[i - t + (t + 1) % n]

@kernel
def tiles(x: Array[f32], out: Array[f32]):
    # threads talk through shared memory only: the buffer written is never read
    tile = gpu.shared_array(f32, 64)
    t = gpu.thread_idx_x()
    tile[t] = x[gpu.global_tid_x()]
    gpu.syncthreads()
    out[gpu.global_tid_x()] = tile[63 - t] * x[t] + f32(1)

@kernel
def chained(x: Array[f32], out: Array[f32]):
    # (x*x)*x meets the addition; x*x goes straight into a product and needs no barrier
    i = gpu.global_tid_x()
    out[i] = x[i] * x[i] * x[i] + x[i]
"""


@pytest.mark.wgpu
def test_barriers_order_storage_buffers_where_threads_talk_through_them(tmp_path: Path):
    """syncthreads() orders storage accesses (CUDA's __syncthreads does) only in a shader that reads a buffer it
    writes; elsewhere the second control barrier is left out. Products go through the exact FMA barrier."""
    kernels = compile_packages([_package(tmp_path, "wgtalk", TALK)], options=_options())
    shaders = {k.decl.label: k.codes.get("wgsl").source for k in kernels if k.codes.get("wgsl") is not None}
    assert shaders["through_memory"].count("storageBarrier();") == 1
    assert "storageBarrier" not in shaders["tiles"] and shaders["tiles"].count("workgroupBarrier();") == 1
    assert "return bitcast<f32>(bitcast<u32>(x) | hh_p.hh_zero);" in shaders["tiles"]
    assert shaders["chained"].count("hh_nofma(") == 2  # its definition and the outer product
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    x = np.random.default_rng(4).standard_normal(256).astype(np.float32)
    with imported_package(tmp_path, "wgtalk") as kern:
        talk = _both(kern.through_memory, 64, 4, x, np.zeros(256, np.float32), np.zeros(256, np.float32))
        assert same_bits(talk[0][2], talk[1][2])
        np.testing.assert_array_equal(talk[1][2], np.roll((x * 2).reshape(4, 64), -1, axis=1).ravel())
        tiled = _both(kern.tiles, 64, 4, x, np.zeros(256, np.float32))
        assert same_bits(tiled[0][1], tiled[1][1])
        chained = _both(kern.chained, 64, 4, x, np.zeros(256, np.float32))
        assert same_bits(chained[0][1], chained[1][1])


ROUNDING = """
import math
from hybrid_runtime import Array, f32, f64, gpu, kernel

@kernel
def quotients(a: Array[f32], b: Array[f32], q: Array[f32], r: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(a):
        q[i] = a[i] / b[i]
        r[i] = math.sqrt(abs(a[i]))

@kernel
def quotients64(a: Array[f64], b: Array[f64], q: Array[f64], r: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(a):
        q[i] = a[i] / b[i]
        r[i] = math.sqrt(abs(a[i]))
"""


@pytest.mark.wgpu
@pytest.mark.parametrize("wt", ["f32", "f64"])
def test_division_and_sqrt_are_correctly_rounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wt: str):
    """WGSL lets drivers divide and take roots within 2.5 ulp (NVIDIA's Vulkan driver does, for 29% and 17% of
    random f32 operands), and Vulkan promises f64 only f32's precision: the shader corrects them where the
    adapter's fma is fused, and the same bits as the native CPU come back; an adapter that can do neither
    refuses the kernel at launch."""
    from hybrid_runtime import wgpu_device

    name = {"f32": "quotients", "f64": "quotients64"}[wt]
    kernels = {k.decl.name: k for k in compile_packages([_package(tmp_path, "wground", ROUNDING)], options=_options())}
    code = kernels[name].codes.get("wgsl")
    assert code is not None and f"{wt}-div-sqrt" in code.features
    assert f"hh_div_{wt}(" in code.source and f"hh_sqrt_{wt}(" in code.source
    write_package_artifacts(list(kernels.values()), ["sm_90"], tmp_path)
    rng = np.random.default_rng(7)
    n = 1 << 16
    dtype, span = (np.float32, 60) if wt == "f32" else (np.float64, 500)
    a = (rng.standard_normal(n) * np.exp2(rng.integers(-span, span, n))).astype(dtype)
    b = (rng.standard_normal(n) * np.exp2(rng.integers(-span, span, n))).astype(dtype)
    b[:4] = [0.0, -0.0, np.inf, 1.0]  # operands the driver's own operation takes
    a[:4] = [1.0, 1.0, 1.0, 0.0]
    # significands of all ones and powers of two, squares and their neighbours: the hard cases of rounding
    edge = np.array([1.0, np.nextafter(dtype(1), dtype(2)), np.nextafter(dtype(1), dtype(0)), 3.0, 0.75], dtype)
    a[4:29] = np.repeat(edge, 5) * dtype(2.0) ** rng.integers(-20, 20, 25)
    b[4:29] = np.tile(edge, 5)
    squares = rng.integers(1 << 10, 1 << 11, 30).astype(dtype) ** 2
    a[29:119] = np.concatenate([squares, np.nextafter(squares, dtype(0)), np.nextafter(squares, dtype(np.inf))])
    with imported_package(tmp_path, "wground") as kern:
        launch = getattr(kern, name)
        got = _both(launch, 256, n // 256, a, b, np.zeros(n, dtype), np.zeros(n, dtype))
        assert same_bits(got[0][2], got[1][2]) and same_bits(got[0][3], got[1][3])
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(got[1][2].view(f"u{a.itemsize}"), (a / b).view(f"u{a.itemsize}"))
        dev = wgpu_device.get_device()
        monkeypatch.setattr(dev, "_rounding", {wt: (False, "its fma rounds twice (a test's stand-in)")})
        launch._wgpu.clear()
        with pytest.raises(ValueError, match=rf"{name} divides {wt} values .* cannot round as IEEE 754 does: its fma"):
            launch.launch(256, n // 256, a, b, np.zeros(n, dtype), np.zeros(n, dtype), device="wgpu")


FLOAT64 = """
import math
from hybrid_runtime import Array, f32, f64, i32, i64, u64, gpu, kernel

@kernel
def mixed(x: Array[f64], n: Array[i64], y: Array[f32], out: Array[f64], ints: Array[i64], flags: Array[i32], s: f64):
    i = gpu.global_tid_x()
    if i < len(x):
        v = x[i] * s + 0.1 * y[i] - n[i] / 3          # f64, Python floats and NumPy's promotion
        out[5 * i] = v
        out[5 * i + 1] = math.sqrt(abs(v)) + math.copysign(1.5, x[i])
        out[5 * i + 2] = math.degrees(v) if v > 0.0 else math.fabs(v) ** 2
        out[5 * i + 3] = f32(v)                        # rounded to f32 once
        out[5 * i + 4] = min(v, 2.5) - max(x[i], -1e300)
        ints[2 * i] = math.floor(v) if abs(v) < 1e18 else 7
        ints[2 * i + 1] = i64(v * 1e3) if abs(v) < 1e15 else -1
        flags[i] = math.isinf(x[i]) + 2 * math.isnan(x[i]) + 4 * math.isfinite(v) + 8 * (v >= 0.0)

@kernel
def zeros(x: Array[f32], y: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    out[3 * i] = 0 + x[i]  # +0.0 for x = -0.0: no driver may fold a visible 0.0 + x into x
    out[3 * i + 1] = 0.0 + y[i]
    out[3 * i + 2] = min(f64(1 + x[i]), y[i] - 0.0) + 0.0

@kernel
def shuffled(x: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    out[i] = gpu.shfl_xor(x[i], 5) + gpu.shfl_down(x[i], 1)
"""


@pytest.mark.wgpu
def test_f64_kernels_match_native_cpu(tmp_path: Path):
    """f64 values (Python floats too) through the adapter's shader-f64: arithmetic with NumPy's promotion,
    conversions both ways, the math functions IEEE 754 fixes, comparisons, classifications of NaN and
    infinities by their bits, warp shuffles as two 32-bit halves; the same bits as native code."""
    kernels = {k.decl.name: k for k in compile_packages([_package(tmp_path, "wgf64", FLOAT64)], options=_options())}
    for k in kernels.values():
        assert k.codes.get("wgsl") is not None and "shader-f64" in k.codes.get("wgsl").features, k.not_built
    write_package_artifacts(list(kernels.values()), ["sm_90"], tmp_path)
    rng = np.random.default_rng(11)
    n = 512
    x = rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))
    x[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 5e-324]
    ints = rng.integers(-(10**12), 10**12, n)
    y = rng.standard_normal(n).astype(np.float32)
    with imported_package(tmp_path, "wgf64") as kern:
        outs = np.zeros(5 * n), np.zeros(2 * n, np.int64), np.zeros(n, np.int32)
        with np.errstate(all="ignore"):
            cpu, gpu = _both(kern.mixed, 128, n // 128, x, ints, y, *outs, 1.0 / 3.0)
        assert same_bits(cpu[3], gpu[3])
        # WGSL lets drivers assume no NaN or infinity arises (docs/wgpu.md): NVIDIA's compiler folds isfinite(v)
        # of a computed v to True, so the classifications agree where the values are finite (and an infinite
        # float converted to an int is platform-defined in NumPy: saturated on the GPU and natively)
        finite = np.isfinite(x)
        assert same_bits(cpu[5][finite], gpu[5][finite]) and {4, 12} <= set(np.unique(gpu[5]))
        ints_finite = np.repeat(finite, 2)
        assert same_bits(cpu[4][ints_finite], gpu[4][ints_finite]) and len(np.unique(gpu[4])) > n // 2
        z32, z64 = np.array([-0.0, 0.0, -1.0], np.float32), np.array([-0.0, 0.0, -0.0])
        cpu, gpu = _both(kern.zeros, 3, 1, z32, z64, np.zeros(9))
        assert same_bits(cpu[2], gpu[2]) and not np.signbit(gpu[2][[0, 1, 3, 4]]).any()
        from hybrid_runtime import wgpu_device

        if wgpu_device.get_device().warps():  # lavapipe: 8-lane subgroups (the GPU run covers them)
            return
        cpu, gpu = _both(kern.shuffled, 64, n // 64, x, np.zeros(n))
        assert same_bits(cpu[1], gpu[1])


TUPLES = """
from hybrid_runtime import Array, cuda, f32, f64, i32, i64, gpu, kernel

def divmod_both(a, b):
    return a // b, a % b, (a * 0.5, b)

def pick(t, k):
    return t[k]

@cuda.jit("void(float64[:], Tuple((float32, int64, Tuple((boolean, float64)))), UniTuple(int32, 2))")
def params(out, t, s):
    i = cuda.grid(1)
    a, b, (c, d) = t
    out[i] = a * b + (d if c else -d) + s[i % 2] + t[2][1]

@kernel
def indexed(m: Array[f32, 2], out: Array[f32, 2]):
    g = cuda.grid(2)
    sh = m.shape
    if g[0] < sh[0] and g[1] < sh[1]:
        idx = (g[0], sh[1] - 1 - g[1])
        out[g] = m[idx] + f32(len(sh)) + f32(sh[1] - sh[0])

@cuda.jit("void(float64[:], float64, int64, UniTuple(int32, 2))")
def rebound(out, s, n, p):
    i = cuda.grid(1)
    s = s * 2.0 + i
    n += i
    p = (p[1], p[0])
    out[i] = s + n * p[0]

@kernel
def flag(out: Array[f64], on: bool):
    out[gpu.global_tid_x()] = 1.0 if on else -1.0

@kernel
def tuples(x: Array[i64], y: Array[f32], out: Array[f64], k: i64):
    i = gpu.global_tid_x()
    if i < len(x):
        q, r, (h, b) = divmod_both(x[i], 7)
        pair = (y[i], q)
        first, second = pair
        t = (x[i], r, q, i64(i))
        u = t
        u2 = (f32(1.5), y[i])
        out[4 * i] = first + second * h
        out[4 * i + 1] = pick(t, k) + t[-1] + u[i % 4] + b
        out[4 * i + 2] = u2[i % 2]
        a, c = (q, r) if x[i] > 0 else (r, q)
        a, c = c, a
        out[4 * i + 3] = a - 2 * c
"""


@pytest.mark.wgpu
def test_tuples_match_native_cpu(tmp_path: Path):
    """Tuple values as WGSL structs: built, returned by helpers, unpacked (nested too), swapped, indexed by a
    constant, from the end, or at run time (one item type), converted item by item; tuple parameters (their
    numbers in the uniform)."""
    kernels = compile_packages([_package(tmp_path, "wgtup", TUPLES)], options=_options())
    assert all(k.codes.get("wgsl") is not None for k in kernels), [k.not_built for k in kernels]
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(12)
    n = 256
    x = rng.integers(-1000, 1000, n)
    y = rng.standard_normal(n).astype(np.float32)
    with imported_package(tmp_path, "wgtup") as kern:
        for k in (0, 2, -1, -3):
            cpu, gpu = _both(kern.tuples, 64, n // 64, x, y, np.zeros(4 * n), k)
            assert same_bits(cpu[2], gpu[2]) and len(np.unique(gpu[2])) > n, k
        for t in ((np.float32(0.1), 3, (True, 2.5)), (np.float32(-7), -(2**40), (False, 1e3))):
            cpu, gpu = _both(kern.params, 4, 1, np.zeros(4), t, (5, -6))
            assert same_bits(cpu[0], gpu[0]) and gpu[0][0] != gpu[0][1], t
        cpu, gpu = _both(kern.rebound, 8, 1, np.zeros(8), 0.3, 5, (2, 9))  # parameters assigned to
        assert same_bits(cpu[0], gpu[0]) and gpu[0][1] == 0.3 * 2.0 + 1 + 6 * 9
        m = rng.standard_normal((20, 13)).astype(np.float32)
        cpu, gpu = _both(kern.indexed, (8, 8), (3, 2), m, np.zeros_like(m))
        assert same_bits(cpu[1], gpu[1]) and same_bits(gpu[1], m[:, ::-1] + np.float32(2) + np.float32(-7))
        for on in (True, False, np.True_, np.False_, np.True_):  # a boolean parameter (the fast path too)
            out = np.zeros(4)
            kern.flag.launch(4, 1, out, on, device="wgpu")
            assert (out == (1.0 if on else -1.0)).all()


OPTIONAL = """
from hybrid_runtime import Array, f64, i32, i64, gpu, kernel

def bin_of(x, n):
    if x < 0.0:
        return None
    b = i32(x * n)
    if b >= n:
        return None
    return b

def positive(x, i):
    if x[i] > 0.0:
        return x[i]

@kernel
def binned(x: Array[f64], out: Array[i64]):
    i = gpu.global_tid_x()
    if i < len(x):
        b = bin_of(x[i], 10)
        out[i] = -1 if b is None else b + 100

@kernel
def doubled(x: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = positive(x, i) * 2.0
"""


@pytest.mark.wgpu
def test_helpers_that_return_none_on_some_paths(tmp_path: Path):
    """A helper's number-or-None (numba's Optional) as a struct of the number and whether there is one:
    `is None` tests it, and using None as a number raises TypeError, as on the other devices."""
    kernels = compile_packages([_package(tmp_path, "wgopt", OPTIONAL)], options=_options())
    assert all(k.codes.get("wgsl") is not None for k in kernels), [k.not_built for k in kernels]
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    x = np.random.default_rng(13).uniform(-0.5, 1.5, 256)
    with imported_package(tmp_path, "wgopt") as kern:
        cpu, gpu = _both(kern.binned, 64, 4, x, np.zeros(256, np.int64))
        assert same_bits(cpu[1], gpu[1]) and {-1, 100, 109} <= set(gpu[1].tolist())
        cpu, gpu = _both(kern.doubled, 64, 4, abs(x) + 0.1, np.zeros(256))
        assert same_bits(cpu[1], gpu[1]) and same_bits(gpu[1], (abs(x) + 0.1) * 2.0)
        for device in (CPU, "wgpu"):
            with pytest.raises(TypeError, match=r"None is used as a number here .*wgopt/kern.py:27"):
                kern.doubled.launch(64, 4, x, np.zeros(256), device=device)


ATOMICS = """
from hybrid_runtime import Array, f32, f64, i32, i64, u64, gpu, kernel

@kernel
def floats(x: Array[f32], y: Array[f64], acc: Array[f32], acc64: Array[f64], old: Array[f32]):
    i = gpu.global_tid_x()
    t = gpu.thread_idx_x()
    s = gpu.shared_array(f32, 2)
    if t == 0:
        s[0] = f32(0)
        s[1] = f32(-1e30)
    gpu.syncthreads()
    gpu.atomic_add(s, 0, x[i])
    gpu.atomic_max(s, 1, x[i])
    gpu.atomic_add(acc, 0, x[i])              # sums of small integers: exact in any order
    gpu.atomic_max(acc, 1, x[i])
    gpu.atomic_min(acc, 2, x[i])
    gpu.atomic_sub(acc, 3, x[i])
    gpu.atomic_max_ordered(acc, 4, x[i])
    old[i] = gpu.atomic_exch(acc, 5, f32(i))
    gpu.atomic_add(acc64, 0, y[i])
    gpu.atomic_min(acc64, 1, y[i])
    gpu.atomic_max(acc64, 2, y[i])
    gpu.syncthreads()
    if t == 0:
        gpu.atomic_add(acc, 6, s[0])
        gpu.atomic_max(acc, 7, s[1])

@kernel
def wide(k: Array[i64], acc: Array[i64], uacc: Array[u64]):
    i = gpu.global_tid_x()
    gpu.atomic_add(acc, 0, k[i])
    gpu.atomic_min(acc, 1, k[i])
    gpu.atomic_max(acc, 2, k[i])
    gpu.atomic_xor(acc, 3, k[i])
    gpu.atomic_add(uacc, 0, u64(k[i]) * u64(3))

@kernel
def on_views(res: Array[i32, 2], old: Array[i32], ary: Array[i32]):
    i = gpu.global_tid_x()
    row = res[i % 2]
    tail = row[i // 2 + 8 :]
    old[i] = gpu.atomic_cas(tail, 0, 0, ary[i])
    gpu.atomic_add(row, 0, 1)
"""


@pytest.mark.wgpu
def test_atomics_on_floats_and_64_bit_elements(tmp_path: Path):
    """f32 and f64 atomics as compare-and-exchange loops on their bits (storage and shared arrays), 64-bit
    integer atomics through the adapter's shader-int64-atomic-all-ops: the native CPU's results."""
    from hybrid_runtime import wgpu_device

    kernels = {k.decl.name: k for k in compile_packages([_package(tmp_path, "wgatom", ATOMICS)], options=_options())}
    for k in kernels.values():
        assert k.codes.get("wgsl") is not None, k.not_built
    assert "shader-int64-atomic-all-ops" in kernels["wide"].codes.get("wgsl").features
    assert "shader-int64-atomic-all-ops" in kernels["floats"].codes.get("wgsl").features  # f64 elements are u64 bits
    write_package_artifacts(list(kernels.values()), ["sm_90"], tmp_path)
    rng = np.random.default_rng(13)
    n = 1024
    x = rng.integers(-50, 50, n).astype(np.float32)
    y = rng.integers(-(2**40), 2**40, n).astype(np.float64)
    k = rng.integers(-(2**50), 2**50, n)
    with imported_package(tmp_path, "wgatom") as kern:
        if not wgpu_device.get_device().atomics64:
            pytest.skip("the adapter lacks shader-int64-atomic-all-ops")
        acc = np.array([0, -1e30, 1e30, 0, -np.inf, 0, 0, -1e30], np.float32)
        acc64 = np.array([0.0, np.inf, -np.inf])
        cpu, gpu = _both(kern.floats, 128, n // 128, x, y, acc, acc64, np.zeros(n, np.float32))
        same = [0, 1, 2, 3, 4, 6, 7]  # (5: the last exchange's value, whichever thread was last)
        assert same_bits(cpu[2][same], gpu[2][same]) and same_bits(cpu[3], gpu[3])
        assert gpu[2][0] == x.sum() and gpu[2][1] == x.max() and gpu[2][6] == x.sum() and gpu[2][7] == x.max()
        assert gpu[3][0] == y.sum() and gpu[3][1] == y.min()
        # each exchange saw the value the one before it left: the initial 0 and every index, once each
        np.testing.assert_array_equal(np.sort(np.append(gpu[4], gpu[2][5])), np.append([0], np.arange(n)))
        # atomics on views (a row, the row's tail): the parameter's buffer holds atomic elements
        ary = np.arange(1, 65, dtype=np.int32)
        cpu, gpu = _both(kern.on_views, 64, 1, np.zeros((2, 40), np.int32), np.zeros(64, np.int32), ary)
        assert same_bits(cpu[0], gpu[0]) and same_bits(cpu[1], gpu[1]) and (gpu[0][:, 0] == 32).all()
        assert same_bits(gpu[0][:, 8:], np.stack([ary[0::2], ary[1::2]]))
        cpu, gpu = _both(kern.wide, 128, n // 128, k, np.array([0, 2**62, -(2**62), 0]), np.zeros(1, np.uint64))
        assert same_bits(cpu[1], gpu[1]) and same_bits(cpu[2], gpu[2])
        assert gpu[1][0] == k.sum() and gpu[1][1] == k.min() and gpu[1][2] == k.max()


@pytest.mark.wgpu
def test_a_driver_that_cannot_compile_a_shader_is_named_and_the_device_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The driver's own compiler may fail on a valid shader (NVIDIA's did: docs/wgpu.md) and lose the device
    doing so: the launch says which kernel and driver, and the next launch gets a new device."""
    from hybrid_runtime import wgpu_device

    kernels = compile_packages([_package(tmp_path, "wgfail", ROUNDING)], options=_options())
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    with imported_package(tmp_path, "wgfail") as kern:
        dev = wgpu_device.get_device()
        dev.rounding("f32")  # (probed with a pipeline of its own, before the driver "fails")

        def fail(**kw: object) -> None:
            raise RuntimeError("NVVM compilation failed: 1 (a test's stand-in)")

        monkeypatch.setattr(dev.device, "create_compute_pipeline", fail)
        x = np.ones(64, np.float32)
        with pytest.raises(RuntimeError, match=r"kernel wgfail.kern.quotients: the WebGPU driver could not compile"):
            kern.quotients.launch(64, 1, x, x, x.copy(), x.copy(), device="wgpu")
        assert wgpu_device.get_device() is not dev
        q = np.zeros(64, np.float32)
        kern.quotients.launch(64, 1, x, x + 1, q, x.copy(), device="wgpu")
        assert (q == np.float32(0.5)).all()


COMPLEX = """
from hybrid_runtime import Array, c64, c128, f32, f64, i64, gpu, kernel

@kernel
def arith(z: Array[c128], w: Array[c64], out: Array[c128], parts: Array[f64], flags: Array[i64], s: c128):
    i = gpu.global_tid_x()
    if i < len(z):
        a = z[i]
        b = w[i]                                   # c64: promoted to c128 with a
        out[6 * i] = a * b + s
        out[6 * i + 1] = a / b                     # NumPy's Smith division
        out[6 * i + 2] = complex(a.real, -a.imag) / complex(2.0, 0.5)  # CPython's
        out[6 * i + 3] = a ** 3 - a ** -2 + (a - b) ** 5
        out[6 * i + 4] = a.conjugate() * 1j - 2
        out[6 * i + 5] = -a if a != b else a
        parts[2 * i] = (a * a).real
        parts[2 * i + 1] = b.imag
        w[i] = b * b + c64(1.5j)                  # a c64 element written
        flags[i] = (a == a) + 2 * (a == b) + 4 * bool(a - a)
"""


@pytest.mark.wgpu
def test_complex_numbers_match_native_cpu(tmp_path: Path):
    """Complex values as structs of their parts: arithmetic (NumPy's and CPython's division, powers),
    conversions between precisions, parts, conjugates, comparisons, complex parameters and arrays (c64
    written too): the bits of native code, operation for operation."""
    kernels = compile_packages([_package(tmp_path, "wgcplx", COMPLEX)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(14)
    n = 256
    z = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    w[:3] = [0, 1e-3, z[2]]
    z[2], z[3] = w[2], 0  # (equal to its c64)
    with imported_package(tmp_path, "wgcplx") as kern, np.errstate(all="ignore"):
        cpu, gpu = _both(
            kern.arith, 64, n // 64, z, w, np.zeros(6 * n, complex), np.zeros(2 * n), np.zeros(n, np.int64), 0.5 - 2j
        )
        finite = np.isfinite(cpu[2]) & np.isfinite(gpu[2])
        if CPU == "cpu":
            assert same_bits(cpu[2][finite], gpu[2][finite]) and finite.sum() > 5 * n
            assert same_bits(cpu[1], gpu[1]) and same_bits(cpu[3], gpu[3])
        else:  # NumPy's complex operations may go through its SIMD loops, which fuse products on AVX-512
            np.testing.assert_allclose(gpu[2][finite], cpu[2][finite], rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(gpu[3], cpu[3], rtol=1e-13, atol=1e-13)
            assert finite.sum() > 5 * n
        assert same_bits(cpu[4], gpu[4])
        assert set(np.unique(gpu[4])) == {1, 3}


NARROW = """
from hybrid_runtime import Array, boolean, f32, i8, i16, i32, u8, u16, gpu, kernel

@kernel
def bytes_(img: Array[u8, 2], mask: Array[boolean], out: Array[u8, 2], flags: Array[boolean],
           s8: Array[i8], s16: Array[i16], w16: Array[u16], f: Array[f32], k: i8):
    i = gpu.global_tid_x()
    if i < len(mask):
        r = i // 8
        c = i % 8
        v = img[r, c]
        out[r, c] = v + u8(200) if mask[i] else v * u8(3)   # u8 wraps
        flags[i] = not mask[i] and v > 100
        a = s8[i]
        s8[i] = a * k + i8(100)                              # i8 wraps
        s16[i] = -s16[i] if a < 0 else abs(s16[i]) >> 2
        w16[i] += u16(60000)
        f[i] = f32(i8(f[i])) + f32(u8(a)) + f32(i16(a) << 9)
        if c == 0:
            flags[i], mask[i] = mask[i], flags[i]

def tally(hist, flags, i):
    gpu.atomic_add(hist, i % 4, 1 if flags[i] else 2)  # atomics in a helper; a packed array read there
    flags[i] = not flags[i]

@kernel
def helped(hist: Array[i32], flags: Array[boolean]):
    i = gpu.global_tid_x()
    if i < len(flags):
        tally(hist, flags, i)

@kernel
def counted(hist: Array[i32], out: Array[i32]):
    i = gpu.global_tid_x()
    gpu.atomic_add(hist, i % 4, 1)
    gpu.syncthreads()
    if i < 4:
        hist[i] += 100                                       # a plain update of an array atomics update
    out[i] = i

@kernel
def rows(img: Array[u8, 2], out: Array[u8, 2], flags: Array[boolean]):
    i = gpu.global_tid_x()
    if i < img.shape[0]:
        r = img[i]                                           # views of packed arrays: still packed
        o = out[i]
        for j in range(1, len(r)):
            o[j] = r[j] + r[j - 1]
        f = flags[i * 3 :]
        f[0] = r[0] > 100
"""


@pytest.mark.wgpu
def test_booleans_and_8_and_16_bit_integers_match_native_cpu(tmp_path: Path):
    """bool, i8, u8, i16 and u16: values held in 32 bits and wrapped to their width as NumPy wraps them;
    arrays of them packed four (two) to a word, written by atomics on the word so that neighbouring
    elements do not race, also in helpers; swaps and augmented assignments of elements; conversions saturating
    as LLVM's; atomics inside helpers."""
    kernels = {k.decl.name: k for k in compile_packages([_package(tmp_path, "wgnarrow", NARROW)], options=_options())}
    for k in kernels.values():
        assert k.codes.get("wgsl") is not None, k.not_built
    write_package_artifacts(list(kernels.values()), ["sm_90"], tmp_path)
    rng = np.random.default_rng(15)
    n = 8 * 25  # (not a multiple of 4 words' worth of rows: the buffers are padded)
    img = rng.integers(0, 256, (25, 8)).astype(np.uint8)
    mask = rng.random(n) < 0.5
    s8 = rng.integers(-128, 128, n).astype(np.int8)
    s16 = rng.integers(-(2**15), 2**15, n).astype(np.int16)
    w16 = rng.integers(0, 2**16, n).astype(np.uint16)
    f = (rng.standard_normal(n) * 40).clip(-120, 120).astype(np.float32)  # (i8(f): in range, else platform-defined)
    s8[0], s16[0] = -128, -(2**15)
    with imported_package(tmp_path, "wgnarrow") as kern:
        args = (img, mask, np.zeros_like(img), np.zeros(n, bool), s8, s16, w16, f, np.int8(-3))
        cpu, gpu = _both(kern.bytes_, 64, -(-n // 64), *args)
        for k in range(8):
            assert same_bits(cpu[k], gpu[k]), k
        assert gpu[2].any() and gpu[3].any() and not same_bits(gpu[4], s8)
        img8 = np.random.default_rng(5).integers(0, 256, (37, 13), dtype=np.uint8)
        cpu, gpu = _both(kern.rows, 64, 1, img8, np.zeros_like(img8), np.zeros(37 * 3, bool))
        assert same_bits(cpu[1], gpu[1]) and same_bits(cpu[2], gpu[2]) and gpu[2].any()
        assert same_bits(gpu[1][:, 1:], img8[:, 1:] + img8[:, :-1])
        cpu, gpu = _both(kern.counted, 64, 1, np.zeros(4, np.int32), np.zeros(64, np.int32))
        assert same_bits(cpu[0], gpu[0]) and (gpu[0] == 116).all()
        cpu, gpu = _both(kern.helped, 64, 2, np.zeros(4, np.int32), mask[:100].copy())
        assert same_bits(cpu[0], gpu[0]) and same_bits(cpu[1], gpu[1]) and not same_bits(gpu[1], mask[:100])


REMAINDERS = """
import math
from hybrid_runtime import Array, f32, f64, gpu, kernel

@kernel
def rems(x: Array[f64], y: Array[f64], out: Array[f64, 2], x32: Array[f32], y32: Array[f32], out32: Array[f32, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[0, i] = math.fmod(x[i], y[i])
        out[1, i] = math.remainder(x[i], y[i])
        out[2, i] = x[i] % y[i]
        out[3, i] = x[i] // y[i]
        out32[0, i] = x32[i] % y32[i]
        out32[1, i] = x32[i] // y32[i]
        out32[2, i] = math.fmod(x32[i], y32[i])
"""


def _normal(v: np.ndarray) -> np.ndarray:
    """Zeros and finite normal floats."""
    return (v == 0) | (np.isfinite(v) & (abs(v) >= np.finfo(v.dtype).tiny))


def same_bits_each(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element by element: the same bits, or both NaN."""
    bits = f"u{a.dtype.itemsize}"
    return (np.isnan(a) & np.isnan(b)) | (a.view(bits) == b.view(bits))


def _wide_floats(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    """Floats of every exponent (subnormals, zeros and a few infinities too), both signs."""
    info = np.finfo(dtype)
    bits = 8 * np.dtype(dtype).itemsize
    exponent = rng.integers(0, (1 << (bits - info.nmant - 1)) - 1, n, dtype=np.uint64)
    words = (rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(bits - 1)) | (exponent << np.uint64(info.nmant))
    words |= rng.integers(0, 1 << info.nmant, n, dtype=np.uint64)
    return words.astype(f"u{bits // 8}").view(dtype)


@pytest.mark.wgpu
def test_remainders_of_floats_are_exact(tmp_path: Path):
    """math.fmod and math.remainder (exact, by long division on the bits: targets/wgsl/remainders.py), Python's
    and NumPy's `%` and `//` of floats (npy_divmod): native code's bits, over every exponent, with subnormals,
    zeros, infinities, exact multiples and operands a few ulps apart."""
    kernels = compile_packages([_package(tmp_path, "wgrem", REMAINDERS)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(17)
    n = 4096
    x, y = _wide_floats(rng, n, np.float64), _wide_floats(rng, n, np.float64)
    near = rng.standard_normal(n // 4) * 1e3  # close exponents: the usual case
    x[: n // 4], y[: n // 4] = near, near / rng.integers(1, 50, n // 4) * rng.choice([1, -1], n // 4)
    x[n // 4 : n // 4 + 16] = y[n // 4 : n // 4 + 16] * np.arange(-8, 8)  # exact multiples (zero results)
    x[n // 4 + 16 : n // 4 + 32] = y[n // 4 + 16 : n // 4 + 32] * (np.arange(16) + 0.5)  # half way: ties to even
    x[-4:], y[-8:-4] = [np.inf, -np.inf, 0.0, -0.0], [0.0, -0.0, np.inf, -np.inf]
    x32, y32 = _wide_floats(rng, n, np.float32), _wide_floats(rng, n, np.float32)
    x32[: n // 4] = (rng.standard_normal(n // 4) * 100).astype(np.float32)
    with imported_package(tmp_path, "wgrem") as kern, np.errstate(all="ignore"):
        cpu, gpu = _both(kern.rems, 256, n // 256, x, y, np.zeros((4, n)), x32, y32, np.zeros((3, n), np.float32))
        # where no value is infinite, NaN or subnormal (drivers need not keep them: docs/wgpu.md; lavapipe does)
        from hybrid_runtime import wgpu_device

        strict = "llvmpipe" in wgpu_device.get_device().name
        for (a, b, c, g), rows in (((x, y, cpu[2], gpu[2]), 4), ((x32, y32, cpu[5], gpu[5]), 3)):
            for k in range(rows):
                ok = _normal(a) & _normal(b) & _normal(c[k]) & _normal(np.fmod(a, b)) & (b != 0)
                ok |= strict
                bad = np.flatnonzero(~(same_bits_each(c[k], g[k]) | ~ok))[:3]
                assert not len(bad), (k, [(a[j], b[j], c[k][j], g[k][j]) for j in bad])
        ok = _normal(x) & _normal(y) & (y != 0) & _normal(np.fmod(x, y))
        assert same_bits(gpu[2][0][ok], np.fmod(x[ok], y[ok]))
        assert same_bits(gpu[2][1][ok], np.array([math.remainder(a, b) for a, b in zip(x[ok], y[ok])]))
        assert same_bits(gpu[2][2][ok | strict], (x % y)[ok | strict])
        assert ok.sum() > n // 2  # (f32: compared with native code above; NumPy's own SIMD loops vary by host)


LIBM = """
import math
import numpy as np
from hybrid_runtime import Array, c128, f32, f64, gpu, kernel

@kernel
def functions(x: Array[f64], y: Array[f64], out: Array[f64, 2], z: Array[c128], x32: Array[f32], out32: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        a = x[i]
        out[0, i] = math.exp(a * 0.01)
        out[1, i] = math.log(abs(a))
        out[2, i] = math.log2(abs(a))
        out[3, i] = math.log10(abs(a))
        out[4, i] = math.sin(a)
        out[5, i] = math.cos(a)
        out[6, i] = math.tan(a)
        out[7, i] = math.atan(a)
        out[8, i] = math.atan2(a, y[i])
        out[9, i] = math.cbrt(a)
        out[10, i] = math.hypot(a, y[i])
        out[11, i] = math.asin(math.sin(a))
        out[12, i] = math.acos(math.cos(a))
        out[13, i] = math.cbrt(-a * 1e-300)
        out[14, i] = abs(z[i])
        out32[i] = math.exp(x32[i])
        b = abs(a)
        out[15, i] = b ** (1.0 / 3.0)
        out[16, i] = b ** y[i] * 0.0 + (b * 1e-3) ** (y[i] * 1e-3)
        out[17, i] = a ** 5 + (-1.5) ** (i % 7) + b ** 0.5 + math.pow(b, -2.0)
        out[18, i] = np.sin(a) + np.arctan2(a, 2.0) + np.floor(a)

@kernel
def hyperbolic(x: Array[f64], out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        a = x[i]
        out[0, i] = math.expm1(a)
        out[1, i] = math.log1p(abs(a))
        out[2, i] = math.exp2(a * 10.0)
        out[3, i] = math.sinh(a)
        out[4, i] = math.cosh(a)
        out[5, i] = math.tanh(a)
        out[6, i] = math.asinh(a)
        out[7, i] = math.acosh(1.0 + abs(a))
        out[8, i] = math.atanh(a / (1.0 + abs(a)))
        out[9, i] = math.log1p(-abs(a) / (1.0 + abs(a)))
        out[10, i] = math.erf(a)
        out[11, i] = math.erfc(a)
"""


@pytest.mark.wgpu
def test_exponentials_logarithms_near_zero_hyperbolic_and_error_functions(tmp_path: Path):
    """expm1, log1p, exp2, sinh, cosh, tanh, asinh, acosh, atanh, erf and erfc (targets/wgsl/libm.py): within
    4 ulps of the C library's, from tiny arguments (where the forms that keep their bits matter) to
    overflow."""
    kernels = compile_packages([_package(tmp_path, "wghyp", LIBM)], options=_options())
    assert all(k.codes.get("wgsl") is not None for k in kernels), [k.not_built for k in kernels]
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(18)
    n = 4096
    x = rng.standard_normal(n) * np.exp2(rng.integers(-40, 9, n).astype(float))
    x[:6] = [0.0, -0.0, 1e-300, 0.5, -0.5, 1.0]
    with imported_package(tmp_path, "wghyp") as kern, np.errstate(all="ignore"):
        out = np.zeros((12, n))
        kern.hyperbolic.launch(256, n // 256, x, out, device="wgpu")
        erf, erfc = np.vectorize(math.erf), np.vectorize(math.erfc)
        a, b = x, abs(x)
        want = [np.expm1(a), np.log1p(b), np.exp2(a * 10.0), np.sinh(a), np.cosh(a), np.tanh(a), np.arcsinh(a),
                np.arccosh(1.0 + b), np.arctanh(a / (1.0 + b)), np.log1p(-b / (1.0 + b)), erf(a), erfc(a)]  # fmt: skip
        worst = {}
        for k, w in enumerate(want):
            ok = np.isfinite(w) & ((abs(w) > 1e-300) | (w == 0)) & ((a == 0) | (abs(a) > 1e-300))
            ulps = abs(out[k][ok] - w[ok]) / np.spacing(abs(w[ok]))
            worst[k] = float(ulps.max())
            assert same_bits(np.signbit(out[k][:2]), np.signbit(w[:2])), k  # signed zeros
        print("\nhyperbolic: worst ulps", {k: round(u, 2) for k, u in worst.items()})
        assert all(u <= 4 for u in worst.values()), worst
        assert np.isinf(out[3][np.abs(a) > 711]).all() and (out[5][np.abs(a) > 30] == np.sign(a[np.abs(a) > 30])).all()


@pytest.mark.wgpu
def test_math_functions_are_within_a_few_ulps_of_the_c_librarys(tmp_path: Path):
    """exp, log (log2, log10), pow (and `**` of floats), NumPy's sin, arctan2 and floor, sin, cos, tan, atan,
    atan2, asin, acos, cbrt, hypot and abs() of complex numbers, written in the shader with IEEE operations alone
    (targets/wgsl/libm.py): within 4 ulps of NumPy's (the C library's) over wide ranges, as libdevice is on the
    CUDA path."""
    kernels = compile_packages([_package(tmp_path, "wglibm", LIBM)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(16)
    n = 4096
    x = rng.standard_normal(n) * np.exp2(rng.integers(-30, 20, n).astype(float))
    x[:8] = [0.5, -0.5, 1.0, 2.0, 1e-310, 3.0, np.pi, -np.pi / 2]
    y = rng.standard_normal(n) * np.exp2(rng.integers(-20, 20, n).astype(float))
    z = x + 1j * y
    x32 = (rng.standard_normal(n) * 20).astype(np.float32)
    with imported_package(tmp_path, "wglibm") as kern, np.errstate(all="ignore"):
        out, out32 = np.zeros((19, n)), np.zeros(n, np.float32)
        kern.functions.launch(256, n // 256, x, y, out, z, x32, out32, device="wgpu")
        a = x
        want = [np.exp(a * 0.01), np.log(abs(a)), np.log2(abs(a)), np.log10(abs(a)), np.sin(a), np.cos(a),
                np.tan(a), np.arctan(a), np.arctan2(a, y), np.cbrt(a), np.hypot(a, y),
                np.arcsin(np.sin(a)), np.arccos(np.cos(a)), np.cbrt(-a * 1e-300), np.abs(z),
                abs(a) ** (1.0 / 3.0), abs(a) ** y * 0.0 + (abs(a) * 1e-3) ** (y * 1e-3),
                a ** 5 + (-1.5) ** (np.arange(n) % 7) + abs(a) ** 0.5 + abs(a) ** -2.0,
                np.sin(a) + np.arctan2(a, 2.0) + np.floor(a)]  # fmt: skip
        worst = {}
        for k, w in enumerate(want):  # (subnormal arguments left out: NVIDIA's driver flushes them, docs/wgpu.md)
            ok = np.isfinite(w) & (abs(w) > 1e-300) & ((a == 0) | (abs(a) > 1e-300))
            if k in (11, 12):  # (of sin and cos, which already differ by their ulps)
                ok &= abs(np.sin(a) if k == 11 else np.cos(a)) < 0.99
            ulps = abs(out[k][ok] - w[ok]) / np.spacing(abs(w[ok]))
            worst[k] = float(ulps.max())
            if worst[k] > 4:
                at = int(np.argmax(ulps))
                where = f"x={a[ok][at]!r} y={y[ok][at]!r}"
                print(f"function {k}: {worst[k]} ulps at {where}: {out[k][ok][at]!r} vs {w[ok][at]!r}")
        print("\nlibm: worst ulps", {k: round(u, 2) for k, u in worst.items()})
        assert all(u <= 4 for k, u in worst.items() if k not in (11, 12, 15, 16, 17, 18)), worst
        assert worst[15] <= 8, worst  # pow: 1-5 ulps where |y log x| is small (docs/wgpu.md)
        assert worst[17] <= 16 and worst[18] <= 16, worst  # (sums of several functions' results)
        # pow with exponents in the hundreds: y log x in two parts, but log(1 + f) in one (docs/wgpu.md)
        assert worst[16] <= 64, worst
        assert worst[11] <= 64 and worst[12] <= 64, worst
        assert (
            same_bits(out32, np.exp(x32.astype(np.float64)).astype(np.float32))
            or (np.abs(out32 - np.exp(x32)) <= np.spacing(np.abs(np.exp(x32)))).all()
        )


SENTINELS = """
import math
import numpy as np
from hybrid_runtime import Array, c128, f64, u8, gpu, kernel

def scaled(buf, k):
    return buf[k] * 2.0

@kernel
def running_min(x: Array[f64], out: Array[f64]):
    best = np.inf  # a sentinel drivers may fold comparisons with
    for v in x:
        if v < best:
            best = v
    out[0] = best

@kernel
def scratch(x: Array[f64], out: Array[f64], z: Array[c128]):
    i = gpu.global_tid_x()
    buf = gpu.local_array(f64, 4)  # passed to a helper
    small = gpu.local_array(u8, 4)
    cs = gpu.shared_array(c128, 64)
    cs[i] = z[i] * 2
    for k in range(4):
        buf[k] = x[i] + k
        small[k] = u8(250 + k)
    gpu.syncthreads()
    out[i] = scaled(buf, 3) + small[1] + cs[63 - i].real
"""


@pytest.mark.wgpu
def test_infinite_constants_are_refused_and_private_arrays_reach_helpers(tmp_path: Path):
    """A kernel with an infinite or NaN constant is not built for WebGPU (drivers may assume no such value:
    an inf sentinel gave wrong minima on lavapipe); per-thread arrays passed to helpers, shared arrays of
    complex numbers and 8-bit per-thread arrays work as natively."""
    kernels = {k.decl.name: k for k in compile_packages([_package(tmp_path, "wgsent", SENTINELS)], options=_options())}
    assert kernels["running_min"].codes.get("wgsl") is None
    assert kernels["running_min"].not_built["wgsl"].startswith("an infinite or NaN constant")
    assert kernels["scratch"].codes.get("wgsl") is not None, kernels["scratch"].not_built
    write_package_artifacts(list(kernels.values()), ["sm_90"], tmp_path)
    rng = np.random.default_rng(17)
    x, z = rng.standard_normal(64), rng.standard_normal(64) + 1j * rng.standard_normal(64)
    with imported_package(tmp_path, "wgsent") as kern:
        cpu, gpu = _both(kern.scratch, 64, 1, x, np.zeros(64), z)
        assert same_bits(cpu[1], gpu[1]) and same_bits(gpu[1], (x + 3) * 2.0 + 251 + (z[::-1] * 2).real)


MEMORY = """
from hybrid_runtime import Array, f32, i32, u32, gpu, kernel

@kernel
def reverse_blocks(d: Array[i32], lengths: Array[i32]):
    s = gpu.dynamic_shared_array(i32)  # the launch's shared_bytes, as in CUDA
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    s[t] = d[i]
    gpu.syncthreads()
    d[i] = s[len(s) - t - 1]
    lengths[i] = len(s)

@kernel
def sort4(x: Array[f32], out: Array[f32], rounds: i32):
    i = gpu.global_tid_x()
    for r in range(rounds):
        buf = gpu.local_array(f32, 4)  # zero-filled each time it is made
        if r == 0:
            for k in range(4):
                buf[k] = x[4 * i + k]
        for a in range(4):  # insertion sort, in the thread's own memory
            for b in range(a, 0, -1):
                if buf[b] < buf[b - 1]:
                    buf[b], buf[b - 1] = buf[b - 1], buf[b]
        for k in range(4):
            out[4 * (rounds * i + r) + k] = buf[k]

@kernel
def histogram(x: Array[i32], bins: Array[u32]):
    counts = gpu.shared_array(u32, 16)  # updated by atomics: a workgroup array of atomic elements
    t = gpu.thread_idx_x()
    if t < 16:
        counts[t] = u32(0)
    gpu.syncthreads()
    gpu.atomic_add(counts, x[gpu.global_tid_x()] % 16, u32(1))
    gpu.syncthreads()
    if t < 16:
        gpu.atomic_add(bins, t, counts[t])

@kernel
def counters(c: Array[u32], olds: Array[u32]):
    i = gpu.global_tid_x()
    olds[i] = gpu.atomic_inc(c, 0, u32(17))  # wraps to 0 past 17
    gpu.atomic_dec(c, 1, u32(5))  # wraps to 5 below 0
    while True:  # an add through compare-and-exchange, which must not fail spuriously
        seen = c[2]
        if gpu.atomic_cas(c, 2, seen, seen + u32(3)) == seen:
            break
"""


@pytest.mark.wgpu
def test_dynamic_shared_and_local_arrays(tmp_path: Path):
    """gpu.dynamic_shared_array is a workgroup array as long as the launch's shared_bytes (a pipeline constant);
    gpu.local_array is the thread's own, zero-filled each time it is made; a shared array that atomics update
    holds atomic elements; all as the native CPU runs them."""
    kernels = compile_packages([_package(tmp_path, "wgmemory", MEMORY)], options=_options())
    assert all(k.codes.get("wgsl") is not None for k in kernels), [k.not_built for k in kernels]
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(3)
    with imported_package(tmp_path, "wgmemory") as kern:
        for threads in (64, 32):
            d = rng.integers(-1000, 1000, 256, dtype=np.int32)
            got = []
            for device in (CPU, "wgpu"):
                dd, lengths = d.copy(), np.zeros(256, np.int32)
                blocks, size = 256 // threads, 4 * threads
                kern.reverse_blocks.launch(threads, blocks, dd, lengths, device=device, shared_bytes=size)
                got.append((dd, lengths))
            np.testing.assert_array_equal(got[1][0], got[0][0])
            np.testing.assert_array_equal(got[0][0], d.reshape(-1, threads)[:, ::-1].ravel())
            assert (got[1][1] == threads).all() and (got[0][1] == threads).all()
        x = rng.standard_normal(4 * 64).astype(np.float32)
        results = _both(kern.sort4, 64, 1, x, np.ones(4 * 64 * 2, np.float32), np.int32(2))
        assert same_bits(results[0][1], results[1][1])
        first, second = results[1][1].reshape(64, 2, 4)[:, 0], results[1][1].reshape(64, 2, 4)[:, 1]
        np.testing.assert_array_equal(first, np.sort(x.reshape(64, 4), axis=1))
        assert (second == 0).all()  # the second round's array was made anew: zeros
        x = rng.integers(0, 1000, 64 * 8, dtype=np.int32)
        hist = _both(kern.histogram, 64, 8, x, np.zeros(16, np.uint32))
        np.testing.assert_array_equal(hist[1][1], np.bincount(x % 16, minlength=16))
        np.testing.assert_array_equal(hist[0][1], hist[1][1])
        runs = _both(kern.counters, 64, 4, np.zeros(3, np.uint32), np.zeros(256, np.uint32))
        for c, olds in runs:  # 256 increments wrapping at 17, 256 decrements wrapping below 0, 256 adds of 3
            np.testing.assert_array_equal(c, [256 % 18, [0, 5, 4, 3, 2, 1][256 % 6], 768])
            np.testing.assert_array_equal(np.sort(olds), np.sort(np.arange(256) % 18))


TABLES = """
import numpy as np
from hybrid_runtime import Array, f32, i32, gpu, kernel

WEIGHTS = np.array([[0.25, 0.5, 0.25], [-1.0, 0.0, 1.0]], dtype=np.float32)
PRIMES = (2, 3, 5, 7, 11, 13)  # Python ints: i64 elements
SMALL = np.array([-2**31, -1, 0, 2**31 - 1], dtype=np.int32)

@kernel
def tables(x: Array[f32], out: Array[f32], ints: Array[i32]):
    i = gpu.global_tid_x()
    if 0 < i < len(x) - 1:
        r = i % 2
        out[i] = WEIGHTS[r, 0] * x[i - 1] + WEIGHTS[r, 1] * x[i] + WEIGHTS[r, 2] * x[i + 1]
    ints[i] = i32(PRIMES[i % len(PRIMES)]) + SMALL[i % 4] // 2
"""


@pytest.mark.wgpu
def test_constant_tables(tmp_path: Path):
    """Module constants read as tables are module-scope const arrays of the shader, read as the native CPU reads
    them (NumPy arrays of f32 and i32, tuples of Python ints)."""
    kernels = compile_packages([_package(tmp_path, "wgtables", TABLES)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    x = np.random.default_rng(5).standard_normal(200).astype(np.float32)
    with imported_package(tmp_path, "wgtables") as kern:
        got = _both(kern.tables, 64, 4, x, np.zeros(200, np.float32), np.zeros(256, np.int32))
        assert same_bits(got[0][1], got[1][1]) and (got[1][1][1:-1] != 0).all()
        np.testing.assert_array_equal(got[0][2], got[1][2])
        small = np.array([-(2**31), -1, 0, 2**31 - 1], np.int64) // 2
        want = np.array([2, 3, 5, 7, 11, 13])[np.arange(256) % 6] + small[np.arange(256) % 4]
        np.testing.assert_array_equal(got[1][2], want.astype(np.int32))


BITS = """
import numpy as np
from hybrid_runtime import Array, f32, i32, u32, gpu, kernel

@kernel
def bits(x: Array[f32], n: Array[i32], out: Array[u32], back: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = x[i].view(np.uint32) ^ u32(n[i].view(f32) > 0)
        back[i] = (x[i].view(i32) + 1).view(f32)
"""


@pytest.mark.wgpu
def test_scalar_views_are_bitcasts(tmp_path: Path):
    """``x.view(np.uint32)`` of 32-bit scalars is WGSL's bitcast: the native CPU's bits, NaNs included."""
    kernels = compile_packages([_package(tmp_path, "wgbits", BITS)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(8)
    x = rng.standard_normal(128).astype(np.float32)
    x[:4] = [np.inf, -0.0, np.float32(1e-45), 3.0]
    n = rng.integers(-(2**31), 2**31, 128, dtype=np.int64).astype(np.int32)
    with imported_package(tmp_path, "wgbits") as kern:
        got = _both(kern.bits, 64, 2, x, n, np.zeros(128, np.uint32), np.zeros(128, np.float32))
        np.testing.assert_array_equal(got[0][2], got[1][2])
        np.testing.assert_array_equal(got[1][2], x.view(np.uint32) ^ (n.view(np.float32) > 0))
        assert same_bits(got[0][3], got[1][3])


VIEWS = """
from hybrid_runtime import Array, f32, i64, gpu, kernel

def total(row: Array[f32]) -> f32:
    acc = f32(0)
    for k in range(len(row)):
        acc += row[k]
    return acc

@kernel
def views(m: Array[f32, 2], out: Array[f32, 2], lengths: Array[i64], start: i64, step: i64):
    i = gpu.global_tid_x()
    if i < m.shape[0]:
        out[i, 0] = total(m[i])  # a row
        out[i, 1] = total(m[i, 1:])  # the row after its first element
        out[i, 2] = total(m[i, ::-1][:3])  # the last three, backwards
        out[i, 3] = total(m[i, start::step])  # bounds and a step known at run time (of either sign)
        col = m[:, i % m.shape[1]]
        out[i, 4] = col[-1] + col[0]
        back = m[i, start::step]
        if len(back) > 0:
            out[i, 5] = back[len(back) - 1]
        lengths[i] = len(back)
"""


@pytest.mark.wgpu
def test_array_views(tmp_path: Path):
    """Views of arrays (rows, slices with steps known at build or run time, columns, views of views, views
    passed to helpers) select the same elements as on the native CPU; a step of zero raises as NumPy does."""
    kernels = compile_packages([_package(tmp_path, "wgviews", VIEWS)], options=_options())
    assert kernels[0].codes.get("wgsl") is not None, kernels[0].not_built
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    m = np.random.default_rng(6).standard_normal((40, 9)).astype(np.float32)
    with imported_package(tmp_path, "wgviews") as kern:
        for start, step in ((1, 2), (-2, -3), (100, -1), (-100, 1), (5, 100)):
            got = _both(kern.views, 64, 1, m, np.zeros((40, 6), np.float32), np.zeros(40, np.int64), start, step)
            assert same_bits(got[0][1], got[1][1]), (start, step)
            np.testing.assert_array_equal(got[1][2], len(m[0, start::step]))
        for device in (CPU, "wgpu"):
            with pytest.raises(ValueError, match=r"slice step cannot be zero \(wgviews/kern.py:17"):
                kern.views.launch(64, 1, m, np.zeros((40, 6), np.float32), np.zeros(40, np.int64), 1, 0, device=device)


STRUCTS = """
from hybrid_runtime import Array, f32, i32, i64, u32, gpu, kernel, struct


@struct
class Vec2:
    x: f32
    y: f32


@struct
class Particle:
    pos: Vec2
    mass: f32
    id: i64  # after a 4-byte hole: the C layout, which WGSL's storage layout is too
    hits: u32


@struct
class Flagged:
    v: f32
    on: bool


def kick(ps: Array[Particle], i: int, by: f32):
    ps[i].pos.y += by


@kernel
def step(ps: Array[Particle], grid: Array[Vec2, 2], out: Array[Vec2], dt: f32):
    i = gpu.global_tid_x()
    if i < len(ps):
        p = ps[i]  # bound to the element: its field stores write the array too
        p.pos.x += dt * p.mass
        p.hits = p.hits + u32(1)
        ps[i].mass *= f32(0.5)
        ps[i].id = p.id * 3 - i
        kick(ps, i, dt)
        row = grid[i % 3]
        g = row[i % 4]
        out[i] = Vec2(g.x + p.pos.x, g.y * ps[i].mass)
        if i % 5 == 0:
            ps[i] = Particle(Vec2(g.y, g.x), p.mass, i64(-i), u32(7))


@kernel
def tiles(src: Array[Vec2], out: Array[Vec2]):
    tile = gpu.shared_array(Flagged, 64)
    mine = gpu.local_array(Vec2, 3)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    tile[t] = Flagged(src[i].x - src[i].y, src[i].x > 0)
    for k in range(3):
        mine[k] = Vec2(src[i].y * f32(k), f32(k))
    gpu.syncthreads()
    other = tile[63 - t]
    out[i] = Vec2(other.v if other.on else -other.v, mine[2].x + mine[1].y)
"""


@pytest.mark.wgpu
def test_arrays_of_structs(tmp_path: Path):
    """Arrays of structs (nested ones, an i64 after a hole) as buffers, 2-D and viewed by rows, fields read and
    written in place (also through a variable bound to an element, `+=` and in a helper), whole elements
    stored; shared and per-thread arrays of structs (a bool field there): the native code's bits."""
    kernels = compile_packages([_package(tmp_path, "wgstructs", STRUCTS)], options=_options())
    assert all(k.codes.get("wgsl") is not None for k in kernels), [k.not_built for k in kernels]
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(9)
    with imported_package(tmp_path, "wgstructs") as kern:
        ps = np.zeros(300, kern.Particle.dtype)
        assert kern.Particle.dtype.itemsize == 32 and kern.Particle.dtype.fields["id"][1] == 16
        ps["pos"]["x"], ps["pos"]["y"] = rng.standard_normal(300), rng.standard_normal(300)
        ps["mass"], ps["id"], ps["hits"] = rng.random(300), rng.integers(-(2**40), 2**40, 300), 3
        grid = np.zeros((3, 4), kern.Vec2.dtype)
        grid["x"], grid["y"] = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
        got = _both(kern.step, 64, 5, ps, grid, np.zeros(300, kern.Vec2.dtype), np.float32(0.25))
        assert _same_fields(got[0][0], got[1][0]) and _same_fields(got[0][2], got[1][2])
        assert not np.array_equal(got[1][0], ps) and got[1][0]["hits"][1] == 4 and got[1][0]["id"][5] == -5
        src = np.zeros(128, kern.Vec2.dtype)
        src["x"], src["y"] = rng.standard_normal(128), rng.standard_normal(128)
        got = _both(kern.tiles, 64, 2, src, np.zeros(128, kern.Vec2.dtype))
        assert _same_fields(got[0][1], got[1][1]) and np.any(got[1][1]["x"] != 0)
        # a bool field has no layout in a buffer: that kernel is not built for the target, and says why
    source = STRUCTS + "\n@kernel\ndef flags(fs: Array[Flagged]):\n    fs[gpu.global_tid_x()].v = f32(1)\n"
    kernels = compile_packages([_package(tmp_path / "more", "wgflags", source)], options=_options())
    flags = next(k for k in kernels if k.decl.label == "flags")
    assert flags.codes.get("wgsl") is None and "field `on` is a bool" in flags.not_built["wgsl"]


def _same_fields(a: np.ndarray, b: np.ndarray) -> bool:
    """Every field of two arrays of structs bit for bit (not the padding between fields, which no one reads)."""
    if a.dtype.names is None:
        return same_bits(a, b)
    return all(_same_fields(a[name], b[name]) for name in a.dtype.names)


HALVES = """
from hybrid_runtime import Array, f16, f32, i32, i64, gpu, kernel, struct
import numpy as np

@struct
class HalfPair:
    a: f16
    b: f16
    n: i32


EPS, HALF = f16(0.1), np.float16(0.5)  # a typed constant and a NumPy scalar


@kernel
def halves(a: Array[f16], b: Array[f16], h: Array[f16, 2], wide: Array[f32, 2], ints: Array[i32, 2],
           ps: Array[HalfPair]):
    i = gpu.global_tid_x()
    if i < len(a):
        x, y = a[i], b[i]
        h[0, i], h[1, i], h[2, i], h[3, i] = x + y, x - y, x * y, x / y
        h[4, i] = min(x, y)
        h[5, i] = max(x, y)
        h[6, i] = x * y + x
        h[7, i] = x * EPS - 3 + HALF
        h[8, i] = x + 7
        h[9, i] = -x
        h[10, i] = abs(x)
        h[11, i] = x ** 2
        t = x
        t += y
        t *= y
        h[12, i] = t
        tile = gpu.shared_array(f16, 64)
        tile[gpu.thread_idx_x()] = x
        gpu.syncthreads()
        h[13, i] = tile[63 - gpu.thread_idx_x()]
        wide[0, i] = x
        wide[1, i] = x * f32(0.5)
        if abs(x) < f16(65000):
            ints[0, i] = i32(x)
        ints[1, i] = i32(x < y) + 2 * i32(x != x) + 4 * i32(bool(x)) + 8 * i32(x >= y) + 16 * i32(x == y)
        p = ps[i]
        ps[i].a = p.a * p.b
        ps[i].n = i32(p.b > p.a)


@kernel
def narrow(s: Array[f32], n: Array[i64], h: Array[f16, 2]):
    i = gpu.global_tid_x()
    if i < len(s):
        h[0, i] = f16(s[i])
        h[1, i] = f16(n[i])
        h[2, i] = f16(n[i] > 0)
"""


@pytest.mark.wgpu
def test_f16_with_numpys_rounding(tmp_path: Path):
    """f16 (the adapter's shader-f16) over every f16 bit pattern: arithmetic, conversions both ways (f32 values
    at f16's rounding ties, subnormals and overflow), comparisons, shared arrays and struct fields give the
    native code's bits, which are NumPy's."""
    kernels = compile_packages([_package(tmp_path, "wghalves", HALVES)], options=_options())
    assert all(k.codes.get("wgsl") is not None and "shader-f16" in k.codes.get("wgsl").features for k in kernels), [
        k.not_built for k in kernels
    ]
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(10)
    a = np.arange(65536, dtype=np.uint16).view(np.float16)
    b = rng.integers(0, 65536, 65536, dtype=np.uint16).view(np.float16)
    with imported_package(tmp_path, "wghalves") as kern:
        ps = np.zeros(65536, kern.HalfPair.dtype)
        ps["a"], ps["b"] = b, a
        args = (a, b, np.zeros((14, 65536), np.float16), np.zeros((2, 65536), np.float32))
        got = _both(kern.halves, 64, 1024, *args, np.zeros((2, 65536), np.int32), ps)
        for k in (2, 3, 4, 5):
            assert _same_fields(got[0][k], got[1][k]), k
        with np.errstate(all="ignore"):
            assert same_bits(got[1][2][0], a + b) and same_bits(got[1][2][3], a / b)
            assert same_bits(got[1][3][1], (a * np.float32(0.5)).astype(np.float32))
        # f32 -> f16 at ties (halfway between two f16s, both parities), in the subnormal range, near overflow
        halfway = (np.arange(0, 65536, 7, dtype=np.uint32) << 13) + 4096
        s = np.concatenate([halfway.view(np.float32), rng.standard_normal(4096).astype(np.float32) * 1e-5])
        s = np.concatenate([s, -s, np.float32([65504, 65519.99, 65520, 1e9, np.inf, np.nan, 2.0**-25, 2.0**-24])])
        n = rng.integers(-70000, 70000, len(s))
        got = _both(kern.narrow, 256, -(-len(s) // 256), s, n, np.zeros((3, len(s)), np.float16))
        with np.errstate(all="ignore"):  # (NumPy's overflow warnings: inf is the result wanted)
            assert same_bits(got[0][2], got[1][2]) and same_bits(got[1][2][0], s.astype(np.float16))
            assert same_bits(got[1][2][1], n.astype(np.float16))


DIVMOD = """
from hybrid_runtime import Array, i32, i64, u32, gpu, kernel

@kernel
def floors(a: Array[i32], b: Array[i32], q: Array[i32], r: Array[i32], q64: Array[i64], r64: Array[i64]):
    i = gpu.global_tid_x()
    if i < len(a):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        q64[i] = i64(a[i]) // i64(b[i])
        r64[i] = i64(a[i]) % i64(b[i])
"""


@pytest.mark.wgpu
def test_integer_floor_division_and_modulo_of_negative_numbers(tmp_path: Path):
    """Python's floor division and modulo of signed integers, every sign combination, as NumPy computes them
    (a zero divisor gives 0). The shader never uses WGSL's signed `%`: NVIDIA's Vulkan driver got it wrong
    for 57% of random operands (-1 % 2 == 1)."""
    kernels = compile_packages([_package(tmp_path, "wgdivmod", DIVMOD)], options=_options())
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(8)
    a = rng.integers(-100, 100, 1024, dtype=np.int32)
    b = rng.integers(-9, 10, 1024, dtype=np.int32)
    a[:3], b[:3] = [-(2**31), -(2**31), 7], [-1, 1, 0]
    with imported_package(tmp_path, "wgdivmod") as kern:
        z32, z64 = np.zeros(1024, np.int32), np.zeros(1024, np.int64)
        got = _both(kern.floors, 256, 4, a, b, z32, z32, z64, z64)
        for k in (2, 3, 4, 5):
            np.testing.assert_array_equal(got[1][k], got[0][k])
        with np.errstate(all="ignore"):
            safe = np.where(b == 0, 1, b)
            np.testing.assert_array_equal(got[1][2][3:], np.where(b == 0, 0, a // safe)[3:])
            np.testing.assert_array_equal(got[1][5], np.where(b == 0, 0, a.astype(np.int64) % safe))


WARPS = """
from hybrid_runtime import Array, f32, i32, i64, u32, gpu, kernel

@kernel
def warps(x: Array[f32], k: Array[i32], out: Array[f32], votes: Array[i64], d: i64):
    i = gpu.global_tid_x()
    v = x[i]
    a = gpu.shfl_down(v, d)
    b = gpu.shfl_up(v, d, 16)
    c = gpu.shfl_xor(k[i], d)
    e = gpu.shfl_idx(v, d + 3, 8)
    w = gpu.shfl_down(i, 1)
    out[i] = a + b + f32(c) + e + f32(w)
    votes[i] = gpu.ballot(v > 0) + 1000 * (gpu.all_(k[i] >= 0) + 2 * gpu.any_(v > 1)) + 10000 * gpu.lane_id()
"""


@pytest.mark.wgpu
def test_warp_calls_are_subgroup_operations_or_a_clear_error(tmp_path: Path):
    """Shuffles (with widths), votes and lane ids as subgroup operations: the same bits as the native code
    where the adapter's subgroups are CUDA's 32-lane warps (NVIDIA); elsewhere (lavapipe: 8 lanes) a launch
    says why it cannot run."""
    from hybrid_runtime import wgpu_device

    kernels = compile_packages([_package(tmp_path, "wgwarps", WARPS)], options=_options())
    write_package_artifacts(kernels, ["sm_90"], tmp_path)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(128).astype(np.float32)
    k = rng.integers(-3, 50, 128).astype(np.int32)
    with imported_package(tmp_path, "wgwarps") as kern:
        why = wgpu_device.get_device().warps()
        if why:
            with pytest.raises(
                ValueError, match=r"warps uses warp calls .* need 32-lane subgroups; .*lanes, not CUDA's 32"
            ):
                kern.warps.launch(64, 2, x, k, np.zeros(128, np.float32), np.zeros(128, np.int64), 3, device="wgpu")
            return
        for d in (1, 3, 17, 40):
            got = []
            for device in (CPU, "wgpu"):
                out, votes = np.zeros(128, np.float32), np.zeros(128, np.int64)
                kern.warps.launch(64, 2, x, k, out, votes, d, device=device)
                got.append((out, votes))
            assert same_bits(got[0][0], got[1][0]) and same_bits(got[0][1], got[1][1]), d


@pytest.mark.wgpu
def test_shaders_are_made_without_webgpus_run_time_checks_unless_asked(monkeypatch: pytest.MonkeyPatch):
    """wgpu-native's trusted shader modules (no loop counters, no index clamps: CUDA's meaning); with
    HYBRID_WGPU_CHECKS=1, or a wgpu without that entry point (a warning, once), WebGPU's checked ones."""
    from hybrid_runtime import wgpu_device, wgpu_shaders
    from wgpu.backends.wgpu_native import _api

    device = wgpu_device.get_device().device
    plain: list[str] = []
    real = device.create_shader_module
    monkeypatch.setattr(device, "create_shader_module", lambda **kw: plain.append(kw["label"]) or real(**kw))
    source = "@compute @workgroup_size(1) fn main() {}"
    assert wgpu_shaders.shader_module(device, "trusted", source) is not None and plain == []
    monkeypatch.setenv("HYBRID_WGPU_CHECKS", "1")
    wgpu_shaders.shader_module(device, "asked", source)
    assert plain == ["asked"]
    monkeypatch.delenv("HYBRID_WGPU_CHECKS")
    real_libf = _api.libf

    class Older:  # a wgpu-native without the entry point
        def __getattr__(self, name: str):
            if name == "wgpuDeviceCreateShaderModuleTrusted":
                raise AttributeError(name)
            return getattr(real_libf, name)

    monkeypatch.setattr(_api, "libf", Older())
    monkeypatch.setattr(wgpu_shaders, "_said", False)
    with pytest.warns(RuntimeWarning, match="without WebGPU's run-time checks"):
        wgpu_shaders.shader_module(device, "fallback", source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once
        wgpu_shaders.shader_module(device, "again", source)
    assert plain == ["asked", "fallback", "again"]


@pytest.mark.wgpu
def test_device_arrays_stay_on_the_gpu_between_launches(bench):
    from hybrid_runtime import wgpu_device

    module, _ = bench
    x = np.arange(1000, dtype=np.float32)
    d = wgpu_device.to_device(np.ones(1000, np.float32))
    for _ in range(3):
        module.saxpy.launch(128, 8, np.float32(2.0), x, d, device="wgpu")
    assert isinstance(d, wgpu_device.WgpuArray) and d.shape == (1000,)
    np.testing.assert_array_equal(d.copy_to_host(), 1 + 6 * x)
    with pytest.raises(TypeError, match="`y`"):
        module.saxpy.launch(128, 8, np.float32(2.0), x, wgpu_device.to_device(np.ones(1000, np.int32)), device="wgpu")


@pytest.mark.wgpu
def test_repeated_launches_on_device_arrays_take_the_fast_path_with_the_same_meaning(bench):
    """A launch like the last one (the same device arrays, NumPy scalars of the parameters' types) skips the
    argument checks and the layout; anything else takes the full launch, with its checks and errors."""
    from hybrid_runtime import wgpu_device

    module, _ = bench
    x0 = np.arange(1000, dtype=np.float32)
    x, y = wgpu_device.to_device(x0), wgpu_device.to_device(np.zeros(1000, np.float32))
    expected = np.zeros(1000, np.float32)
    for a in (np.float32(2.0), np.float32(0.5), 3.0, np.float32(-1.0)):  # the scalar changes every launch
        module.saxpy.launch(128, 8, a, x, y, device="wgpu")
        expected = np.float32(a) * x0 + expected
    fast = module.saxpy._wgpu_fast[(128, 8)]
    assert fast.last is not None and fast.last[1] is x
    np.testing.assert_array_equal(y.copy_to_host(), expected)
    for bad, error in ((np.complex64(2.0), TypeError), (1e300, ValueError), ("2", TypeError)):
        with pytest.raises(error, match="`a`"):
            module.saxpy.launch(128, 8, bad, x, y, device="wgpu")
    other = wgpu_device.to_device(np.ones(500, np.float32))  # another array: its own layout
    module.saxpy.launch(128, 8, np.float32(1.0), x, other, device="wgpu")
    np.testing.assert_array_equal(other.copy_to_host(), 1 + x0[:500])
    module.saxpy.launch(128, 8, np.float32(1.0), x, y, device="wgpu")
    np.testing.assert_array_equal(y.copy_to_host(), x0 + expected)
    host = np.zeros(1000, np.float32)  # NumPy arrays: a synchronous launch, never the fast path after it
    module.saxpy.launch(128, 8, np.float32(1.0), x0, host, device="wgpu")
    assert fast.last is None
    np.testing.assert_array_equal(host, x0)


@pytest.mark.wgpu
def test_hybrid_device_wgpu_routes_every_launch_form(bench, monkeypatch: pytest.MonkeyPatch):
    """``$HYBRID_DEVICE=wgpu`` sends ``k[blocks, threads](...)`` and ``k.launch(...)`` through WebGPU, and
    ``to_device(..., device="wgpu")`` makes a WebGPU array; "auto" never picks a CPU adapter (lavapipe)."""
    from hybrid_runtime import select_device, to_device, wgpu_device

    module, _ = bench
    monkeypatch.setenv("HYBRID_DEVICE", "wgpu")
    d = to_device(np.zeros(300, np.float32), device="wgpu")
    assert isinstance(d, wgpu_device.WgpuArray)
    x = np.ones(300, np.float32)
    module.saxpy[3, 128](np.float32(1.5), x, d)  # a WgpuArray: only WebGPU can run this launch
    module.saxpy.launch(128, 3, np.float32(1.5), x, d)
    np.testing.assert_array_equal(d.copy_to_host(), np.full(300, 3.0, np.float32))
    wdev = select_device("wgpu")
    assert isinstance(wdev, wgpu_device.WgpuDevice) and wdev.kind == "wgpu" and wdev.describe().startswith("wgpu (")
    if wgpu_device.get_device().is_cpu:
        assert not isinstance(select_device("auto"), wgpu_device.WgpuDevice)  # never a CPU adapter


SQUARES = """
from hybrid_runtime import Array, f64, gpu, kernel

@kernel
def squares(z: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(z):
        z[i] = z[i] * z[i]
        print(z[i])
"""


def test_list_and_the_build_say_which_targets_each_kernel_has(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """No device needed: `hatch-hybrid list` names each kernel's targets and, for a missing one, why
    (with the line); the compiled result keeps the same reason for the build's output and the manifest."""
    from hatch_hybrid.cli import main

    assert main(["list", str(ROOT / "benchmarks" / "bench_kernels")]) == 0
    out = capsys.readouterr().out
    saxpy = out.split("bench_kernels.kernels.saxpy(", 1)[1].split("\n")[1]
    assert saxpy.strip() == "targets: ptx, cpu, wgsl, python"
    assert main(["list", str(_package(tmp_path, "wglist", SQUARES))]) == 0
    squares = capsys.readouterr().out.split("wglist.kern.squares(", 1)[1]
    assert "targets: ptx, cpu, python\n" in squares
    assert "not wgsl: print() in wglist.kern.squares\n" in squares
    kernels = compile_packages([tmp_path / "wglist"], options=_options())
    assert kernels[0].manifest_entry()["wgsl"]["unsupported"].startswith("print()")
    kernels = compile_packages([ROOT / "benchmarks" / "bench_kernels" / "bench_kernels"], options=_options())
    by_name = {k.decl.label: k for k in kernels}
    assert by_name["matmul"].manifest_entry()["wgsl"]["file"] == "bench_kernels__kernels__matmul.wgsl"
    assert by_name["block_sum"].manifest_entry()["wgsl"]["features"] == ["shader-int64", "subgroup"]


def _package(root: Path, name: str, source: str) -> Path:
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(source)
    return pkg
