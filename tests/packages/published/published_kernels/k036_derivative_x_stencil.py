# =============================================================================
# 036_derivative_x_stencil.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, series/cuda-cpp/finite-difference/finite-difference.cu,
#          kernel `derivative_x` -- code for the NVIDIA blog post "Finite Difference Methods in
#          CUDA C/C++, Part 1"
#          https://github.com/NVIDIA-developer-blog/code-samples/blob/72d62ec464442786a36754508bcb1094d197d6a5/series/cuda-cpp/finite-difference/finite-difference.cu
# License: BSD-3-Clause (NVIDIA, header of the file)
# What   : 8th-order x-derivative on a 64^3 grid; 2-D shared tile s_f[4][64+8] with a
#          4-wide periodic halo filled by the first 4 threads.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source, translated line-for-line; the coefficients are
#   __constant__ symbols written by cudaMemcpyToSymbol from host code -- the port turns them
#   into module-level constants computed the same way (float32).
# =============================================================================
# Original text: series/cuda-cpp/finite-difference/finite-difference.cu lines 45-60 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/finite-difference/finite-difference.cu lines 76-86 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/finite-difference/finite-difference.cu lines 112-113 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/finite-difference/finite-difference.cu lines 205-234 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
float fx = 1.0f, fy = 1.0f, fz = 1.0f;
const int mx = 64, my = 64, mz = 64;

// shared memory tiles will be m*-by-*Pencils
// sPencils is used when each thread calculates the derivative at one point
// lPencils is used for coalescing in y and z where each thread has to 
//     calculate the derivative at mutiple points
const int sPencils = 4;  // small # pencils
const int lPencils = 32; // large # pencils

dim3 grid[3][2], block[3][2];

// stencil coefficients
__constant__ float c_ax, c_bx, c_cx, c_dx;
__constant__ float c_ay, c_by, c_cy, c_dy;
__constant__ float c_az, c_bz, c_cz, c_dz;

# ...

// stencil weights (for unit length problem)
float dsinv = mx-1.f;

float ax =  4.f / 5.f   * dsinv;
float bx = -1.f / 5.f   * dsinv;
float cx =  4.f / 105.f * dsinv;
float dx = -1.f / 280.f * dsinv;
checkCuda( cudaMemcpyToSymbol(c_ax, &ax, sizeof(float), 0, cudaMemcpyHostToDevice) );
checkCuda( cudaMemcpyToSymbol(c_bx, &bx, sizeof(float), 0, cudaMemcpyHostToDevice) );
checkCuda( cudaMemcpyToSymbol(c_cx, &cx, sizeof(float), 0, cudaMemcpyHostToDevice) );
checkCuda( cudaMemcpyToSymbol(c_dx, &dx, sizeof(float), 0, cudaMemcpyHostToDevice) );

# ...

grid[0][0]  = dim3(my / sPencils, mz, 1);
block[0][0] = dim3(mx, sPencils, 1);

# ...

__global__ void derivative_x(float *f, float *df)
{  
  __shared__ float s_f[sPencils][mx+8]; // 4-wide halo

  int i   = threadIdx.x;
  int j   = blockIdx.x*blockDim.y + threadIdx.y;
  int k  = blockIdx.y;
  int si = i + 4;       // local i for shared memory access + halo offset
  int sj = threadIdx.y; // local j for shared memory access

  int globalIdx = k * mx * my + j * mx + i;

  s_f[sj][si] = f[globalIdx];

  __syncthreads();

  // fill in periodic images in shared memory array 
  if (i < 4) {
    s_f[sj][si-4]  = s_f[sj][si+mx-5];
    s_f[sj][si+mx] = s_f[sj][si+1];   
  }

  __syncthreads();

  df[globalIdx] = 
    ( c_ax * ( s_f[sj][si+1] - s_f[sj][si-1] )
    + c_bx * ( s_f[sj][si+2] - s_f[sj][si-2] )
    + c_cx * ( s_f[sj][si+3] - s_f[sj][si-3] )
    + c_dx * ( s_f[sj][si+4] - s_f[sj][si-4] ) );
}
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32

mx, my, mz = 64, 64, 16  # the blog: 64 planes; 16 keep the Python path's test short (k = blockIdx.y: any count)
sPencils = 4
_dsinv = np.float32(mx - 1.0)
c_ax = np.float32(np.float32(4.0) / np.float32(5.0) * _dsinv)
c_bx = np.float32(np.float32(-1.0) / np.float32(5.0) * _dsinv)
c_cx = np.float32(np.float32(4.0) / np.float32(105.0) * _dsinv)
c_dx = np.float32(np.float32(-1.0) / np.float32(280.0) * _dsinv)


@kernel
def derivative_x(f: Array[f32], df: Array[f32]):
    s_f = gpu.shared_array(f32, (sPencils, mx + 8))  # 4-wide halo

    i = gpu.thread_idx_x()
    j = gpu.block_idx_x() * gpu.block_dim_y() + gpu.thread_idx_y()
    k = gpu.block_idx_y()
    si = i + 4        # local i for shared memory access + halo offset
    sj = gpu.thread_idx_y()  # local j for shared memory access

    globalIdx = k * mx * my + j * mx + i

    s_f[sj, si] = f[globalIdx]

    gpu.syncthreads()

    # fill in periodic images in shared memory array
    if i < 4:
        s_f[sj, si - 4] = s_f[sj, si + mx - 5]
        s_f[sj, si + mx] = s_f[sj, si + 1]

    gpu.syncthreads()

    df[globalIdx] = (
        c_ax * (s_f[sj, si + 1] - s_f[sj, si - 1])
        + c_bx * (s_f[sj, si + 2] - s_f[sj, si - 2])
        + c_cx * (s_f[sj, si + 3] - s_f[sj, si - 3])
        + c_dx * (s_f[sj, si + 4] - s_f[sj, si - 4]))


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    f = rng.random(mx * my * mz).astype(np.float32)
    return [f, np.zeros_like(f)]


def reference(f, df):
    g = f.reshape(mz, my, mx).astype(np.float64)
    # periodic with period mx-1 (point mx-1 duplicates point 0), 4-point halo each side
    ext = np.concatenate([g[..., mx - 5:mx - 1], g, g[..., 1:5]], axis=-1)
    c = [float(c_ax), float(c_bx), float(c_cx), float(c_dx)]
    d = sum(c[s - 1] * (ext[..., 4 + s:4 + s + mx] - ext[..., 4 - s:4 - s + mx]) for s in range(1, 5))
    return {"df": d.ravel().astype(np.float32)}


CASE = dict(
    threads=(mx, sPencils), blocks=(my // sPencils, mz), shared_bytes=0,   # grid[0][0], block[0][0]
    args=["f", "df"], outputs=["df"],
    rtol=1e-4, atol=2e-4 * float(_dsinv),
    note="Blog initialises f with a periodic cosine; random data is fine for the comparison.",
)
