"""Issue 19: structs changed in place as Python changes objects: a helper that assigns fields of its struct
parameter changes the caller's value (GPU Gems' float3 accumulator), and fields of array elements are
assigned in place (``p[i].vx += dt * fx``, mini-nbody): the same on the native CPU, the Python path and
the GPU, checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

SOURCE = (
    KERNEL_PRELUDE
    + '''
from hybrid_runtime import struct

SOFTENING = np.float32(1e-9)


@struct
class Float3:
    x: f32
    y: f32
    z: f32

    def scale(self, k: f32):
        self.x *= k
        self.y *= k
        self.z *= k


@struct
class Body:
    pos: Float3
    vx: f32
    vy: f32
    vz: f32


def body_body(bi: Float3, bj: Float3, acc: Float3) -> Float3:
    """GPU Gems 3, ch. 31: the accumulator is updated in place and returned."""
    dx = bj.x - bi.x
    dy = bj.y - bi.y
    dz = bj.z - bi.z
    dist_sqr = dx * dx + dy * dy + dz * dz + SOFTENING
    inv_dist = np.float32(1) / np.sqrt(dist_sqr)
    inv_dist3 = inv_dist * inv_dist * inv_dist
    acc.x += dx * inv_dist3
    acc.y += dy * inv_dist3
    acc.z += dz * inv_dist3
    return acc


def add_unit(v: Float3):
    v.z += 1


def rebinds(v: Float3):
    v.z += 1
    v = Float3(f32(1), f32(1), f32(1))


def twice(v: Float3):
    add_unit(v)  # changes the caller's value through another helper
    add_unit(v)


@kernel
def forces(p: Array[Body], dt: f32, n: i32):
    """mini-nbody's bodyForce: fields of array elements updated in place."""
    i = gpu.global_tid_x()
    if i < n:
        acc = Float3(f32(0), f32(0), f32(0))
        for j in range(n):
            acc = body_body(p[i].pos, p[j].pos, acc)
        p[i].vx += dt * acc.x
        p[i].vy += dt * acc.y
        p[i].vz += dt * acc.z


def tile_calculation(my_position: Float3, accel: Float3, sh: Array[Float3]) -> Float3:
    """GPU Gems 3, ch. 31: the accumulator parameter is rebound to the helper's result, the same object."""
    for i in range(gpu.block_dim_x()):
        accel = body_body(my_position, sh[i], accel)
    return accel


@kernel
def tiled_forces(p: Array[Body], dt: f32, n: i32):
    """GPU Gems 3's calculate_forces: tiles of positions in shared memory, the accumulator through helpers."""
    sh = gpu.shared_array(Float3, 32)
    gtid = gpu.global_tid_x()
    my_position = Float3(p[gtid].pos.x, p[gtid].pos.y, p[gtid].pos.z)
    acc = Float3(f32(0), f32(0), f32(0))
    tile = 0
    i = 0
    while i < n:
        idx = tile * gpu.block_dim_x() + gpu.thread_idx_x()
        sh[gpu.thread_idx_x()] = p[idx].pos
        gpu.syncthreads()
        acc = tile_calculation(my_position, acc, sh)
        gpu.syncthreads()
        i += gpu.block_dim_x()
        tile += 1
    p[gtid].vx += dt * acc.x
    p[gtid].vy += dt * acc.y
    p[gtid].vz += dt * acc.z


@kernel
def integrate(p: Array[Body], dt: f32, n: i32):
    i = gpu.global_tid_x()
    if i < n:
        p[i].pos.x += p[i].vx * dt
        p[i].pos.y += p[i].vy * dt
        p[i].pos.z += p[i].vz * dt


@kernel
def in_place(p: Array[Body], out: Array[f32, 2], n: i32):
    """Helpers and methods change locals, fields of locals and array elements passed to them."""
    i = gpu.global_tid_x()
    if i < n:
        a = Float3(f32(i), f32(1), f32(2))
        twice(a)
        a.scale(f32(0.5))
        b = Body(Float3(f32(0), f32(0), f32(0)), f32(0), f32(0), f32(0))
        add_unit(b.pos)
        twice(p[i].pos)
        p[i].pos.scale(f32(2))
        out[0, i] = a.x
        out[1, i] = a.z
        out[2, i] = b.pos.z


BLOCK = 32


@kernel
def shared_sum(x: Array[f32], out: Array[f32, 2]):
    """A helper that changes its parameter, called in a kernel whose threads meet at a barrier."""
    sh = gpu.shared_array(f32, BLOCK)
    t = gpu.thread_idx_x()
    sh[t] = x[gpu.global_tid_x()]
    gpu.syncthreads()
    acc = Float3(f32(0), f32(0), f32(0))
    for j in range(BLOCK):
        acc = body_body(Float3(f32(0), f32(0), f32(0)), Float3(sh[j], f32(1), f32(0)), acc)
    twice(acc)
    gpu.syncthreads()
    out[0, gpu.global_tid_x()] = acc.x
    out[1, gpu.global_tid_x()] = acc.z
'''
)


@pytest.fixture(scope="module")
def kern(tmp_path_factory):
    from conftest import built_package

    with built_package(tmp_path_factory.mktemp("structmut"), "structmut", SOURCE, native=True) as module:
        yield module


def _bodies(n: int, seed: int):
    from hybrid_runtime import struct  # noqa: F401  (the dtype comes from the kernel module)

    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 6)).astype(np.float32)


def _reference(state: np.ndarray, dt: np.float32) -> np.ndarray:
    """mini-nbody's step on NumPy float32 scalars, in the kernels' order of operations."""
    f32 = np.float32
    s = state.copy()
    n = len(s)
    soft = f32(1e-9)
    for i in range(n):
        ax = ay = az = f32(0)
        for j in range(n):
            dx, dy, dz = s[j, 0] - s[i, 0], s[j, 1] - s[i, 1], s[j, 2] - s[i, 2]
            inv = f32(1) / np.sqrt(dx * dx + dy * dy + dz * dz + soft)
            inv3 = inv * inv * inv
            ax, ay, az = ax + dx * inv3, ay + dy * inv3, az + dz * inv3
        s[i, 3] += dt * ax
        s[i, 4] += dt * ay
        s[i, 5] += dt * az
    s[:, 0:3] += s[:, 3:6] * dt
    return s


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("forces", "n", "seed"),
    [
        # mini-nbody: fields of array elements updated in place
        ("forces", 40, 3),
        # GPU Gems' tiles: a helper's struct parameter changed in place and rebound to the result of a helper
        # that returns it (the same object on the Python path, the same value on the devices)
        ("tiled_forces", 64, 4),
    ],
)
def test_nbody_step_matches_numpy(kern, device, forces, n, seed):
    dt = np.float32(0.01)
    state = _bodies(n, seed)
    p = np.zeros(n, kern.Body.dtype)
    for k, name in enumerate(("x", "y", "z")):
        p["pos"][name] = state[:, k]
    for k, name in enumerate(("vx", "vy", "vz")):
        p[name] = state[:, 3 + k]
    getattr(kern, forces).launch(32, 2, p, dt, np.int32(n), device=device)
    kern.integrate.launch(32, 2, p, dt, np.int32(n), device=device)
    got = np.stack([p["pos"]["x"], p["pos"]["y"], p["pos"]["z"], p["vx"], p["vy"], p["vz"]], axis=1)
    assert np.array_equal(got, _reference(state, dt))


@pytest.mark.parametrize("device", DEVICES)
def test_helpers_change_struct_arguments(kern, device):
    n = 8
    p = np.zeros(n, kern.Body.dtype)
    p["pos"]["x"] = np.arange(n)
    p["vx"] = 7
    out = np.zeros((3, n), np.float32)
    kern.in_place.launch(32, 1, p, out, np.int32(n), device=device)
    assert np.array_equal(out[0], np.arange(n, dtype=np.float32) * 0.5)
    assert np.array_equal(out[1], np.full(n, (2 + 2) * 0.5, np.float32))
    assert np.array_equal(out[2], np.ones(n, np.float32))
    assert np.array_equal(p["pos"]["x"], np.arange(n, dtype=np.float32) * 2)  # twice() and scale() reached p
    assert np.array_equal(p["pos"]["z"], np.full(n, 4, np.float32))
    assert np.array_equal(p["vx"], np.full(n, 7, np.float32))  # the other fields are untouched


@pytest.mark.parametrize("device", DEVICES)
def test_a_changed_parameter_in_a_kernel_with_barriers(kern, device):
    x = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    out = np.zeros((2, 64), np.float32)
    kern.shared_sum.launch(32, 2, x, out, device=device)
    f32 = np.float32
    for block in range(2):
        acc = f32(0)
        for v in x[block * 32 : (block + 1) * 32]:
            dist = v * v + f32(1) + f32(1e-9)
            inv = f32(1) / np.sqrt(dist)
            acc = acc + v * (inv * inv * inv)
        assert np.array_equal(out[0, block * 32 : (block + 1) * 32], np.full(32, acc, f32))
    assert np.array_equal(out[1], np.full(64, 2, f32))


def test_the_python_path_writes_array_elements_through_field_assignment(kern):
    """The CPU path's element objects write their array when a field is assigned; copies made from them
    (a field stored into another struct) do not."""
    from hybrid_runtime.structs import StructArray

    p = np.zeros(3, kern.Body.dtype)
    view = StructArray(p, kern.Body)
    view[1].vx += 2
    view[1].pos.y = 5
    element = view[2]
    element.pos = kern.Float3(1, 2, 3)
    element.pos.z = 9  # the new field value is part of the element too
    other = kern.Body(view[1].pos, 0, 0, 0)
    other.pos.x = 100  # a copy: p is not changed
    assert p[1]["vx"] == 2 and p[1]["pos"]["y"] == 5 and p[1]["pos"]["x"] == 0
    assert tuple(p[2]["pos"]) == (1, 2, 9)


ERRORS = [
    # a kernel's struct parameter is the launching program's object on the Python path
    ("def k(s: Float3, out: Array[f32]):\n    s.x = f32(1)\n    out[0] = s.x", "s.x", "kernel parameter `s`"),
    ("def k(s: Float3, out: Array[f32]):\n    add_unit(s)\n    out[0] = s.z", "add_unit(s)", "kernel parameter"),
    # an element that changes with a loop counter: the device could not write the element the CPU path does
    (
        "def k(p: Array[Float3], n: i32):\n    for j in range(n):\n        q = p[j]\n        q.x = f32(1)",
        "q.x = f32(1)",
        "an array element is a view of the array",
    ),
    # a helper's result that may be another variable's object
    (
        "def k(out: Array[f32]):\n    a = Float3(f32(0), f32(0), f32(0))\n    z = Float3(f32(0), f32(0), f32(0))\n"
        "    b = body_body(z, z, a)\n    b.x = f32(1)\n    out[0] = a.x",
        "b.x = f32(1)",
        "bound to an existing struct value",
    ),
    # one object passed twice to a helper that changes it (or it and its own field)
    (
        "def k(out: Array[f32]):\n    a = Float3(f32(0), f32(0), f32(0))\n    b = body_body(a, a, a)",
        "a, a, a",
        "same object",
    ),
    ("def k(p: Array[Body]):\n    b = p[0]\n    body_body(b.pos, b.pos, b.pos)", "b.pos, b.pos", "same object"),
    # a struct chosen by a conditional expression, changed by the helper
    (
        "def k(out: Array[f32], c: i32):\n    a = Float3(f32(0), f32(0), f32(0))\n"
        "    b = Float3(f32(0), f32(0), f32(0))\n    add_unit(a if c > 0 else b)",
        "add_unit(a if c > 0 else b)",
        "chosen by a conditional expression",
    ),
    # the element changes with what the index reads
    (
        "def k(p: Array[Float3], idx: Array[i32]):\n    q = p[idx[0]]\n    idx[0] = 2\n    q.x = f32(5)",
        "q.x = f32(5)",
        "an array element is a view of the array",
    ),
    # bound inside a loop from an index assigned there
    (
        "def k(p: Array[Float3]):\n    for t in range(3):\n        j = t\n        if t == 0:\n            q = p[j]\n"
        "        q.x += f32(1)",
        "q.x += f32(1)",
        "an array element is a view of the array",
    ),
    # bound to the object a helper returns (its parameter), whose variable is changed later: found by the fuzzer
    (
        "def k(out: Array[f32]):\n    a = Float3(f32(0), f32(0), f32(0))\n    c = Float3(f32(1), f32(1), f32(1))\n"
        "    b = body_body(c, c, a)\n"
        "    add_unit(a)\n    out[0] = b.z",
        "add_unit(a)",
        "on the GPU `b` is a copy",
    ),
    # a helper that changes its parameter and rebinds it
    ("def k(out: Array[f32]):\n    a = Float3(f32(0), f32(0), f32(0))\n    rebinds(a)", "v.z += 1", "also rebinds"),
]


@pytest.mark.parametrize(("kernel", "marked", "message"), ERRORS)
def test_changes_the_python_path_could_not_match_are_located_errors(tmp_path, kernel, marked, message):
    from conftest import built_package

    from hatch_hybrid.errors import CompileError

    source = SOURCE.split("@kernel")[0] + "@kernel\n" + kernel + "\n"
    with pytest.raises(CompileError) as info:
        with built_package(tmp_path, "structerr", source):
            pass
    text = str(info.value)
    assert message in text, text
    line = next(line for line in text.splitlines()[1:] if marked in line)
    caret = text.splitlines()[text.splitlines().index(line) + 1]
    assert caret.strip().startswith("^"), text
