# =============================================================================
# Source : ContinuumIO/gtc2017-numba, 4 - Writing CUDA Kernels.ipynb,
#          code cell 17 (its import line from cell 2), kernels `thread_counter_race_condition`, `thread_counter_safe`
#          https://github.com/ContinuumIO/gtc2017-numba/blob/6ddaeec9baecf07df1a22e3e685d5f6e3b4f33d9/4%20-%20Writing%20CUDA%20Kernels.ipynb
# License: none stated (no LICENSE file in the repository)
# Project: ContinuumIO GTC 2017 Numba tutorial (tutorial)
# What   : a global counter incremented by every thread with cuda.atomic.add (the racy += kernel is kept, not checked).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda

@cuda.jit
def thread_counter_race_condition(global_counter):
    global_counter[0] += 1  # This is bad
    
@cuda.jit
def thread_counter_safe(global_counter):
    cuda.atomic.add(global_counter, 0, 1)  # Safely add 1 to offset 0 in global_counter array
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda

@cuda.jit
def thread_counter_race_condition(global_counter):
    global_counter[0] += 1  # This is bad
    
@cuda.jit
def thread_counter_safe(global_counter):
    cuda.atomic.add(global_counter, 0, 1)  # Safely add 1 to offset 0 in global_counter array


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.array([0], dtype=np.int32), np.array([0], dtype=np.int32)]


def reference(racy_counter, global_counter):
    return {"global_counter": np.array([64 * 64], np.int32)}


def run(racy_counter, global_counter):
    # as cells 18 and 19 (cell 18's racy kernel is wrong by design: its count is not checked)
    d_racy = cuda.to_device(racy_counter)
    thread_counter_race_condition[64, 64](d_racy)
    d_counter = cuda.to_device(global_counter)
    thread_counter_safe[64, 64](d_counter)
    global_counter[:] = d_counter.copy_to_host()


CASE = dict(kernel="thread_counter_safe", griddim=64, blockdim=64, args=["racy_counter", "global_counter"],
            outputs=["global_counter"])
