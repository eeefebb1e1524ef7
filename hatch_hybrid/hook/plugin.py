"""The ``hybrid`` build hook: compiles the package's kernels and fills ``build_data``.

Its options (``[tool.hatch.build.hooks.hybrid]``) are read and checked by :mod:`.options`; a bad
option ends the build with one message in hatchling's phrasing, never a traceback.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from ..errors import CompileError
from ..pipeline import CompiledKernel, Options
from ..work import build_jobs
from . import options as hook_options
from .options import OptionError, normalise, requirement_name


class HybridBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "hybrid"

    # ------------------------------------------------------------- options
    def package_dirs(self) -> list[Path]:
        wheel_packages = list(getattr(self.build_config, "packages", None) or [])
        return hook_options.package_dirs(self.config, Path(self.root), self.metadata.core.name, wheel_packages)

    def options(self) -> Options:
        return hook_options.options(self.config, Path(self.root))

    def _abort(self, message: str) -> NoReturn:
        self.app.abort(message)
        raise SystemExit(1)  # abort exits; this keeps type checkers informed

    # --------------------------------------------------------------- build
    def dependencies(self) -> list[str]:
        """What the build environment needs beyond hatch-hybrid: the ``[project] dependencies`` whose
        packages the kernels import (their helpers are compiled from source), and what each target needs
        that is absent (CUDA's libdevice, pip package nvidia-cuda-nvcc-cu12, when kernels call into it;
        zig to link the CPU libraries)."""
        if self.target_name != "wheel":
            return []
        from ..pipeline import build_requirements, index_packages

        try:
            index = index_packages(self.package_dirs())
            roots = {normalise(r) for r in index.kernel_import_roots()}
        except Exception:  # errors are reported, with their location, by initialize()
            return []
        needed = [req for req in self.metadata.core.dependencies if normalise(requirement_name(req)) in roots]
        try:
            options = self.options()
        except OptionError:  # initialize() says
            return needed
        return needed + build_requirements(index, options)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        try:
            options, packages = self.options(), self.package_dirs()
            options.jobs = build_jobs(options.jobs)
        except (OptionError, ValueError) as exc:  # (ValueError: a bad $HYBRID_BUILD_JOBS)
            self._abort(str(exc))
        archs = options.archs
        if self.target_name != "wheel":
            return  # sdists carry source; kernels are compiled when the wheel is built
        missing = hook_options.runtime_missing(self.metadata.core.name, list(self.metadata.core.dependencies))
        if missing:
            self._abort(missing)

        from ..pipeline import compile_packages, lint_report, untyped_message
        from .artifacts import write_package_artifacts

        start = time.perf_counter()
        try:  # each kernel's line as soon as it is done (the LLVM work runs in every core's process)
            kernels = compile_packages(packages, options=options, progress=lambda k: self._report(k, archs))
        except CompileError as exc:
            self.app.display_error(f"hatch-hybrid: cannot compile kernels\n{exc}")
            self._abort("hatch-hybrid: build failed (see the error above)")
        for warning in lint_report(kernels, options.lints):  # lints = "error" failed above
            self.app.display_warning(f"hatch-hybrid: {warning.format()}")
        for name in options.untyped:
            self.app.display_warning(f"hatch-hybrid: {untyped_message(name)}")
        hits = sum(k.cached for k in kernels)
        if version == "editable":
            # the package is imported from the source tree: put the artifacts next to it
            for d in packages:
                shutil.rmtree(d / "_hybrid", ignore_errors=True)
            out = Path(packages[0]).parent
            write_package_artifacts(kernels, archs, out, editable=True, cache=options.cache, options=options)
        else:
            self._staging = Path(tempfile.mkdtemp(prefix="hatch-hybrid-"))
            written = write_package_artifacts(kernels, archs, self._staging, cache=options.cache)
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

    def _report(self, k: CompiledKernel, archs: list[str]) -> None:
        """The build's line for one kernel: what it was built for, and how."""
        how = "from cache" if k.cached else f"compiled in {k.seconds * 1000:.0f} ms"
        what = f"{k.summary()}, {', '.join(archs)}"
        self.app.display_info(f"hatch-hybrid: {k.decl.qualname} -> {k.symbol} ({what}): {how}")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        staging = getattr(self, "_staging", None)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
