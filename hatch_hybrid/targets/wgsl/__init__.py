"""The WebGPU target: typed IR rendered to WGSL (:mod:`.render`), which the ``wgpu`` package's
wgpu-native runs on Vulkan, Metal and Direct3D 12 (:mod:`hybrid_runtime.wgpu_device`)."""
