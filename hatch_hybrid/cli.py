"""``python -m hatch_hybrid`` / ``hatch-hybrid``: look at a source tree's kernels without building a wheel.

    hatch-hybrid list  [PATH]                      kernels found, and every function each one reaches
    hatch-hybrid show  KERNEL [PATH] [--stage S]   one kernel's typed IR, LLVM IR (before/after
                                                   optimisation) or PTX
    hatch-hybrid check [PATH]                      compile everything; report errors as a build would

PATH is a project folder (with pyproject.toml) or a package folder; default: the current folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import CompileError
from .pipeline import DEFAULT_ARCHS, CompiledKernel, Options, _reached, compile_kernel, index_packages
from .typecheck.program import Program

try:
    import tomllib
except ImportError:  # Python 3.10: hatchling brings tomli
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]


def package_dirs(path: Path) -> list[Path]:
    """The package folders of a project (as the build hook finds them), or the package itself."""
    if (path / "__init__.py").is_file():
        return [path]
    pyproject = path / "pyproject.toml"
    if not pyproject.is_file():
        raise SystemExit(f"hatch-hybrid: {path} is neither a package folder nor a project with pyproject.toml")
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    hatch = data.get("tool", {}).get("hatch", {}).get("build", {})
    packages = hatch.get("hooks", {}).get("hybrid", {}).get("packages") or hatch.get("targets", {}).get(
        "wheel", {}
    ).get("packages")
    if packages:
        return [path / p for p in packages]
    name = data.get("project", {}).get("name", "").replace("-", "_").replace(".", "_").lower()
    found = [d for d in (path / "src" / name, path / name) if (d / "__init__.py").is_file()]
    if not found:
        raise SystemExit(f"hatch-hybrid: no package found in {path}; name one in [tool.hatch.build.hooks.hybrid]")
    return found


def cmd_list(path: Path) -> int:
    index = index_packages(package_dirs(path))
    program = Program(index)
    for decl in index.kernels():
        for typevars in program.variants(decl):
            tf = program.check_kernel(decl, typevars)
            params = ", ".join(f"{p.name}: {t}" for p, t in zip(tf.fn.params, tf.arg_types))
            print(f"{decl.qualname}({params})  [{tf.symbol}]")
            for helper in sorted(_reached(tf), key=lambda t: t.symbol):
                if helper is tf:
                    continue
                where = "" if index.is_local(helper.fn.module) else f"  (from package {helper.fn.module.split('.')[0]})"
                args = ", ".join(map(str, helper.arg_types))
                print(f"    -> {helper.fn.qualname}({args}) -> {helper.return_type}{where}")
    return 0


def cmd_show(path: Path, kernel: str, stage: str, arch: str) -> int:
    index = index_packages(package_dirs(path))
    matches = [d for d in index.kernels() if kernel in (d.name, d.qualname)]
    if len(matches) != 1:
        names = ", ".join(d.qualname for d in index.kernels())
        raise SystemExit(f"hatch-hybrid: {'no' if not matches else 'more than one'} kernel named {kernel!r}: {names}")
    for result in compile_kernel(Program(index), matches[0], Options([arch], cubin=False)):
        _show(result, stage, arch)
    return 0


def _show(result: CompiledKernel, stage: str, arch: str) -> None:
    if stage == "typed":
        assert result.typed is not None
        print("\n\n".join(tf.dump() for tf in _reached(result.typed)))
    elif stage == "llvm":
        print(result.llvm_ir)
    elif stage == "opt":
        print(result.optimised_ir[arch])
    else:
        print(result.ptx[arch], end="")


def cmd_check(path: Path, archs: list[str]) -> int:
    index = index_packages(package_dirs(path))
    program = Program(index)
    failed = 0
    kernels = index.kernels()
    for decl in kernels:
        try:
            compile_kernel(program, decl, Options(archs, cubin=False))
        except CompileError as exc:
            failed += 1
            print(exc, file=sys.stderr)
    print(f"hatch-hybrid: {len(kernels) - failed} of {len(kernels)} kernel(s) compile for {', '.join(archs)}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="hatch-hybrid", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="kernels and what each reaches")
    p_list.add_argument("path", nargs="?", default=".", type=Path)
    p_show = sub.add_parser("show", help="one kernel's typed IR, LLVM IR or PTX")
    p_show.add_argument("kernel")
    p_show.add_argument("path", nargs="?", default=".", type=Path)
    p_show.add_argument("--stage", choices=["typed", "llvm", "opt", "ptx"], default="ptx")
    p_show.add_argument("--arch", default="sm_90")
    p_check = sub.add_parser("check", help="compile every kernel without building a wheel")
    p_check.add_argument("path", nargs="?", default=".", type=Path)
    p_check.add_argument("--arch", action="append", help="default: " + ", ".join(DEFAULT_ARCHS))
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return cmd_list(args.path)
        if args.command == "show":
            return cmd_show(args.path, args.kernel, args.stage, args.arch)
        return cmd_check(args.path, args.arch or list(DEFAULT_ARCHS))
    except CompileError as exc:
        print(exc, file=sys.stderr)
        return 1
