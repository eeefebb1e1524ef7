"""Scale-out with dask.distributed: one task per tile, each worker pinned to one GPU (or the CPU)."""

from __future__ import annotations

import re
import zlib

import numpy as np
from distributed import Client, WorkerPlugin, get_worker
from hybrid_demo.mandelbrot import DEFAULT_VIEW

from .tiles import render_tile, view_params

#: The device each worker of this process launches on, by worker address (set by PinDevice).
_pinned: dict[str, str] = {}


def worker_index(name: object) -> int:
    """A worker's number: LocalCluster names workers 0, 1, ...; other names count by their last
    digits (``gpu-worker-3``), else by a hash of the name."""
    if isinstance(name, int):
        return name
    digits = re.search(r"(\d+)$", str(name))
    return int(digits.group(1)) if digits else zlib.crc32(str(name).encode())


class PinDevice(WorkerPlugin):
    """Pins each worker to one device: worker i launches on ``cuda:(i mod gpus)``, or on the CPU
    when ``gpus`` is 0. Run one single-threaded worker per GPU for one context per process."""

    name = "hybrid-pin-device"

    def __init__(self, gpus: int) -> None:
        self.gpus = gpus

    def setup(self, worker) -> None:  # type: ignore[no-untyped-def]
        index = worker_index(worker.name)
        _pinned[worker.address] = f"cuda:{index % self.gpus}" if self.gpus else "cpu"

    def teardown(self, worker) -> None:  # type: ignore[no-untyped-def]
        _pinned.pop(worker.address, None)


def _pinned_here() -> dict[str, str]:
    return dict(_pinned)


def pinned_devices(client: Client) -> dict[str, str]:
    """The device each worker of ``client``'s cluster is pinned to, by worker address."""
    return {address: device for here in client.run(_pinned_here).values() for address, device in here.items()}


def _tile_task(tile: tuple[int, int, int, int], params: tuple, max_iter: int) -> tuple[np.ndarray, str]:
    device = _pinned.get(get_worker().address)  # None (auto) on a worker without the plugin
    return render_tile(tile, params, max_iter, device), device or "auto"


def tiles(width: int, height: int, tile: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """(row0, col0, rows, cols) of every tile of a ``width`` x ``height`` image, row by row."""
    rows, cols = tile
    corners = [(r, c) for r in range(0, height, rows) for c in range(0, width, cols)]
    return [(r, c, min(rows, height - r), min(cols, width - c)) for r, c in corners]


def render_tiled(
    client: Client,
    width: int,
    height: int,
    max_iter: int = 256,
    tile: tuple[int, int] = (512, 512),
    view: tuple[float, float, float, float] = DEFAULT_VIEW,
) -> tuple[np.ndarray, dict[str, int]]:
    """Escape counts of the whole image, one dask task per tile; and how many tiles each device rendered."""
    params = view_params(width, height, view)
    parts = tiles(width, height, tile)
    futures = [client.submit(_tile_task, part, params, max_iter, pure=False) for part in parts]
    image = np.empty((height, width), dtype=np.int32)
    used: dict[str, int] = {}
    for (row0, col0, rows, cols), (counts, device) in zip(parts, client.gather(futures)):
        image[row0 : row0 + rows, col0 : col0 + cols] = counts
        used[device] = used.get(device, 0) + 1
    return image, used
