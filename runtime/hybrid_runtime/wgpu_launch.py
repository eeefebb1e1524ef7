"""One kernel's launches on the WebGPU device (:mod:`.wgpu_device`): the uniform's fields packed from the
arguments as the manifest's interface lays them out (tuple and complex arguments by their leaves), the
arrays bound, the dispatch, and the failed checks read back.

In: a kernel's manifest entry, a launch configuration, the arguments. Out: the dispatch; NumPy arrays the
kernel writes, read back; a failed check raised as on the other devices.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from . import abi
from .checks import site_exception
from .config import LaunchConfig
from .manifest import Manifest
from .signature import Param, check_arguments
from .wgpu_device import WgpuArray, get_device, unmet_needs

MAX_DISPATCH = 65535  # WebGPU's maxComputeWorkgroupsPerDimension
_PACK = {"i64": "<q", "u64": "<Q", "i32": "<i", "u32": "<I", "f32": "<f", "f64": "<d"}


class ShaderLaunch:
    """A kernel's launches of one configuration on the WebGPU device: the pipeline, a uniform buffer
    written only when the launch's numbers change, and the bind group of the last launch, reused while its
    buffers are the same (device arrays, the uniform, the error buffer)."""

    def __init__(self, kernel: str, manifest: Manifest, entry: dict[str, Any], config: LaunchConfig) -> None:
        self.kernel, self.wgsl, self.config = kernel, entry["wgsl"], config
        self.dev = dev = get_device()
        problem = unmet_needs(self.wgsl, dev)
        if problem is not None:
            raise ValueError(f"kernel {kernel} {problem}. Use device='cuda' or 'cpu'")
        exact = tuple(wt for wt in ("f32", "f64") if f"{wt}-div-sqrt" in self.wgsl["features"])
        dynamic = None
        if self.wgsl.get("dynamic_item"):  # gpu.dynamic_shared_array: the launch's shared_bytes, in elements
            most = dev.limits.get("max-compute-workgroup-storage-size", 16384)
            if config.shared_bytes > most:
                raise ValueError(
                    f"kernel {kernel}: shared_bytes={config.shared_bytes}; the WebGPU adapter {dev.name} gives a "
                    f"block at most {most} bytes of shared memory"
                )
            dynamic = config.shared_bytes // self.wgsl["dynamic_item"]
        self.shader = dev.shader(kernel, manifest, entry)
        self.pipeline = dev.pipeline(self.shader, config.block, kernel, exact, dynamic)
        fields = {name: (struct.Struct(_PACK[wt]), offset) for name, wt, offset in self.wgsl["fields"]}
        self.fields = fields
        self.uniform = bytearray(self.wgsl["uniform_bytes"])
        for (name, _), value in zip(abi.WGSL_GRID_FIELDS, (*config.grid, 0)):
            self._put(name, value)
        usage = dev.wgpu.BufferUsage
        self.ubuf = dev.device.create_buffer(size=len(self.uniform), usage=usage.UNIFORM | usage.COPY_DST)
        # per array parameter: the device array whose layout the uniform holds (None: none)
        self.laid_out: list[Any] = [None] * len(self.wgsl["arrays"])
        self.written = b""  # the uniform's bytes as last written
        self.err = dev.buffer(4 * abi.WGSL_ERROR_WORDS) if self.wgsl["checks"] else None  # WebGPU zeroes it
        self.zeros = np.zeros(abi.WGSL_ERROR_WORDS, np.uint32)
        self.scalars = [(k, f"hh_v{k}") for k in range(64) if f"hh_v{k}" in fields]
        # tuple parameters: their leaves' fields, depth first (hatch_hybrid.targets.wgsl.render's tuple_parameter)
        leaf = lambda name: int(name.rsplit("_", 1)[1])  # noqa: E731
        self.tuples = [(k, sorted((f for f in fields if f.startswith(f"hh_v{k}_")), key=leaf)) for k in range(64)]
        self.tuples = [(k, names) for k, names in self.tuples if names]
        self.group: Any = None
        self.group_buffers: list[Any] | None = None  # held, so that none is freed and another takes its place
        # the last launch's arguments when all its arrays were device arrays (see again()), and per scalar
        # parameter (index, NumPy scalar type, packer, offset); None: a parameter again() does not take
        self.last: tuple[Any, ...] | None = None
        self.fast_scalars: list[tuple[int, type, struct.Struct, int]] | None = None
        blocks = config.grid[0] * config.grid[1] * config.grid[2]
        self.x = min(blocks, MAX_DISPATCH)
        self.y = -(-blocks // self.x)
        if self.y > MAX_DISPATCH:
            raise ValueError(f"kernel {kernel}: {blocks} blocks; a WebGPU dispatch runs at most {MAX_DISPATCH**2}")

    def _put(self, name: str, value: Any) -> None:
        packer, offset = self.fields[name]
        packer.pack_into(self.uniform, offset, int(value) if isinstance(value, np.bool_) else value)

    def __call__(self, params: list[Param], args: tuple[Any, ...]) -> None:
        """One launch: arguments checked as on every device, NumPy arrays uploaded, the dispatch, arrays the
        kernel writes read back, a failed check raised as on the other devices."""
        dev, kernel = self.dev, self.kernel
        # a device array is checked through a stand-in of its shape and dtype (no copy), then bound as it is
        values = check_arguments(kernel, params, tuple(a.stand_in if isinstance(a, WgpuArray) else a for a in args))
        buffers: list[Any] = []
        readback: list[tuple[np.ndarray, Any, np.ndarray]] = []
        synchronous = False  # NumPy arrays: uploaded and (those written) read back, so the launch waits
        laid_out = self.laid_out
        for n, a in enumerate(self.wgsl["arrays"]):
            k = a["param"]
            given = args[k]
            if isinstance(given, WgpuArray):
                buf, shape = given.buffer, given.shape
                if laid_out[n] is given:  # the uniform holds its layout already
                    buffers.append(buf)
                    continue
                _check_size(kernel, params[k].name, shape, given.nbytes, dev.limits)
            else:
                host = np.ascontiguousarray(values[k])
                _check_size(kernel, params[k].name, host.shape, host.nbytes, dev.limits)
                buf, shape = dev.buffer(host.nbytes, host), host.shape
                synchronous = True
                if a["writes"]:
                    readback.append((values[k], buf, host))
            base = f"hh_a{k}"
            self._put(f"{base}_off", 0)
            for d, (extent, stride) in enumerate(zip(shape, _c_strides(shape))):
                self._put(f"{base}_n{d}", extent)
                self._put(f"{base}_s{d}", stride)
            buffers.append(buf)
            laid_out[n] = given if isinstance(given, WgpuArray) else None
        for k, name in self.scalars:
            self._put(name, values[k])
        for k, names in self.tuples:
            for name, leaf in zip(names, _leaves(values[k])):
                self._put(name, leaf)
        if self.fast_scalars is None and all(
            p.kind == "array" or (p.kind == "scalar" and p.dtype.kind != "b") for p in params
        ):  # (a boolean is packed as an int by _put)
            self.fast_scalars = [(k, params[k].dtype.type, *self.fields[name]) for k, name in self.scalars]
        held = self.group_buffers
        if held is None or len(held) != len(buffers) or any(a is not b for a, b in zip(held, buffers)):
            entries = [{"binding": 0, "resource": {"buffer": self.ubuf, "offset": 0, "size": self.ubuf.size}}]
            if self.err is not None:
                entries.append({"binding": 1, "resource": {"buffer": self.err, "offset": 0, "size": self.err.size}})
            for a, buf in zip(self.wgsl["arrays"], buffers):
                entries.append({"binding": a["binding"], "resource": {"buffer": buf, "offset": 0, "size": buf.size}})
            self.group = dev.device.create_bind_group(layout=self.shader.layout[0], entries=entries)
            self.group_buffers = buffers
        self.dispatch()
        self.last = None if synchronous else args
        for target, buf, host in readback:
            np.copyto(target, dev.read(buf, host.nbytes).view(host.dtype).reshape(host.shape))
        if synchronous and dev.pending:  # its checks reported now (and those of earlier launches)
            dev.raise_pending()

    def again(self, args: tuple[Any, ...]) -> bool:
        """The fast path of a launch like the last one: the same device arrays (whose layout the uniform
        holds and whose checks passed) and each scalar a NumPy scalar of its parameter's type, packed as it
        is. False, having launched nothing, for anything else (the caller makes the full launch)."""
        last, fast = self.last, self.fast_scalars
        if last is None or fast is None or len(args) != len(last):
            return False
        for a in self.wgsl["arrays"]:
            k = a["param"]
            if args[k] is not last[k]:
                return False
        for k, kind, packer, offset in fast:
            value = args[k]
            if type(value) is not kind:
                return False
            packer.pack_into(self.uniform, offset, value)
        self.dispatch()
        return True

    def dispatch(self) -> None:
        """The launch itself: the uniform written where it changed, the dispatch submitted; a kernel with
        checks has its error buffer read at the next synchronisation."""
        dev = self.dev
        if self.uniform != self.written:  # the queue orders the write before the next dispatch
            data = bytes(self.uniform)
            dev.device.queue.write_buffer(self.ubuf, 0, data)
            self.written = data
        encoder = dev.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(self.pipeline)
        compute.set_bind_group(0, self.group)
        compute.dispatch_workgroups(self.x, self.y, 1)
        compute.end()
        dev.device.queue.submit([encoder.finish()])
        if self.err is not None:
            dev.pending[id(self)] = self

    def take_failure(self) -> BaseException | None:
        """The first failed check recorded in the error buffer since it was last cleared (clearing it)."""
        assert self.err is not None
        words = self.dev.read(self.err, 4 * abi.WGSL_ERROR_WORDS).view(np.uint32)
        if not words[abi.WGSL_ERROR_WORDS - 1]:
            return None
        self.dev.device.queue.write_buffer(self.err, 0, self.zeros)
        a_value = int(np.array([words[1], words[2]], np.uint32).view(np.int64)[0])
        b_value = int(np.array([words[3], words[4]], np.uint32).view(np.int64)[0])
        return site_exception(self.kernel, self.wgsl["checks"], int(words[0]), a_value, b_value)


def _check_size(kernel: str, name: str, shape: tuple[int, ...], nbytes: int, limits: dict[str, int]) -> None:
    """An array the adapter can bind, or a ValueError naming its parameter before anything runs (wgpu's own
    error names a binding number)."""
    size = int(np.prod(shape, dtype=np.int64))
    if size >= 1 << 31:  # shaders compute element offsets in 32 bits
        raise ValueError(
            f"{kernel}(): parameter `{name}` has {size} elements; device='wgpu' takes arrays of fewer than 2**31 "
            "elements"
        )
    most = limits.get("max-storage-buffer-binding-size", 1 << 27)
    if nbytes > most:
        raise ValueError(
            f"{kernel}(): parameter `{name}` is {nbytes} bytes; this WebGPU adapter binds at most {most} bytes "
            "per array; split the array or use device='cuda' or 'cpu'"
        )


def _leaves(value: Any) -> list[Any]:
    """A tuple argument's numbers, depth first (a complex number's: its parts)."""
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, (complex, np.complexfloating)):
        return [value.real, value.imag]
    return [value]


def _c_strides(shape: tuple[int, ...]) -> list[int]:
    strides: list[int] = []
    acc = 1
    for n in reversed(shape):
        strides.insert(0, acc)
        acc *= int(n)
    return strides
