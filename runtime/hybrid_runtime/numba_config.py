"""numba-cuda's ``config`` flags that kernel modules test at import (``from numba.cuda.core import
config``; ``if config.ENABLE_CUDASIM:``), as ``hybrid_runtime.cuda.core.config``.

Kernels here are compiled, never simulated: on the CPU the wheel's native code runs them (the Python path,
``device="cpu-python"``, runs their Python for pdb), so the simulator's flag is off, as on a GPU. The build
reads this file as source, so a module-level ``if`` on these flags takes the branch the import takes.
"""

ENABLE_CUDASIM = False
DISABLE_JIT = False
CUDA_WARN_ON_IMPLICIT_COPY = False
CUDA_LOW_OCCUPANCY_WARNINGS = False
