# =============================================================================
# 045_nbody_block.py -- hatch-hybrid kernel corpus candidate
# Source : harrism/mini-nbody, cuda/nbody-block.cu, kernel `bodyForce` (shared-memory tiled
#          all-pairs n-body, the GPU Gems 3 ch. 31 "tile_calculation" scheme)
#          https://github.com/harrism/mini-nbody/blob/38fda6717eb2f5ae1a4c59e66a1150f5881b7fad/cuda/nbody-block.cu
# License: Apache-2.0 (mini-nbody LICENSE)
# What   : each block stages BLOCK_SIZE body positions in shared memory per tile, every thread
#          accumulates softened gravitational force on its body, then v += dt*F.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; arrays of float4 and a __shared__ float3[] tile
#   (vector types / array of structs) -> the port uses (n, 4) float32 arrays and a (BLOCK_SIZE, 3)
#   shared array; rsqrtf(x) -> 1 / math.sqrt(x) (no rsqrt in the spelling table).
# =============================================================================
# Original text: cuda/nbody-block.cu lines 6-9 @ 38fda6717eb2 (dedented)
# Original text: cuda/nbody-block.cu lines 17-44 @ 38fda6717eb2 (dedented)
# Original text: cuda/nbody-block.cu lines 64-64 @ 38fda6717eb2 (dedented)
# Original text: cuda/nbody-block.cu lines 71-71 @ 38fda6717eb2 (dedented)

ORIGINAL = r'''
#define BLOCK_SIZE 256
#define SOFTENING 1e-9f

typedef struct { float4 *pos, *vel; } BodySystem;

# ...

__global__
void bodyForce(float4 *p, float4 *v, float dt, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    float Fx = 0.0f; float Fy = 0.0f; float Fz = 0.0f;

    for (int tile = 0; tile < gridDim.x; tile++) {
      __shared__ float3 spos[BLOCK_SIZE];
      float4 tpos = p[tile * blockDim.x + threadIdx.x];
      spos[threadIdx.x] = make_float3(tpos.x, tpos.y, tpos.z);
      __syncthreads();

      for (int j = 0; j < BLOCK_SIZE; j++) {
        float dx = spos[j].x - p[i].x;
        float dy = spos[j].y - p[i].y;
        float dz = spos[j].z - p[i].z;
        float distSqr = dx*dx + dy*dy + dz*dz + SOFTENING;
        float invDist = rsqrtf(distSqr);
        float invDist3 = invDist * invDist * invDist;

        Fx += dx * invDist3; Fy += dy * invDist3; Fz += dz * invDist3;
      }
      __syncthreads();
    }

    v[i].x += dt*Fx; v[i].y += dt*Fy; v[i].z += dt*Fz;
  }
}

# ...

int nBlocks = (nBodies + BLOCK_SIZE - 1) / BLOCK_SIZE;

# ...

bodyForce<<<nBlocks, BLOCK_SIZE>>>(d_p.pos, d_p.vel, dt, nBodies);
'''

# ---- PORT (translation) ----------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, i32

BLOCK_SIZE = 256
SOFTENING = 1e-9


@kernel
def bodyForce(p: Array[f32, 2], v: Array[f32, 2], dt: f32, n: i32):
    i = gpu.block_dim_x() * gpu.block_idx_x() + gpu.thread_idx_x()
    if i < n:
        Fx = f32(0.0)
        Fy = f32(0.0)
        Fz = f32(0.0)

        for tile in range(gpu.grid_dim_x()):
            spos = gpu.shared_array(f32, (BLOCK_SIZE, 3))
            src = tile * gpu.block_dim_x() + gpu.thread_idx_x()
            spos[gpu.thread_idx_x(), 0] = p[src, 0]       # make_float3(tpos.x, tpos.y, tpos.z)
            spos[gpu.thread_idx_x(), 1] = p[src, 1]
            spos[gpu.thread_idx_x(), 2] = p[src, 2]
            gpu.syncthreads()

            for j in range(BLOCK_SIZE):
                dx = spos[j, 0] - p[i, 0]
                dy = spos[j, 1] - p[i, 1]
                dz = spos[j, 2] - p[i, 2]
                distSqr = dx * dx + dy * dy + dz * dz + f32(SOFTENING)
                invDist = f32(1.0) / math.sqrt(distSqr)   # rsqrtf
                invDist3 = invDist * invDist * invDist

                Fx += dx * invDist3
                Fy += dy * invDist3
                Fz += dz * invDist3
            gpu.syncthreads()

        v[i, 0] += dt * Fx
        v[i, 1] += dt * Fy
        v[i, 2] += dt * Fz


# ---- REFERENCE ---------------------------------------------------------------
NBODIES, DT = 1024, 0.01          # n must be a multiple of BLOCK_SIZE (tile loads are unguarded)


def make_args(rng):
    p = (2.0 * rng.random((NBODIES, 4)) - 1.0).astype(np.float32)   # randomizeBodies: U(-1, 1)
    v = (2.0 * rng.random((NBODIES, 4)) - 1.0).astype(np.float32)
    return [p, v, np.float32(DT), NBODIES]


def reference(p, v, dt, n):
    pos = p[:n, :3].astype(np.float64)
    d = pos[None, :, :] - pos[:, None, :]                 # d[i, j] = p_j - p_i
    inv = 1.0 / np.sqrt((d * d).sum(-1) + SOFTENING)
    F = (d * (inv ** 3)[..., None]).sum(axis=1)
    out = v.astype(np.float64).copy()
    out[:n, :3] += float(dt) * F
    return {"v": out.astype(np.float32)}


CASE = dict(
    threads=BLOCK_SIZE, blocks=(NBODIES + BLOCK_SIZE - 1) // BLOCK_SIZE, shared_bytes=0,
    args=["p", "v", "dt", "n"], outputs=["v"],
    rtol=2e-3, atol=1e-2,
    note=("float32 sums of 1024 terms with near-singular close pairs: compare with a loose "
          "tolerance; column 3 (w) of p and v is untouched."),
)
