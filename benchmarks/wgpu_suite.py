"""The WebGPU target against the CUDA path on the same GPU, in one run (issue 21's targets):

    python benchmarks/wgpu_suite.py [--out results.md] [--quick]

Compiles ``benchmarks/bench_kernels`` and ``example_project/hybrid_demo`` in-process (PTX and WGSL) into a
temporary folder, then measures, on the default CUDA device and on the WebGPU adapter (Vulkan on Linux):

* saxpy 2^27 f32 (bandwidth), Mandelbrot 4096^2 x 512, the 16x16-tile matmul 2048^3: time per launch over
  back-to-back launches with the data resident on the device (``DeviceArray`` / ``WgpuArray``), then one
  synchronisation; best of several rounds, the two paths taking turns; results compared bit for bit;
* launch overhead: an empty 3-argument kernel through ``k.launch(...)`` against a hand-written WGSL dispatch
  through wgpu directly (pipeline and bind group made once: per launch an encoder, a pass, a dispatch, a
  submit), each over 2000 launches then one synchronisation.

Without a CUDA device the CUDA rows are left out; without wgpu or an adapter the script says so and stops.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "runtime")]


def build(out: Path) -> None:
    from hatch_hybrid.cache import KernelCache
    from hatch_hybrid.hook.artifacts import write_package_artifacts
    from hatch_hybrid.pipeline import Options, compile_packages

    shutil.copytree(ROOT / "benchmarks" / "bench_kernels" / "bench_kernels", out / "bench_kernels")
    shutil.copytree(ROOT / "example_project" / "hybrid_demo" / "hybrid_demo", out / "hybrid_demo")
    options = Options(["sm_90"], cubin=False, cpu=[], wgsl=True, cache=KernelCache(None))
    kernels = compile_packages([out / "bench_kernels", out / "hybrid_demo"], options=options)
    write_package_artifacts(kernels, ["sm_90"], out)
    sys.path.insert(0, str(out))


#: The anchors: the same computations written by hand in WGSL, as tight as the language allows (u32 indices,
#: no checks), each product's bits or'ed with a uniform 0 as the compiler's shaders do (the same bits as CUDA:
#: see hatch_hybrid/targets/wgsl/prelude.py's NOFMA). What WebGPU itself costs against CUDA.
EMPTY3_WGSL = """
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<uniform> n: vec4<i32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (n.x < 0) { x[0] = y[0]; }
}
"""
MANDELBROT_WGSL = """
struct P { x0: f32, y0: f32, dx: f32, dy: f32, max_iter: i32, w: u32, h: u32, zero: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<i32>;
@group(0) @binding(1) var<uniform> p: P;
fn b(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) | p.zero); }
@compute @workgroup_size(16, 16) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let col = g.x;
    let row = g.y;
    if (row < p.h && col < p.w) {
        let cr = p.x0 + b(p.dx * f32(col));
        let ci = p.y0 + b(p.dy * f32(row));
        var re = 0.0f;
        var im = 0.0f;
        var n = 0i;
        loop {
            if (n >= p.max_iter) { break; }
            let rr = b(re * re);
            let ii = b(im * im);
            if (rr + ii > 4.0f) { break; }
            let t = b((2.0f * re) * im);
            re = rr - ii + cr;
            im = t + ci;
            n = n + 1i;
        }
        out[row * p.w + col] = n;
    }
}
"""
MATMUL_WGSL = """
struct P { n: u32, zero: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: P;
var<workgroup> sa: array<f32, 256>;
var<workgroup> sb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) {
    let tx = l.x;
    let ty = l.y;
    let row = w.y * 16u + ty;
    let col = w.x * 16u + tx;
    let n = p.n;
    var acc = 0.0f;
    for (var t0 = 0u; t0 < n; t0 += 16u) {
        sa[ty * 16u + tx] = a[row * n + t0 + tx];
        sb[ty * 16u + tx] = b[(t0 + ty) * n + col];
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            acc = acc + bitcast<f32>(bitcast<u32>(sa[ty * 16u + k] * sb[k * 16u + tx]) | p.zero);
        }
        workgroupBarrier();
    }
    c[row * n + col] = acc;
}
"""

#: bench_kernels.block_sum by hand: u32 indices, the same shuffle tree (subgroup shuffles, 32-lane warps);
#: ``{step}`` is the grid-stride loop (one load per iteration, or four in flight)
REDUCE_WGSL = """
struct P {{ n: u32, stride: u32 }}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;
@group(0) @binding(2) var<uniform> p: P;
var<workgroup> warp_sums: array<f32, 32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) w: vec3<u32>) {{
    var i = w.x * 256u + t;
    var s = 0.0f;
{step}
    let lane = t % 32u;
    for (var k = 16u; k > 0u; k = k / 2u) {{ s = s + subgroupShuffle(s, select(lane, lane + k, lane + k < 32u)); }}
    if (lane == 0u) {{ warp_sums[t / 32u] = s; }}
    workgroupBarrier();
    if (t < 32u) {{
        var v = select(0.0f, warp_sums[t], t < 8u);
        for (var k = 16u; k > 0u; k = k / 2u) {{ v = v + subgroupShuffle(v, select(lane, lane + k, lane + k < 32u)); }}
        if (t == 0u) {{ partial[w.x] = v; }}
    }}
}}
"""
REDUCE_STEP = "    for (; i < p.n; i += p.stride) { s = s + x[i]; }"
REDUCE_STEP4 = """    for (; i + 3u * p.stride < p.n; i += 4u * p.stride) {
        let a = x[i];
        let b = x[i + p.stride];
        let c = x[i + 2u * p.stride];
        let d = x[i + 3u * p.stride];
        s = s + a; s = s + b; s = s + c; s = s + d;
    }
    for (; i < p.n; i += p.stride) { s = s + x[i]; }"""


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def per_launch(launch: Callable[[], None], sync: Callable[[], None], n: int) -> float:
    launch()
    sync()
    start = time.perf_counter()
    for _ in range(n):
        launch()
    sync()
    return (time.perf_counter() - start) / n


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run, e.g. on lavapipe)")
    args = parser.parse_args()
    import hybrid_runtime as hr
    from hybrid_runtime import wgpu_device
    from hybrid_runtime.wgpu_shaders import shader_module

    if not wgpu_device.available():
        print("no WebGPU adapter (pip install wgpu, and a Vulkan, Metal or Direct3D 12 driver)")
        return 1
    out = Path(tempfile.mkdtemp(prefix="wgpu-suite-"))
    build(out)
    import bench_kernels.kernels as bk
    import hybrid_demo

    wdev = wgpu_device.get_device()

    def hand_dispatch(source: str, buffers: list[Any], params: bytes, groups: tuple[int, int]) -> Callable[[], None]:
        """A shader written by hand, bound once and dispatched through wgpu directly (storage buffers at
        bindings 0.., the uniform after them): per launch an encoder, a pass, a dispatch, a submit. Its module
        is made as the runtime makes ours (naga's loop bounding off), so that the rows compare shaders."""
        wgpu, d = wdev.wgpu, wdev.device
        pipeline = d.create_compute_pipeline(
            layout="auto", compute={"module": shader_module(d, "hand", source), "entry_point": "main"}
        )
        uniform = d.create_buffer_with_data(data=params, usage=wgpu.BufferUsage.UNIFORM)
        group = d.create_bind_group(
            layout=pipeline.get_bind_group_layout(0),
            entries=[{"binding": k, "resource": {"buffer": buf}} for k, buf in enumerate([*buffers, uniform])],
        )

        def launch() -> None:
            encoder = d.create_command_encoder()
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(*groups)
            compute.end()
            d.queue.submit([encoder.finish()])

        return launch

    cuda = hr.cuda_available()
    lines = [
        f"WebGPU adapter: {wdev.name}; CUDA: {hr.default_device_name('cuda') if cuda else 'none'}; "
        f"host {platform.processor() or platform.machine()}",
        "",
        "| benchmark | path | time | rate | vs CUDA path | same bits as CUDA (no CUDA: as ours) |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    q = args.quick
    rounds = 3 if q else 5

    def wsync() -> None:
        wdev.synchronize()

    def csync() -> None:
        hr.synchronize()

    def compare(
        name: str,
        rate: Callable[[float], str],
        make: Callable[[str], tuple[Callable[[], None], Callable[[], np.ndarray]]],
        n: int,
        hand: Callable[[], tuple[Callable[[], None], Callable[[], np.ndarray]]] | None = None,
    ) -> None:
        paths = (["cuda"] if cuda else []) + ["wgpu"] + (["hand-written WGSL"] if hand else [])
        runs = {p: make(p) for p in paths if p != "hand-written WGSL"}
        if hand is not None:
            runs["hand-written WGSL"] = hand()
        best = {p: float("inf") for p in paths}
        for _ in range(rounds):
            for p in paths:
                best[p] = min(best[p], per_launch(runs[p][0], csync if p == "cuda" else wsync, n))
        results = {p: runs[p][1]() for p in paths}
        for p in paths:
            vs = f"{best['cuda'] / best[p]:.2f}x" if cuda else ""
            ref = "cuda" if cuda else "wgpu"  # without CUDA: the hand-written shader against ours
            same = "" if p == ref else "yes" if same_bits(results[p], results[ref]) else "NO"
            lines.append(f"| {name} | {p} | {best[p] * 1e3:.3f} ms | {rate(best[p])} | {vs} | {same} |")

    # saxpy: y = a*x + y on resident data; the result compared after the same number of launches
    n = 1 << (20 if q else 27)
    rng = np.random.default_rng(0)
    x0, y0 = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)

    def saxpy(path: str):
        x, y = hr.to_device(x0, device=path), hr.to_device(y0, device=path)
        blocks = -(-n // 256)
        return (lambda: bk.saxpy.launch(256, blocks, np.float32(1.0001), x, y, device=path)), y.copy_to_host

    compare(f"saxpy 2^{n.bit_length() - 1} f32", lambda t: f"{3 * 4 * n / t / 1e9:.0f} GB/s", saxpy, 5 if q else 50)

    side, iters = (512, 64) if q else (4096, 512)

    def mandelbrot(path: str):
        img = hr.to_device(np.zeros((side, side), np.int32), device=path)
        dx = np.float32(3.2 / side)
        blocks = (side // 16, side // 16)
        view = (np.float32(-2.2), np.float32(-1.6), dx, dx, np.int32(iters))
        return (
            lambda: hybrid_demo.mandelbrot_kernel.launch((16, 16), blocks, img, *view, device=path)
        ), img.copy_to_host

    def hand_mb():
        out = wdev.buffer(side * side * 4)
        dx = np.float32(3.2 / side)
        params = struct.pack("<ffffiIII", -2.2, -1.6, dx, dx, iters, side, side, 0)
        launch = hand_dispatch(MANDELBROT_WGSL, [out], params, (side // 16, side // 16))
        return launch, lambda: wdev.read(out, side * side * 4).view(np.int32).reshape(side, side)

    iterations = side * side * iters
    compare(f"mandelbrot {side}^2 x{iters}", lambda t: f"{iterations / t / 1e9:.0f} Git/s", mandelbrot, 20, hand_mb)

    m = 256 if q else 2048
    a0, b0 = rng.standard_normal((m, m)).astype(np.float32), rng.standard_normal((m, m)).astype(np.float32)

    def matmul(path: str):
        a, b = hr.to_device(a0, device=path), hr.to_device(b0, device=path)
        c = hr.to_device(np.zeros((m, m), np.float32), device=path)
        return (lambda: bk.matmul.launch((16, 16), (m // 16, m // 16), a, b, c, device=path)), c.copy_to_host

    def matmul_hand():
        a, b, c = wdev.buffer(a0.nbytes, a0), wdev.buffer(b0.nbytes, b0), wdev.buffer(m * m * 4)
        launch = hand_dispatch(MATMUL_WGSL, [a, b, c], struct.pack("<II8x", m, 0), (m // 16, m // 16))
        return launch, lambda: wdev.read(c, m * m * 4).view(np.float32).reshape(m, m)

    compare(f"matmul {m}^3 f32, 16x16 tiles", lambda t: f"{2 * m**3 / t / 1e12:.1f} TFLOP/s", matmul, 20, matmul_hand)

    # the block reduction (grid-stride sums, warp shuffles, shared memory): where the adapter has 32-lane warps
    if wdev.warps() == "":
        r = 1 << (20 if q else 27)
        xr = rng.standard_normal(r).astype(np.float32)

        def reduction(path: str):
            x, partial = hr.to_device(xr, device=path), hr.to_device(np.zeros(1024, np.float32), device=path)
            return (lambda: bk.block_sum.launch(256, 1024, x, partial, device=path)), partial.copy_to_host

        def reduction_hand(step: str) -> Callable[[], tuple[Callable[[], None], Callable[[], np.ndarray]]]:
            def make() -> tuple[Callable[[], None], Callable[[], np.ndarray]]:
                x, partial = wdev.buffer(xr.nbytes, xr), wdev.buffer(1024 * 4)
                source = REDUCE_WGSL.format(step=step)
                launch = hand_dispatch(source, [x, partial], struct.pack("<II8x", r, 256 * 1024), (1024, 1))
                return launch, lambda: wdev.read(partial, 1024 * 4).view(np.float32)

            return make

        for label, step in (("", REDUCE_STEP), (", hand: 4 loads in flight", REDUCE_STEP4)):
            compare(
                f"block reduction 2^{r.bit_length() - 1} f32{label}",
                lambda t: f"{4 * r / t / 1e9:.0f} GB/s",
                reduction,
                5 if q else 50,
                reduction_hand(step),
            )
    else:
        lines.append(f"| block reduction | wgpu | not run: {wdev.warps()} | | | |")

    # launch overhead: our launch of an empty 3-argument kernel against wgpu's own dispatch of the same shader,
    # taking turns (a WebGPU dispatch's cost drifts over a run)
    xs, ys = wgpu_device.to_device(np.zeros(256, np.float32)), wgpu_device.to_device(np.zeros(256, np.float32))
    hand = hand_dispatch(EMPTY3_WGSL, [xs.buffer, ys.buffer], struct.pack("<i12x", 1), (1, 1))
    anchor = ours = float("inf")
    for _ in range(rounds):
        anchor = min(anchor, per_launch(hand, wsync, 2000))
        ours = min(ours, per_launch(lambda: bk.empty3.launch(64, 1, xs, ys, np.int32(1), device="wgpu"), wsync, 2000))
    lines += [
        "",
        "| launch overhead, 3 args | time per launch | vs hand-written wgpu dispatch |",
        "| --- | ---: | ---: |",
        f"| hand-written WGSL through wgpu | {anchor * 1e6:.1f} us | 1.00x |",
        f'| hatch-hybrid, device="wgpu" (WgpuArray) | {ours * 1e6:.1f} us | {ours / anchor:.2f}x |',
    ]
    if cuda:
        from hybrid_runtime import to_device

        xc, yc = to_device(np.zeros(256, np.float32)), to_device(np.zeros(256, np.float32))
        cu = min(per_launch(lambda: bk.empty3.launch(64, 1, xc, yc, np.int32(1)), csync, 2000) for _ in range(rounds))
        lines.append(f"| hatch-hybrid, CUDA path (DeviceArray) | {cu * 1e6:.1f} us | {cu / anchor:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
