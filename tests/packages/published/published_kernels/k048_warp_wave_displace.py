# =============================================================================
# 048_warp_wave_displace.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/warp, warp/examples/core/example_wave.py, kernel `wave_displace`
#          https://github.com/NVIDIA/warp/blob/9934a4eb2c503399140daab09d256ccc7236d1d8/warp/examples/core/example_wave.py
# License: Apache-2.0 (NVIDIA Warp)
# What   : 2-D grid flattened to 1-D tid; points inside a disc get height mag*sin(t) in two buffers.
# Port   : spelling only -- YES (wp.tid() -> gpu.global_tid_x(), wp.sin -> math.sin,
#          float(...) (Warp float32) -> f32(...), int/float annotations -> i32/f32)
# =============================================================================
# Original text: warp/examples/core/example_wave.py lines 36-62 @ 9934a4eb2c50 (dedented)
# Original text: warp/examples/core/example_wave.py lines 173-187 @ 9934a4eb2c50 (dedented)

ORIGINAL = r'''
@wp.kernel
def wave_displace(
    hcurrent: wp.array[float],
    hprevious: wp.array[float],
    width: int,
    height: int,
    center_x: float,
    center_y: float,
    r: float,
    mag: float,
    t: float,
):
    tid = wp.tid()

    x = tid % width
    y = tid // width

    dx = float(x) - center_x
    dy = float(y) - center_y

    dist_sq = float(dx * dx + dy * dy)

    if dist_sq < r * r:
        h = mag * wp.sin(t)

        hcurrent[tid] = h
        hprevious[tid] = h

# ...

wp.launch(
    kernel=wave_displace,
    dim=self.sim_width * self.sim_height,
    inputs=[
        self.sim_grid0,
        self.sim_grid1,
        self.sim_width,
        self.sim_height,
        self.cx,
        self.cy,
        10.0,
        self.grid_displace,
        -math.pi * 0.5,
    ],
)
'''

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, i32


@kernel
def wave_displace(
    hcurrent: Array[f32],
    hprevious: Array[f32],
    width: i32,
    height: i32,
    center_x: f32,
    center_y: f32,
    r: f32,
    mag: f32,
    t: f32,
):
    tid = gpu.global_tid_x()

    x = tid % width
    y = tid // width

    dx = f32(x) - center_x
    dy = f32(y) - center_y

    dist_sq = f32(dx * dx + dy * dy)

    if dist_sq < r * r:
        h = mag * math.sin(t)

        hcurrent[tid] = h
        hprevious[tid] = h


# ---- REFERENCE ---------------------------------------------------------------
W = H = 128                                  # sim_width, sim_height
CX = W / 2 + math.sin(0.3) * W / 3           # example: cx/cy follow sim_time; 0.3 picked here
CY = H / 2 + math.cos(0.3) * H / 3
R, MAG, T = 10.0, 0.5, -math.pi * 0.5


def make_args(rng):
    h0 = rng.random(W * H).astype(np.float32)
    h1 = rng.random(W * H).astype(np.float32)
    return [h0, h1, W, H, np.float32(CX), np.float32(CY), np.float32(R), np.float32(MAG), np.float32(T)]


def reference(hcurrent, hprevious, width, height, center_x, center_y, r, mag, t):
    tid = np.arange(width * height)
    dx = (tid % width).astype(np.float32) - center_x
    dy = (tid // width).astype(np.float32) - center_y
    inside = (dx * dx + dy * dy) < r * r
    h = np.float32(mag * np.sin(np.float32(t)))
    return {"hcurrent": np.where(inside, h, hcurrent).astype(np.float32),
            "hprevious": np.where(inside, h, hprevious).astype(np.float32)}


CASE = dict(
    threads=256, blocks=(W * H) // 256, shared_bytes=0,       # wp.launch(dim=W*H)
    args=["hcurrent", "hprevious", "width", "height", "center_x", "center_y", "r", "mag", "t"],
    outputs=["hcurrent", "hprevious"],
    rtol=1e-6, atol=1e-6,
    note="No bounds check (Warp launches exactly dim threads): blocks*threads must equal W*H.",
)
