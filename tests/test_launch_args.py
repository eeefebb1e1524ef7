"""Launch arguments: a catalogue of bad arguments (input -> exception type, the parameter named, the
message), each refused before anything runs and without a NumPy warning escaping; and the edge
values that are accepted."""

from __future__ import annotations

import struct
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE, built_package
from hybrid_runtime import Array, SlowPathWarning, f32, gpu, i32, kernel, u32
from hybrid_runtime.signature import Param, check_arguments

N = 8


@kernel
def axpb(n: i32, u: u32, a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = a * x[i] + f32(n) + f32(u)


SOURCE = (
    KERNEL_PRELUDE
    + """
from typing import TypeVar

T = TypeVar("T")


def store(out, i, v):
    out[i] = v


@kernel
def through_helper(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(out):
        store(out, i, x[i])


@kernel(specialize={"T": [f32, i32]})
def copy_generic(x: Array[T], out: Array[T]):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = x[i]
"""
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """Kernels whose writes only the build sees (a helper writes the array): the manifest tells the CPU path."""
    with built_package(tmp_path_factory.mktemp("args"), "argspkg", SOURCE) as module:
        yield module


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    return np.arange(N, dtype=np.float32), np.zeros(N, dtype=np.float32)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _launch(**changes: Any) -> dict[str, Any]:
    x, y = _arrays()
    args: dict[str, Any] = {"n": 1, "u": 2, "a": np.float32(2.0), "x": x, "y": y, **changes}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning from inside the runtime fails the case
        warnings.simplefilter("ignore", SlowPathWarning)  # but for this: axpb is not in a package
        axpb.launch(N, 1, *args.values(), device="cpu")
    return args


#: (case, arguments changed from good ones, exception, parameter, message parts)
BAD: list[tuple[str, dict[str, Any], type[Exception], str, list[str]]] = [
    ("int64 beyond i32", {"n": np.int64(2**40 + 5)}, ValueError, "n", ["1099511627781", "out of range"]),
    ("uint32 max for i32", {"n": np.uint32(2**32 - 1)}, ValueError, "n", ["4294967295", "[-2147483648, 2147483647]"]),
    ("int64 below i32", {"n": np.int64(-(2**31) - 1)}, ValueError, "n", ["out of range"]),
    ("uint64 beyond u32", {"u": np.uint64(2**32)}, ValueError, "u", ["4294967296", "[0, 4294967295]"]),
    ("python int beyond i32", {"n": 2**31}, ValueError, "n", ["2147483648", "out of range"]),
    ("negative python int for u32", {"u": -1}, ValueError, "u", ["-1", "out of range"]),
    ("signed numpy int for u32", {"u": np.int64(1)}, TypeError, "u", ["int64", "convert it explicitly"]),
    ("float64 1e300 for f32", {"a": np.float64(1e300)}, ValueError, "a", ["1e+300", "out of range"]),
    ("float64 -1e39 for f32", {"a": np.float64(-1e39)}, ValueError, "a", ["out of range"]),
    ("python float 1e300 for f32", {"a": 1e300}, ValueError, "a", ["out of range", "3.4028235e+38"]),
    ("python int 10**39 for f32", {"a": 10**39}, ValueError, "a", ["out of range"]),
    ("python int 10**400 for f32", {"a": 10**400}, ValueError, "a", ["out of range"]),
    ("float for i32", {"n": 1.5}, TypeError, "n", ["got float"]),
    ("read-only written array", {"y": _read_only(np.zeros(N, np.float32))}, ValueError, "y", ["read-only"]),
    (
        "big-endian array",
        {"x": np.arange(N, dtype=">f4")},
        TypeError,
        "x",
        ["big-endian byte order", ".astype(np.float32)"],
    ),
    (
        "big-endian written array",
        {"y": np.zeros(N, dtype=">f4")},
        TypeError,
        "y",
        ["big-endian byte order"],
    ),
    ("float64 array", {"x": np.zeros(N)}, TypeError, "x", ["float64", ".astype(np.float32)"]),
]


@pytest.mark.parametrize(("changes", "error", "param", "parts"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_argument_is_refused_before_anything_runs(
    changes: dict[str, Any], error: type[Exception], param: str, parts: list[str]
) -> None:
    y = changes.get("y", np.zeros(N, np.float32))
    before = y.copy()
    with pytest.raises(error) as info:
        _launch(**{**changes, "y": y})
    message = str(info.value)
    assert f"axpb(): parameter `{param}`" in message, message
    for part in parts:
        assert part in message, (part, message)
    assert np.array_equal(y, before)  # nothing ran


#: (case, arguments changed) that are fine: the edges of the ranges, inf and nan, read-only inputs
GOOD: list[tuple[str, dict[str, Any]]] = [
    ("int64 in i32 range", {"n": np.int64(-(2**31))}),
    ("uint32 in i32 range", {"n": np.uint32(2**31 - 1)}),
    ("float64 f32 max", {"a": np.float64(np.finfo(np.float32).max)}),
    ("python float just below overflow", {"a": 3.4028235677973362e38}),
    ("float64 inf", {"a": np.float64(np.inf)}),
    ("python -inf", {"a": float("-inf")}),
    ("nan", {"a": float("nan")}),
    ("float64 tiny (rounds to 0)", {"a": np.float64(1e-300)}),
    ("read-only input array", {"x": _read_only(np.arange(N, dtype=np.float32))}),
]


@pytest.mark.parametrize("changes", [c[1] for c in GOOD], ids=[c[0] for c in GOOD])
def test_accepted_arguments_run_without_warnings(changes: dict[str, Any]) -> None:
    args = _launch(**changes)
    with np.errstate(all="ignore"):
        want = np.float32(args["a"]) * args["x"] + np.float32(args["n"]) + np.float32(args["u"])
    assert np.array_equal(args["y"], want, equal_nan=True)


@pytest.mark.parametrize(
    "value", [3.4028234663852886e38, 3.4028235677973362e38, 3.4028235677973366e38, 3.5e38, 1e39, -3.41e38]
)
def test_f32_range_is_the_one_struct_packing_uses(value: float) -> None:
    """The fast path packs Python floats with struct ("f"), which refuses what would round to inf; the
    general path refuses exactly the same values."""
    try:
        struct.pack("<f", value)
        packs = True
    except OverflowError:
        packs = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_arguments("k", [Param("a", "scalar", np.dtype(np.float32))], (value,))
        checks = True
    except ValueError:
        checks = False
    assert packs == checks


def test_array_written_by_a_helper_is_known_from_the_manifest(built: ModuleType) -> None:
    x, out = _arrays()
    with pytest.raises(
        ValueError, match=r"through_helper\(\): parameter `out` is written by the kernel, got a read-only"
    ):
        built.through_helper.launch(N, 1, x, _read_only(out), device="cpu-python")
    built.through_helper.launch(N, 1, _read_only(x), out := np.zeros(N, np.float32), device="cpu-python")
    assert np.array_equal(out, x)


def test_generic_kernels_pick_the_variant_before_the_read_only_check(built: ModuleType) -> None:
    x = _read_only(np.arange(N, dtype=np.int32))
    out = np.zeros(N, np.int32)
    built.copy_generic.launch(N, 1, x, out, device="cpu-python")  # a read-only input fits the i32 variant
    assert np.array_equal(out, x)
    with pytest.raises(ValueError, match=r"parameter `out` is written by the kernel"):
        built.copy_generic.launch(N, 1, x, _read_only(np.zeros(N, np.int32)), device="cpu")


class _ForeignArray:
    """Another library's device array, as __cuda_array_interface__ describes it."""

    def __init__(self, readonly: bool, typestr: str = "<f4") -> None:
        self.__cuda_array_interface__ = {
            "shape": (N,),
            "typestr": typestr,
            "data": (0xDEAD0000, readonly),
            "strides": None,
            "version": 3,
        }


def _manifest_params(writes: bool) -> list[Param]:
    return [Param.from_manifest({"name": "out", "kind": "array", "dtype": "float32", "ndim": 1, "writes": writes})]


@pytest.mark.parametrize(
    ("arg", "writes", "error"),
    [
        (_ForeignArray(readonly=True), True, "parameter `out` is written by the kernel, got a read-only array"),
        (_ForeignArray(readonly=False), True, None),
        (_ForeignArray(readonly=True), False, None),
        (_read_only(np.zeros(N, np.float32)), True, "parameter `out` is written by the kernel, got a read-only array"),
        (_ForeignArray(readonly=False, typestr=">f4"), True, "float32 in big-endian byte order"),
    ],
)
def test_gpu_path_argument_checks(arg: Any, writes: bool, error: str | None) -> None:
    """The checks the CUDA path runs (with the manifest's parameters) before it launches."""
    if error is None:
        (view,) = check_arguments("k", _manifest_params(writes), (arg,))
        assert view.readonly == arg.__cuda_array_interface__["data"][1]
        assert view.__cuda_array_interface__["data"] == arg.__cuda_array_interface__["data"]
    else:
        with pytest.raises((ValueError, TypeError), match=error):
            check_arguments("k", _manifest_params(writes), (arg,))


def test_kernels_without_a_manifest_know_the_writes_of_their_own_body() -> None:
    params = {p.name: p.writes for p in axpb._cpu_params_of(0)}
    assert params == {"n": False, "u": False, "a": False, "x": False, "y": True}


def test_launch_config_and_param_are_values() -> None:
    """Written out for a light import (hybrid_runtime/_records.py), they keep what frozen dataclasses gave:
    equal and hashed by their fields (a launch's configuration keys its cached plans), never changed."""
    from hybrid_runtime.config import LaunchConfig

    config = LaunchConfig.make(32, (4, 2))
    same = LaunchConfig((4, 2, 1), (32, 1, 1), 0)
    assert config == same and hash(config) == hash(same)
    assert config != LaunchConfig((4, 2, 1), (32, 1, 1), 16) and config != ((4, 2, 1), (32, 1, 1), 0)
    assert {config: 1}[LaunchConfig.make((32,), (4, 2))] == 1
    with pytest.raises(AttributeError, match="never changes"):
        config.grid = (1, 1, 1)  # type: ignore[misc]
    param = Param("x", "array", np.dtype(np.float32), 1)
    assert param.replace(writes=False) == Param("x", "array", np.dtype(np.float32), 1, False)
    assert param.replace(writes=False) != param and param.writes
    with pytest.raises(TypeError):
        param.replace(nope=1)
    assert repr(config) == "LaunchConfig(grid=(4, 2, 1), block=(32, 1, 1), shared_bytes=0)"


# ------------------------------------------------------------------ device spellings
@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    from conftest import HOST_TARGETS

    if not HOST_TARGETS:
        pytest.skip("no native code on this machine (the ziglang package links it)")
    with built_package(tmp_path_factory.mktemp("spell"), "spellpkg", SOURCE, native=True) as module:
        yield module


@pytest.mark.parametrize(
    ("spelled", "python"), [("CPU", "CPU-PYTHON"), (" cpu ", " cpu-python "), ("Cpu", "Cpu-Python")]
)
def test_every_spelling_of_a_device_is_that_device(native: ModuleType, spelled: str, python: str) -> None:
    """One spelling for every decision a launch makes: "CPU" ran natively but was refused with
    sanitize=True, which compared the raw string."""
    x, out = _arrays()
    native.through_helper.launch(N, 1, x, out, device=spelled)
    assert out.tolist() == x.tolist()
    out[:] = 0
    native.through_helper.launch(N, 1, x, out, device=spelled, sanitize=True)
    assert out.tolist() == x.tolist()
    with pytest.raises(ValueError, match=r'`sanitize=True` runs the kernel\'s native code; pass device="cpu"'):
        native.through_helper.launch(N, 1, x, out, device=python, sanitize=True)
    out[:] = 0
    native.through_helper.launch(N, 1, x, out, device=python)
    assert out.tolist() == x.tolist()


@pytest.mark.parametrize("device", [0, b"cpu", ["cpu"]])
def test_a_device_that_is_no_string_is_refused_naming_the_parameter(built: ModuleType, device: Any) -> None:
    x, out = _arrays()
    with pytest.raises(TypeError, match=r"device must be 'auto', 'cuda', 'cuda:N', 'wgpu', 'cpu' or 'cpu-python'"):
        built.through_helper.launch(N, 1, x, out, device=device)
    assert not out.any()
