# =============================================================================
# Source : qudoor/qutrunk, qutrunk/backends/local/sim_gpu.py, kernels `find_prob_of_zero_kernel`, `collapse_to_know_prob_outcome_kernel`,
#          `get_probs_kernel`, `@cuda.jit` helper `extract_bit`
#          https://github.com/qudoor/qutrunk/blob/385f00ae04d33f3ad5b18cb23938c15846eb6f26/qutrunk/backends/local/sim_gpu.py
# License: Apache-2.0
# Project: QuTrunk (real)
# What   : measurement: probability of |0> on a qubit, collapse with renormalisation, per-amplitude probabilities
#          (if/elif on an int arg, extract_bit result * (1 << q) in a loop).
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
def find_prob_of_zero_kernel(num_amps_per_rank, real, imag, target, total_prob):
    num_task = num_amps_per_rank // 2
    size_half_block = 2**target
    size_block = size_half_block * 2

    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    if this_task>=num_task:
        return
    
    this_block = this_task // size_half_block
    index = this_block*size_block + this_task%size_half_block
    
    total_prob[this_task] = real[index] * real[index] + imag[index] * imag[index]

@cuda.jit
def collapse_to_know_prob_outcome_kernel(num_amps_per_rank, real, imag, target, outcome, outcome_prob):
    num_task = num_amps_per_rank >> 1
    size_half_block = 2**target
    size_block = size_half_block * 2

    renorm=1/math.sqrt(outcome_prob)
   
    this_task = cuda.grid(1)
    if (this_task >= num_task):
        return

    this_block = this_task // size_half_block
    index      = this_block * size_block + this_task % size_half_block

    if (outcome == 0):
        real[index] = real[index] * renorm
        imag[index] = imag[index] * renorm

        real[index+size_half_block] = 0
        imag[index+size_half_block] = 0
    elif (outcome == 1):
        real[index] = 0
        imag[index] = 0

        real[index+size_half_block] = real[index+size_half_block] * renorm
        imag[index+size_half_block] = imag[index+size_half_block] * renorm

@cuda.jit
def get_probs_kernel(num_amps_per_rank, real, imag, outcome_probs, dev_qubits, num_outcome_probs):
    # each thread handles one amplitude (all amplitudes are involved)
    amp_ind = cuda.grid(1)
    if (amp_ind >= num_amps_per_rank):
        return
    
    prob = real[amp_ind] * real[amp_ind] + imag[amp_ind] * imag[amp_ind]
    
    # each amplitude contributes to one outcome
    outcomeInd = 0
    for q in range(num_outcome_probs):
        outcomeInd += extract_bit(dev_qubits[q], amp_ind) * (1 << q)
    
    outcome_probs[amp_ind] += prob
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
def find_prob_of_zero_kernel(num_amps_per_rank, real, imag, target, total_prob):
    num_task = num_amps_per_rank // 2
    size_half_block = 2**target
    size_block = size_half_block * 2

    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    if this_task>=num_task:
        return
    
    this_block = this_task // size_half_block
    index = this_block*size_block + this_task%size_half_block
    
    total_prob[this_task] = real[index] * real[index] + imag[index] * imag[index]

@cuda.jit
def collapse_to_know_prob_outcome_kernel(num_amps_per_rank, real, imag, target, outcome, outcome_prob):
    num_task = num_amps_per_rank >> 1
    size_half_block = 2**target
    size_block = size_half_block * 2

    renorm=1/math.sqrt(outcome_prob)
   
    this_task = cuda.grid(1)
    if (this_task >= num_task):
        return

    this_block = this_task // size_half_block
    index      = this_block * size_block + this_task % size_half_block

    if (outcome == 0):
        real[index] = real[index] * renorm
        imag[index] = imag[index] * renorm

        real[index+size_half_block] = 0
        imag[index+size_half_block] = 0
    elif (outcome == 1):
        real[index] = 0
        imag[index] = 0

        real[index+size_half_block] = real[index+size_half_block] * renorm
        imag[index+size_half_block] = imag[index+size_half_block] * renorm

@cuda.jit
def get_probs_kernel(num_amps_per_rank, real, imag, outcome_probs, dev_qubits, num_outcome_probs):
    # each thread handles one amplitude (all amplitudes are involved)
    amp_ind = cuda.grid(1)
    if (amp_ind >= num_amps_per_rank):
        return
    
    prob = real[amp_ind] * real[amp_ind] + imag[amp_ind] * imag[amp_ind]
    
    # each amplitude contributes to one outcome
    outcomeInd = 0
    for q in range(num_outcome_probs):
        outcomeInd += extract_bit(dev_qubits[q], amp_ind) * (1 << q)
    
    outcome_probs[amp_ind] += prob

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
    return [N, psi.real.copy(), psi.imag.copy(), np.zeros(N // 2), np.zeros(N), np.array([2, 4], dtype=np.int64)]


def reference(n, real, imag, total_prob, outcome_probs, qubits):
    psi = real + 1j * imag
    p = np.abs(psi) ** 2
    idx0 = [i for i in range(N) if not (i >> 2) & 1]
    total_prob[:] = p[idx0]
    p0 = total_prob.sum()
    out = psi.copy()
    for i in range(N):
        if (i >> 2) & 1:
            out[i] = 0
        else:
            out[i] = psi[i] / np.sqrt(p0)
    outcome_probs[:] = np.abs(out) ** 2
    return {"real": out.real, "imag": out.imag, "total_prob": total_prob, "outcome_probs": outcome_probs}


def run(n, real, imag, total_prob, outcome_probs, qubits):
    threads_per_block = 128
    blocks_per_grid = math.ceil((n >> 1) / threads_per_block)
    find_prob_of_zero_kernel[blocks_per_grid, threads_per_block](n, real, imag, 2, total_prob)
    zero_prob = float(np.sum(total_prob))
    collapse_to_know_prob_outcome_kernel[blocks_per_grid, threads_per_block](n, real, imag, 2, 0, zero_prob)
    get_probs_kernel[math.ceil(n / threads_per_block), threads_per_block](n, real, imag, outcome_probs, qubits, 2)


CASE = dict(kernel="find_prob_of_zero_kernel", args=["n", "real", "imag", "total_prob", "outcome_probs", "qubits"],
            outputs=["real", "imag", "total_prob", "outcome_probs"], rtol=1e-12, atol=1e-14)
