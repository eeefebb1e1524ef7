"""Launch configuration: a small value that validates itself and names what is wrong."""

from __future__ import annotations

from typing import Any, Protocol

from ._records import Value, init

Dim3 = tuple[int, int, int]
MAX_THREADS_PER_BLOCK = 1024


def _dim3(value: Any, what: str) -> Dim3:
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"`{what}` must be an int or a tuple of 1 to 3 ints, got {value!r}")
    out = []
    for v in items:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"`{what}` must be an int or a tuple of 1 to 3 ints, got {value!r}")
        n = v.__index__()
        if n < 1:
            raise ValueError(f"`{what}` must be positive, got {value!r}")
        out.append(n)
    while len(out) < 3:
        out.append(1)
    return out[0], out[1], out[2]


class LaunchConfig(Value):
    """A launch's sizes (a value: equal, and hashed, by its fields; never changed once made)."""

    __slots__ = _fields = ("grid", "block", "shared_bytes")
    grid: Dim3  # blocks per grid
    block: Dim3  # threads per block
    shared_bytes: int

    def __init__(self, grid: Dim3, block: Dim3, shared_bytes: int = 0) -> None:
        init(self, "grid", grid)
        init(self, "block", block)
        init(self, "shared_bytes", shared_bytes)

    @classmethod
    def make(cls, threads: Any, blocks: Any, shared_bytes: int = 0) -> LaunchConfig:
        block = _dim3(threads, "threads")
        grid = _dim3(blocks, "blocks")
        if block[0] * block[1] * block[2] > MAX_THREADS_PER_BLOCK:
            raise ValueError(
                f"`threads` asks for {block[0] * block[1] * block[2]} threads per block; "
                f"the limit is {MAX_THREADS_PER_BLOCK}"
            )
        if block[2] > 64:
            raise ValueError(f"`threads` z dimension is {block[2]}; the limit is 64")
        if grid[1] > 65535 or grid[2] > 65535 or grid[0] > 2**31 - 1:
            raise ValueError(f"`blocks` {grid} exceeds the grid limits (2**31-1, 65535, 65535)")
        if not isinstance(shared_bytes, int) or isinstance(shared_bytes, bool) or shared_bytes < 0:
            raise ValueError(f"`shared_bytes` must be a non-negative int, got {shared_bytes!r}")
        return cls(grid, block, shared_bytes)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


class Launches(Protocol):
    """What a device calls on a kernel to launch it there (:class:`~.kernel.Kernel` has each; the devices
    of :mod:`.targets` know it by this, so that no device module imports the kernel's)."""

    def launch_cuda(self, target: Any, config: LaunchConfig, args: tuple[Any, ...], stream: Any) -> None: ...

    def launch_wgpu(self, config: LaunchConfig, args: tuple[Any, ...]) -> None: ...

    def launch_cpu(
        self, config: LaunchConfig, args: tuple[Any, ...], python: bool = False, sanitize: bool | None = None
    ) -> None: ...
