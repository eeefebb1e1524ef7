"""``@kernel``: a Python function that runs on the GPU (from the wheel's PTX) or on the CPU."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from . import cpu
from .config import LaunchConfig
from .device import CudaDevice, default_device, device_env, select
from .manifest import Manifest, ManifestError, package_manifest
from .memory import DeviceArray
from .plan import LaunchPlan
from .signature import Param, check_arguments, params_from_annotations
from .stream import stream_handle


class Kernel:
    """A kernel: launch it with ``k.launch(threads, blocks, *args)`` or ``k[blocks, threads](*args)``."""

    __name__: str

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, func)
        self.py_func = func
        self.options = options
        self.qualname = f"{func.__module__}.{func.__name__}"
        self._params: list[Param] | None = None
        self._plans: dict[int, LaunchPlan] = {}  # device ordinal -> launch plan
        self._launchers: dict[Any, Launcher] = {}  # kernel[blocks, threads] configurations seen

    def __repr__(self) -> str:
        return f"<kernel {self.qualname}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"kernel {self.__name__} must be launched: {self.__name__}[blocks, threads](...) or "
            f"{self.__name__}.launch(threads, blocks, ...); {self.__name__}.py_func(...) calls the "
            "plain Python function"
        )

    def __getitem__(self, config: Any) -> Launcher:
        launcher = self._launchers.get(config) if _hashable(config) else None
        if launcher is None:
            if not isinstance(config, tuple) or len(config) not in (2, 3):
                raise TypeError(f"use {self.__name__}[blocks, threads] or {self.__name__}[blocks, threads, stream]")
            blocks, threads, *rest = config
            launcher = Launcher(self, LaunchConfig.make(threads, blocks), rest[0] if rest else None)
            if _hashable(config) and len(self._launchers) < 256:
                self._launchers[config] = launcher
        return launcher

    def launch(self, threads: Any, blocks: Any, *args: Any, device: str | None = None, stream: Any = None) -> None:
        """Run the kernel on ``blocks`` blocks of ``threads`` threads (ints or tuples of up to 3)."""
        if device is None:  # the default device: reuse the configured launcher (validated once)
            self[blocks, threads, stream](*args)
            return
        self._launch(LaunchConfig.make(threads, blocks), *args, device=device, stream=stream)

    # ------------------------------------------------------------------ paths
    @property
    def params(self) -> list[Param]:
        if self._params is None:
            self._params = params_from_annotations(self.py_func)
        return self._params

    def _launch(self, config: LaunchConfig, *args: Any, device: str | None = None, stream: Any = None) -> None:
        target = default_device() if device is None else select(device)
        if target is None:
            self._launch_cpu(config, args)
            return
        plan = self._plans.get(target.ordinal) or self._plan(target)
        if not plan.fast(args, plan.launch_args(config, stream_handle(stream))):
            plan.launch(config, args, stream)

    def _launch_cpu(self, config: LaunchConfig, args: tuple[Any, ...]) -> None:
        values = check_arguments(self.__name__, self.params, args)
        copies = []
        for i, v in enumerate(values):
            if isinstance(v, DeviceArray):
                host = v.copy_to_host()
                copies.append((v, host))
                values[i] = host
            elif not isinstance(v, (np.ndarray, np.generic)):
                raise TypeError(
                    f"{self.__name__}(): parameter `{self.params[i].name}` got a "
                    f"{type(v).__name__}; the CPU path needs NumPy arrays"
                )
        cpu.run_grid(self.py_func, config, values)
        for dev, host in copies:
            dev.copy_from_host(host)

    def _manifest_entry(self) -> tuple[Manifest, dict[str, Any]]:
        package = self.py_func.__module__.split(".")[0]
        manifest = package_manifest(package)
        entry = manifest.kernel(self.qualname) if manifest else None
        if manifest is None or entry is None:
            raise ManifestError(
                f"kernel {self.qualname} has no compiled GPU code: package `{package}` was not built with "
                "hatch-hybrid (are you running it from a source tree?). Build and install its wheel, or "
                "run on the CPU with device='cpu' or HYBRID_DEVICE=cpu"
            )
        return manifest, entry

    def _refresh_editable(self, manifest: Manifest, entry: dict[str, Any]) -> tuple[Manifest, dict[str, Any]]:
        """An editable install compiled its kernels when it was installed; if their source has changed
        since, recompile in place when hatch-hybrid is importable, else say so."""
        from .staleness import changed_sources  # ast & co: only editable installs pay for it

        changed = changed_sources(entry.get("deps", []))
        if not changed:
            return manifest, entry
        try:
            editable = importlib.import_module("hatch_hybrid.editable")  # optional: the compiler side
        except ImportError:
            raise ManifestError(
                f"kernel {self.qualname} was compiled from older source: {', '.join(changed)} changed since "
                "this editable install was built. Reinstall it (pip install -e ...), or install hatch-hybrid "
                "in this environment to recompile automatically"
            ) from None
        editable.rebuild_in_place(manifest.directory.parent, manifest.data)
        package_manifest.cache_clear()
        return self._manifest_entry()

    def _plan(self, device: CudaDevice) -> LaunchPlan:
        """Once per device: the manifest entry, the loaded CUfunction and the launch plan."""
        manifest, entry = self._manifest_entry()
        if manifest.data.get("editable"):
            manifest, entry = self._refresh_editable(manifest, entry)
        params = [Param.from_manifest(p) for p in entry["params"]]
        name, code = manifest.best_code(entry, device.compute_capability, self.qualname)
        function = device.function((str(manifest.directory / name), entry["symbol"]), code, self.qualname)
        plan = LaunchPlan(self.qualname, device, int(function), params)
        self._plans[device.ordinal] = plan
        return plan


class Launcher:
    """``kernel[blocks, threads]`` (or ``[blocks, threads, stream]``): call it with the arguments."""

    __slots__ = ("kernel", "config", "stream", "handle", "_device", "_plan", "_launch_args", "_env", "_fast")

    def __init__(self, kernel: Kernel, config: LaunchConfig, stream: Any) -> None:
        self.kernel = kernel
        self.config = config
        self.stream = stream
        self.handle = stream_handle(stream)
        self._device: CudaDevice | None = None
        self._plan: LaunchPlan | None = None
        self._launch_args: tuple[Any, ...] = ()
        self._env: Any = _UNSET  # the $HYBRID_DEVICE value the cached plan was chosen under
        self._fast: Any = None

    def __call__(self, *args: Any) -> None:
        # hot path: same $HYBRID_DEVICE as last time -> the same plan; one environment read, one call
        if self._fast is not None and device_env() is self._env and self._fast(args, self._launch_args):
            return
        self._call(args)

    def _call(self, args: tuple[Any, ...]) -> None:
        env = device_env()
        target = default_device()
        if target is None:
            self.kernel._launch_cpu(self.config, args)
            return
        plan = self._plan
        if target is not self._device or plan is None:  # first call, or the default device changed
            plan = self.kernel._plans.get(target.ordinal) or self.kernel._plan(target)
            self._plan, self._launch_args, self._device = plan, plan.launch_args(self.config, self.handle), target
        self._env, self._fast = env, plan.fast
        if not plan.fast(args, self._launch_args):
            plan.launch(self.config, args, self.stream)


_UNSET = object()


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def kernel(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Mark a module-level function as a kernel: ``@kernel`` or ``@kernel(option=value)``.

    The build (hatch-hybrid) finds it by reading the source and compiles it to PTX; at run time the
    returned :class:`Kernel` launches that PTX, or runs ``func`` itself on the CPU.
    """
    if func is None:
        return lambda f: Kernel(f, options)
    return Kernel(func, options)
