"""The ``hybrid`` build hook: validates options, compiles the package's kernels, fills ``build_data``.

Configured in ``[tool.hatch.build.hooks.hybrid]``:

``arch``      list of ``sm_XY`` targets (default: sm_70, sm_80, sm_90 — PTX runs on newer GPUs too)
``packages``  package folders to scan, relative to the project root (default: the wheel's packages,
              else ``src/<name>`` or ``<name>``)
``dump``      folder to write every stage's output into (typed IR, .ll, .ptx); also ``$HYBRID_DUMP``
``cubin``     also embed machine code per arch: true, false or "auto" (default: when ptxas is found)
``cache``     reuse kernels compiled before from unchanged source (default true)
``cache-dir`` where that cache lives (default ``$HYBRID_CACHE_DIR`` or ``~/.cache/hatch-hybrid``)
``cpu``       native CPU code for these targets (default: the five common ones); false: none
``cpu-checks`` bounds checks on every array access of the native CPU code (default false)
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from ..errors import CompileError
from ..pipeline import Options

_ARCH = re.compile(r"^sm_(\d{2,3})a?$")
_OPTIONS = {"arch", "packages", "dump", "cubin", "cache", "cache-dir", "cpu", "cpu-checks"}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;@(]", requirement.strip(), maxsplit=1)[0]


class HybridBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "hybrid"

    # ------------------------------------------------------------- options
    def archs(self) -> list[str]:
        from ..pipeline import DEFAULT_ARCHS

        value = self.config.get("arch", list(DEFAULT_ARCHS))
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise TypeError(f"Option `arch` for build hook `{self.PLUGIN_NAME}` must be a list of strings")
        for arch in value:
            m = _ARCH.match(arch)
            if not m or int(m.group(1)) < 50:
                raise ValueError(
                    f"Option `arch` for build hook `{self.PLUGIN_NAME}` has {arch!r}; "
                    'use targets like "sm_70", "sm_80", "sm_90" (sm_50 or newer)'
                )
        return sorted(set(value), key=lambda a: int(_ARCH.match(a).group(1)))  # type: ignore[union-attr]

    def cpu_targets(self) -> list[str]:
        from ..backend.host.targets import DEFAULT_TARGETS, TARGETS

        value = self.config.get("cpu", list(DEFAULT_TARGETS))
        if value is False:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"Option `cpu` for build hook `{self.PLUGIN_NAME}` must be a list of strings or false")
        for target in value:
            if target not in TARGETS:
                raise ValueError(
                    f"Option `cpu` for build hook `{self.PLUGIN_NAME}` has {target!r}; known targets: "
                    + ", ".join(TARGETS)
                )
        return list(dict.fromkeys(value))

    def package_dirs(self) -> list[Path]:
        root = Path(self.root)
        value = self.config.get("packages")
        if value is not None:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise TypeError(f"Option `packages` for build hook `{self.PLUGIN_NAME}` must be a list of strings")
            dirs = [root / v for v in value]
        else:
            configured = getattr(self.build_config, "packages", None) or []
            if configured:
                dirs = [root / p for p in configured]
            else:
                name = self.metadata.core.name.replace("-", "_").replace(".", "_").lower()
                dirs = [d for d in (root / "src" / name, root / name) if d.is_dir()][:1]
        for d in dirs:
            if not (d / "__init__.py").is_file():
                raise ValueError(
                    f"Option `packages` for build hook `{self.PLUGIN_NAME}`: {d} is not a package "
                    "folder (no __init__.py)"
                )
        if not dirs:
            raise ValueError(f"build hook `{self.PLUGIN_NAME}` found no package to compile; set `packages`")
        return dirs

    def dump_dir(self) -> Path | None:
        value = self.config.get("dump")
        if value is None:
            return None
        if not isinstance(value, str):
            raise TypeError(f"Option `dump` for build hook `{self.PLUGIN_NAME}` must be a string")
        return Path(self.root) / value

    def _bool_or_auto(self, name: str, default: bool | None) -> bool | None:
        value = self.config.get(name, "auto" if default is None else default)
        if value == "auto":
            return None
        if not isinstance(value, bool):
            raise TypeError(f'Option `{name}` for build hook `{self.PLUGIN_NAME}` must be a boolean or "auto"')
        return value

    def options(self) -> Options:
        from ..cache import KernelCache, default_cache_dir

        cache_dir = self.config.get("cache-dir")
        if cache_dir is not None and not isinstance(cache_dir, str):
            raise TypeError(f"Option `cache-dir` for build hook `{self.PLUGIN_NAME}` must be a string")
        use_cache = self._bool_or_auto("cache", True)
        directory = (Path(self.root) / cache_dir) if cache_dir else default_cache_dir()
        checks = self.config.get("cpu-checks", False)
        if not isinstance(checks, bool):
            raise TypeError(f"Option `cpu-checks` for build hook `{self.PLUGIN_NAME}` must be a boolean")
        return Options(
            self.archs(),
            cubin=self._bool_or_auto("cubin", None),
            cpu=self.cpu_targets(),
            cpu_checks=checks,
            cache=KernelCache(directory if use_cache is not False else None),
            dump_dir=self.dump_dir(),
        )

    # --------------------------------------------------------------- build
    def dependencies(self) -> list[str]:
        """What the build environment needs beyond hatch-hybrid: the ``[project] dependencies`` whose
        packages the kernels import (their helpers are compiled from source), and CUDA's libdevice
        (pip package nvidia-cuda-nvcc-cu12) when kernels need it and it is absent."""
        if self.target_name != "wheel":
            return []
        from ..backend.ptx.libdevice import LIBDEVICE_PACKAGE, find_libdevice
        from ..pipeline import index_packages, needs_libdevice

        try:
            roots = {_normalise(r) for r in index_packages(self.package_dirs()).kernel_import_roots()}
        except Exception:  # errors are reported, with their location, by initialize()
            return []
        needed = [req for req in self.metadata.core.dependencies if _normalise(_requirement_name(req)) in roots]
        from ..backend.host.link import ZIG_PACKAGE, have_zig

        try:
            if self.cpu_targets() and not have_zig():
                needed.append(ZIG_PACKAGE)  # links the native CPU libraries
        except (TypeError, ValueError):  # a bad option: initialize() says
            pass
        if find_libdevice() is None:
            try:
                if needs_libdevice(self.package_dirs()):
                    needed.append(LIBDEVICE_PACKAGE)
            except Exception:  # a dependency is not installed yet, or a compile error: initialize() says
                pass
        return needed

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        unknown = sorted(
            set(self.config)
            - _OPTIONS
            - {"dependencies", "require-runtime-dependencies", "require-runtime-features", "enable-by-default"}
        )
        if unknown:
            raise ValueError(
                f"Unknown option `{unknown[0]}` for build hook `{self.PLUGIN_NAME}`; "
                f"known options: {', '.join(sorted(_OPTIONS))}"
            )
        options, packages = self.options(), self.package_dirs()
        archs = options.archs
        if self.target_name != "wheel":
            return  # sdists carry source; kernels are compiled when the wheel is built

        from ..pipeline import compile_packages
        from .artifacts import write_package_artifacts

        start = time.perf_counter()
        try:
            kernels = compile_packages(packages, options=options)
        except CompileError as exc:
            self.app.display_error(f"hatch-hybrid: cannot compile kernels\n{exc}")
            self.app.abort("hatch-hybrid: build failed (see the error above)")
            raise  # abort exits; this keeps type checkers informed
        for k in kernels:
            what = "PTX + cubin" if k.cubin else "PTX"
            if k.cpu is not None:
                what += " + CPU" if not k.cpu.unsupported else " (CPU: Python path)"
            how = "from cache" if k.cached else f"compiled in {k.seconds * 1000:.0f} ms"
            self.app.display_info(f"hatch-hybrid: {k.decl.qualname} -> {k.symbol} ({what}, {', '.join(archs)}): {how}")
        hits = sum(k.cached for k in kernels)
        if version == "editable":
            # the package is imported from the source tree: put the artifacts next to it
            for d in packages:
                shutil.rmtree(d / "_hybrid", ignore_errors=True)
            out = Path(packages[0]).parent
            write_package_artifacts(kernels, archs, out, editable=True)
        else:
            self._staging = Path(tempfile.mkdtemp(prefix="hatch-hybrid-"))
            written = write_package_artifacts(kernels, archs, self._staging)
            for _package, files in written.items():
                for f in files:  # a top-level package lands at the wheel root under its own name
                    build_data["force_include"][str(f)] = f.relative_to(self._staging).as_posix()
        build_data["pure_python"] = True
        build_data["infer_tag"] = False
        build_data["tag"] = "py3-none-any"  # PTX is data: the wheel stays pure
        self.app.display_info(
            f"hatch-hybrid: {len(kernels)} kernel(s) for {', '.join(archs)}: {len(kernels) - hits} compiled, "
            f"{hits} from cache ({options.cache.directory or 'cache off'}), {time.perf_counter() - start:.2f} s"
        )

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        staging = getattr(self, "_staging", None)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
