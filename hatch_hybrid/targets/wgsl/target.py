"""The WebGPU target: typed IR -> WGSL text (:mod:`.render`), one compute shader per kernel.

Why WGSL and not SPIR-V from LLVM's SPIR-V backend: WGSL is what wgpu validates and translates on
every platform (naga turns it into SPIR-V for Vulkan, MSL for Metal, HLSL for Direct3D 12), while
LLVM 22's ``spirv-unknown-vulkan1.3-compute`` expects HLSL-style resource intrinsics and aborts the
process on a plain array access (an assertion in its instruction selector: "Cannot translate GEP to
OpAccessChain"), and naga's SPIR-V reader accepts only part of SPIR-V.

In: a :class:`~..base.KernelJob`. Out: :class:`WgslCode` (the shader and the interface the runtime binds),
or a reason the kernel is not built for this target (f64, complex, print, ...).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import debug_enabled
from ...types import ArrayT, Scalar, StructT, TupleT, Type, Weak, storage
from ..base import BuildOptions, Capabilities, Code, KernelJob, Target
from .render import ModuleRenderer
from .shader import WGSL_SCALARS, WgslUnsupported


@dataclass
class WgslCode(Code):
    source: str = ""
    fields: list[list[Any]] = field(default_factory=list)  # the uniform's [name, WGSL type, byte offset]
    uniform_bytes: int = 0
    arrays: list[dict[str, Any]] = field(default_factory=list)  # per array parameter: param, binding, writes
    checks: list[dict[str, Any]] = field(default_factory=list)  # sites the error buffer reports
    features: list[str] = field(default_factory=list)  # adapter features the shader needs
    dynamic_item: int = 0  # the element bytes of gpu.dynamic_shared_array (0: none; see render.dynamic_shared)

    def manifest_entry(self) -> dict[str, Any]:
        return {
            "fields": self.fields,
            "uniform_bytes": self.uniform_bytes,
            "arrays": self.arrays,
            "checks": self.checks,
            "features": self.features,
            **({"dynamic_item": self.dynamic_item} if self.dynamic_item else {}),
        }

    def manifest_fields(self, symbol: str) -> dict[str, Any]:
        return {"wgsl": {"file": f"{symbol}.wgsl", **self.manifest_entry()}}

    def files(self, symbol: str) -> list[tuple[str, bytes]]:
        return [(f"{symbol}.wgsl", self.source.encode())]

    def cache_entry(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_cache(cls, entry: dict[str, Any]) -> WgslCode:
        return cls(**entry)

    def summary(self) -> str:
        return " + WGSL"

    def show(self, stage: str, arch: str) -> str | None:
        return self.source if stage == "wgsl" else None


def _unsupported_type(t: Type) -> str | None:
    """Why values of this type cannot live in a WebGPU shader (None: they can)."""
    if isinstance(t, ArrayT):
        return _unsupported_type(t.dtype)
    if isinstance(t, TupleT):
        found = [r for r in map(_unsupported_type, t.items) if r]
        return found[0] if found else None
    if isinstance(t, StructT):
        found = [r for r in (_unsupported_type(ft) for _, ft in t.fields) if r]
        return found[0] if found else None
    if isinstance(t, (Scalar, Weak)):
        s = storage(t)
        if s.name in WGSL_SCALARS:
            return None
        if s.kind == "c":
            return None  # a struct of its parts (.complex)
        return f"{s.name} values"
    return None


class WgslTarget(Target):
    name = "wgsl"
    stages = ("typed IR", "WGSL", "wgpu: naga -> SPIR-V / MSL / HLSL at first launch")
    caps = Capabilities(
        f64=True,  # the adapter's shader-f64 (Vulkan and Direct3D 12 GPUs, and lavapipe; not Metal)
        i64=True,  # Python ints: WGSL's i64 (the adapter's shader-int64)
        f16=True,  # stored as f16 (the adapter's shader-f16), computed on in f32 and rounded as NumPy rounds
        complex=True,  # structs of their parts; abs and cmath are not built
        warp_size=None,
        shared_bytes=16 * 1024,  # WebGPU's default maxComputeWorkgroupStorageSize
        atomics=frozenset({"i32", "u32", "f32", "i64", "u64", "f64"}),  # 64-bit: shader-int64-atomic-all-ops
        printing=False,
        notes="needs an adapter with shader-int64 (Vulkan, Metal and Direct3D 12 GPUs, and lavapipe)",
    )
    code = WgslCode

    @classmethod
    def configured(cls, options: BuildOptions) -> WgslTarget | None:
        return cls() if options.wgsl else None

    @staticmethod
    def not_built_fields(reason: str) -> dict[str, Any]:
        return {"wgsl": {"unsupported": reason}}  # (device="wgpu" says why, "auto" moves on)

    @staticmethod
    def not_built_summary(reason: str) -> str:
        return f" (no WGSL: {reason})"

    def unsupported(self, job: KernelJob) -> str | None:
        for tf in job.reached:
            for name, t in sorted(tf.locals.items()):
                why = _unsupported_type(t)
                if why is not None:
                    return f"{why}: `{name}` in {tf.fn.qualname} ({tf.fn.loc.file}:{tf.fn.loc.line})"
            if tf.prints:
                return f"print() in {tf.fn.qualname}"
        try:
            ModuleRenderer(job.typed, job.decl.options.get("debug", False)).render()
        except WgslUnsupported as exc:
            return exc.reason()
        except Exception as exc:  # a renderer bug must not fail a build that the other targets compile
            if debug_enabled():
                raise
            return f"internal error of the WGSL renderer ({type(exc).__name__}: {exc}); please report it"
        return None

    def build(self, job: KernelJob) -> WgslCode:
        renderer = ModuleRenderer(job.typed, job.decl.options.get("debug", False))
        source = renderer.render()
        iface = renderer.interface
        return WgslCode(
            source=source,
            fields=[list(f) for f in iface.fields],
            uniform_bytes=iface.size,
            arrays=iface.arrays,
            checks=[job.site_entry(site) for site in renderer.sites.sites],
            features=["shader-int64"]
            + (["shader-f16"] if renderer.f16 else [])
            + (["shader-f64"] if renderer.f64 else [])
            + (["shader-int64-atomic-all-ops"] if re.search(r"atomic<[iu]64>", source) else [])
            + (["subgroup"] if renderer.subgroups else [])
            + (["f32-div-sqrt"] if "hh_fused_fma" in renderer.prelude else [])
            + (["f64-div-sqrt"] if "hh_fused_fma64" in renderer.prelude else [])
            + [f"{wt}-fused-fma" for wt in ("f32", "f64") if f"hh_needs_fused_fma_{wt}" in renderer.prelude],
            dynamic_item=renderer.dynamic.dtype.itemsize if renderer.dynamic is not None else 0,
        )
