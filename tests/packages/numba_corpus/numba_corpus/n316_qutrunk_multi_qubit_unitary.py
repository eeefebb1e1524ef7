# =============================================================================
# Source : qudoor/qutrunk, qutrunk/backends/local/sim_gpu.py, kernel `multi_controlled_multi_qubit_unitary_kernel`, `@cuda.jit`
#          helpers `insert_zero_bits`, `insert_zero_bit`, `extract_bit`, `flip_bit`
#          https://github.com/qudoor/qutrunk/blob/385f00ae04d33f3ad5b18cb23938c15846eb6f26/qutrunk/backends/local/sim_gpu.py
# License: Apache-2.0
# Project: QuTrunk (real)
# What   : controlled k-qubit unitary on a state vector: helper reassigning its parameter in a loop, len() of an
#          array, gridDim stride scratch buffers, `+=` into global arrays.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

import numpy
from numba import cuda, float32


@cuda.jit
def extract_bit(ctrl, index):
    return (index & (2**ctrl)) // (2**ctrl)

@cuda.jit
def flip_bit(number, bit_ind):
    return (number ^ (2**bit_ind))

@cuda.jit
def insert_zero_bit(number, index):
    left = (number >> index) << index
    right = number - left
    return (left << 1) ^ right

@cuda.jit
def insert_zero_bits(number, targets, targets_num):
    cur_min = targets[0]
    prev_min = -1
    for n in range(targets_num):
        for t in range(targets_num):
            if targets[t]>prev_min and targets[t]<cur_min:
                cur_min = targets[t]
    
        number = insert_zero_bit(number, cur_min)
        
        prev_min = cur_min
        for t in range(targets_num):
            if targets[t] > cur_min:
                cur_min = targets[t]
                break
        
    return number
     
@cuda.jit
def multi_controlled_multi_qubit_unitary_kernel(num_amps_per_rank, real, imag, ctrl_mask, targets, d_ureal, d_uimag, d_amp_inds, d_real_amps, d_imag_amps, unum_rows):
    targets_num = len(targets)
    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    num_task = num_amps_per_rank >> targets_num
    if this_task>=num_task:
        return

    ind00 = insert_zero_bits(this_task, targets, targets_num)
    if ctrl_mask and (ctrl_mask&ind00) != ctrl_mask:
        return
    
    stride = cuda.gridDim.x*cuda.blockDim.x
    offset = cuda.blockIdx.x*cuda.blockDim.x + cuda.threadIdx.x
    
    ind = 0
    for i in range(unum_rows):
        ind = ind00
        for t in range(targets_num):
            if extract_bit(t, i):
                ind = flip_bit(ind, targets[t])
        
        d_amp_inds[i*stride+offset] = ind
        d_real_amps [i*stride+offset] = real[ind]
        d_imag_amps [i*stride+offset] = imag[ind]
    
    for r in range(unum_rows):
        ind = d_amp_inds[r*stride+offset]
        real[ind] = 0
        imag[ind] = 0
        for c in range(unum_rows):
            u_real_elem = d_ureal[c + r*unum_rows]
            u_imag_elem = d_uimag[c + r*unum_rows]
            real[ind] += d_real_amps[c*stride+offset]*u_real_elem - d_imag_amps[c*stride+offset]*u_imag_elem
            imag[ind] += d_real_amps[c*stride+offset]*u_imag_elem + d_imag_amps[c*stride+offset]*u_real_elem
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

import numpy
from hybrid_runtime import cuda, float32


@cuda.jit
def extract_bit(ctrl, index):
    return (index & (2**ctrl)) // (2**ctrl)

@cuda.jit
def flip_bit(number, bit_ind):
    return (number ^ (2**bit_ind))

@cuda.jit
def insert_zero_bit(number, index):
    left = (number >> index) << index
    right = number - left
    return (left << 1) ^ right

@cuda.jit
def insert_zero_bits(number, targets, targets_num):
    cur_min = targets[0]
    prev_min = -1
    for n in range(targets_num):
        for t in range(targets_num):
            if targets[t]>prev_min and targets[t]<cur_min:
                cur_min = targets[t]
    
        number = insert_zero_bit(number, cur_min)
        
        prev_min = cur_min
        for t in range(targets_num):
            if targets[t] > cur_min:
                cur_min = targets[t]
                break
        
    return number
     
@cuda.jit
def multi_controlled_multi_qubit_unitary_kernel(num_amps_per_rank, real, imag, ctrl_mask, targets, d_ureal, d_uimag, d_amp_inds, d_real_amps, d_imag_amps, unum_rows):
    targets_num = len(targets)
    this_task = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x
    num_task = num_amps_per_rank >> targets_num
    if this_task>=num_task:
        return

    ind00 = insert_zero_bits(this_task, targets, targets_num)
    if ctrl_mask and (ctrl_mask&ind00) != ctrl_mask:
        return
    
    stride = cuda.gridDim.x*cuda.blockDim.x
    offset = cuda.blockIdx.x*cuda.blockDim.x + cuda.threadIdx.x
    
    ind = 0
    for i in range(unum_rows):
        ind = ind00
        for t in range(targets_num):
            if extract_bit(t, i):
                ind = flip_bit(ind, targets[t])
        
        d_amp_inds[i*stride+offset] = ind
        d_real_amps [i*stride+offset] = real[ind]
        d_imag_amps [i*stride+offset] = imag[ind]
    
    for r in range(unum_rows):
        ind = d_amp_inds[r*stride+offset]
        real[ind] = 0
        imag[ind] = 0
        for c in range(unum_rows):
            u_real_elem = d_ureal[c + r*unum_rows]
            u_imag_elem = d_uimag[c + r*unum_rows]
            real[ind] += d_real_amps[c*stride+offset]*u_real_elem - d_imag_amps[c*stride+offset]*u_imag_elem
            imag[ind] += d_real_amps[c*stride+offset]*u_imag_elem + d_imag_amps[c*stride+offset]*u_real_elem

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
    targets = np.array([3, 0], dtype=np.int64)
    k = len(targets)
    rows = 1 << k
    m = rng.standard_normal((rows, rows)) + 1j * rng.standard_normal((rows, rows))
    U, _ = np.linalg.qr(m)
    threads, blocks = 128, math.ceil((N >> k) / 128)
    grid_size = threads * blocks
    ctrl_mask = 1 << 5
    return [N, psi.real.copy(), psi.imag.copy(), ctrl_mask, targets, U.real.reshape(-1).copy(),
            U.imag.reshape(-1).copy(), np.zeros(rows * grid_size, np.int64), np.zeros(rows * grid_size),
            np.zeros(rows * grid_size), rows]


def reference(n, real, imag, ctrl_mask, targets, ureal, uimag, amp_inds, ramps, iamps, rows):
    psi = real + 1j * imag
    U = (ureal + 1j * uimag).reshape(rows, rows)
    out = psi.copy()
    tmask = sum(1 << int(t) for t in targets)
    for i0 in range(N):
        if i0 & tmask or (i0 & ctrl_mask) != ctrl_mask:
            continue
        idx = [i0 | sum(((c >> t) & 1) << int(targets[t]) for t in range(len(targets))) for c in range(rows)]
        out[idx] = U @ psi[idx]
    return {"real": out.real, "imag": out.imag}


def run(n, real, imag, ctrl_mask, targets, ureal, uimag, amp_inds, ramps, iamps, rows):
    threads_per_cuda_block = 128
    cuda_blocks = math.ceil((n >> len(targets)) / threads_per_cuda_block)
    multi_controlled_multi_qubit_unitary_kernel[cuda_blocks, threads_per_cuda_block](
        n, real, imag, ctrl_mask, targets, ureal, uimag, amp_inds, ramps, iamps, rows)


CASE = dict(kernel="multi_controlled_multi_qubit_unitary_kernel",
            args=["n", "real", "imag", "ctrl_mask", "targets", "ureal", "uimag", "amp_inds", "ramps", "iamps", "rows"],
            outputs=["real", "imag"], rtol=1e-12, atol=1e-13)
