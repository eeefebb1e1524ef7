"""The example packages, compiled in-process: the Mandelbrot around a shared ``Complex`` struct (the GPU
image equals the CPU image), the generic bitonic sort (GPU, CPU driver and the kernel's CPU path
agree with NumPy), and the Mandelbrot in tiles on dask.distributed workers (equal to one process)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import HOST_TARGETS, compile_fixture

EXAMPLES = Path(__file__).parent.parent / "example_project"
PACKAGES = ("hybrid_demo", "hybrid_sort", "hybrid_dask")


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType | Path]]:
    """hybrid_demo, hybrid_sort and hybrid_dask built from source into a folder of their own, as their
    wheels would be; ``example["root"]`` is that folder."""
    root = tmp_path_factory.mktemp("examples")
    for package in PACKAGES:
        shutil.copytree(EXAMPLES / package / package, root / package)
    compile_fixture([root / package for package in PACKAGES], root, cpu=HOST_TARGETS)
    saved = {m: sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] in PACKAGES}
    sys.path.insert(0, str(root))
    try:
        modules = {}
        for name in PACKAGES:
            try:
                modules[name] = importlib.import_module(name)
            except ImportError:  # hybrid_dask without dask installed: its tests skip
                assert name == "hybrid_dask" and importlib.util.find_spec("distributed") is None
        yield {"root": root, **modules}
    finally:
        sys.path.remove(str(root))
        for m in [m for m in sys.modules if m.split(".")[0] in PACKAGES]:
            del sys.modules[m]
        sys.modules.update(saved)


def test_complex_is_one_struct_for_host_and_device(example) -> None:  # type: ignore[no-untyped-def]
    demo = example["hybrid_demo"]
    c = demo.Complex(-0.5, 0.25)
    assert demo.Complex.dtype == np.dtype([("re", "f4"), ("im", "f4")], align=True)
    assert c.is_stable(np.int32(100)) and not demo.Complex(1.0, 1.0).is_stable(np.int32(100))
    assert type(c.square().re) is np.float32


def test_mandelbrot_cpu_threads_equal_the_kernel_natively_and_through_python(example) -> None:  # type: ignore[no-untyped-def]
    demo = example["hybrid_demo"]
    threads = demo.render_cpu_threads(48, 32, 40)
    python = demo.render_kernel(48, 32, 40, device="cpu-python")
    assert np.array_equal(threads, python)
    assert len(np.unique(threads)) > 10
    if HOST_TARGETS:
        assert demo.mandelbrot.mandelbrot_kernel.native_code() is not None
        assert np.array_equal(threads, demo.render_kernel(48, 32, 40, device="cpu"))
        big = demo.render_kernel(1024, 768, 256, device="cpu")  # a real size: native code
        assert (big == 256).sum() > 0 and (big < 256).sum() > 0


@pytest.mark.gpu
def test_mandelbrot_gpu_image_equals_cpu_image(example) -> None:  # type: ignore[no-untyped-def]
    """The paper's test: the same Complex code rendered by CPU threads and by the GPU, pixel for pixel."""
    demo = example["hybrid_demo"]
    cpu = demo.render_cpu_threads(320, 240, 200)
    gpu = demo.render_kernel(320, 240, 200, device="cuda")
    assert np.array_equal(cpu, gpu)
    big = demo.render_kernel(2048, 2048, 256, device="cuda")
    assert (big == 256).sum() > 0 and (big < 256).sum() > 0


def _keys(dtype: type, n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype is np.float32:
        return rng.standard_normal(n).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", [np.float32, np.uint32, np.int32])
def test_bitonic_sort_on_the_cpu(example, dtype: type) -> None:  # type: ignore[no-untyped-def]
    sort = example["hybrid_sort"]
    keys = _keys(dtype, 1 << 12)
    for order in sort.SortOrder:
        want = np.sort(keys) if order == sort.SortOrder.ASCENDING else np.sort(keys)[::-1]
        assert np.array_equal(sort.sort_cpu(keys.copy(), order), want)
        small = keys[:128].copy()
        small_want = np.sort(small) if order == sort.SortOrder.ASCENDING else np.sort(small)[::-1]
        assert np.array_equal(sort.bitonic.sort_kernel(small, order, device="cpu-python"), small_want)
        if HOST_TARGETS:  # every key through the kernel's native code
            assert np.array_equal(sort.bitonic.sort_kernel(keys.copy(), order, device="cpu"), want)


def test_bitonic_sort_rejects_other_types_and_lengths(example) -> None:  # type: ignore[no-untyped-def]
    sort = example["hybrid_sort"]
    with pytest.raises(ValueError, match="power of two"):
        sort.sort(np.zeros(12, np.float32), device="cpu")
    with pytest.raises(TypeError, match=r"no specialisation fits .*array of float64.*K=f32; K=u32; K=i32"):
        sort.bitonic.sort_kernel(np.zeros(8), sort.SortOrder.ASCENDING, device="cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.uint32, np.int32])
def test_bitonic_sort_of_2_20_keys_on_gpu_equals_cpu(example, dtype: type) -> None:  # type: ignore[no-untyped-def]
    sort = example["hybrid_sort"]
    keys = _keys(dtype, 1 << 20)
    for order in sort.SortOrder:
        gpu = sort.sort(keys.copy(), order, device="cuda")
        cpu = sort.sort_cpu(keys.copy(), order)
        want = np.sort(keys) if order == sort.SortOrder.ASCENDING else np.sort(keys)[::-1]
        assert np.array_equal(gpu, cpu) and np.array_equal(gpu, want)


def test_every_example_kernel_matches_its_manifest(example) -> None:  # type: ignore[no-untyped-def]
    """Structs, enums, generics: the manifest's parameters agree with the annotations, the digests with the files."""
    from hybrid_runtime import Kernel

    kernels = {
        k.qualname: k
        for name, module in list(sys.modules.items())
        if name.split(".")[0] in example
        for k in vars(module).values()
        if isinstance(k, Kernel)
    }
    assert len(kernels) >= 3  # noqa: PLR2004
    for k in kernels.values():
        k.verify()


@pytest.fixture
def dask_client(example, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``dask_client(gpus)``: a client of a LocalCluster of 2 single-threaded worker processes that
    import the examples built above, each pinned by hybrid_dask's plugin to a GPU (or the CPU: 0)."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(example["root"]), os.environ.get("PYTHONPATH", "")]))
    opened = []

    def start(gpus: int):  # type: ignore[no-untyped-def]
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
        opened.extend([client, cluster])
        client.register_plugin(example["hybrid_dask"].PinDevice(gpus))
        return client

    yield start
    for thing in opened:
        thing.close()


def test_dask_tiles_on_two_worker_processes_equal_one_process(example, dask_client) -> None:  # type: ignore[no-untyped-def]
    tiled, demo = example["hybrid_dask"], example["hybrid_demo"]
    client = dask_client(0)
    assert sorted(tiled.pinned_devices(client).values()) == ["cpu", "cpu"]
    image, used = tiled.render_tiled(client, 64, 48, 16, tile=(20, 28))  # uneven tiles: edges too
    assert used == {"cpu": 9}
    assert np.array_equal(image, demo.render_kernel(64, 48, 16, device="cpu"))
    assert np.array_equal(image, demo.render_cpu_threads(64, 48, 16))
    assert len(np.unique(image)) > 8


def test_dask_command_checks_its_image(example) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("distributed")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(example["root"]), os.environ.get("PYTHONPATH", "")])}
    args = ["--device", "cpu", "--size", "64x48", "--max-iter", "16", "--tile", "16x32"]
    proc = subprocess.run([sys.executable, "-m", "hybrid_dask", *args], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tiles per device: cpu: 6" in proc.stdout
    assert "the tiled image equals the single-process render" in proc.stdout


@pytest.mark.gpu
def test_dask_tiles_on_two_gpus(example, dask_client) -> None:  # type: ignore[no-untyped-def]
    """Two GPUs: the tile kernel gives the same counts on cuda:0 and cuda:1 (and the CPU path), an
    array on cuda:1 is refused by a launch on cuda:0, and two workers render on one GPU each."""
    import hybrid_runtime as hr

    if len(hr.devices()) < 2:
        pytest.skip(f"needs 2 GPUs, found {len(hr.devices())}")
    tiled = example["hybrid_dask"]
    params = tiled.view_params(1024, 768)
    tile = (100, 200, 300, 500)
    on = {device: tiled.render_tile(tile, params, 200, device) for device in ("cuda:0", "cuda:1", "cpu")}
    assert np.array_equal(on["cuda:0"], on["cuda:1"]) and np.array_equal(on["cuda:0"], on["cpu"])
    elsewhere = hr.device_array((16, 16), np.int32, device="cuda:1")
    scalars = (*params, 0, 0, np.int32(10))
    with pytest.raises(ValueError, match=r"`out` is on cuda:1"):
        tiled.mandelbrot_tile.launch((16, 16), 1, elsewhere, *scalars, device="cuda:0")
    tiled.mandelbrot_tile[1, (16, 16)](hr.device_array((16, 16), np.int32, device="cuda:0"), *scalars)
    with pytest.raises(ValueError, match=r"`out` is on cuda:1"):  # the cached launcher's fast path too
        tiled.mandelbrot_tile[1, (16, 16)](elsewhere, *scalars)
    client = dask_client(2)
    assert sorted(tiled.pinned_devices(client).values()) == ["cuda:0", "cuda:1"]
    image, used = tiled.render_tiled(client, 2048, 1536, 256, tile=(512, 512))
    assert set(used) <= {"cuda:0", "cuda:1"} and sum(used.values()) == 12
    assert np.array_equal(image, example["hybrid_demo"].render_kernel(2048, 1536, 256, device="cuda:0"))
