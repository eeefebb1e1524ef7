# =============================================================================
# Source : qudoor/qutrunk, qutrunk/backends/local/sim_gpu.py, kernels `hadamard_kernel`, `controlled_not_kernel`,
#          `@cuda.jit` helper `extract_bit` (called from a kernel without device=True)
#          https://github.com/qudoor/qutrunk/blob/385f00ae04d33f3ad5b18cb23938c15846eb6f26/qutrunk/backends/local/sim_gpu.py
# License: Apache-2.0
# Project: QuTrunk (real)
# What   : state-vector Hadamard and CNOT gates on split real/imag float64 arrays (2**n, //, %).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

import numpy
from numba import cuda, float32

REAL_EPS = 1e-13

@cuda.jit
def extract_bit(ctrl, index):
    return (index & (2**ctrl)) // (2**ctrl)

@cuda.jit
def hadamard_kernel(num_amps_per_rank, real, imag, target_qubit):
    size_half_block = 2**target_qubit
    size_block = size_half_block * 2
    num_task = num_amps_per_rank // 2
    rec_root = 1.0 / math.sqrt(2)
        
    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    if this_task>=num_task:
        return

    this_block = this_task // size_half_block
    index_up = this_block*size_block + this_task%size_half_block
    index_lo = index_up + size_half_block

    state_real_up = real[index_up]
    state_imag_up = imag[index_up]
    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_up] = rec_root*(state_real_up + state_real_lo)
    imag[index_up] = rec_root*(state_imag_up + state_imag_lo)
    real[index_lo] = rec_root*(state_real_up - state_real_lo)
    imag[index_lo] = rec_root*(state_imag_up - state_imag_lo)

@cuda.jit
def controlled_not_kernel(num_amps_per_rank, real, imag, control_qubit, target_qubit):
    size_half_block = 2**target_qubit
    size_block = size_half_block * 2
    num_task = num_amps_per_rank // 2
    
    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    if this_task>=num_task:
        return
    
    this_block = this_task // size_half_block
    index_up = this_block*size_block + this_task%size_half_block
    index_lo = index_up + size_half_block
    
    control_bit = extract_bit(control_qubit, index_up)
    if control_bit:
        state_real_up = real[index_up]
        state_imag_up = imag[index_up]
        real[index_up] = real[index_lo]
        imag[index_up] = imag[index_lo]
        real[index_lo] = state_real_up
        imag[index_lo] = state_imag_up
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

import numpy
from hybrid_runtime import cuda, float32

REAL_EPS = 1e-13

@cuda.jit
def extract_bit(ctrl, index):
    return (index & (2**ctrl)) // (2**ctrl)

@cuda.jit
def hadamard_kernel(num_amps_per_rank, real, imag, target_qubit):
    size_half_block = 2**target_qubit
    size_block = size_half_block * 2
    num_task = num_amps_per_rank // 2
    rec_root = 1.0 / math.sqrt(2)
        
    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    if this_task>=num_task:
        return

    this_block = this_task // size_half_block
    index_up = this_block*size_block + this_task%size_half_block
    index_lo = index_up + size_half_block

    state_real_up = real[index_up]
    state_imag_up = imag[index_up]
    state_real_lo = real[index_lo]
    state_imag_lo = imag[index_lo]

    real[index_up] = rec_root*(state_real_up + state_real_lo)
    imag[index_up] = rec_root*(state_imag_up + state_imag_lo)
    real[index_lo] = rec_root*(state_real_up - state_real_lo)
    imag[index_lo] = rec_root*(state_imag_up - state_imag_lo)

@cuda.jit
def controlled_not_kernel(num_amps_per_rank, real, imag, control_qubit, target_qubit):
    size_half_block = 2**target_qubit
    size_block = size_half_block * 2
    num_task = num_amps_per_rank // 2
    
    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    if this_task>=num_task:
        return
    
    this_block = this_task // size_half_block
    index_up = this_block*size_block + this_task%size_half_block
    index_lo = index_up + size_half_block
    
    control_bit = extract_bit(control_qubit, index_up)
    if control_bit:
        state_real_up = real[index_up]
        state_imag_up = imag[index_up]
        real[index_up] = real[index_lo]
        imag[index_up] = imag[index_lo]
        real[index_lo] = state_real_up
        imag[index_lo] = state_imag_up

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
    return [N, psi.real.copy(), psi.imag.copy()]


def reference(n, real, imag):
    psi = real + 1j * imag
    psi = _apply1(psi, 2, np.array([[1, 1], [1, -1]]) / np.sqrt(2))
    out = psi.copy()
    for i in range(N):  # CNOT control 4, target 1
        if (i >> 4) & 1 and not (i >> 1) & 1:
            out[i], out[i | 2] = psi[i | 2], psi[i]
    psi = _apply1(out, 5, np.array([[1, 1], [1, -1]]) / np.sqrt(2))
    return {"real": psi.real, "imag": psi.imag}


def run(n, real, imag):
    threads_per_block = 128
    blocks_per_grid = math.ceil(n / threads_per_block)
    hadamard_kernel[blocks_per_grid, threads_per_block](n, real, imag, 2)
    controlled_not_kernel[blocks_per_grid, threads_per_block](n, real, imag, 4, 1)
    hadamard_kernel[blocks_per_grid, threads_per_block](n, real, imag, 5)


CASE = dict(kernel="hadamard_kernel", args=["n", "real", "imag"], outputs=["real", "imag"], rtol=1e-12, atol=1e-14)
