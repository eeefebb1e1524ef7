"""Well-known numba-cuda examples ported by changing their decorator, annotations and one import
(tests/packages/numba_ports): compiled with every PTX through ptxas, and matching NumPy natively on
the CPU, through the Python functions, and on a GPU when present."""

from __future__ import annotations

import importlib
import math
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import DEVICES, HOST_TARGETS, compile_fixture

PACKAGE = Path(__file__).parent / "packages" / "numba_ports"


@pytest.fixture(scope="module")
def ports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimpleNamespace]:
    """The package compiled as its wheel would be (kernels, native code, manifest), then imported."""
    root = tmp_path_factory.mktemp("numba_ports")
    shutil.copytree(PACKAGE / "numba_ports", root / "numba_ports")
    compile_fixture([root / "numba_ports"], root, cpu=HOST_TARGETS)
    sys.path.insert(0, str(root))
    try:
        names = ("matmul", "histogram", "sorting", "blackscholes")
        yield SimpleNamespace(**{n: importlib.import_module(f"numba_ports.{n}") for n in names})
    finally:
        sys.path.remove(str(root))
        for mod in [m for m in sys.modules if m == "numba_ports" or m.startswith("numba_ports.")]:
            del sys.modules[mod]


@pytest.mark.parametrize("device", DEVICES)
def test_tiled_matmul(ports: SimpleNamespace, device: str) -> None:
    rng = np.random.default_rng(0)
    n = 48
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    tpb = ports.matmul.TPB
    ports.matmul.fast_matmul.launch((tpb, tpb), (n // tpb, n // tpb), A, B, C, device=device)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_tiled_matmul_native_equals_python(ports: SimpleNamespace) -> None:
    rng = np.random.default_rng(1)
    A = rng.standard_normal((32, 32)).astype(np.float32)
    B = rng.standard_normal((32, 32)).astype(np.float32)
    results = []
    for device in ("cpu", "cpu-python"):
        C = np.zeros((32, 32), np.float32)
        ports.matmul.fast_matmul.launch((16, 16), (2, 2), A, B, C, device=device)
        results.append(C)
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("device", DEVICES)
def test_histogram(ports: SimpleNamespace, device: str) -> None:
    rng = np.random.default_rng(2)
    xmin, xmax = np.float32(-2.5), np.float32(2.5)
    # in range: the tutorial's compute_bin truncates toward zero, so values just below xmin land in bin 0
    x = np.clip(rng.normal(size=5000), xmin, xmax).astype(np.float32)
    out = np.zeros(20, np.int32)
    ports.histogram.histogram.launch(64, 8, x, xmin, xmax, out, device=device)
    expected, _ = np.histogram(x.astype(np.float64), bins=20, range=(float(xmin), float(xmax)))
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_atomic_max(ports: SimpleNamespace, device: str) -> None:
    values = np.random.default_rng(3).random(256)
    result = np.zeros(1)
    ports.histogram.max_example.launch(64, 4, result, values, device=device)
    assert result[0] == values.max()


@pytest.mark.parametrize("device", DEVICES)
def test_local_array_insertion_sort(ports: SimpleNamespace, device: str) -> None:
    data = np.random.default_rng(4).standard_normal((100, ports.sorting.ROW)).astype(np.float32)
    out = np.zeros_like(data)
    ports.sorting.sort_rows.launch(32, 4, data, out, device=device)
    np.testing.assert_array_equal(out, np.sort(data, axis=1))


@pytest.mark.parametrize("device", DEVICES)
def test_warp_shuffle_sums(ports: SimpleNamespace, device: str) -> None:
    values = np.arange(96, dtype=np.float32)
    sums = np.zeros(3, np.float32)
    ports.sorting.warp_sums.launch(96, 1, values, sums, device=device)
    np.testing.assert_array_equal(sums, values.reshape(3, 32).sum(axis=1))


@pytest.mark.parametrize("device", DEVICES)
def test_black_scholes(ports: SimpleNamespace, device: str) -> None:
    rng = np.random.default_rng(5)
    n = 1000
    S = rng.uniform(5.0, 30.0, n)
    X = rng.uniform(1.0, 100.0, n)
    T = rng.uniform(0.25, 10.0, n)
    R, V = ports.blackscholes.RISKFREE, ports.blackscholes.VOLATILITY
    call, put = np.zeros(n), np.zeros(n)
    ports.blackscholes.black_scholes_cuda.launch(128, (n + 127) // 128, call, put, S, X, T, R, V, device=device)
    erf = np.vectorize(math.erf)
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    cnd1, cnd2 = 0.5 * (1.0 + erf(d1 / np.sqrt(2.0))), 0.5 * (1.0 + erf(d2 / np.sqrt(2.0)))
    exp_rt = np.exp(-R * T)
    np.testing.assert_allclose(call, S * cnd1 - X * exp_rt * cnd2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(put, X * exp_rt * (1.0 - cnd2) - S * (1.0 - cnd1), rtol=1e-12, atol=1e-12)
