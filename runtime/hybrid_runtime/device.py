"""CUDA devices: the primary context of each, its compute capability, and the modules loaded in it.

Nothing here runs at import time; the first launch on a device retains its context.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Union

from .driver import NoCudaError, check, cuda_available, initialise

if TYPE_CHECKING:
    from .wgpu_device import WgpuDevice

_lock = threading.Lock()
_devices: dict[int, CudaDevice] = {}
_thread = threading.local()  # the context this thread made current last
thread_state = _thread


@dataclass(eq=False)
class CudaDevice:
    ordinal: int
    handle: Any
    context: Any
    compute_capability: tuple[int, int]
    name: str
    functions: dict[tuple[str, str], Any] = field(default_factory=dict)  # (ptx file, symbol) -> CUfunction
    modules: dict[str, Any] = field(default_factory=dict)  # code file -> CUmodule (its entry points share it)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # error slots of kernels with device-side checks launched asynchronously since the last synchronisation
    pending: dict[int, Any] = field(default_factory=dict)

    def raise_pending(self) -> None:
        """After a synchronisation: report the first failed device-side check of the launches since."""
        while self.pending:
            _, slot = self.pending.popitem()
            slot.take()

    def global_address(self, key: tuple[str, str], name: bytes, kernel: str) -> int | None:
        """The device address of a module-level variable of a loaded module (None if it has none)."""
        cu = initialise()
        err, address, _size = cu.cuModuleGetGlobal(self.modules[key[0]], name)
        if err != cu.CUresult.CUDA_SUCCESS:
            return None
        return int(address)

    def activate(self) -> None:
        cu = initialise()
        check(cu.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        _thread.context = self.context

    def ensure_current(self) -> None:
        """Make this device's context current in this thread (a driver call only when it is not)."""
        if getattr(_thread, "context", None) is not self.context:
            self.activate()

    def function(self, key: tuple[str, str], ptx: bytes, kernel: str) -> Any:
        """The CUfunction ``key = (code file, symbol)``, loading the file's module once per context."""
        fn = self.functions.get(key)
        if fn is not None:
            return fn
        with self.lock:
            fn = self.functions.get(key)
            if fn is None:
                cu = initialise()
                self.activate()
                module = self.modules.get(key[0])
                if module is None:
                    if key[0].endswith(".ptx"):  # the driver's JIT keeps the PTX's Python lines only when asked
                        line_info = [cu.CUjit_option.CU_JIT_GENERATE_LINE_INFO]
                        module = check(cu.cuModuleLoadDataEx(ptx, 1, line_info, [1]), "cuModuleLoadDataEx", kernel)
                    else:
                        module = check(cu.cuModuleLoadData(ptx), "cuModuleLoadData", kernel)
                    self.modules[key[0]] = module
                fn = check(cu.cuModuleGetFunction(module, key[1].encode()), "cuModuleGetFunction", kernel)
                self.functions[key] = fn
        return fn

    def __repr__(self) -> str:
        major, minor = self.compute_capability
        return f"<CudaDevice {self.ordinal}: {self.name} (sm_{major}{minor})>"


def get_device(ordinal: int = 0) -> CudaDevice:
    with _lock:
        dev = _devices.get(ordinal)
        if dev is None:
            cu = initialise()
            count = check(cu.cuDeviceGetCount(), "cuDeviceGetCount")
            if not 0 <= ordinal < count:
                raise ValueError(f"device cuda:{ordinal} does not exist ({count} CUDA device(s) present)")
            handle = check(cu.cuDeviceGet(ordinal), "cuDeviceGet")
            attr = cu.CUdevice_attribute
            major = check(
                cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle),
                "cuDeviceGetAttribute",
            )
            minor = check(
                cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle),
                "cuDeviceGetAttribute",
            )
            name = check(cu.cuDeviceGetName(256, handle), "cuDeviceGetName")
            name = name.split(b"\0", 1)[0].decode() if isinstance(name, bytes) else str(name)
            context = check(cu.cuDevicePrimaryCtxRetain(handle), "cuDevicePrimaryCtxRetain")
            dev = CudaDevice(ordinal, handle, context, (major, minor), name)
            _devices[ordinal] = dev
    dev.ensure_current()
    return dev


@lru_cache(maxsize=1)
def device_count() -> int:
    """How many CUDA devices the driver sees (0 without a usable driver)."""
    if not cuda_available():
        return 0
    return int(check(initialise().cuDeviceGetCount(), "cuDeviceGetCount"))


def devices() -> list[CudaDevice]:
    """Every CUDA device, in driver order (empty without a usable driver)."""
    return [get_device(i) for i in range(device_count())]


#: What a launch runs on: a CUDA device, a WebGPU adapter, or None for the CPU (native code, else the
#: kernel's Python function). The one place that chooses is :func:`select`.
Target = Union[CudaDevice, "WgpuDevice", None]
CHOICES = "'auto', 'cuda', 'cuda:N', 'wgpu', 'cpu' or 'cpu-python'"


def select(device: str | None) -> Target:
    """The device a launch runs on, for ``device`` (or ``$HYBRID_DEVICE`` when None):

    * ``"auto"`` (the default): CUDA device 0 when a driver and device are present, else a WebGPU GPU
      adapter when the ``wgpu`` package is installed and finds one (not a CPU driver such as lavapipe),
      else the CPU;
    * ``"cuda"``/``"cuda:N"``; ``"wgpu"`` (Vulkan, Metal or Direct3D 12 through the ``wgpu`` package, CPU
      adapters included); ``"cpu"``; ``"cpu-python"`` (the CPU, through the kernel's Python function: for
      pdb and print).
    """
    choice = device if device is not None else os.environ.get("HYBRID_DEVICE", "auto")
    choice = choice.strip().lower() or "auto"
    if choice in ("cpu", "cpu-python"):
        return None
    if choice == "auto":
        if cuda_available():
            return get_device(0)
        from . import wgpu_device

        return wgpu_device.get_device() if wgpu_device.available(real_gpu_only=True) else None
    if choice == "wgpu":
        from . import wgpu_device

        return wgpu_device.get_device()
    if choice == "cuda" or choice.startswith("cuda:"):
        ordinal = 0
        if ":" in choice:
            try:
                ordinal = int(choice.split(":", 1)[1])
            except ValueError:
                raise ValueError(f"device must be {CHOICES}, got {choice!r}") from None
        try:
            return get_device(ordinal)
        except NoCudaError as exc:
            raise NoCudaError(f"device {choice!r} was requested but {exc}") from None
    raise ValueError(f"device must be {CHOICES}, got {choice!r}")


def python_cpu(device: str | None) -> bool:
    """Does ``device`` (or ``$HYBRID_DEVICE`` when None) ask for the CPU's Python path?"""
    choice = device if device is not None else os.environ.get("HYBRID_DEVICE", "")
    return choice.strip().lower() == "cpu-python"


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
    """``"cuda:0 (NVIDIA H100)"``, ``"wgpu (NVIDIA H100 (Vulkan))"`` or ``"cpu"``: where a launch with this
    ``device`` would run."""
    dev = select(device)
    if dev is None:
        return "cpu"
    if isinstance(dev, CudaDevice):
        return f"cuda:{dev.ordinal} ({dev.name})"
    return f"wgpu ({dev.name})"
