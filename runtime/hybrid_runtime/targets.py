"""Where a launch runs: one small interface that every device implements, and the one place that picks.

A device is a :class:`~.device.CudaDevice`, a :class:`~.wgpu_device.WgpuDevice` (Vulkan, Metal or
Direct3D 12 through the ``wgpu`` package), :data:`CPU` (the kernel's native code from its wheel, else its
Python function) or :data:`PYTHON` (always the Python function: for pdb and print). Each has

* ``kind``: ``"cuda"``, ``"wgpu"``, ``"cpu"`` or ``"cpu-python"``;
* ``describe()``: where launches go, e.g. ``"cuda:0 (NVIDIA H100)"``;
* ``launch(kernel, config, args, stream)``: run a kernel there (each device calls the kernel's own
  launch for it: ``launch_cuda``, ``launch_wgpu``, ``launch_cpu``);
* ``synchronize()``: wait for the work queued there and raise the first failed device-side check of
  asynchronous launches (CPU launches are synchronous: nothing to wait for).

:func:`select` turns ``device=`` (or ``$HYBRID_DEVICE``) into one; :func:`default_device` caches it per
value of ``$HYBRID_DEVICE`` for launches without ``device=``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol, Union

from . import memory
from .device import CHOICES, CudaDevice, get_device, named, spelling
from .driver import cuda_available

if TYPE_CHECKING:
    from .config import LaunchConfig, Launches


class Device(Protocol):
    """What every device offers (see the module's docstring)."""

    kind: str

    def describe(self) -> str: ...

    def launch(self, kernel: Launches, config: LaunchConfig, args: tuple[Any, ...], stream: Any = None) -> None: ...

    def synchronize(self) -> None: ...


class CpuDevice:
    """This machine's CPU: the kernel's native code from its wheel (its Python function where there is none,
    with a warning); ``python``: always the Python function (``"cpu-python"``)."""

    def __init__(self, python: bool) -> None:
        self.python = python
        self.kind = "cpu-python" if python else "cpu"

    def describe(self) -> str:
        return self.kind

    def launch(self, kernel: Launches, config: LaunchConfig, args: tuple[Any, ...], stream: Any = None) -> None:
        kernel.launch_cpu(config, args, self.python)

    def synchronize(self) -> None:
        """CPU launches return when they are done."""

    def __repr__(self) -> str:
        return f"<CpuDevice {self.kind}>"


CPU = CpuDevice(python=False)
PYTHON = CpuDevice(python=True)

if TYPE_CHECKING:
    from .wgpu_device import WgpuDevice

#: What a launch runs on. The one place that chooses is :func:`select`.
Target = Union[CudaDevice, "WgpuDevice", CpuDevice]


def _wgpu() -> Any:
    """:mod:`.wgpu_device`, imported when a launch or a copy first asks for WebGPU (not at import: a
    program that never uses it does not pay for it at startup)."""
    from . import wgpu_device

    return wgpu_device


def select(device: str | None) -> Target:
    """The device a launch runs on, for ``device`` (or ``$HYBRID_DEVICE`` when None):

    * ``"auto"`` (the default): CUDA device 0 when a driver and device are present, else a WebGPU GPU
      adapter when the ``wgpu`` package is installed and finds one (not a CPU driver such as lavapipe),
      else the CPU;
    * ``"cuda"``/``"cuda:N"``; ``"wgpu"`` (Vulkan, Metal or Direct3D 12 through the ``wgpu`` package, CPU
      adapters included); ``"cpu"``; ``"cpu-python"`` (the CPU, through the kernel's Python function: for
      pdb and print).
    """
    choice = spelling(device if device is not None else os.environ.get("HYBRID_DEVICE", "auto")) or "auto"
    if choice == "cpu":
        return CPU
    if choice == "cpu-python":
        return PYTHON
    if choice == "auto":
        if cuda_available():
            return get_device(0)
        wgpu = _wgpu()
        return wgpu.get_device() if wgpu.available(real_gpu_only=True) else CPU
    if choice == "wgpu":
        adapter: Target = _wgpu().get_device()
        return adapter
    found = named(choice)
    if found is None:
        raise ValueError(f"device must be {CHOICES}, got {choice!r}")
    return found


def to_device(array: Any, device: str | None = None) -> Any:
    """Copy a NumPy array to the GPU: a :class:`~.memory.DeviceArray` on a CUDA device (the default), a
    :class:`~.wgpu_device.WgpuArray` with ``device="wgpu"``."""
    if spelling(device) == "wgpu":
        return _wgpu().to_device(array)
    return memory.to_cuda(array, device)


def chosen_automatically(device: str | bytes | None) -> bool:
    """Is ``device`` (a ``device=`` value, or $HYBRID_DEVICE's raw value) "auto" or unset: a device this
    module picked, so a kernel it cannot run there may run on the next one?"""
    if isinstance(device, bytes):
        device = device.decode(errors="replace")
    return spelling(device) in (None, "auto")


def python_cpu(device: str | None) -> bool:
    """Does ``device`` (or ``$HYBRID_DEVICE`` when None) ask for the CPU's Python path?"""
    return spelling(device if device is not None else os.environ.get("HYBRID_DEVICE", "")) == "cpu-python"


_defaults: dict[str | bytes | None, Target] = {}
# CPython keeps os.environ's bytes underneath; reading it directly is ~10x cheaper on the launch path
_env_data = getattr(os.environ, "_data", None) if os.name == "posix" else None


ENV_KEY: Any = b"HYBRID_DEVICE" if _env_data is not None else "HYBRID_DEVICE"
ENV_GET: Any = _env_data.get if _env_data is not None else os.environ.get


def device_env() -> Any:
    """The raw value of $HYBRID_DEVICE (the same object while it is unchanged)."""
    return ENV_GET(ENV_KEY)


def default_device() -> Target:
    """Where a launch without ``device=`` goes: $HYBRID_DEVICE, else auto (resolved once per value)."""
    env = device_env()
    try:
        return _defaults[env]
    except KeyError:
        _defaults[env] = dev = select(None)
        return dev


def default_device_name(device: str | None = None) -> str:
    """``"cuda:0 (NVIDIA H100)"``, ``"wgpu (NVIDIA H100 (Vulkan))"``, ``"cpu"`` or ``"cpu-python"``: where a
    launch with this ``device`` would run."""
    return select(device).describe()
