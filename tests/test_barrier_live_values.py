"""Values a thread holds across a barrier or a warp call keep being its own, whatever their type: array
views (slices with any bounds, steps and number of dimensions, of parameters, shared and local arrays),
their lengths and shapes, structs, tuples, complex numbers and their parts, local arrays, in uniform
loops and branches, in branches and loops on a warp's condition, in helpers that meet (lowered inline)
and from helpers that do not. Natively (loops over threads between meeting points, lowering/fission*.py;
the state machine, lowering/threads.py; sanitized), on the Python path and on a GPU, each kernel gives
what its model below computes.

A view's slice bounds once counted as the same for the whole block (lint/divergence.py had no level for
a slice, nor for ``len``/``.shape``/``.size`` of a view, a complex number's ``.real``/``.imag`` or
``conjugate()``), so the plan kept such a local once per block and every thread saw the last thread's
value (issue 42: ``a[t * 2:]`` across ``syncthreads()`` wrote only the last thread's element)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE, built_package

from hatch_hybrid.lint import LintSettings
from hatch_hybrid.pipeline import CompiledKernel, Options, compile_packages, lint_report
from hatch_hybrid.targets.host.lowering import fission
from hatch_hybrid.targets.host.lowering.fission_pieces import NotFissionable

SOURCE = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import struct, c64


@struct
class Pt:
    x: i32
    y: i32

    def scaled(self, k: i32) -> "Pt":
        return Pt(self.x * k, self.y * k)


def vlen(v: Array[i32]) -> int:
    return len(v)


def make(g: int) -> Pt:
    return Pt(g, g * 2)


def meet_then_store(v: Array[i32], g: int):
    gpu.syncthreads()
    v[0] = g + 100


def view_inside(o: Array[i32], g: int):
    w = o[g * 8 + 1:]
    gpu.syncthreads()
    w[0] = g + 200


@kernel
def vb(a: Array[i32]):
    t = gpu.thread_idx_x()
    v = a[t * 2:]
    gpu.syncthreads()
    v[0] = t + 1


@kernel
def vote_any3(info: Array[boolean], warp_size: i32):
    tx = gpu.thread_idx_x()
    offs = info[tx * 3:]
    offs[0] = gpu.any_(tx >= (warp_size * 3) // 2)
    offs[1] = tx >= (warp_size * 3) // 2
    if gpu.all_(tx >= (warp_size * 3) // 2):
        offs[2] = True


@kernel
def view(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    gpu.syncthreads()
    v[0] = gpu.thread_idx_x() + 1


@kernel
def view_step(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8::2]
    gpu.syncthreads()
    v[1] = i32(len(v))


@kernel
def view_strided(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    c = out[g::128]
    gpu.syncthreads()
    c[2] = g


@kernel
def view_2d(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    s = m[g:g + 1, 2:]
    gpu.syncthreads()
    s[0, 1] = g + s.shape[1] * 1000


@kernel
def column(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    c = m[g // 8 * 8:, g % 8]
    gpu.syncthreads()
    c[0] = i32(len(c))


@kernel
def sizes(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    n = len(out[g:])
    k = out[g * 3:].shape[0]
    sz = m[g:, 1:].size
    gpu.syncthreads()
    out[g * 8] = i32(n)
    out[g * 8 + 1] = i32(k)
    out[g * 8 + 2] = i32(sz)


@kernel
def structs(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    p = Pt(g, g * 2)
    q = p.scaled(3)
    r = make(g + 1)
    gpu.syncthreads()
    out[g * 8] = p.x + p.y * 3
    out[g * 8 + 1] = q.y
    out[g * 8 + 2] = r.y


@kernel
def tuples(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    tp = (Pt(g, 5), x[g], g * 3)
    gpu.syncthreads()
    out[g] = i32(tp[0].x * 10 + tp[1] + tp[0].y + tp[2])


@kernel
def complexes(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    z = complex(g, 2 * g)
    r = z.real
    w = c64(z).conjugate()
    gpu.syncthreads()
    out[g * 8] = i32(r)
    out[g * 8 + 1] = i32(z.imag)
    out[g * 8 + 2] = i32(w.imag)


@kernel
def shared_view(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    buf = gpu.shared_array(i32, 64)
    g = gpu.global_tid_x()
    t = gpu.thread_idx_x()
    w = buf[t:]
    w[0] = i32(g)
    gpu.syncthreads()
    out[g] = w[0] * 1000 + buf[(t + 1) % 64]


@kernel
def local_view(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    la = gpu.local_array(i32, 8)
    for k in range(8):
        la[k] = i32(g * 10 + k)
    lv = la[g % 4:]
    gpu.syncthreads()
    out[g] = lv[1] + i32(len(lv)) * 10000


@kernel
def in_loop(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    for r in range(3):
        w = v[r:]
        gpu.syncthreads()
        w[0] = i32(g + r)


@kernel
def uniform_branch(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8 + gpu.thread_idx_x() % 2:]
    if gpu.block_idx_x() == 0:
        gpu.syncthreads()
        v[0] = g
    else:
        gpu.syncthreads()
        v[2] = g


@kernel
def warp_branch(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    if gpu.thread_idx_x() < 32:
        b = gpu.ballot(g % 5 == 0)
        v[1] = i32(b % 1000)
    else:
        v[2] = 7


@kernel
def warp_loop(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    k = gpu.thread_idx_x() // 32 + 1
    while k > 0:
        s = gpu.shfl_xor(g, 1)
        v[k] = i32(s + k * 1000)
        k -= 1


@kernel
def helper_meets(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    meet_then_store(v, g)
    v[3] = g


@kernel
def helper_view(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    view_inside(out, gpu.global_tid_x())


@kernel
def helper_len(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    n = vlen(out[g:])
    gpu.syncthreads()
    out[g] = i32(n)


@kernel
def vote_any(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    b = gpu.any_(g >= 48)
    v[0] = i32(b) * 1000 + g


@kernel
def ballot_struct(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = out[g * 8:]
    p = Pt(g, 1)
    bal = gpu.ballot(g % 2 == 0)
    v[0] = i32(bal & 7) + p.x


@kernel
def shuffle_complex(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = x[g:]
    z = complex(g, 1)
    s = gpu.shfl_down(v[0], 1)
    out[g] = i32(s * 1000 + z.real)
"""
)

THREADS, BLOCKS = 64, 2
G = np.arange(THREADS * BLOCKS)  # global thread indices
T = G % THREADS


def _x() -> np.ndarray:
    return (np.arange(256, dtype=np.int32) * 7) % 13


def _ballot(pred: np.ndarray) -> np.ndarray:
    """Each thread's warp's ballot of ``pred`` (one value per thread)."""
    bits = pred.reshape(-1, 32).astype(np.int64) << np.arange(32)
    return np.repeat(bits.sum(1), 32)


def _model(name: str) -> tuple[np.ndarray, np.ndarray]:
    """What ``name`` leaves in ``m`` (128 x 8) and ``out`` (1024), both zero before."""
    x = _x()
    m, out = np.zeros((128, 8), np.int32), np.zeros(1024, np.int32)
    if name == "view":
        out[G * 8] = T + 1
    elif name == "view_step":
        out[G * 8 + 2] = 512 - 4 * G
    elif name == "view_strided":
        out[G + 256] = G
    elif name == "view_2d":
        m[G, 3] = G + 6000
    elif name == "column":
        m[G // 8 * 8, G % 8] = 128 - G // 8 * 8
    elif name == "sizes":
        out[G * 8], out[G * 8 + 1], out[G * 8 + 2] = 1024 - G, 1024 - 3 * G, (128 - G) * 7
    elif name == "structs":
        out[G * 8], out[G * 8 + 1], out[G * 8 + 2] = 7 * G, 6 * G, 2 * (G + 1)
    elif name == "tuples":
        out[G] = 13 * G + x[G] + 5
    elif name == "complexes":
        out[G * 8], out[G * 8 + 1], out[G * 8 + 2] = G, 2 * G, -2 * G
    elif name == "shared_view":
        out[G] = G * 1000 + (G - T + (T + 1) % 64)
    elif name == "local_view":
        out[G] = G * 10 + G % 4 + 1 + (8 - G % 4) * 10000
    elif name == "in_loop":
        for r in range(3):
            out[G * 8 + r] = G + r
    elif name == "uniform_branch":
        out[G * 8 + T % 2 + np.where(G < THREADS, 0, 2)] = G
    elif name == "warp_branch":
        first = T < 32
        out[G[first] * 8 + 1] = _ballot(G % 5 == 0)[first] % 1000
        out[G[~first] * 8 + 2] = 7
    elif name == "warp_loop":
        for k in (1, 2):
            runs = T // 32 + 1 >= k
            out[G[runs] * 8 + k] = (G[runs] ^ 1) + k * 1000
    elif name == "helper_meets":
        out[G * 8], out[G * 8 + 3] = G + 100, G
    elif name == "helper_view":
        out[G * 8 + 1] = G + 200
    elif name == "helper_len":
        out[G] = 1024 - G
    elif name == "vote_any":
        out[G * 8] = np.repeat((G >= 48).reshape(-1, 32).any(1), 32) * 1000 + G
    elif name == "ballot_struct":
        out[G * 8] = (_ballot(G % 2 == 0) & 7) + G
    elif name == "shuffle_complex":
        source = np.where(G % 32 == 31, G, G + 1)  # the last lane of a warp reads its own value
        out[G] = x[source] * 1000 + G
    else:
        raise AssertionError(name)
    return m, out


CASES = [
    "view",
    "view_step",
    "view_strided",
    "view_2d",
    "column",
    "sizes",
    "structs",
    "tuples",
    "complexes",
    "shared_view",
    "local_view",
    "in_loop",
    "uniform_branch",
    "warp_branch",
    "warp_loop",
    "helper_meets",
    "helper_view",
    "helper_len",
    "vote_any",
    "ballot_struct",
    "shuffle_complex",
]


class Compiled(NamedTuple):
    module: ModuleType
    kernels: dict[str, CompiledKernel]


def _refuse(*args: object, **kwargs: object) -> None:
    raise NotFissionable(None, "refused by the test")


@contextlib.contextmanager
def _compiled(root: Path, name: str, refuse_plans: bool) -> Iterator[Compiled]:
    """SOURCE built natively as ``name`` (``refuse_plans``: with every plan of loops over threads refused
    while it compiles, so that each kernel runs on the state machine)."""
    kernels: dict[str, CompiledKernel] = {}
    with contextlib.ExitStack() as stack:
        with pytest.MonkeyPatch.context() as patch:
            if refuse_plans:
                patch.setattr(fission, "plan_fission", _refuse)
            module = stack.enter_context(built_package(root, name, SOURCE, True, kernels))
        yield Compiled(module, kernels)


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Compiled]:
    """The kernels as built: their threads run as loops between meeting points."""
    with _compiled(tmp_path_factory.mktemp("live"), "hk_live_values", refuse_plans=False) as built:
        yield built


@pytest.fixture(scope="module")
def state_machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Compiled]:
    """The same kernels on the state machine: each thread runs to its next meeting point in turn."""
    with _compiled(tmp_path_factory.mktemp("live_sm"), "hk_live_values_sm", refuse_plans=True) as built:
        yield built


def _run(module: ModuleType, name: str, device: str, sanitize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    m, out = np.zeros((128, 8), np.int32), np.zeros(1024, np.int32)
    extra = {"sanitize": True} if sanitize else {}
    getattr(module, name).launch(THREADS, BLOCKS, _x(), m, out, device=device, **extra)
    return m, out


def _check(got: tuple[np.ndarray, np.ndarray], name: str) -> None:
    want = _model(name)
    for part, g, w in zip(("m", "out"), got, want):
        wrong = np.flatnonzero(g.ravel() != w.ravel())
        assert wrong.size == 0, f"{name}: {part} differs at {wrong[:8].tolist()} ({wrong.size} of {g.size})"


def test_each_kernel_runs_as_loops_over_threads(planned, state_machine) -> None:  # type: ignore[no-untyped-def]
    """The planned build runs every kernel as loops over threads (the path that lost the values); the
    other build runs each on the state machine."""
    for name in [*CASES, "vb", "vote_any3"]:
        cpu = planned.kernels[name].codes.get("cpu")
        assert cpu.barriers and not cpu.state_machine, (name, cpu.state_machine)
        assert "refused by the test" in state_machine.kernels[name].codes.get("cpu").state_machine


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("device", DEVICES)
def test_live_values_on_every_path(planned, device: str, name: str) -> None:  # type: ignore[no-untyped-def]
    _check(_run(planned.module, name, device), name)


@pytest.mark.parametrize("name", CASES)
def test_live_values_sanitized(planned, name: str) -> None:  # type: ignore[no-untyped-def]
    _check(_run(planned.module, name, "cpu", sanitize=True), name)


@pytest.mark.parametrize("name", CASES)
def test_live_values_on_the_state_machine(state_machine, name: str) -> None:  # type: ignore[no-untyped-def]
    _check(_run(state_machine.module, name, "cpu"), name)
    _check(_run(state_machine.module, name, "cpu", sanitize=True), name)


ISSUE_RESULT = [1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0]


@pytest.mark.parametrize("device", DEVICES)
def test_the_issue_kernel(planned, device: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 42's reproduction: natively it wrote only a[14] = 8."""
    a = np.zeros(16, np.int32)
    planned.module.vb.launch(8, 1, a, device=device)
    assert a.tolist() == ISSUE_RESULT


def test_the_issue_kernel_sanitized_reports_no_race(planned) -> None:  # type: ignore[no-untyped-def]
    """Sanitized, the collapsed view made every thread write one element: a race blamed on user code."""
    a = np.zeros(16, np.int32)
    planned.module.vb.launch(8, 1, a, device="cpu", sanitize=True)
    assert a.tolist() == ISSUE_RESULT


@pytest.mark.parametrize("device", DEVICES)
def test_cuda_samples_vote_any_kernel3(planned, device: str) -> None:  # type: ignore[no-untyped-def]
    """NVIDIA's simpleVoteIntrinsics VoteAnyKernel3 (natively, 141 of its 288 values were wrong)."""
    info = np.zeros(96 * 3, np.bool_)
    planned.module.vote_any3.launch(96, 1, info, np.int32(32), device=device)
    tx = np.arange(96)
    want = np.zeros((96, 3), np.bool_)
    want[:, 0] = tx >= 32  # the second and third warps have a thread at or past 48
    want[:, 1] = tx >= 48
    want[:, 2] = tx >= 64  # every thread of the third warp is
    assert np.array_equal(info.reshape(96, 3), want)


def test_barriers_under_conditions_on_per_thread_views_are_divergent(tmp_path: Path) -> None:
    """The lint reads the same levels: a barrier under a condition on a view's element, its length or a
    complex number's part that differ per thread is reported; the length of a row (``m[i]``) is not."""
    pkg = tmp_path / "livelint"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(
        KERNEL_PRELUDE
        + """
@kernel
def k(x: Array[i32], m: Array[i32, 2], out: Array[i32]):
    g = gpu.global_tid_x()
    v = x[g:]
    if v[0] > 0:
        gpu.syncthreads()
    if len(x[g * 2:]) > 4:
        gpu.syncthreads()
    if out[:g].size > 4:
        gpu.syncthreads()
    if complex(g, 1).real > 2.0:
        gpu.syncthreads()
    if complex(1, g).conjugate().imag > 2.0:
        gpu.syncthreads()
    row = m[g]
    for j in range(len(row)):
        gpu.syncthreads()
    if m[g, 1:].shape[0] > 2:
        gpu.syncthreads()
"""
    )
    opts = Options(["sm_90"], cubin=False, lints=LintSettings())
    found = lint_report(compile_packages([pkg], options=opts), opts.lints)
    assert [(w.name, w.loc.line) for w in found] == [("divergent-barrier", line) for line in (11, 13, 15, 17, 19)]
