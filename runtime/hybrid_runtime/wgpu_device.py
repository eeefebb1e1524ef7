"""``device="wgpu"``: kernels as WGSL compute shaders through the ``wgpu`` package (wgpu-native:
Vulkan, Metal, Direct3D 12), an optional dependency (``pip install hatch-hybrid-runtime[wgpu]``)
imported at the first such launch (this module imports nothing of it: :mod:`.targets` holds it from the
start).

A launch binds the shader's interface that the build recorded in the manifest (see
``hatch_hybrid.targets.wgsl.render``): a uniform with the scalars, the arrays' layouts and the grid;
one storage buffer per array; the error buffer of kernels with checks. NumPy arrays are uploaded before
the dispatch and the ones the kernel writes are read back after it; :class:`WgpuArray` keeps data on the
GPU between launches. Pipelines are made once per kernel and block shape.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .config import LaunchConfig, Launches
from .manifest import Manifest
from .wgpu_shaders import shader_module

_lock = threading.Lock()
EMPTY_BUFFER = 256  # bytes: an empty array's buffer, one element of any type the shaders bind
_device: WgpuDevice | None = None


class WgpuUnavailable(RuntimeError):
    """No usable WebGPU adapter (or the ``wgpu`` package is not installed)."""


def _wgpu() -> Any:
    try:
        import wgpu  # type: ignore[import-untyped]
    except ImportError:
        raise WgpuUnavailable(
            'device="wgpu" needs the wgpu package: pip install "hatch-hybrid-runtime[wgpu]"'
        ) from None
    return wgpu


def available(real_gpu_only: bool = False) -> bool:
    """Is there a WebGPU adapter (with ``real_gpu_only``: one that is not a CPU driver such as lavapipe)?
    Never imports wgpu when it is not installed; looks at the adapter without opening a device."""
    import importlib.util

    if importlib.util.find_spec("wgpu") is None:
        return False
    try:
        adapter = _adapter()
    except Exception:  # wgpu-native without any usable backend
        return False
    if adapter is None or "shader-int64" not in set(adapter.features):
        return False
    return not (real_gpu_only and str(adapter.info.get("adapter_type", "")).upper() == "CPU")


_adapters: list[Any] = []


def _adapter() -> Any:
    """The high-performance adapter (None: there is none), looked up once per process."""
    with _lock:
        if not _adapters:
            wgpu = _wgpu()
            os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # Mesa's drivers complain on stderr without it
            _adapters.append(wgpu.gpu.request_adapter_sync(power_preference="high-performance"))
    return _adapters[0]


def get_device() -> WgpuDevice:
    """The process's WebGPU device (on the high-performance adapter), made at first use."""
    global _device
    adapter = _adapter()
    with _lock:
        if _device is None:
            _device = WgpuDevice(adapter)
    return _device


def forget_device(dev: WgpuDevice) -> None:
    """Drop ``dev`` (a driver failure may have lost it): the next :func:`get_device` makes a new one."""
    global _device
    with _lock:
        if _device is dev:
            _device = None


#: a pipeline-overridable constant of the shaders (``override hh_bx: u32 = 1u;``)
OVERRIDE = re.compile(r"^override (\w+): (\w+) = [^;]+;", re.MULTILINE)


def _constant(m: re.Match[str], values: dict[str, int]) -> str:
    """An override as the constant of the pipeline's value (its default where the launch sets none)."""
    name, wt = m.group(1), m.group(2)
    if name not in values:
        return m.group(0).replace("override", "const", 1)
    value = values[name]
    literal = ("true" if value else "false") if wt == "bool" else f"{int(value)}{'u' if wt == 'u32' else 'i'}"
    return f"const {name}: {wt} = {literal};"


@dataclass
class _Shader:
    source: str  # the WGSL, whose `override`s each pipeline makes constants (see WgpuDevice.pipeline)
    layout: Any
    file: str  # its name in the package (for reports)
    pipelines: dict[tuple[tuple[int, int, int], int | None], Any] = field(default_factory=dict)  # (block, dynamic)


class WgpuDevice:
    """One wgpu adapter and device, its compiled shaders and pipelines."""

    def __init__(self, adapter: Any) -> None:
        wgpu = _wgpu()
        if adapter is None:
            raise WgpuUnavailable("no WebGPU adapter (no Vulkan, Metal or Direct3D 12 driver)")
        features = set(adapter.features)
        if "shader-int64" not in features:
            raise WgpuUnavailable(
                f"the WebGPU adapter {adapter.info.get('device', '?')} lacks shader-int64, which kernels need "
                "for Python ints; use device='cpu'"
            )
        limits = adapter.limits
        wanted = [
            "max-storage-buffer-binding-size",
            "max-buffer-size",
            "max-compute-invocations-per-workgroup",
            "max-compute-workgroup-size-x",
            "max-compute-workgroup-size-y",
            "max-compute-workgroup-size-z",
            "max-compute-workgroup-storage-size",
            "max-storage-buffers-per-shader-stage",
        ]
        self.wgpu = wgpu
        self.adapter = adapter
        self.info = dict(adapter.info)
        self.is_cpu = str(self.info.get("adapter_type", "")).upper() == "CPU"
        self.subgroups = "subgroup" in features
        self.f16 = "shader-f16" in features
        self.f64 = "shader-f64" in features
        self.atomics64 = "shader-int64-atomic-all-ops" in features
        self.device = adapter.request_device_sync(
            required_features=["shader-int64"]
            + (["subgroup"] if self.subgroups else [])
            + (["shader-f16"] if self.f16 else [])
            + (["shader-f64"] if self.f64 else [])
            + (["shader-int64-atomic-all-ops"] if self.atomics64 else []),
            required_limits={k: limits[k] for k in wanted if k in limits},
        )
        self.limits = dict(self.device.limits)
        self.shaders: dict[tuple[str, str], _Shader] = {}
        self._warps: str | None = None  # why warp calls cannot run here ("": they can), found at first need
        self._rounding: dict[str, tuple[bool, str]] = {}  # per float type, see rounding()
        # launches with device-side checks whose error buffers are read at the next synchronisation (launches
        # on device arrays alone: nothing is read back, so nothing waits for the GPU), as on the CUDA path
        self.pending: dict[int, Any] = {}  # (wgpu_launch.ShaderLaunch, by id)

    def warps(self) -> str:
        """Why this adapter cannot run CUDA's warp calls ("" when it can): they need subgroups of 32 lanes
        numbered as a block's threads modulo 32, which a probe shader checks once for 1-, 2- and 3-D blocks."""
        if self._warps is not None:
            return self._warps
        if not self.subgroups:
            self._warps = "the adapter has no subgroups"
            return self._warps
        # a 1-D block (WGSL gives multi-dimensional workgroups no subgroup_invocation_id to check them by;
        # their threads are numbered as CUDA's, x fastest, so the same rule holds where the driver keeps it)
        src = (
            "@group(0) @binding(0) var<storage, read_write> y: array<u32>;\n"
            "@compute @workgroup_size(256)\n"
            "fn main(@builtin(local_invocation_index) i: u32, @builtin(subgroup_size) n: u32,\n"
            "        @builtin(subgroup_invocation_id) lane: u32) { y[i] = n * 1000u + lane; }\n"
        )
        try:
            module = self.device.create_shader_module(code=src)
            pipeline = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"}
            )
            out = self.buffer(256 * 4)
            group = self.device.create_bind_group(
                layout=pipeline.get_bind_group_layout(0), entries=[{"binding": 0, "resource": {"buffer": out}}]
            )
            encoder = self.device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(1)
            compute.end()
            self.device.queue.submit([encoder.finish()])
            got = self.read(out, 256 * 4).view(np.uint32)
        except Exception as exc:  # a driver that cannot run the probe cannot run warp calls either
            self._warps = f"its subgroups could not be probed ({type(exc).__name__})"
            return self._warps
        if not np.array_equal(got, 32000 + np.arange(256, dtype=np.uint32) % 32):
            self._warps = f"its subgroups have {int(got[0]) // 1000} lanes, not CUDA's 32"
            return self._warps
        self._warps = ""
        return self._warps

    def rounding(self, wt: str = "f32") -> tuple[bool, str]:
        """(whether the adapter's ``fma`` of ``wt`` (f32 or f64) rounds once, why shaders with division or
        sqrt of ``wt`` cannot run here: "" when they can), probed once. The shaders correct the driver's
        quotients and roots through a fused ``fma`` (:data:`hatch_hybrid.targets.wgsl.prelude.DIV_F32`,
        ``DIV_F64``); without one, the driver's own must be correctly rounded, which 4096 random operands check."""
        found = self._rounding.get(wt)
        if found is None:
            found = self._rounding[wt] = self._probe_rounding(np.dtype(np.float32 if wt == "f32" else np.float64))
        return found

    def _probe_rounding(self, dtype: np.dtype[Any]) -> tuple[bool, str]:
        n = 4096
        wt, half = ("f32", 12) if dtype.itemsize == 4 else ("f64", 27)
        span = 40 if wt == "f32" else 300
        rng = np.random.default_rng(12345)
        a = (rng.standard_normal(n) * np.exp2(rng.integers(-span, span, n))).astype(dtype)
        b = (rng.standard_normal(n) * np.exp2(rng.integers(-span, span, n))).astype(dtype)
        # fma(1 + 2**-h, 1 + 2**-h, -(1 + 2**-(h-1))): 2**-2h rounded once, 0 rounded twice
        probe = np.concatenate([a, b, np.array([1 + 2.0**-half, -(1 + 2.0 ** -(half - 1))], dtype)])
        src = (
            f"@group(0) @binding(0) var<storage, read> x: array<{wt}>;\n"
            f"@group(0) @binding(1) var<storage, read_write> y: array<{wt}>;\n"
            f"@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n"
            f"    let i = g.x;\n"
            f"    y[i] = x[i] / x[{n}u + i];\n"
            f"    y[{n}u + i] = sqrt(abs(x[i]));\n"
            f"    if (i == 0u) {{ y[{2 * n}u] = fma(x[{2 * n}u], x[{2 * n}u], x[{2 * n + 1}u]); }}\n"
            "}\n"
        )
        try:
            module = self.device.create_shader_module(code=src)
            pipeline = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"}
            )
            size = dtype.itemsize * (2 * n + 1)
            inp, out = self.buffer(probe.nbytes, probe), self.buffer(size)
            group = self.device.create_bind_group(
                layout=pipeline.get_bind_group_layout(0),
                entries=[{"binding": 0, "resource": {"buffer": inp}}, {"binding": 1, "resource": {"buffer": out}}],
            )
            encoder = self.device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(n // 64)
            compute.end()
            self.device.queue.submit([encoder.finish()])
            got = self.read(out, size).view(dtype)
        except Exception as exc:  # a driver that cannot run the probe: nothing is known of its rounding
            return (False, f"its rounding could not be probed ({type(exc).__name__})")
        fused = bool(got[2 * n] == 2.0 ** (-2 * half))
        same = np.dtype(f"u{dtype.itemsize}")
        wrong = int(np.count_nonzero(got[:n].view(same) != (a / b).view(same)))
        wrong += int(np.count_nonzero(got[n : 2 * n].view(same) != np.sqrt(np.abs(a)).view(same)))
        why = (
            ""
            if fused or not wrong
            else (
                f"its {wt} fma rounds twice and its own {wt} division and sqrt are not correctly rounded ({wrong} "
                f"of {2 * n} random operations differ from IEEE 754)"
            )
        )
        return (fused, why)

    kind = "wgpu"  # (the device interface of .targets)

    def describe(self) -> str:
        return f"wgpu ({self.name})"

    def launch(self, kernel: Launches, config: LaunchConfig, args: tuple[Any, ...], stream: Any = None) -> None:
        kernel.launch_wgpu(config, args)

    @property
    def name(self) -> str:
        return f"{self.info.get('device', 'WebGPU adapter')} ({self.info.get('backend_type', '?')})"

    def __repr__(self) -> str:
        return f"<WgpuDevice {self.name}>"

    def synchronize(self) -> None:
        """Wait for the work submitted so far (a read of a small buffer, which the queue orders after it), and
        raise the first failed device-side check of the launches since the last synchronisation."""
        if self.pending:
            self.raise_pending()
            return
        if not hasattr(self, "_fence"):
            self._fence = self.buffer(4)
        self.device.queue.read_buffer(self._fence, 0, 4)

    def raise_pending(self) -> None:
        """Read (and clear) the error buffers of the launches with checks since the last synchronisation;
        raise the first failure found."""
        failure: BaseException | None = None
        while self.pending:
            _, launch = self.pending.popitem()
            found = launch.take_failure()
            failure = failure or found
        if failure is not None:
            raise failure

    # ------------------------------------------------------------- buffers
    def buffer(self, nbytes: int, data: Any = None) -> Any:
        usage = self.wgpu.BufferUsage
        flags = usage.STORAGE | usage.COPY_SRC | usage.COPY_DST
        # an empty array's buffer holds one element of any type (a binding is at least one element long:
        # WebGPU refused an empty i64 array bound as 4 bytes)
        size = (nbytes + 3) // 4 * 4 if nbytes else EMPTY_BUFFER
        if data is not None and nbytes and nbytes % 4 == 0:
            return self.device.create_buffer_with_data(data=data, usage=flags)
        buf = self.device.create_buffer(size=size, usage=flags)
        if data is not None and nbytes:
            padded = np.zeros(size, np.uint8)
            padded[:nbytes] = np.frombuffer(memoryview(data).cast("B"), np.uint8)
            self.device.queue.write_buffer(buf, 0, padded)
        return buf

    def read(self, buf: Any, nbytes: int) -> np.ndarray:
        data = self.device.queue.read_buffer(buf, 0, max(4, (nbytes + 3) // 4 * 4))
        return np.frombuffer(data, np.uint8)[:nbytes]

    # ------------------------------------------------------------ shaders
    def shader(self, kernel: str, manifest: Manifest, entry: dict[str, Any]) -> _Shader:
        key = (str(manifest.path), entry["wgsl"]["file"])  # a generic kernel: a shader per variant
        found = self.shaders.get(key)
        if found is not None:
            return found
        wgsl = entry["wgsl"]
        source = manifest.read_code(wgsl["file"], kernel, "wgsl.file").decode()
        usage = self.wgpu.ShaderStage.COMPUTE
        layouts = [{"binding": 0, "visibility": usage, "buffer": {"type": "uniform"}}]
        if wgsl["checks"]:
            layouts.append({"binding": 1, "visibility": usage, "buffer": {"type": "storage"}})
        for a in wgsl["arrays"]:
            kind = "storage" if a["writes"] else "read-only-storage"
            layouts.append({"binding": a["binding"], "visibility": usage, "buffer": {"type": kind}})
        group = self.device.create_bind_group_layout(entries=layouts)
        layout = self.device.create_pipeline_layout(bind_group_layouts=[group])
        found = self.shaders[key] = _Shader(source, (group, layout), wgsl["file"])
        return found

    def pipeline(
        self,
        shader: _Shader,
        block: tuple[int, int, int],
        kernel: str,
        exact: tuple[str, ...] = (),
        dynamic: int | None = None,
    ) -> Any:
        """The shader's pipeline for blocks of ``block``; ``exact``: the float types (f32, f64) it divides or
        takes square roots of, correctly rounded (``hh_fused_fma``, ``hh_fused_fma64`` set as :meth:`rounding`
        found); ``dynamic``: the elements of its dynamic shared array (None: it has none)."""
        found = shader.pipelines.get((block, dynamic))
        if found is None:
            total = block[0] * block[1] * block[2]
            most = self.limits.get("max-compute-invocations-per-workgroup", 256)
            if total > most:
                raise ValueError(f"kernel {kernel}: {total} threads per block; this WebGPU adapter runs at most {most}")
            constants = {"hh_bx": block[0], "hh_by": block[1], "hh_bz": block[2]}
            for wt in exact:
                constants["hh_fused_fma" if wt == "f32" else "hh_fused_fma64"] = int(self.rounding(wt)[0])
            if dynamic is not None:
                constants["hh_dyn_n"] = dynamic
            # the overrides written into the source as constants, one module per pipeline: naga's processing
            # of pipeline constants failed on shaders that validate with the same values as constants
            # ("Pipeline constant error: Entry point main at Compute is invalid", on complex-number kernels)
            source = OVERRIDE.sub(lambda m: _constant(m, constants), shader.source)
            try:
                module = shader_module(self.device, kernel, source)
            except Exception as exc:  # the driver's validation: a compiler bug, never the user's
                raise RuntimeError(
                    f"kernel {kernel}: the WebGPU driver rejected the shader hatch-hybrid compiled for it "
                    f"(please report this, with the package's {shader.file}); run it with device='cpu' "
                    f"meanwhile:\n{exc}"
                ) from None
            try:
                found = self.device.create_compute_pipeline(
                    layout=shader.layout[1], compute={"module": module, "entry_point": "main"}
                )
            except Exception as exc:  # the driver's own compiler failed (it may lose the device doing so)
                forget_device(self)
                raise RuntimeError(
                    f"kernel {kernel}: the WebGPU driver could not compile the shader hatch-hybrid made for it on "
                    f"{self.name} (please report this); run it with device='cpu' or 'cuda' meanwhile. The device "
                    f"is made again for the next launch; arrays on the old one are gone:\n{exc}"
                ) from None
            shader.pipelines[(block, dynamic)] = found
        return found


class WgpuArray:
    """An array in a WebGPU storage buffer (C order), kept there between launches."""

    def __init__(self, device: WgpuDevice, buffer: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.device, self.buffer = device, buffer
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.ndim = len(self.shape)
        # what argument checks read: an array of this shape and dtype holding one element (zero strides)
        self.stand_in = np.lib.stride_tricks.as_strided(np.zeros(1, self.dtype), self.shape, (0,) * self.ndim)

    def copy_to_host(self) -> np.ndarray:
        """The data, after the work queued before (a synchronisation: failed device-side checks raise here)."""
        host = self.device.read(self.buffer, self.nbytes).view(self.dtype).reshape(self.shape).copy()
        if self.device.pending:
            self.device.raise_pending()
        return host

    def copy_from_host(self, host: np.ndarray) -> None:
        data = np.ascontiguousarray(host, dtype=self.dtype)
        if data.shape != self.shape:
            raise ValueError(f"copy_from_host: shape {data.shape}, this array's is {self.shape}")
        self.device.device.queue.write_buffer(self.buffer, 0, data)

    def __repr__(self) -> str:
        return f"<WgpuArray shape={self.shape} dtype={self.dtype}>"


def to_device(host: Any) -> WgpuArray:
    """A copy of a NumPy array on the WebGPU device (``hybrid_runtime.wgpu_device.to_device(a)``)."""
    dev = get_device()
    data = np.ascontiguousarray(host)
    return WgpuArray(dev, dev.buffer(data.nbytes, data), data.shape, data.dtype)


def unmet_needs(wgsl: dict[str, Any], dev: WgpuDevice) -> str | None:
    """What a shader needs that the adapter ``dev`` lacks, as the rest of a sentence whose subject is the
    kernel (None: the adapter runs it)."""
    if "subgroup" in wgsl["features"] and dev.warps():
        return (
            "uses warp calls (shuffles, votes), which need 32-lane subgroups; the WebGPU adapter "
            f"{dev.name} cannot run them: {dev.warps()}"
        )
    if "shader-f16" in wgsl["features"] and not dev.f16:
        return f"uses f16 values, which need the WebGPU adapter's shader-f16; {dev.name} lacks it"
    if "shader-f64" in wgsl["features"] and not dev.f64:
        return (
            f"uses f64 values (Python floats are f64), which need the WebGPU adapter's shader-f64; {dev.name} "
            "lacks it (Metal adapters have no f64)"
        )
    if "shader-int64-atomic-all-ops" in wgsl["features"] and not dev.atomics64:
        return (
            "uses atomics on 64-bit elements, which need the WebGPU adapter's shader-int64-atomic-all-ops; "
            f"{dev.name} lacks it"
        )
    for wt in ("f32", "f64"):
        if f"{wt}-fused-fma" in wgsl["features"] and not dev.rounding(wt)[0]:
            return f"calls math.fma, and the WebGPU adapter {dev.name}'s {wt} fma rounds twice"
        if f"{wt}-div-sqrt" in wgsl["features"] and dev.rounding(wt)[1]:
            return (
                f"divides {wt} values or takes their square roots, which the WebGPU adapter "
                f"{dev.name} cannot round as IEEE 754 does: {dev.rounding(wt)[1]}"
            )
    return None
