"""CUDA devices: the primary context of each, its compute capability, and the modules loaded in it.

Nothing here runs at import time; the first launch on a device retains its context. Which device a launch
runs on is chosen in :mod:`.targets`.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .driver import NoCudaError, check, cuda_available, initialise

if TYPE_CHECKING:
    from .config import LaunchConfig, Launches

_lock = threading.Lock()
_devices: dict[int, CudaDevice] = {}
_thread = threading.local()  # the context this thread made current last
thread_state = _thread


class CudaDevice:
    kind = "cuda"  # (the device interface of .targets)

    def __init__(self, ordinal: int, handle: Any, context: Any, compute_capability: tuple[int, int], name: str) -> None:
        self.ordinal, self.handle, self.context = ordinal, handle, context
        self.compute_capability, self.name = compute_capability, name
        self.functions: dict[tuple[str, str], Any] = {}  # (ptx file, symbol) -> CUfunction
        self.modules: dict[str, Any] = {}  # code file -> CUmodule (its entry points share it)
        self.lock = threading.Lock()
        # error slots of kernels with device-side checks launched asynchronously since the last synchronisation
        self.pending: dict[int, Any] = {}

    def describe(self) -> str:
        return f"cuda:{self.ordinal} ({self.name})"

    def launch(self, kernel: Launches, config: LaunchConfig, args: tuple[Any, ...], stream: Any = None) -> None:
        kernel.launch_cuda(self, config, args, stream)

    def synchronize(self) -> None:
        """Wait for the context's work; raise the first failed device-side check of the launches since."""
        self.ensure_current()
        check(initialise().cuCtxSynchronize(), "cuCtxSynchronize")
        self.raise_pending()

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


#: Every value of ``device=`` and $HYBRID_DEVICE (:func:`.targets.select` chooses among them).
CHOICES = "'auto', 'cuda', 'cuda:N', 'wgpu', 'cpu' or 'cpu-python'"
OTHER_CHOICES = ("auto", "wgpu", "cpu", "cpu-python")  # the choices that name no CUDA device


def spelling(device: object, parameter: str = "device") -> str | None:
    """The one spelling of a ``device=`` value that every place deciding on it compares: None stays None
    (``$HYBRID_DEVICE`` decides), a string is stripped and lower-cased ("" is "auto": ``" CPU"`` is
    ``"cpu"``). Raises TypeError naming the parameter for anything else."""
    if device is None:
        return None
    if not isinstance(device, str):
        raise TypeError(f"{parameter} must be {CHOICES} (a string), got {device!r}")
    return device.strip().lower() or "auto"


def named(choice: str) -> CudaDevice | None:
    """The CUDA device ``choice`` ("cuda", "cuda:N", lower case) names (None: it names none)."""
    if choice != "cuda" and not choice.startswith("cuda:"):
        return None
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


def cuda_device(device: str | None, what: str) -> CudaDevice:
    """The CUDA device that ``device=`` of a CUDA-only object (``what``: device arrays, streams) names; None
    and "auto" name CUDA device 0."""
    choice = spelling(device) or "cuda"
    found = named("cuda" if choice == "auto" and cuda_available() else choice)
    if found is not None:
        return found
    if choice in OTHER_CHOICES:
        raise ValueError(f"{what} live on a CUDA device; device={device!r} has none")
    raise ValueError(f"device must be {CHOICES}, got {choice!r}")
