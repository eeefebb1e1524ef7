# =============================================================================
# 007_heat_equation_grid_sync.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_laplace.py,
#          kernel `solve_heat_equation` (docs "Examples > 1D Heat Equation")
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_laplace.py
# License: BSD-2-Clause (numba-cuda)
# What   : explicit 1-D heat stencil, ping-pong buffers, many time steps in ONE launch
#          separated by a cooperative grid-wide barrier.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: cuda.cg.this_grid() / grid.sync() (cooperative launch, grid-wide
#   barrier) has no entry in the spelling table; the kernel also rebinds local names to
#   different array arguments (data = buf_0 / buf_1) inside the loop.
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/doc_examples/test_laplace.py lines 83-123 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def solve_heat_equation(buf_0, buf_1, timesteps, k):
    i = cuda.grid(1)

    # Don't continue if our index is outside the domain
    if i >= len(buf_0):
        return

    # Prepare to do a grid-wide synchronization later
    grid = cuda.cg.this_grid()

    for step in range(timesteps):
        # Select the buffer from the previous timestep
        if (step % 2) == 0:
            data = buf_0
            next_data = buf_1
        else:
            data = buf_1
            next_data = buf_0

        # Get the current temperature associated with this point
        curr_temp = data[i]

        # Apply formula from finite difference equation
        if i == 0:
            # Left wall is held at T = 0
            next_temp = curr_temp + k * (data[i + 1] - (2 * curr_temp))
        elif i == len(data) - 1:
            # Right wall is held at T = 0
            next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp))
        else:
            # Interior points are a weighted average of their neighbors
            next_temp = curr_temp + k * (
                data[i - 1] - (2 * curr_temp) + data[i + 1]
            )

        # Write new value to the next buffer
        next_data[i] = next_temp

        # Wait for every thread to write before moving on
        grid.sync()
'''

# ---- PORT (best effort; lines marked <<< have no hatch-hybrid spelling) -------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64, i64


@kernel
def solve_heat_equation(buf_0: Array[f64], buf_1: Array[f64], timesteps: i64, k: f64):
    i = gpu.global_tid_x()

    # Don't continue if our index is outside the domain
    if i >= len(buf_0):
        return

    # Prepare to do a grid-wide synchronization later
    grid = cuda.cg.this_grid()                      # <<< no spelling (cooperative groups)

    for step in range(timesteps):
        # Select the buffer from the previous timestep
        if (step % 2) == 0:
            data = buf_0
            next_data = buf_1
        else:
            data = buf_1
            next_data = buf_0

        # Get the current temperature associated with this point
        curr_temp = data[i]

        # Apply formula from finite difference equation
        if i == 0:
            # Left wall is held at T = 0
            next_temp = curr_temp + k * (data[i + 1] - (2 * curr_temp))
        elif i == len(data) - 1:
            # Right wall is held at T = 0
            next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp))
        else:
            # Interior points are a weighted average of their neighbors
            next_temp = curr_temp + k * (
                data[i - 1] - (2 * curr_temp) + data[i + 1]
            )

        # Write new value to the next buffer
        next_data[i] = next_temp

        # Wait for every thread to write before moving on
        grid.sync()                                 # <<< no spelling (grid-wide barrier)


# ---- REFERENCE ---------------------------------------------------------------
SIZE, NITER, K = 101, 50, 0.25     # doc: size=1001, niter=10000, k=0.25


def make_args(rng):
    data = np.zeros(SIZE)
    data[SIZE // 2] = 10000.0          # doc: middle element made very hot
    return [data, np.zeros(SIZE), NITER, K]


def reference(buf_0, buf_1, timesteps, k):
    bufs = [buf_0.copy(), buf_1.copy()]
    for step in range(timesteps):
        d = bufs[step % 2]
        nxt = bufs[(step + 1) % 2]
        left = np.concatenate(([0.0], d[:-1]))      # walls held at T = 0
        right = np.concatenate((d[1:], [0.0]))
        nxt[:] = d + k * (left - 2 * d + right)
    return {"buf_0": bufs[0], "buf_1": bufs[1]}


CASE = dict(
    threads=128, blocks=1, shared_bytes=0,     # doc uses .forall(len(data)); must be a cooperative launch
    args=["buf_0", "buf_1", "timesteps", "k"], outputs=["buf_0", "buf_1"],
    rtol=1e-12, atol=1e-9,
    note=("Needs a cooperative (co-resident) launch. Threads with i >= len return before "
          "the first grid.sync(). With an even NITER the final state is in buf_0."),
)

# The error hatch-hybrid gives for this port (tests/test_published.py checks it):
EXPECTED_ERROR = "name `cuda` is not defined"
