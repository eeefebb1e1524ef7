"""Where things run: this machine's devices, and where each kernel of an installed package would run.

``python -m hybrid_runtime [PACKAGE ...]`` prints

* the devices: each CUDA device (its name and compute capability), the WebGPU adapter ``wgpu`` finds (its
  backend, type and the features kernels use), the CPU (the native target and the newer instruction levels
  its code uses, the worker threads), and what ``device="auto"`` picks, with the reasons it passed over
  the others;
* for each package named: every kernel (every specialisation of a generic one), the device ``auto`` runs
  it on, and for each device why it runs there or why not (no PTX for this GPU's arch, a shader not built
  and the compiler's reason, an adapter lacking a feature the shader needs, no native code for this
  platform, ...).

It reads the packages' manifests and asks the drivers; it compiles and launches nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from . import native
from .device import devices
from .driver import NoCudaError, initialise
from .manifest import Manifest, ManifestError, no_shader, package_manifest


@dataclass
class Machine:
    """What this machine offers: per device kind, a description or why there is none."""

    cuda: list[Any] = field(default_factory=list)  # CudaDevice
    cuda_missing: str = ""
    wgpu: Any = None  # WgpuDevice
    wgpu_missing: str = ""
    wgpu_is_gpu: bool = False
    cpu_target: str | None = None
    cpu_levels: list[str] = field(default_factory=list)
    threads: int = 1

    @property
    def auto(self) -> str:
        """The device ``device="auto"`` picks (see :func:`.targets.select`)."""
        if self.cuda:
            return "cuda"
        return "wgpu" if self.wgpu is not None and self.wgpu_is_gpu else "cpu"


def survey() -> Machine:
    """This machine's devices, asking each driver once."""
    machine = Machine()
    try:
        initialise()
        machine.cuda = devices()
    except NoCudaError as exc:
        machine.cuda_missing = str(exc)
    if not machine.cuda and not machine.cuda_missing:
        machine.cuda_missing = "the CUDA driver reports no devices"
    try:
        from . import wgpu_device

        if wgpu_device.available():
            machine.wgpu = wgpu_device.get_device()
            machine.wgpu_is_gpu = not machine.wgpu.is_cpu
        else:
            machine.wgpu_missing = "no WebGPU adapter with shader-int64 (no Vulkan, Metal or Direct3D 12 driver)"
    except ImportError:
        machine.wgpu_missing = "the wgpu package is not installed (pip install wgpu)"
    except Exception as exc:  # a driver that fails to open
        machine.wgpu_missing = f"the WebGPU adapter could not be opened: {exc}"
    machine.cpu_target = native.host_target()
    machine.cpu_levels = sorted(native.cpu_levels())
    machine.threads = native.cpu_threads()
    return machine


def describe_machine(m: Machine) -> list[str]:
    lines = ["devices on this machine:"]
    if m.cuda:
        for d in m.cuda:
            major, minor = d.compute_capability
            lines.append(f"  cuda:{d.ordinal}    {d.name}, compute capability {major}.{minor} (sm_{major}{minor})")
    else:
        lines.append(f"  cuda      none: {m.cuda_missing}")
    if m.wgpu is not None:
        info = m.wgpu.info
        kind = "a CPU driver (used only with device='wgpu')" if m.wgpu.is_cpu else "a GPU"
        wanted = ("shader-f16", "subgroup", "shader-f64", "shader-int64", "timestamp-query")
        features = ", ".join(f for f in wanted if f in set(m.wgpu.adapter.features)) or "none of note"
        lines.append(f"  wgpu      {m.wgpu.name}, {info.get('adapter_type', '?')}: {kind}; features: {features}")
    else:
        lines.append(f"  wgpu      none: {m.wgpu_missing}")
    levels = " ".join(["baseline", *m.cpu_levels])
    target = m.cpu_target or f"none of the wheel's CPU targets ({sys.platform}): kernels run as Python"
    lines.append(f"  cpu       {target}; instruction levels {levels}; {m.threads} worker threads")
    chosen = os.environ.get("HYBRID_DEVICE", "").strip()
    lines.append(f"  auto      picks {m.auto}" + (f" ($HYBRID_DEVICE={chosen} overrides it)" if chosen else ""))
    return lines


def kernel_lines(m: Machine, qualname: str, entry: dict[str, Any], manifest: Manifest) -> list[str]:
    """Where one compiled kernel (or specialisation) runs, and why not elsewhere."""
    cuda = _on_cuda(m, entry, manifest, qualname)
    wgpu = _on_wgpu(m, entry)
    cpu = _on_cpu(m, entry, manifest)
    runs = {"cuda": cuda[0], "wgpu": wgpu[0], "cpu": cpu[0]}
    auto = m.auto if runs[m.auto] else "cpu"
    if auto == "cpu" and not runs["cpu"]:
        auto = "cpu-python"
    lines = [f"  {qualname}: auto runs it on {auto}"]
    for name, (ok, why) in (("cuda", cuda), ("wgpu", wgpu), ("cpu", cpu)):
        lines.append(f"      {name:<5} {'yes' if ok else 'no '}  {why}")
    return lines


def _on_cuda(m: Machine, entry: dict[str, Any], manifest: Manifest, qualname: str) -> tuple[bool, str]:
    code = f"PTX for {' '.join(entry.get('ptx', {}))}" + (
        f", cubins for {' '.join(entry['cubin'])}" if entry.get("cubin") else ""
    )
    if not m.cuda:
        return False, f"{code}; no CUDA device here"
    try:
        name, _ = manifest.best_code(entry, m.cuda[0].compute_capability, qualname)
    except ManifestError as exc:
        return False, str(exc)
    major, minor = m.cuda[0].compute_capability
    return True, f"{code}; loads {name} on cuda:0 (sm_{major}{minor})"


def _on_wgpu(m: Machine, entry: dict[str, Any]) -> tuple[bool, str]:
    why = no_shader(entry)
    if why is not None:
        return False, f"no shader: {why}"
    shader = entry["wgsl"]
    if m.wgpu is None:
        return False, f"a shader; {m.wgpu_missing}"
    from .wgpu_device import unmet_needs

    problem = unmet_needs(shader, m.wgpu)
    if problem is not None:
        return False, f"a shader, but it {problem}"
    return True, f"a shader, on {m.wgpu.name}"


def _on_cpu(m: Machine, entry: dict[str, Any], manifest: Manifest) -> tuple[bool, str]:
    code = entry.get("cpu")
    libraries = manifest.data.get("cpu", {})
    if code is None or not libraries:
        return False, "no native code (the package was built without CPU targets): its Python function runs"
    if "unsupported" in code:
        return False, f"no native code: {code['unsupported']}; its Python function runs"
    if m.cpu_target is None or m.cpu_target not in libraries:
        built = ", ".join(sorted(libraries))
        return False, f"native code for {built}, not this platform: its Python function runs"
    levels = manifest.data.get("cpu_levels", {}).get(m.cpu_target, [])
    usable = [level for level in levels if level in m.cpu_levels]
    return True, f"native {m.cpu_target} code ({usable[-1] if usable else 'baseline'} instructions)"


def describe_package(m: Machine, package: str) -> list[str]:
    try:
        manifest = package_manifest(package)
    except ManifestError as exc:
        return [f"package {package}: its manifest cannot be read: {exc}"]
    if manifest is None:
        return [f"package {package}: not found, or not built with hatch-hybrid (no hybrid manifest in it)"]
    kernels = manifest.data.get("kernels", {})
    lines = [f"package {package} ({len(kernels)} kernel{'s' * (len(kernels) != 1)}, {manifest.path}):"]
    for qualname, entry in sorted(kernels.items()):
        variants = entry.get("variants")
        if variants is None:
            lines += kernel_lines(m, qualname, entry, manifest)
            continue
        for variant in variants:
            types = ", ".join(f"{k}={v}" for k, v in variant.get("types", {}).items())
            lines += kernel_lines(m, f"{qualname}[{types}]", variant, manifest)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hybrid_runtime",
        description="Where kernels run: this machine's devices and, for installed packages, each kernel's device.",
    )
    parser.add_argument("packages", nargs="*", metavar="PACKAGE", help="an installed package built with hatch-hybrid")
    options = parser.parse_args(argv)
    machine = survey()
    lines = describe_machine(machine)
    for package in options.packages:
        lines += ["", *describe_package(machine, package)]
    print("\n".join(lines))
    return 0
