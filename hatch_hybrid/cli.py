"""``python -m hatch_hybrid`` / ``hatch-hybrid``: look at a source tree's kernels without building a wheel.

    hatch-hybrid list  [PATH]                      kernels found, and every function each one reaches
    hatch-hybrid show  KERNEL [PATH] [--stage S]   one kernel's typed IR, LLVM IR (before/after
                                                   optimisation), PTX or WebGPU shader (WGSL)
    hatch-hybrid check [PATH]                      compile everything; report errors as a build would
    hatch-hybrid record [--into FILE] -- COMMAND   the signatures COMMAND launches, for kernels typed at
                                                   launch (numba's @cuda.jit without one), into FILE

PATH is a project folder (with pyproject.toml) or a package folder; default: the current folder.
A project's ``[tool.hatch.build.hooks.hybrid]`` options (arch, packages, ...) are read and checked as
the build reads them, so ``check`` fails exactly when compiling the wheel's kernels would.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import CompileError
from .hook import options as hook_options
from .hook.options import OptionError
from .pipeline import (
    CompiledKernel,
    Options,
    _reached,
    check_symbols,
    compile_kernel,
    index_packages,
    installed_path,
    lint_report,
)
from .record import SIGNATURES_FILE, record
from .targets.base import KernelJob
from .typecheck.program import Program


def project_config(path: Path) -> tuple[list[Path], dict[str, Any]]:
    """The package folders to compile and the hook's options: a project's, or a package's (defaults)."""
    if (path / "__init__.py").is_file():
        return [path], {}
    if not (path / "pyproject.toml").is_file():
        raise OptionError(f"{path} is neither a package folder nor a project with pyproject.toml")
    config, name, wheel_packages = hook_options.read_project(path)
    hook_options.options(config, path)  # every option checked, as the build does
    return hook_options.package_dirs(config, path, name, wheel_packages), config


def package_dirs(path: Path) -> list[Path]:
    """The package folders of a project (as the build hook finds them), or the package itself."""
    return project_config(path)[0]


def cmd_list(path: Path) -> int:
    packages, config = project_config(path)
    index = index_packages(packages)
    program = Program(index)
    targets = hook_options.options(config, path if path.is_dir() else path.parent).targets()
    for decl in index.kernels():
        for typevars in program.variants(decl):
            tf = program.check_kernel(decl, typevars)
            params = ", ".join(f"{p.name}: {t}" for p, t in zip(tf.fn.params, tf.arg_types))
            print(f"{decl.qualname}({params})  [{tf.symbol}]")
            job = KernelJob(program, decl, tf, _reached(tf), lambda module: installed_path(program, module))
            reasons = {target.name: target.why_not(job) for target in targets}
            print(f"    targets: {', '.join(name for name, why in reasons.items() if why is None) or 'none'}")
            for name, why in reasons.items():
                if why is not None:
                    print(f"    not {name}: {why}")
            for helper in sorted(_reached(tf), key=lambda t: t.symbol):
                if helper is tf:
                    continue
                where = "" if index.is_local(helper.fn.module) else f"  (from package {helper.fn.module.split('.')[0]})"
                args = ", ".join(map(str, helper.arg_types))
                print(f"    -> {helper.fn.qualname}({args}) -> {helper.return_type}{where}")
    return 0


def cmd_show(path: Path, kernel: str, stage: str, arch: str | None) -> int:
    packages, config = project_config(path)
    archs = hook_options.archs({"arch": arch} if arch else config)
    index = index_packages(packages)
    matches = [d for d in index.kernels() if kernel in (d.label, d.qualname)]
    if len(matches) != 1:
        names = ", ".join(d.qualname for d in index.kernels())
        raise SystemExit(f"hatch-hybrid: {'no' if not matches else 'more than one'} kernel named {kernel!r}: {names}")
    lineinfo = hook_options.options(config, path).lineinfo
    options = Options(archs[-1:], cubin=False, lineinfo=lineinfo, wgsl=stage == "wgsl")
    for result in compile_kernel(Program(index), matches[0], options):
        _show(result, stage, archs[-1])
    return 0


def _show(result: CompiledKernel, stage: str, arch: str) -> None:
    if stage == "typed":
        assert result.typed is not None
        print("\n\n".join(tf.dump() for tf in _reached(result.typed)))
        return
    for code in result.codes.values():
        text = code.show(stage, arch)
        if text is not None:
            print(text, end="" if stage in ("ptx", "wgsl") else "\n")
            return
    why = "; ".join(f"{target}: {reason}" for target, reason in result.not_built.items())
    print(f"no {stage} for {result.decl.qualname}" + (f" ({why})" if why else ""))


def cmd_check(path: Path, archs: list[str] | None) -> int:
    """Compile every kernel for the project's archs (PTX; no machine code, no native CPU libraries); show
    the GPU lints as the build would (``lints = "error"``: they fail the check). A project whose
    pyproject.toml lacks the hook's table or the runtime dependency fails the check too."""
    packages, config = project_config(path)
    problems = hook_options.project_problems(path) if (path / "pyproject.toml").is_file() else []
    for problem in problems:
        print(problem, file=sys.stderr)
    settings = hook_options.lint_settings(config)
    chosen = hook_options.archs({"arch": archs} if archs else config)
    index = index_packages(packages)
    program = Program(index)
    decls, compiled, failed = index.kernels(), [], 0
    for decl in decls:  # every kernel's errors, not only the first
        try:
            compiled += compile_kernel(program, decl, Options(chosen, cubin=False))
        except CompileError as exc:
            failed += 1
            print(exc, file=sys.stderr)
    check_symbols(compiled)
    found = lint_report(compiled, settings)
    for warning in found:
        print(warning.format("error" if settings.mode == "error" else "warning"), file=sys.stderr)
    fix = f"; fix the project's {len(problems)} problem(s) above" if problems else ""
    print(f"hatch-hybrid: {len(decls) - failed} of {len(decls)} kernel(s) compile for {', '.join(chosen)}{fix}")
    return 1 if failed or problems or (found and settings.mode == "error") else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="hatch-hybrid", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="kernels and what each reaches")
    p_list.add_argument("path", nargs="?", default=".", type=Path)
    p_show = sub.add_parser("show", help="one kernel's typed IR, LLVM IR, PTX or WGSL")
    p_show.add_argument("kernel")
    p_show.add_argument("path", nargs="?", default=".", type=Path)
    p_show.add_argument("--stage", choices=["typed", "llvm", "opt", "ptx", "wgsl"], default="ptx")
    p_show.add_argument("--arch", help="default: the project's newest arch")
    p_check = sub.add_parser("check", help="compile every kernel without building a wheel")
    p_check.add_argument("path", nargs="?", default=".", type=Path)
    p_check.add_argument("--arch", action="append", help="default: the project's `arch` option")
    p_record = sub.add_parser("record", help="record the signatures a command launches (kernels typed at launch)")
    p_record.add_argument("--into", type=Path, default=Path(SIGNATURES_FILE), help="default: %(default)s")
    p_record.add_argument("run", nargs=argparse.REMAINDER, help="-- COMMAND ... (the project's tests or examples)")
    args = parser.parse_args(argv)
    if args.command == "record":
        command = args.run[1:] if args.run[:1] == ["--"] else args.run
        if not command:
            parser.error("record: give the command to run after --, e.g. hatch-hybrid record -- pytest tests/")
        try:
            return record(command, args.into)
        except (ValueError, OSError) as exc:
            print(f"hatch-hybrid: {exc}", file=sys.stderr)
            return 1
    try:
        if args.command == "list":
            return cmd_list(args.path)
        if args.command == "show":
            return cmd_show(args.path, args.kernel, args.stage, args.arch)
        return cmd_check(args.path, args.arch)
    except (CompileError, OptionError) as exc:
        print(exc if isinstance(exc, CompileError) else f"hatch-hybrid: {exc}", file=sys.stderr)
        return 1
