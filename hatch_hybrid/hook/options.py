"""The options of ``[tool.hatch.build.hooks.hybrid]``, validated up front in hatchling's phrasing.

Plain functions of the option table, shared by the build hook (:mod:`.plugin`) and the CLI
(``python -m hatch_hybrid``), so that both read the same configuration and fail on the same options.

``arch``       list of ``sm_XY`` targets (or one as a string; default: sm_70, sm_80, sm_90)
``packages``   package folders to scan, relative to the project root (default: the wheel's packages,
               else ``src/<name>`` or ``<name>``)
``dump``       folder to write every stage's output into (typed IR, .ll, .ptx); also ``$HYBRID_DUMP``
``cubin``      also embed machine code per arch: true, false or "auto" (default: when ptxas is found)
``cache``      reuse kernels compiled before from unchanged source (default true)
``cache-dir``  where that cache lives (default ``$HYBRID_CACHE_DIR`` or ``~/.cache/hatch-hybrid``)
``cpu``        native CPU code for these targets (default: the five common ones); false: none
``cpu-checks`` bounds checks on every array access of the native CPU code (default false)
``cpu-sanitize`` each kernel's sanitized native entry too, for ``launch(sanitize=True)`` (default true)
``wgsl``       a WebGPU shader per kernel too, for ``device="wgpu"`` (Vulkan, Metal, Direct3D 12; default true)
``lineinfo``   Python file and line of each PTX instruction, for profilers and compute-sanitizer (default true)
``lints``      GPU lints: "warn" (default), "error" or false; ``lints-ignore``: lint names to skip
``jobs``       worker processes for the LLVM work, kernels and targets in parallel (default: ``$HYBRID_BUILD_JOBS``,
               else every core the build may use; 1: in the build's own process)
``signatures`` numba signatures of kernels typed at launch (``@cuda.jit`` without a signature or
               annotations), by kernel: ``{"pkg.mod.k" = ["void(float32[:], int32)"]}``; merged with
               ``signatures-file`` (default ``hybrid-signatures.json``, which ``hatch-hybrid record`` writes)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..lint import LINTS, LintSettings
from ..pipeline import DEFAULT_ARCHS, Options

try:
    import tomllib
except ImportError:  # Python 3.10: hatchling brings tomli
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]

HOOK = "hybrid"
OPTIONS = (
    "arch", "packages", "dump", "cubin", "cache", "cache-dir", "cpu", "cpu-checks", "cpu-sanitize", "lineinfo",
    "lints", "lints-ignore", "wgsl", "signatures", "signatures-file", "jobs",
)  # fmt: skip
#: Options hatchling itself reads from every build hook's table.
HATCHLING_OPTIONS = ("dependencies", "require-runtime-dependencies", "require-runtime-features", "enable-by-default")

#: The NVIDIA targets LLVM's NVPTX backend (LLVM 22) recognises, from sm_50 (the oldest CUDA 12 runs).
#: Any other name makes LLVM warn "not a recognized processor" and emit PTX no GPU can load.
KNOWN_ARCHS = (
    "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86",
    "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_101", "sm_101a", "sm_103",
    "sm_103a", "sm_110", "sm_110a", "sm_120", "sm_120a", "sm_121", "sm_121a",
)  # fmt: skip


class OptionError(ValueError):
    """A bad hook option; ``str()`` is the whole message, in hatchling's phrasing."""


def _option(name: str) -> str:
    return f"Option `{name}` for build hook `{HOOK}`"


def check_known(config: Mapping[str, Any]) -> None:
    unknown = sorted(set(config) - set(OPTIONS) - set(HATCHLING_OPTIONS))
    if unknown:
        raise OptionError(f"Unknown option `{unknown[0]}` for build hook `{HOOK}`; known options: {', '.join(OPTIONS)}")


def archs(config: Mapping[str, Any]) -> list[str]:
    """The ``arch`` option: a list of known ``sm_XY`` names, or one name as a string."""
    value = config.get("arch", list(DEFAULT_ARCHS))
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise OptionError(f'{_option("arch")} must be a list of strings (or one string), such as ["sm_80"]')
    for arch in value:
        if arch not in KNOWN_ARCHS:
            known = ", ".join(KNOWN_ARCHS)
            raise OptionError(f'{_option("arch")} has unknown target {arch!r}; use targets like "sm_80": {known}')
    return sorted(set(value), key=KNOWN_ARCHS.index)


def cpu_targets(config: Mapping[str, Any]) -> list[str]:
    from ..targets.host.cpus import DEFAULT_TARGETS, TARGETS

    value = config.get("cpu", list(DEFAULT_TARGETS))
    if value is False:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise OptionError(f"{_option('cpu')} must be a list of strings or false")
    for target in value:
        if target not in TARGETS:
            raise OptionError(f"{_option('cpu')} has {target!r}; known targets: " + ", ".join(TARGETS))
    return list(dict.fromkeys(value))


def package_dirs(config: Mapping[str, Any], root: Path, project: str, wheel_packages: list[str]) -> list[Path]:
    """The package folders to compile: ``packages``, else the wheel's packages, else ``[src/]<name>``."""
    value = config.get("packages")
    if value is not None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise OptionError(f"{_option('packages')} must be a list of strings")
        dirs = [root / v for v in value]
    elif wheel_packages:
        dirs = [root / p for p in wheel_packages]
    else:
        name = re.sub(r"[-.]", "_", project).lower()
        dirs = [d for d in (root / "src" / name, root / name) if d.is_dir()][:1]
    for d in dirs:
        if not (d / "__init__.py").is_file():
            raise OptionError(f"{_option('packages')}: {d} is not a package folder (no __init__.py)")
    if not dirs:
        raise OptionError(f"build hook `{HOOK}` found no package to compile; set `packages`")
    return dirs


def _bool_or_auto(config: Mapping[str, Any], name: str, default: bool | None) -> bool | None:
    value = config.get(name, "auto" if default is None else default)
    if value == "auto":
        return None
    if not isinstance(value, bool):
        raise OptionError(f'{_option(name)} must be a boolean or "auto"')
    return value


def _bool(config: Mapping[str, Any], name: str, default: bool) -> bool:
    value = config.get(name, default)
    if not isinstance(value, bool):
        raise OptionError(f"{_option(name)} must be a boolean")
    return value


def lint_settings(config: Mapping[str, Any]) -> LintSettings:
    """``lints`` ("warn", "error" or false) and ``lints-ignore`` (a list of lint names)."""
    mode = config.get("lints", "warn")
    if mode is False:
        mode = "off"
    elif mode not in ("warn", "error"):
        raise OptionError(f'{_option("lints")} must be "warn", "error" or false')
    ignore = config.get("lints-ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(v, str) for v in ignore):
        raise OptionError(f"{_option('lints-ignore')} must be a list of lint names")
    for name in ignore:
        if name not in LINTS:
            raise OptionError(f"{_option('lints-ignore')} has unknown lint {name!r}; lints: " + ", ".join(LINTS))
    return LintSettings(mode, frozenset(ignore))


def jobs(config: Mapping[str, Any]) -> int | None:
    """``jobs``: a positive number of worker processes (None: not set)."""
    value = config.get("jobs")
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise OptionError(f"{_option('jobs')} must be a positive integer (the build's worker processes)")
    return value


def _string(config: Mapping[str, Any], name: str) -> str | None:
    value = config.get(name)
    if value is not None and not isinstance(value, str):
        raise OptionError(f"{_option(name)} must be a string")
    return value


def options(config: Mapping[str, Any], root: Path) -> Options:
    """Every option checked, as the compiler's :class:`~hatch_hybrid.pipeline.Options`."""
    from ..cache import KernelCache, default_cache_dir

    check_known(config)
    cache_dir, dump = _string(config, "cache-dir"), _string(config, "dump")
    use_cache = _bool_or_auto(config, "cache", True)
    checks, lineinfo = _bool(config, "cpu-checks", False), _bool(config, "lineinfo", True)
    return Options(
        archs(config),
        cubin=_bool_or_auto(config, "cubin", None),
        cpu=cpu_targets(config),
        cpu_checks=checks,
        cpu_sanitize=_bool(config, "cpu-sanitize", True),
        wgsl=_bool(config, "wgsl", True),
        lineinfo=lineinfo,
        lints=lint_settings(config),
        cache=KernelCache((root / cache_dir if cache_dir else default_cache_dir()) if use_cache is not False else None),
        dump_dir=root / dump if dump else None,
        signatures=signatures(config, root),
        jobs=jobs(config),
    )


def signatures(config: Mapping[str, Any], root: Path) -> dict[str, list[str]]:
    """``signatures`` (kernel -> numba signatures) merged with the file ``signatures-file`` names."""
    from ..record import SIGNATURES_FILE, is_table, read

    table = config.get("signatures", {})
    if not is_table(table):
        raise OptionError(
            f"{_option('signatures')} must be a table of kernel names to lists of numba signatures, such as "
            '{"mypkg.kernels.saxpy" = ["void(float32, float32[:], float32[:])"]}'
        )
    path = root / (_string(config, "signatures-file") or SIGNATURES_FILE)
    try:
        found = read(path)
    except ValueError as exc:
        raise OptionError(f"{_option('signatures-file')}: {exc} (hatch-hybrid record writes it)") from None
    for kernel, listed in table.items():
        found[kernel] = list(dict.fromkeys([*found.get(kernel, []), *listed]))
    return found


RUNTIME = "hatch-hybrid-runtime"


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "_", name).lower()


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;@(]", requirement.strip(), maxsplit=1)[0]


def runtime_missing(project: str, dependencies: list[str]) -> str | None:
    """Why a wheel of ``project`` would fail at import (its ``[project] dependencies`` lack the runtime its
    kernels import), or None."""
    names = {normalise(project)} | {normalise(requirement_name(d)) for d in dependencies}
    if normalise(RUNTIME) in names:
        return None
    return (
        f"hatch-hybrid: `{RUNTIME}` is missing from [project] dependencies of {project or 'this project'}: its "
        f"kernels import hybrid_runtime, so its wheel would install and then fail with ModuleNotFoundError. "
        f'Add it: dependencies = ["{RUNTIME}", ...]'
    )


def project_problems(root: Path) -> list[str]:
    """What makes a project's wheels carry no compiled code, or fail at import: a pyproject.toml without the
    hook's table, or without the runtime in its dependencies."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    project = data.get("project", {})
    problems = []
    if _hook_table(data) is None:
        problems.append(
            f"hatch-hybrid: {root / 'pyproject.toml'} has no [tool.hatch.build.hooks.{HOOK}] table, so wheels built "
            "from it carry no compiled code: their kernels would run as Python on the CPU, 1,000 to 10,000 times "
            f"slower than native code. Add the (possibly empty) table [tool.hatch.build.hooks.{HOOK}]"
        )
    if "dependencies" not in project.get("dynamic", []):
        missing = runtime_missing(str(project.get("name", "")), list(project.get("dependencies", [])))
        if missing:
            problems.append(missing)
    return problems


def _hook_table(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The hook's table: ``[tool.hatch.build.hooks.hybrid]`` or the wheel target's own."""
    build = data.get("tool", {}).get("hatch", {}).get("build", {})
    for table in (build.get("hooks", {}), build.get("targets", {}).get("wheel", {}).get("hooks", {})):
        if HOOK in table:
            return dict(table[HOOK])
    return None


def read_project(root: Path) -> tuple[dict[str, Any], str, list[str]]:
    """From a project's pyproject.toml: the hook's option table, the project name, the wheel's packages."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    build = data.get("tool", {}).get("hatch", {}).get("build", {})
    config = _hook_table(data) or {}
    packages = build.get("targets", {}).get("wheel", {}).get("packages") or build.get("packages") or []
    return config, str(data.get("project", {}).get("name", "")), list(packages)
