# =============================================================================
# Source : numba/nvidia-cuda-tutorial, session-1/mandelbrot/solutions/mandel_cuda.py,
#          kernel `create_fractal`, device function `mandel` (complex arithmetic)
#          https://github.com/numba/nvidia-cuda-tutorial/blob/d2ef2bc1e73eb0781313869b2e9d7e2ebc757aba/session-1/mandelbrot/solutions/mandel_cuda.py
# License: none stated (no LICENSE file in the repository)
# Project: numba nvidia-cuda-tutorial (tutorial)
# What   : Mandelbrot escape iteration counts over a 2-D grid into a uint8 image.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np

from numba import cuda


@cuda.jit(device=True)
def mandel(x, y, max_iters):
    """
    Given the real and imaginary parts of a complex number,
    determine if it is a candidate for membership in the Mandelbrot
    set given a fixed number of iterations.
    """
    i = 0
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i

    return 255


@cuda.jit
def create_fractal(min_x, max_x, min_y, max_y, image, iters):
    height = image.shape[0]
    width = image.shape[1]

    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height

    x, y = cuda.grid(2)

    if x < width and y < height:
        real = min_x + x * pixel_size_x
        imag = min_y + y * pixel_size_y
        color = mandel(real, imag, iters)
        image[y, x] = color
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

from hybrid_runtime import cuda


@cuda.jit(device=True)
def mandel(x, y, max_iters):
    """
    Given the real and imaginary parts of a complex number,
    determine if it is a candidate for membership in the Mandelbrot
    set given a fixed number of iterations.
    """
    i = 0
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i

    return 255


@cuda.jit
def create_fractal(min_x, max_x, min_y, max_y, image, iters):
    height = image.shape[0]
    width = image.shape[1]

    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height

    x, y = cuda.grid(2)

    if x < width and y < height:
        real = min_x + x * pixel_size_x
        imag = min_y + y * pixel_size_y
        color = mandel(real, imag, iters)
        image[y, x] = color


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [-2.0, 1.0, -1.0, 1.0, np.zeros((80, 120), dtype=np.uint8), 20]


def reference(min_x, max_x, min_y, max_y, image, iters):
    h, w = image.shape
    out = np.zeros_like(image)
    for y in range(h):
        for x in range(w):
            c = complex(min_x + x * ((max_x - min_x) / w), min_y + y * ((max_y - min_y) / h))
            z = 0.0j
            v = 255
            for i in range(iters):
                z = z * z + c
                if (z.real * z.real + z.imag * z.imag) >= 4:
                    v = i
                    break
            out[y, x] = v
    return {"image": out}


CASE = dict(kernel="create_fractal", griddim=(4, 3), blockdim=(32, 32),
            args=["min_x", "max_x", "min_y", "max_y", "image", "iters"], outputs=["image"])
