"""Other libraries' arrays against CuPy's RawKernel: the launch rows of ``benchmarks/suite.py`` that
issue 20's target compares, alone, so that a noisy host can be sampled several times in one call.

Each round times, in turns (``suite.interleaved``: 3000 launches, best of 7), a hatch-hybrid launch of
the empty 3- and 16-argument kernels given our own device arrays, CuPy, PyTorch, JAX and numba arrays,
and the RawKernel given the CuPy arrays and given the PyTorch tensors' ``data_ptr()`` (a RawKernel takes
no tensor), then prints each library's ratio to the RawKernel with the same arguments.
    python benchmarks/launch_foreign.py [--rounds 3]
"""

from __future__ import annotations

import argparse

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still calls it; NumPy 2.5 removed it
    np.row_stack = np.vstack  # type: ignore[attr-defined]

import cupy as cp  # noqa: E402
import hybrid_runtime as hr  # noqa: E402
import suite  # noqa: E402
from bench_kernels import kernels as hk  # noqa: E402
from numba import cuda  # noqa: E402

F32 = np.float32
SCALARS = (np.int32(1), np.int32(2), np.int32(3), np.int32(4), F32(1), F32(2), F32(3), F32(4))


def arrays() -> dict[str, list[object]]:
    """Eight 256-float device arrays of each library there is."""
    out: dict[str, list[object]] = {
        "DeviceArray": [hr.device_array(256, np.float32) for _ in range(8)],
        "CuPy": [cp.ones(256, dtype=cp.float32) for _ in range(8)],
        "numba": [cuda.to_device(np.ones(256, np.float32)) for _ in range(8)],
    }
    try:
        import torch

        out["PyTorch"] = [torch.ones(256, device="cuda") for _ in range(8)]
    except Exception as exc:  # noqa: BLE001 - a library missing or without a GPU: no column
        print(f"(no PyTorch: {exc})")
    try:
        import jax.numpy as jnp

        out["JAX"] = [jnp.ones(256, jnp.float32) for _ in range(8)]
    except Exception as exc:  # noqa: BLE001
        print(f"(no JAX: {exc})")
    return out


def one_round(mod: object, libs: dict[str, list[object]]) -> None:
    for nargs, kernel in ((3, hk.empty3), (16, hk.empty16)):
        arrays = 2 if nargs == 3 else 8
        args = {name: (*a[:arrays], *((np.int32(1),) if nargs == 3 else SCALARS)) for name, a in libs.items()}
        launcher = kernel[1, 32]
        raw = mod.get_function(f"empty{nargs}")  # type: ignore[attr-defined]
        runs = {f"hatch-hybrid ({name})": (lambda a=a: launcher(*a)) for name, a in args.items()}
        runs["RawKernel (CuPy)"] = lambda a=args["CuPy"]: raw((1,), (32,), a)
        if "PyTorch" in args:
            tensors = args["PyTorch"]
            runs["RawKernel (PyTorch data_ptr())"] = lambda t=tensors: raw(
                (1,), (32,), (*[x.data_ptr() for x in t[:arrays]], *t[arrays:])
            )
        rows = suite.interleaved(runs)
        ratios = []
        for name in args:
            if name == "DeviceArray":
                continue
            base = "RawKernel (PyTorch data_ptr())" if name == "PyTorch" else "RawKernel (CuPy)"
            ratios.append(f"{name} {rows[f'hatch-hybrid ({name})'] / rows[base]:.3f}")
        times = ", ".join(f"{k} {v:.2f}" for k, v in rows.items())
        print(f"{nargs} args (us): {times}\n  vs the RawKernel with the same arguments: {', '.join(ratios)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    mod = cp.RawModule(code=suite.CUDA_C, options=("--std=c++17",))
    libs = arrays()
    for _ in range(args.rounds):
        one_round(mod, libs)


if __name__ == "__main__":
    main()
