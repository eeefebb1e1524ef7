"""The targets a build knows, in the order it builds them: NVIDIA first (its lowering's check and print
sites are the kernel's), then the native CPU, WebGPU and the Python path's conversions.

Adding a target is writing ``targets/<name>/`` (a :class:`~.base.Target` and its :class:`~.base.Code`)
and adding its class here (or :func:`register` from elsewhere): the pipeline, the cache, the hook and
the command line loop over these.
"""

from __future__ import annotations

from .base import BuildOptions, Target
from .host.target import HostTarget
from .ptx.target import PtxTarget
from .python.target import PythonTarget
from .wgsl.target import WgslTarget

_TARGETS: list[type[Target]] = [PtxTarget, HostTarget, WgslTarget, PythonTarget]


def targets() -> tuple[type[Target], ...]:
    """The registered targets, in the order a build builds them."""
    return tuple(_TARGETS)


def register(target: type[Target]) -> type[Target]:
    """Add a target after those registered (usable as a class decorator). Raises ValueError for a name
    that is taken: it is the target's field in the manifest and the cache."""
    if any(cls.name == target.name for cls in _TARGETS):
        raise ValueError(f"a target named {target.name!r} is registered already")
    _TARGETS.append(target)
    return target


def registered(name: str) -> type[Target]:
    """The target class of this name (the manifest's and the cache's field)."""
    for cls in _TARGETS:
        if cls.name == name:
            return cls
    raise KeyError(f"no target named {name!r}")


def configured_targets(options: BuildOptions) -> list[Target]:
    """Every registered target the build's options ask for, configured by them."""
    return [target for cls in _TARGETS if (target := cls.configured(options)) is not None]
