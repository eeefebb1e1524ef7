# =============================================================================
# Source : qudoor/qutrunk, qutrunk/backends/local/sim_gpu.py, kernels `phase_shift_kernel`, `rotate_around_axis_kernel` (defined twice,
#          verbatim), `pauli_y_kernel`
#          https://github.com/qudoor/qutrunk/blob/385f00ae04d33f3ad5b18cb23938c15846eb6f26/qutrunk/backends/local/sim_gpu.py
# License: Apache-2.0
# Project: QuTrunk (real)
# What   : phase shift, compact-unitary rotation and Pauli-Y on a state vector (>>, <<, int conj factor).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

import numpy
from numba import cuda, float32


@cuda.jit
def phase_shift_kernel(num_amps_per_rank, real, imag, target, cos_angle, sin_angle):
    num_tasks = num_amps_per_rank >> 1

    size_half_block = 1 << target
    size_block      = 2 * size_half_block

    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return

    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo   = index_up + size_half_block

    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_lo] = cos_angle*state_real_lo - sin_angle*state_imag_lo
    imag[index_lo] = sin_angle*state_real_lo + cos_angle*state_imag_lo

@cuda.jit
def rotate_around_axis_kernel(num_amps_per_rank, real, imag, target, alpha_real, alpha_imag, beta_real, beta_imag):
    num_tasks = num_amps_per_rank >> 1

    size_half_block = 1 << target
    size_block      = 2 * size_half_block

    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return

    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo    = index_up + size_half_block

    # store current state vector values in temp variables
    state_real_up = real[index_up]
    state_imag_up = imag[index_up]

    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_up] = alpha_real * state_real_up - alpha_imag * state_imag_up - beta_real * state_real_lo - beta_imag * state_imag_lo
    imag[index_up] = alpha_real * state_imag_up + alpha_imag * state_real_up - beta_real * state_imag_lo + beta_imag * state_real_lo

    real[index_lo] = beta_real * state_real_up - beta_imag * state_imag_up + alpha_real * state_real_lo + alpha_imag * state_imag_lo
    imag[index_lo] = beta_real * state_imag_up + beta_imag * state_real_up + alpha_real * state_imag_lo - alpha_imag * state_real_lo

@cuda.jit
def rotate_around_axis_kernel(num_amps_per_rank, real, imag, target, alpha_real, alpha_imag, beta_real, beta_imag):
    num_tasks = num_amps_per_rank >> 1

    size_half_block = 1 << target
    size_block      = 2 * size_half_block

    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return

    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo    = index_up + size_half_block

    # store current state vector values in temp variables
    state_real_up = real[index_up]
    state_imag_up = imag[index_up]

    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_up] = alpha_real * state_real_up - alpha_imag * state_imag_up - beta_real * state_real_lo - beta_imag * state_imag_lo
    imag[index_up] = alpha_real * state_imag_up + alpha_imag * state_real_up - beta_real * state_imag_lo + beta_imag * state_real_lo

    real[index_lo] = beta_real * state_real_up - beta_imag * state_imag_up + alpha_real * state_real_lo + alpha_imag * state_imag_lo
    imag[index_lo] = beta_real * state_imag_up + beta_imag * state_real_up + alpha_real * state_imag_lo - alpha_imag * state_real_lo

@cuda.jit
def pauli_y_kernel(num_amps_per_rank, real, imag, target, conjFac):
    size_half_block = 1 << target
    size_block      = 2 * size_half_block
    num_tasks       = num_amps_per_rank >> 1
    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return
    
    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo   = index_up + size_half_block

    state_real_up = real[index_up]
    state_imag_up = imag[index_up]

    # update under +-{{0, -i}, {i, 0}}
    real[index_up] = conjFac * imag[index_lo]
    imag[index_up] = conjFac * -real[index_lo]
    real[index_lo] = conjFac * -state_imag_up
    imag[index_lo] = conjFac * state_real_up
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

import numpy
from hybrid_runtime import cuda, float32


@cuda.jit
def phase_shift_kernel(num_amps_per_rank, real, imag, target, cos_angle, sin_angle):
    num_tasks = num_amps_per_rank >> 1

    size_half_block = 1 << target
    size_block      = 2 * size_half_block

    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return

    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo   = index_up + size_half_block

    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_lo] = cos_angle*state_real_lo - sin_angle*state_imag_lo
    imag[index_lo] = sin_angle*state_real_lo + cos_angle*state_imag_lo

@cuda.jit
def rotate_around_axis_kernel(num_amps_per_rank, real, imag, target, alpha_real, alpha_imag, beta_real, beta_imag):
    num_tasks = num_amps_per_rank >> 1

    size_half_block = 1 << target
    size_block      = 2 * size_half_block

    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return

    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo    = index_up + size_half_block

    # store current state vector values in temp variables
    state_real_up = real[index_up]
    state_imag_up = imag[index_up]

    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_up] = alpha_real * state_real_up - alpha_imag * state_imag_up - beta_real * state_real_lo - beta_imag * state_imag_lo
    imag[index_up] = alpha_real * state_imag_up + alpha_imag * state_real_up - beta_real * state_imag_lo + beta_imag * state_real_lo

    real[index_lo] = beta_real * state_real_up - beta_imag * state_imag_up + alpha_real * state_real_lo + alpha_imag * state_imag_lo
    imag[index_lo] = beta_real * state_imag_up + beta_imag * state_real_up + alpha_real * state_imag_lo - alpha_imag * state_real_lo

@cuda.jit
def rotate_around_axis_kernel(num_amps_per_rank, real, imag, target, alpha_real, alpha_imag, beta_real, beta_imag):
    num_tasks = num_amps_per_rank >> 1

    size_half_block = 1 << target
    size_block      = 2 * size_half_block

    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return

    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo    = index_up + size_half_block

    # store current state vector values in temp variables
    state_real_up = real[index_up]
    state_imag_up = imag[index_up]

    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_up] = alpha_real * state_real_up - alpha_imag * state_imag_up - beta_real * state_real_lo - beta_imag * state_imag_lo
    imag[index_up] = alpha_real * state_imag_up + alpha_imag * state_real_up - beta_real * state_imag_lo + beta_imag * state_real_lo

    real[index_lo] = beta_real * state_real_up - beta_imag * state_imag_up + alpha_real * state_real_lo + alpha_imag * state_imag_lo
    imag[index_lo] = beta_real * state_imag_up + beta_imag * state_real_up + alpha_real * state_imag_lo - alpha_imag * state_real_lo

@cuda.jit
def pauli_y_kernel(num_amps_per_rank, real, imag, target, conjFac):
    size_half_block = 1 << target
    size_block      = 2 * size_half_block
    num_tasks       = num_amps_per_rank >> 1
    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return
    
    this_block = this_task // size_half_block
    index_up   = this_block * size_block + this_task % size_half_block
    index_lo   = index_up + size_half_block

    state_real_up = real[index_up]
    state_imag_up = imag[index_up]

    # update under +-{{0, -i}, {i, 0}}
    real[index_up] = conjFac * imag[index_lo]
    imag[index_up] = conjFac * -real[index_lo]
    real[index_lo] = conjFac * -state_imag_up
    imag[index_lo] = conjFac * state_real_up

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402

NQ = 6
N = 1 << NQ


def _state(rng):
    psi = rng.standard_normal(N) + 1j * rng.standard_normal(N)
    psi /= np.linalg.norm(psi)
    return psi


def _apply1(psi, t, U):
    p = psi.reshape(-1, 2, 1 << t).copy()
    a, b = p[:, 0, :].copy(), p[:, 1, :].copy()
    p[:, 0, :] = U[0, 0] * a + U[0, 1] * b
    p[:, 1, :] = U[1, 0] * a + U[1, 1] * b
    return p.reshape(-1)


def make_args(rng):
    psi = _state(rng)
    return [N, psi.real.copy(), psi.imag.copy(), 0.7, 0.3 + 0.1j, -0.2 + 0.5j]


def reference(n, real, imag, angle, alpha, beta):
    psi = real + 1j * imag
    psi = _apply1(psi, 3, np.diag([1, np.exp(1j * angle)]))
    psi = _apply1(psi, 1, np.array([[alpha, -np.conj(beta)], [beta, np.conj(alpha)]]))
    psi = _apply1(psi, 0, np.array([[0, -1j], [1j, 0]]))
    psi = _apply1(psi, 4, -np.array([[0, -1j], [1j, 0]]))
    return {"real": psi.real, "imag": psi.imag}


def run(n, real, imag, angle, alpha, beta):
    threads_per_block = 128
    blocks_per_grid = math.ceil(n / threads_per_block)
    phase_shift_kernel[blocks_per_grid, threads_per_block](n, real, imag, 3, math.cos(angle), math.sin(angle))
    rotate_around_axis_kernel[blocks_per_grid, threads_per_block](n, real, imag, 1, alpha.real, alpha.imag,
                                                                 beta.real, beta.imag)
    pauli_y_kernel[blocks_per_grid, threads_per_block](n, real, imag, 0, 1)
    pauli_y_kernel[blocks_per_grid, threads_per_block](n, real, imag, 4, -1)


CASE = dict(kernel="phase_shift_kernel", args=["n", "real", "imag", "angle", "alpha", "beta"],
            outputs=["real", "imag"], rtol=1e-12, atol=1e-14)
