"""``device="wgpu"``: kernels as WGSL compute shaders through the ``wgpu`` package (wgpu-native:
Vulkan, Metal, Direct3D 12), an optional dependency (``pip install hatch-hybrid-runtime[wgpu]``)
imported at the first such launch.

A launch binds the shader's interface that the build recorded in the manifest (see
``hatch_hybrid.targets.wgsl.render``): a uniform with the scalars, the arrays' layouts and the grid;
one storage buffer per array; the error buffer of kernels with checks. NumPy arrays are uploaded before
the dispatch and the ones the kernel writes are read back after it; :class:`WgpuArray` keeps data on the
GPU between launches. Pipelines are made once per kernel and block shape.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import abi
from .checks import site_exception
from .config import LaunchConfig
from .manifest import Manifest
from .signature import Param, check_arguments

MAX_DISPATCH = 65535  # WebGPU's maxComputeWorkgroupsPerDimension
_lock = threading.Lock()
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
    Never imports wgpu when it is not installed."""
    import importlib.util

    if importlib.util.find_spec("wgpu") is None:
        return False
    try:
        dev = get_device()
    except WgpuUnavailable:
        return False
    return not (real_gpu_only and dev.is_cpu)


def get_device() -> WgpuDevice:
    """The process's WebGPU device (the high-performance adapter), made at first use."""
    global _device
    with _lock:
        if _device is None:
            _device = WgpuDevice()
    return _device


@dataclass
class _Shader:
    module: Any
    layout: Any
    pipelines: dict[tuple[int, int, int], Any] = field(default_factory=dict)


class WgpuDevice:
    """One wgpu adapter and device, its compiled shaders and pipelines."""

    def __init__(self) -> None:
        wgpu = _wgpu()
        os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # Mesa's drivers complain on stderr without it
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
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
        self.device = adapter.request_device_sync(
            required_features=["shader-int64"], required_limits={k: limits[k] for k in wanted if k in limits}
        )
        self.limits = dict(self.device.limits)
        self.shaders: dict[tuple[str, str], _Shader] = {}

    @property
    def name(self) -> str:
        return f"{self.info.get('device', 'WebGPU adapter')} ({self.info.get('backend_type', '?')})"

    def __repr__(self) -> str:
        return f"<WgpuDevice {self.name}>"

    # ------------------------------------------------------------- buffers
    def buffer(self, nbytes: int, data: Any = None) -> Any:
        usage = self.wgpu.BufferUsage
        flags = usage.STORAGE | usage.COPY_SRC | usage.COPY_DST
        size = max(4, (nbytes + 3) // 4 * 4)
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
        key = (str(manifest.path), kernel)
        found = self.shaders.get(key)
        if found is not None:
            return found
        wgsl = entry["wgsl"]
        source = manifest.read_code(wgsl["file"], kernel, "wgsl.file").decode()
        module = self.device.create_shader_module(label=kernel, code=source)
        usage = self.wgpu.ShaderStage.COMPUTE
        layouts = [{"binding": 0, "visibility": usage, "buffer": {"type": "uniform"}}]
        if wgsl["checks"]:
            layouts.append({"binding": 1, "visibility": usage, "buffer": {"type": "storage"}})
        for a in wgsl["arrays"]:
            kind = "storage" if a["writes"] else "read-only-storage"
            layouts.append({"binding": a["binding"], "visibility": usage, "buffer": {"type": kind}})
        group = self.device.create_bind_group_layout(entries=layouts)
        layout = self.device.create_pipeline_layout(bind_group_layouts=[group])
        found = self.shaders[key] = _Shader(module, (group, layout))
        return found

    def pipeline(self, shader: _Shader, block: tuple[int, int, int], kernel: str) -> Any:
        found = shader.pipelines.get(block)
        if found is None:
            total = block[0] * block[1] * block[2]
            most = self.limits.get("max-compute-invocations-per-workgroup", 256)
            if total > most:
                raise ValueError(f"kernel {kernel}: {total} threads per block; this WebGPU adapter runs at most {most}")
            found = shader.pipelines[block] = self.device.create_compute_pipeline(
                layout=shader.layout[1],
                compute={
                    "module": shader.module,
                    "entry_point": "main",
                    "constants": {"hh_bx": block[0], "hh_by": block[1], "hh_bz": block[2]},
                },
            )
        return found


class WgpuArray:
    """An array in a WebGPU storage buffer (C order), kept there between launches."""

    def __init__(self, device: WgpuDevice, buffer: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.device, self.buffer = device, buffer
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.ndim = len(self.shape)

    def copy_to_host(self) -> np.ndarray:
        return self.device.read(self.buffer, self.nbytes).view(self.dtype).reshape(self.shape).copy()

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


def launch(
    kernel: str,
    manifest: Manifest,
    entry: dict[str, Any],
    params: list[Param],
    config: LaunchConfig,
    args: tuple[Any, ...],
) -> None:
    """One launch of a kernel's shader: arguments checked as on every device, NumPy arrays uploaded,
    the dispatch, arrays the kernel writes read back, a failed check raised as on the other devices."""
    wgsl = entry["wgsl"]
    dev = get_device()
    # a device array is checked through a stand-in of its shape and dtype (no copy), then bound as it is
    values = check_arguments(kernel, params, tuple(_stand_in(a) if isinstance(a, WgpuArray) else a for a in args))
    shader = dev.shader(kernel, manifest, entry)
    pipeline = dev.pipeline(shader, config.block, kernel)
    uniform = np.zeros(wgsl["uniform_bytes"], np.uint8)
    fields = {name: (wt, offset) for name, wt, offset in wgsl["fields"]}

    def put(name: str, wt: str, value: Any) -> None:
        offset = fields[name][1]
        dtype = {"i64": np.int64, "u64": np.uint64, "i32": np.int32, "u32": np.uint32, "f32": np.float32}[wt]
        uniform[offset : offset + np.dtype(dtype).itemsize] = np.array([value], dtype).view(np.uint8)

    bindings: list[dict[str, Any]] = []
    readback: list[tuple[np.ndarray, Any, np.ndarray]] = []
    for a in wgsl["arrays"]:
        k = a["param"]
        value, given = values[k], args[k]
        base = f"hh_a{k}"
        if isinstance(given, WgpuArray):
            buf, shape = given.buffer, given.shape
            strides = _c_strides(shape)
        else:
            host = np.ascontiguousarray(value)
            buf = dev.buffer(host.nbytes, host)
            shape, strides = host.shape, _c_strides(host.shape)
            if a["writes"]:
                readback.append((value, buf, host))
        put(f"{base}_off", "i64", 0)
        for d, (n, s) in enumerate(zip(shape, strides)):
            put(f"{base}_n{d}", "i64", n)
            put(f"{base}_s{d}", "i64", s)
        bindings.append({"binding": a["binding"], "resource": {"buffer": buf, "offset": 0, "size": buf.size}})
    for k in range(len(params)):
        name = f"hh_v{k}"
        if name in fields:
            wt = fields[name][0]
            put(name, wt, int(values[k]) if wt != "f32" else values[k])
    put("hh_gx", "u32", config.grid[0])
    put("hh_gy", "u32", config.grid[1])
    put("hh_gz", "u32", config.grid[2])
    put("hh_zero", "u32", 0)
    ubuf = dev.device.create_buffer_with_data(data=uniform, usage=dev.wgpu.BufferUsage.UNIFORM)
    bindings.append({"binding": 0, "resource": {"buffer": ubuf, "offset": 0, "size": ubuf.size}})
    err = None
    if wgsl["checks"]:
        err = dev.buffer(4 * abi.WGSL_ERROR_WORDS, np.zeros(abi.WGSL_ERROR_WORDS, np.uint32))
        bindings.append({"binding": 1, "resource": {"buffer": err, "offset": 0, "size": err.size}})
    group = dev.device.create_bind_group(layout=shader.layout[0], entries=bindings)
    blocks = config.grid[0] * config.grid[1] * config.grid[2]
    x = min(blocks, MAX_DISPATCH)
    y = -(-blocks // x)
    if y > MAX_DISPATCH:
        raise ValueError(f"kernel {kernel}: {blocks} blocks; a WebGPU dispatch runs at most {MAX_DISPATCH**2}")
    encoder = dev.device.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, group)
    compute.dispatch_workgroups(x, y, 1)
    compute.end()
    dev.device.queue.submit([encoder.finish()])
    if err is not None:
        words = dev.read(err, 4 * abi.WGSL_ERROR_WORDS).view(np.uint32)
        if words[abi.WGSL_ERROR_WORDS - 1]:
            a_value = int(np.array([words[1], words[2]], np.uint32).view(np.int64)[0])
            b_value = int(np.array([words[3], words[4]], np.uint32).view(np.int64)[0])
            raise site_exception(kernel, wgsl["checks"], int(words[0]), a_value, b_value)
    for target, buf, host in readback:
        data = dev.read(buf, host.nbytes).view(host.dtype).reshape(host.shape)
        np.copyto(target, data)


def _stand_in(a: WgpuArray) -> np.ndarray:
    """An array of ``a``'s shape and dtype that holds one element (zero strides): what argument checks read."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, a.dtype), a.shape, (0,) * a.ndim, writeable=True)


def _c_strides(shape: tuple[int, ...]) -> list[int]:
    strides: list[int] = []
    acc = 1
    for n in reversed(shape):
        strides.insert(0, acc)
        acc *= int(n)
    return strides
