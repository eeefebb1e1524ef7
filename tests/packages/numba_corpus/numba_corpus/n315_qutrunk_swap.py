# =============================================================================
# Source : qudoor/qutrunk, qutrunk/backends/local/sim_gpu.py, kernel `swap_kernel`, `@cuda.jit` helpers `flip_bit`,
#          `insert_zero_bit`, `insert_two_zero_bits` (nested helper calls, no device=True)
#          https://github.com/qudoor/qutrunk/blob/385f00ae04d33f3ad5b18cb23938c15846eb6f26/qutrunk/backends/local/sim_gpu.py
# License: Apache-2.0
# Project: QuTrunk (real)
# What   : SWAP gate via bit insertion (shifts, xor, conditional expressions, `;`-separated statements).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

import numpy
from numba import cuda, float32


@cuda.jit
def flip_bit(number, bit_ind):
    return (number ^ (2**bit_ind))

@cuda.jit
def insert_zero_bit(number, index):
    left = (number >> index) << index
    right = number - left
    return (left << 1) ^ right

@cuda.jit
def insert_two_zero_bits(number, bit1, bit2):
    small = bit1 if bit1 < bit2 else bit2
    big = bit2 if bit1 < bit2 else bit1
    return insert_zero_bit(insert_zero_bit(number, small), big)

@cuda.jit
def swap_kernel(num_amps_per_rank, real, imag, target_0, target_1):
    num_tasks = num_amps_per_rank >> 2
    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return
    
    ind00 = insert_two_zero_bits(this_task, target_0, target_1)
    ind01 = flip_bit(ind00, target_0)
    ind10 = flip_bit(ind00, target_1)

    # extract statevec amplitudes 
    re01 = real[ind01]; im01 = imag[ind01]
    re10 = real[ind10]; im10 = imag[ind10]

    # swap 01 and 10 amps
    real[ind01] = re10; real[ind10] = re01
    imag[ind01] = im10; imag[ind10] = im01
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

import numpy
from hybrid_runtime import cuda, float32


@cuda.jit
def flip_bit(number, bit_ind):
    return (number ^ (2**bit_ind))

@cuda.jit
def insert_zero_bit(number, index):
    left = (number >> index) << index
    right = number - left
    return (left << 1) ^ right

@cuda.jit
def insert_two_zero_bits(number, bit1, bit2):
    small = bit1 if bit1 < bit2 else bit2
    big = bit2 if bit1 < bit2 else bit1
    return insert_zero_bit(insert_zero_bit(number, small), big)

@cuda.jit
def swap_kernel(num_amps_per_rank, real, imag, target_0, target_1):
    num_tasks = num_amps_per_rank >> 2
    this_task = cuda.grid(1)
    if (this_task >= num_tasks):
        return
    
    ind00 = insert_two_zero_bits(this_task, target_0, target_1)
    ind01 = flip_bit(ind00, target_0)
    ind10 = flip_bit(ind00, target_1)

    # extract statevec amplitudes 
    re01 = real[ind01]; im01 = imag[ind01]
    re10 = real[ind10]; im10 = imag[ind10]

    # swap 01 and 10 amps
    real[ind01] = re10; real[ind10] = re01
    imag[ind01] = im10; imag[ind10] = im01

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
    out = psi.copy()
    for i in range(N):  # swap qubits 1 and 4
        b1, b4 = (i >> 1) & 1, (i >> 4) & 1
        j = (i & ~((1 << 1) | (1 << 4))) | (b4 << 1) | (b1 << 4)
        out[j] = psi[i]
    return {"real": out.real, "imag": out.imag}


def run(n, real, imag):
    threads_per_block = 128
    blocks_per_grid = math.ceil((n >> 2) / threads_per_block)
    swap_kernel[blocks_per_grid, threads_per_block](n, real, imag, 1, 4)


CASE = dict(kernel="swap_kernel", args=["n", "real", "imag"], outputs=["real", "imag"])
