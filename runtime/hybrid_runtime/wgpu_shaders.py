"""WebGPU shader modules as the runtime makes them for kernels: without WebGPU's run-time checks, through
wgpu-native (see :func:`shader_module`). Imported with :mod:`.wgpu_device`, at the first WebGPU launch."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

_said = False  # shader_module fell back to the checked call, and said so


def shader_module(device: Any, label: str, source: str) -> Any:
    """``device.create_shader_module`` without WebGPU's run-time checks, which naga adds to every shader by
    default and which CUDA does not have: a 64-bit iteration counter in every loop that breaks out after
    2**64 trips (a defence against drivers that assume loops end), and a clamp or a test on every array
    index (an index out of range reads zero, writes nothing). On the H100 through Vulkan they cost a
    Mandelbrot 1.4x and a 16x16-tile matmul 3x. A kernel here means what it means on CUDA and natively: a
    loop without side effects may be assumed to end, an index out of range is the kernel's bug, undefined,
    found by ``@kernel(debug=True)`` (checked indices, ``IndexError`` as on the other devices) and by the
    CPU sanitizer. So the shader is made through wgpu-native's ``wgpuDeviceCreateShaderModuleTrusted``;
    ``HYBRID_WGPU_CHECKS=1`` (read when a kernel's shader is first made) keeps WebGPU's checks, as does a
    wgpu whose private interface to that entry point (wgpu-native's, not WebGPU's) is not the one known
    here, which warns once."""
    if os.environ.get("HYBRID_WGPU_CHECKS", "") not in ("", "0"):
        return device.create_shader_module(label=label, code=source)
    try:
        from wgpu.backends.wgpu_native import _api  # type: ignore[import-untyped]

        create = _api.libf.wgpuDeviceCreateShaderModuleTrusted
        checks = _api.lib.WGPUShaderRuntimeChecks_None
        chain = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(source))
        chain[0].chain.next = _api.ffi.NULL
        chain[0].chain.sType = _api.lib.WGPUSType_ShaderSourceWGSL
        descriptor = _api.new_struct_p(
            "WGPUShaderModuleDescriptor *",
            nextInChain=_api.ffi.cast("WGPUChainedStruct *", chain),
            label=_api.to_c_string_view(label),
        )
        internal = device._internal
    except Exception as exc:  # another wgpu backend or version: the WebGPU call
        global _said
        if not _said:
            _said = True
            version = getattr(sys.modules.get("wgpu"), "__version__", "?")
            warnings.warn(
                f"hatch-hybrid: this wgpu ({version}) offers no shader modules "
                f"without WebGPU's run-time checks ({type(exc).__name__}: {exc}); kernels run with them, up to "
                "3x slower on loops and arrays (wgpu 0.32 has them)",
                RuntimeWarning,
                stacklevel=3,
            )
        return device.create_shader_module(label=label, code=source)
    made = create(internal, descriptor, checks)
    if made == _api.ffi.NULL:
        raise RuntimeError("shader module creation failed")
    return _api.GPUShaderModule(label, made, device)
