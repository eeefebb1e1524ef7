"""``@kernel``: a Python function that runs on the GPU (from the wheel's PTX) or on the CPU."""

from __future__ import annotations

import functools
import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from . import cpu, factories, native, native_plan, sanitizer, slowpath, variants
from .abi import SANITIZER_LAYOUT
from .checks import CHECKED, ERROR_SLOT, ErrorSlot, cpu_failure
from .config import LaunchConfig
from .device import CudaDevice, spelling
from .interop import LIBRARIES
from .manifest import Manifest, ManifestError, no_shader, package_manifest
from .memory import DeviceArray
from .numba_launch import NumbaLaunchSpellings
from .plan import LaunchPlan
from .prints import PRINT_BUFFER, PrintingSlot
from .signature import Param, check_arguments, params_from_annotations, params_from_signature, record_views
from .stream import stream_handle
from .structs import StructArray
from .targets import CPU, CpuDevice, chosen_automatically, default_device, device_env, python_cpu, select


class Kernel(NumbaLaunchSpellings):
    """A kernel: launch it with ``k.launch(threads, blocks, *args)`` or ``k[blocks, threads](*args)``."""

    __name__: str

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, func)
        self.py_func = func
        self.options = options
        self.qualname = f"{func.__module__}.{func.__name__}"
        self.package = func.__module__.split(".")[0]  # whose manifest has the compiled code
        self.factory_problem: str | None = None  # a factory's kernel that was not compiled: why
        if "<locals>" in func.__qualname__:  # made by a kernel factory (or defined in a function)
            found = factories.find_compiled(func)
            self.package, self.qualname = found.package, found.qualname or f"{func.__module__}.{func.__qualname__}"
            self.factory_problem = found.problem
        self.variants = variants.bindings(func, options.get("specialize"))  # TypeVar bindings; [{}] if not generic
        self._params: list[list[Param]] | None = None  # per variant
        signatures = options.get("signatures")  # numba's eager signatures: a variant each, types from them
        if signatures is not None:
            self.variants = [{} for _ in signatures]
            self._params = [params_from_signature(func, sig) for sig in signatures]
        self._cpu_params: dict[int, list[Param]] = {}  # per variant: with what the kernel writes
        self._wgpu: dict[tuple[int, LaunchConfig], Any] = {}  # (variant, configuration) -> its WebGPU launch
        self._wgpu_fast: dict[tuple[Any, Any], Any] = {}  # (threads, blocks) as given -> the same launch
        self._wgpu_problems: dict[int, str | None] = {}  # variant -> why the adapter cannot run it (None: it can)
        self._cpu_funcs: dict[int, Callable[..., Any]] = {}  # variant -> function with its TypeVars bound
        self._plans: dict[Any, LaunchPlan] = {}  # device ordinal (and variant) -> launch plan
        self._launchers: dict[Any, Launcher] = {}  # kernel[blocks, threads] configurations seen
        self._native: dict[int, native.NativeKernel | None] = {}  # variant -> native CPU code (None: Python)
        self.nparams = func.__code__.co_argcount
        self._fresh = False  # an editable install's source checked for edits (see _refresh_editable)

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
            if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
                raise TypeError(
                    f"use {self.__name__}[blocks, threads], {self.__name__}[blocks, threads, stream] or "
                    f"{self.__name__}[blocks, threads, stream, shared_bytes]"
                )
            blocks, threads, *rest = config
            stream = rest[0] if rest else None
            launcher = Launcher(self, LaunchConfig.make(threads, blocks, *rest[1:]), stream)
            if _hashable(config) and len(self._launchers) < 256:
                self._launchers[config] = launcher
        return launcher

    def launch(
        self,
        threads: Any,
        blocks: Any,
        *args: Any,
        device: str | None = None,
        stream: Any = None,
        shared_bytes: int = 0,
        sanitize: bool | None = None,
        **kwargs: Any,
    ) -> None:
        """Run the kernel on ``blocks`` blocks of ``threads`` threads (ints or tuples of up to 3), with
        ``shared_bytes`` of dynamic shared memory per block (``gpu.dynamic_shared_array``). Arguments
        may also be passed by parameter name. ``sanitize=True`` (with ``device="cpu"``) runs the
        kernel's sanitized native code, which raises :class:`~.sanitizer.SanitizerError` for GPU bugs
        a CPU run hides; ``$HYBRID_SANITIZE`` does so for every CPU launch, and ``sanitize=False`` not."""
        if device is not None:  # one spelling for every decision below ("CPU", " cuda:1 ")
            device = spelling(device)
        if device == "wgpu" and stream is None and not shared_bytes and not kwargs:
            try:  # the launch before, again, on the same device arrays (WebGPU's fast path)
                again = self._wgpu_fast.get((threads, blocks))
            except TypeError:  # unhashable threads or blocks (lists): the checks below say what is wrong
                again = None
            if again is not None and again.again(args):
                return
        if kwargs or len(args) != self.nparams:
            args = self.bind(args, kwargs)
        if sanitize is not None:
            if not isinstance(sanitize, bool):
                raise TypeError(f"{self.__name__}.launch(): `sanitize` must be True or False, got {sanitize!r}")
            on_cpu = device == "cpu" or (device is None and isinstance(default_device(), CpuDevice))
            python = on_cpu and python_cpu(device)  # $HYBRID_DEVICE=cpu-python
            if sanitize and (python or device == "cpu-python"):
                raise ValueError(
                    f"{self.__name__}.launch(): `sanitize=True` runs the kernel's native code; pass "
                    'device="cpu", not the Python path ("cpu-python")'
                )
            if sanitize and not on_cpu:
                raise ValueError(
                    f'{self.__name__}.launch(): `sanitize=True` checks a launch on the CPU; pass device="cpu" '
                    "too (on a GPU, run the program under compute-sanitizer)"
                )
            if on_cpu:
                config = LaunchConfig.make(threads, blocks, shared_bytes)
                self.launch_cpu(config, args, python, sanitize=sanitize)
                return
        if device is None:  # the default device: reuse the configured launcher (validated once)
            self[blocks, threads, stream, shared_bytes](*args)
            return
        if device == "cpu":  # the configured launcher's native launch
            self[blocks, threads, stream, shared_bytes].on_cpu(args)
            return
        config = LaunchConfig.make(threads, blocks, shared_bytes)
        self._launch(config, *args, device=device, stream=stream)
        if device == "wgpu" and stream is None and not shared_bytes and len(self.variants) == 1:
            launch = self._wgpu.get((0, config))
            if launch is not None and launch.last is not None:
                try:
                    self._wgpu_fast[(threads, blocks)] = launch
                except TypeError:
                    pass

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """The arguments in parameter order: keywords by parameter name, then the parameters' default
        values, as calling the Python function binds them."""
        if not kwargs and not self.py_func.__defaults__:
            return args  # a wrong count: check_arguments names the parameters
        import inspect

        try:
            bound = inspect.signature(self.py_func).bind(*args, **kwargs)
        except TypeError as exc:
            names = ", ".join(inspect.signature(self.py_func).parameters)
            raise TypeError(f"{self.__name__}({names}): {exc}") from None
        bound.apply_defaults()
        return bound.args

    # ------------------------------------------------------------------ paths
    @property
    def params(self) -> list[Param]:
        """The parameters (of the first specialisation, for a generic kernel)."""
        return self.variant_params[0]

    @property
    def variant_params(self) -> list[list[Param]]:
        if self._params is None:
            self._params = [params_from_annotations(self.py_func, binding) for binding in self.variants]
        return self._params

    def select_variant(self, args: tuple[Any, ...]) -> int:
        """Which specialisation of a generic kernel these arguments call (0 for other kernels)."""
        if len(self.variants) == 1:
            return 0
        return variants.choose(self.__name__, self.variant_params, self.variants, args)

    def _launch(self, config: LaunchConfig, *args: Any, device: str | None = None, stream: Any = None) -> None:
        target = default_device() if device is None else select(device)
        if target.kind == "wgpu" and chosen_automatically(device_env() if device is None else device):
            if self.wgpu_problem(args) is not None:  # "auto": the next device, for a kernel the adapter cannot run
                target = CPU
        target.launch(self, config, args, stream)

    def wgpu_problem(self, args: tuple[Any, ...]) -> str | None:
        """Why the specialisation these arguments call cannot run on this process's WebGPU adapter (None: it
        can): no shader (and the compiler's reason), or a feature the adapter lacks. ``device="auto"`` asks
        before it sends a launch to an adapter it picked, and runs the kernel on the CPU instead."""
        from . import wgpu_device

        variant = self.select_variant(args)
        if variant not in self._wgpu_problems:
            problem: str | None
            try:
                _, entry = self._manifest_entry(variant)
            except ManifestError as exc:
                problem = str(exc)
            else:
                why = no_shader(entry)
                if why is not None:
                    problem = f"has no WebGPU shader: {why}"
                else:
                    problem = wgpu_device.unmet_needs(entry["wgsl"], wgpu_device.get_device())
            self._wgpu_problems[variant] = problem
        return self._wgpu_problems[variant]

    def launch_cuda(self, target: CudaDevice, config: LaunchConfig, args: tuple[Any, ...], stream: Any) -> None:
        """On a CUDA device through the launch plan of the arguments' specialisation."""
        plan = self.plan_for(target, args)
        if not plan.fast(args, plan.launch_args(config, stream_handle(stream))):
            plan.launch(config, args, stream)

    def launch_wgpu(self, config: LaunchConfig, args: tuple[Any, ...]) -> None:
        """On a WebGPU adapter (Vulkan, Metal, Direct3D 12) through the kernel's WGSL shader."""
        from . import wgpu_launch

        variant = self.select_variant(args)
        manifest, entry = self._manifest_entry(variant)
        why = no_shader(entry)
        if why is not None:
            raise ValueError(f"kernel {self.qualname} has no WebGPU shader: {why}; use device='cpu' or 'cuda'")
        params = self._cpu_params.get(variant) or self._cpu_params_of(variant)
        key = (variant, config)
        launch = self._wgpu.get(key)
        if launch is None:
            launch = self._wgpu[key] = wgpu_launch.ShaderLaunch(self.qualname, manifest, entry, config)
        launch(params, args)

    def plan_for(self, target: CudaDevice, args: tuple[Any, ...]) -> LaunchPlan:
        variant = self.select_variant(args) if len(self.variants) > 1 else 0
        return self._plans.get((target.ordinal, variant)) or self._plan(target, variant)

    def native_code(self, variant: int = 0) -> native.NativeKernel | None:
        """The kernel's native CPU code for this machine, from its package's wheel (None: there is none,
        and the CPU runs the kernel's Python function)."""
        try:
            return self._native[variant]
        except KeyError:
            pass
        package = self.package
        manifest = package_manifest(package)
        found = None
        if self.factory_problem is not None:
            slowpath.warn_once(package, self.qualname, self.factory_problem)
        elif manifest is None:
            why = slowpath.no_compiled_code(self.py_func.__module__, self.py_func.__code__.co_filename)
            slowpath.warn_once(package, "manifest", why)
        elif manifest.kernel(self.qualname) is None:
            slowpath.warn_once(
                package, self.qualname,
                f"kernel {self.qualname} is not in {manifest.path}: the package was built before the kernel was "
                "added. Rebuild and reinstall it",
            )  # fmt: skip
        else:  # (an editable install's edits recompile it here: the manifest read after)
            manifest, entry = self._manifest_entry(variant)
            found = native.native_kernel(self.qualname, manifest, entry, self.variant_params[variant])
        self._native[variant] = found
        return found

    def cpu_launcher(
        self, config: LaunchConfig, slow: Callable[[tuple[Any, ...]], None], env: Any
    ) -> Callable[[tuple[Any, ...]], None] | None:
        """A native launch for ``config`` with fast checks of plain arguments, made for the calling thread
        (anything else goes to ``slow``; see :func:`.native_plan.fast_launcher`); None when there is no
        native code, or the kernel is generic (the arguments choose the specialisation)."""
        if len(self.variants) > 1:
            return None
        code = self.native_code(0)
        if code is None:
            return None
        params = self._cpu_params.get(0) or self._cpu_params_of(0)
        return code.launcher(config, params, slow, env)

    def launch_cpu(
        self, config: LaunchConfig, args: tuple[Any, ...], python: bool = False, sanitize: bool | None = None
    ) -> None:
        """On the CPU: the native code when the wheel has it for this machine (and ``python`` is not
        asked for: device="cpu-python"), else the kernel's Python function over the grid. ``sanitize``:
        the native code's sanitized entry (None: as $HYBRID_SANITIZE says)."""
        variant = self.select_variant(args)
        params = self._cpu_params.get(variant)
        if params is None:
            params = self._cpu_params_of(variant)
        values = check_arguments(self.__name__, params, args)
        code = None if python else self.native_code(variant)
        sanitized = self._sanitized(code, sanitize) if not python and (sanitize or sanitizer.enabled()) else None
        copies = []
        for i, v in enumerate(values):
            if isinstance(v, DeviceArray):
                host = v.copy_to_host()
                copies.append((v, host))
                values[i] = v = host
            elif not isinstance(v, (np.ndarray, np.generic, int)) and params[i].kind not in ("struct", "tuple"):
                raise TypeError(
                    f"{self.__name__}(): parameter `{params[i].name}` got a "
                    f"{type(v).__name__}; the CPU path needs NumPy arrays"
                )
            if params[i].kind == "array" and params[i].cls is not None and code is None:
                values[i] = StructArray(v, params[i].cls)
        if code is None:
            values = record_views(params, values)
        try:
            if sanitized is not None:
                sanitized.run(config, params, values, native.flatten(params, values), native.cpu_threads())
            elif code is not None:
                code.run(config, values)
            else:
                cpu.run_grid(self._cpu_func(variant), config, values)
        except CHECKED as exc:
            reported = cpu_failure(self.qualname, exc, sys.exc_info()[2])
            if reported is None:
                raise
            raise reported from None
        for dev, host in copies:
            dev.copy_from_host(host)

    def _sanitized(self, code: native.NativeKernel | None, asked: bool | None) -> sanitizer.SanitizedCode | None:
        """The sanitized code a launch ``asked`` for (True; None: as $HYBRID_SANITIZE says), if there is one."""
        if asked is False:
            return None
        found = code.sanitized() if code is not None and not code.cooperative else None
        if found is None:
            if code is None:
                why = "the kernel has no native code on this machine"
            elif code.cooperative:  # (its blocks run at once; the sanitizer's race check takes them in turn)
                why = "the sanitizer does not follow a grid-wide barrier (cuda.cg.this_grid().sync()) yet"
            elif code.sanitize:
                why = (
                    f"its package was built by a hatch-hybrid whose sanitizer lays its state out differently "
                    f"(layout {code.sanitize.get('layout', 1)}, this runtime's {SANITIZER_LAYOUT}): rebuild the "
                    "package with the hatch-hybrid of this runtime's version"
                )
            else:
                why = "its package was built without it (cpu-sanitize = false)"
            if asked:
                raise ValueError(
                    f"kernel {self.qualname}: sanitize=True needs the kernel's sanitized native code; {why}"
                )
            sanitizer.warn_unsanitized(self.qualname, why)
        return found

    def _cpu_params_of(self, variant: int) -> list[Param]:
        """The parameters with the arrays the kernel writes (so that a read-only one is refused before the
        run): those the manifest says, when the package has one, and those the function's body writes."""
        try:
            _, entry = self._manifest_entry(variant)
            written = {p.get("name") for p in entry["params"] if p.get("writes")}
        except (ManifestError, ImportError, ValueError):  # no (usable) compiled code: the CPU needs none
            written = set()
        written |= self._stored
        params = [p.replace(writes=p.name in written) for p in self.variant_params[variant]]
        self._cpu_params[variant] = params
        return params

    @functools.cached_property
    def _stored(self) -> frozenset[str]:
        """The parameters the kernel function's own body writes elements of."""
        from .trust import stored_params  # ast & co: read once per kernel

        return stored_params(self.py_func)

    def verify(self) -> None:
        """Check the compiled code of this kernel against the package, as its first CUDA launch does:
        the manifest entry, every code file's sha256 (all archs and specialisations) and the parameters
        against the annotations. Raises ManifestError; needs no GPU."""
        for variant in range(len(self.variants)):
            manifest, entry = self._manifest_entry(variant)
            self._checked_params(manifest, entry, variant)
        manifest.verify_kernel(self.qualname)

    def _checked_params(self, manifest: Manifest, entry: dict[str, Any], variant: int) -> list[Param]:
        """The manifest's parameters of one specialisation, once they agree with the annotations."""
        from .trust import check_params

        params = [Param.from_manifest(p) for p in entry["params"]]
        group = manifest.kernel(self.qualname) or {}
        field = f"variants[{group['variants'].index(entry)}].params" if "variants" in group else "params"
        annotated = self.variant_params[variant]
        # reading the source costs ~0.1-0.5 ms: only when the manifest says an array is not written
        unwritten = any(p.kind == "array" and not p.writes for p in params)
        check_params(manifest.path, self.qualname, field, params, annotated, self._stored if unwritten else frozenset())
        # the struct and enum classes, for the launch's fast checks
        return [p.replace(cls=a.cls) for p, a in zip(params, annotated)]

    def _cpu_func(self, variant: int) -> Callable[..., Any]:
        """The kernel's function with the compiler's types where the build recorded conversions (see
        python_typed.py); for a generic kernel, with its TypeVars bound in its globals (so that ``T(0)``
        in the kernel body converts to the specialisation's type, as on the GPU)."""
        func = self._cpu_funcs.get(variant)
        if func is None:
            f = self.py_func
            names = {tv.__name__: t for tv, t in self.variants[variant].items()}
            try:
                record = self._manifest_entry(variant)[1].get("python")
            except (ManifestError, ImportError, ValueError):  # no compiled code: the function as written
                record = None
            typed = None
            if record:
                from . import python_typed  # ast & co: only for kernels whose types need it

                typed = python_typed.typed_kernel(f, record, names) if isinstance(f, types.FunctionType) else None
            if typed is not None:
                func = typed
            elif not names:
                func = f
            else:
                func = types.FunctionType(
                    f.__code__, {**f.__globals__, **names}, f.__name__, f.__defaults__, f.__closure__
                )
            self._cpu_funcs[variant] = func
        return func

    def _manifest_entry(self, variant: int = 0) -> tuple[Manifest, dict[str, Any]]:
        package = self.package
        if self.factory_problem is not None:
            raise ManifestError(self.factory_problem)
        manifest = package_manifest(package)
        entry = manifest.kernel(self.qualname) if manifest else None
        if manifest is not None and entry is None:
            raise ManifestError(
                f"{manifest.path} has no kernel {self.qualname}: the package was built without it. Rebuild "
                "and reinstall the package, or run on the CPU with device='cpu' or HYBRID_DEVICE=cpu"
            )
        if manifest is None or entry is None:
            raise ManifestError(
                f"kernel {self.qualname} has no compiled GPU code: package `{package}` was not built with "
                "hatch-hybrid (are you running it from a source tree?). Build and install its wheel, or "
                "run on the CPU with device='cpu' or HYBRID_DEVICE=cpu"
            )
        if "variants" in entry:
            want = {tv.__name__: variants.type_name(t) for tv, t in self.variants[variant].items()}
            if "signatures" in self.options:  # numba's eager signatures bind each parameter, by position
                want = {f"#{k}": p.describe() for k, p in enumerate(self.variant_params[variant])}
            found = next((v for v in entry["variants"] if v.get("types") == want), None)
            if found is None:
                raise ManifestError(
                    f"kernel {self.qualname} was not compiled for {want}: rebuild the package (its specialize= "
                    "list or its signatures changed since it was built)"
                )
            return self._fresh_entry(manifest, found, variant)
        return self._fresh_entry(manifest, entry, variant)

    def _fresh_entry(self, manifest: Manifest, entry: dict[str, Any], variant: int) -> tuple[Manifest, dict[str, Any]]:
        """The entry, after an editable install's source was checked for edits (once per kernel, on whichever
        path launches it first: the CPU's too)."""
        if manifest.data.get("editable") and not self._fresh:
            self._fresh = True
            return self._refresh_editable(manifest, entry, variant)
        return manifest, entry

    def _refresh_editable(
        self, manifest: Manifest, entry: dict[str, Any], variant: int = 0
    ) -> tuple[Manifest, dict[str, Any]]:
        """An editable install compiled its kernels when it was installed; if their source has changed
        since, recompile in place when hatch-hybrid is importable, else say so."""
        from .staleness import changed_sources  # ast & co: only editable installs pay for it

        changed = changed_sources(entry.get("deps", []))
        if not changed:
            return manifest, entry
        try:
            editable = importlib.import_module("hatch_hybrid.hook.editable")  # optional: the compiler side
        except ImportError:
            raise ManifestError(
                f"kernel {self.qualname} was compiled from older source: {', '.join(changed)} changed since "
                "this editable install was built. Reinstall it (pip install -e ...), or install hatch-hybrid "
                "in this environment to recompile automatically"
            ) from None
        editable.rebuild_in_place(manifest.directory.parent, manifest.data)
        package_manifest.cache_clear()
        return self._manifest_entry(variant)

    def _plan(self, device: CudaDevice, variant: int = 0) -> LaunchPlan:
        """Once per device (and specialisation): the manifest entry, the loaded CUfunction, the launch plan."""
        manifest, entry = self._manifest_entry(variant)
        params = self._checked_params(manifest, entry, variant)
        name, code = manifest.best_code(entry, device.compute_capability, self.qualname)
        key = (str(manifest.directory / name), entry["symbol"])
        function = device.function(key, code, self.qualname)
        function32 = None
        if entry.get("symbol_index32"):
            function32 = device.function((key[0], entry["symbol_index32"]), code, self.qualname)
        slot = None
        if entry.get("checks"):
            address = device.global_address(key, ERROR_SLOT, self.qualname)
            if address is not None:
                slot = ErrorSlot(self.qualname, address, entry["checks"])
        if entry.get("prints"):  # print() records are read where the error slot is, before it
            printed = device.global_address(key, PRINT_BUFFER, self.qualname)
            if printed is not None:
                address = slot.address if slot is not None else 0
                slot = PrintingSlot(self.qualname, address, entry.get("checks", []), printed, entry["prints"])
        handle32, cooperative = int(function32) if function32 else None, bool(entry.get("cooperative"))
        plan = LaunchPlan(self.qualname, device, int(function), params, slot, handle32, cooperative)
        self._plans[(device.ordinal, variant)] = plan
        return plan


class Launcher:
    """``kernel[blocks, threads]`` (or ``[blocks, threads, stream]``): call it with the arguments."""

    __slots__ = (
        "kernel",
        "config",
        "stream",
        "handle",
        "_device",
        "_plan",
        "_launch_args",
        "_launch",
        "_env",
        "_libraries",
        "_cpu_made",
        "_on_cpu",
        "_on_cpu_made",
    )

    def __init__(self, kernel: Kernel, config: LaunchConfig, stream: Any) -> None:
        self.kernel = kernel
        self.config = config
        self.stream = stream
        self.handle = stream_handle(stream)
        self._device: CudaDevice | None = None
        self._plan: LaunchPlan | None = None
        self._launch_args: tuple[Any, ...] = ()
        # the plan's generated launch for this configuration once known (it checks $HYBRID_DEVICE and the
        # arguments itself and comes back to _call for anything else)
        self._launch: Callable[[tuple[Any, ...]], None] = self._call
        self._env: Any = _UNSET  # the $HYBRID_DEVICE value _launch was made under
        self._libraries = -1  # the LIBRARIES.generation it was made under
        # the CPU's: the ($HYBRID_DEVICE, $HYBRID_CPU_THREADS) values of its last launches and whether
        # _launch is the native launch made for them; the same for device="cpu" and _on_cpu
        self._cpu_made: tuple[Any, Any, bool] | None = None
        self._on_cpu: Callable[[tuple[Any, ...]], None] = self._cpu_call
        self._on_cpu_made: tuple[Any, bool] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != self.kernel.nparams:
            args = self.kernel.bind(args, kwargs)
        self._launch(args)

    def _call(self, args: tuple[Any, ...]) -> None:
        env = device_env()
        target = default_device()
        if isinstance(target, CpuDevice):
            self._cpu(args, env)
            return
        if not isinstance(target, CudaDevice):  # $HYBRID_DEVICE=wgpu, or "auto" on a GPU without CUDA
            if chosen_automatically(env) and self.kernel.wgpu_problem(args) is not None:
                self.kernel.launch_cpu(self.config, args, False)  # "auto": the next device for this kernel
                return
            target.launch(self.kernel, self.config, args, self.stream)
            return
        plan = self._plan
        if target is not self._device or plan is None or len(self.kernel.variants) > 1:
            # first call, the default device changed, or a generic kernel (the arguments pick the variant)
            chosen = self.kernel.plan_for(target, args)
            if chosen is not plan:
                plan, self._env = chosen, _UNSET
                self._plan, self._launch_args, self._device = plan, plan.launch_args(self.config, self.handle), target
        if env is not self._env or self._libraries != LIBRARIES.generation:
            self._remake(plan, env)
        if not plan.fast(args, self._launch_args):
            plan.launch(self.config, args, self.stream)
            if self._libraries != LIBRARIES.generation:  # a library's arrays seen first: the next launch knows them
                self._remake(plan, env)

    def _remake(self, plan: LaunchPlan, env: Any) -> None:
        """The generated launch for this plan, $HYBRID_DEVICE value and the array types known."""
        self._libraries = LIBRARIES.generation
        self._launch = plan.make_launcher(self.config, self.handle, env, self._call, self.stream is None)
        self._env = env
        self._cpu_made = None

    def _cpu(self, args: tuple[Any, ...], env: Any) -> None:
        """The default device is the CPU: from the second launch under the same $HYBRID_DEVICE and
        $HYBRID_CPU_THREADS values, the native launch made for them is ``_launch`` (it checks both and
        comes back here; making it costs ~0.3 ms, which a configuration launched once does not pay)."""
        threads, python = native_plan.threads_env(), python_cpu(None)
        made = self._cpu_made
        if made is None or made[0] is not env or made[1] is not threads:
            self._cpu_made, self._env = (env, threads, False), _UNSET  # the GPU's launch is not installed
            self._launch = self._call
        elif not made[2]:
            self._cpu_made = (env, threads, True)
            self._launch = (None if python else self.kernel.cpu_launcher(self.config, self._call, env)) or self._call
        self.kernel.launch_cpu(self.config, args, python)

    def on_cpu(self, args: tuple[Any, ...]) -> None:
        """``device="cpu"``: the kernel's native code (or its Python function where there is none)."""
        self._on_cpu(args)

    def _cpu_call(self, args: tuple[Any, ...]) -> None:
        """on_cpu's general path; makes the native launch for this $HYBRID_CPU_THREADS value at the
        second launch under it."""
        threads = native_plan.threads_env()
        made = self._on_cpu_made
        if made is None or made[0] is not threads:
            self._on_cpu_made, self._on_cpu = (threads, False), self._cpu_call
        elif not made[1]:
            self._on_cpu_made = (threads, True)
            self._on_cpu = self.kernel.cpu_launcher(self.config, self._cpu_call, None) or self._cpu_call
        self.kernel.launch_cpu(self.config, args)


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
