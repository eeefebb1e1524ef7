"""The thread context of host code, and the GPU intrinsics that read it.

On the host every lowered function takes one hidden first parameter, a pointer to the calling
thread's context: an array of i64 words (:data:`CTX`) holding the thread's and block's indices, the
launch's dimensions, the block's shared memory, the launch's error slot and, for kernels whose
threads meet at barriers, where the thread stopped. :mod:`hatch_hybrid.targets.host.driver` builds
the loops that fill it in.
"""

from __future__ import annotations

from llvmlite import ir as llir

from ....lower.ops import I64, PTR, Ops
from .record import host_record

# the words of a thread context
CTX = {
    **{f"thread_idx_{a}": k for k, a in enumerate("xyz")},
    **{f"block_idx_{a}": 3 + k for k, a in enumerate("xyz")},
    **{f"block_dim_{a}": 6 + k for k, a in enumerate("xyz")},
    **{f"grid_dim_{a}": 9 + k for k, a in enumerate("xyz")},
    "shared": 12,  # the block's static shared memory
    "dynamic": 13,  # the block's dynamic shared memory (shared_bytes= at launch) and its size
    "dynamic_size": 14,
    "error": 15,  # the launch's error slot: i64[4] (site, two values)
    "failed": 16,  # set when this thread failed a check: every function returns at once
    "state": 17,  # where a thread that stopped at a barrier resumes (0: at the start)
    "exchange": 18,  # the block's warp exchange buffers
    "exchanges": 19,  # warp exchanges this thread has done (its parity picks the buffer)
    "linear": 20,  # the thread's linear index in its block
    "threads": 21,  # threads per block
    "status": 22,  # the driver's record of where the thread stopped
    **{f"global_tid_{a}": 23 + k for k, a in enumerate("xyz")},  # block_idx * block_dim + thread_idx
    "print": 26,  # the launch's print buffer (see .printing)
    "sanitizer": 27,  # sanitized launches: the sanitizer's state (targets/host/sanitize.c)
    "epoch": 28,  # sanitized launches: the barriers this thread has passed in its block
    "grid": 29,  # a cooperative launch: its grid barrier (pool.c's hybrid_grid)
}
CTX_WORDS = 30  # a kernel whose threads meet keeps its locals right after its context (its frame)
#: the entry's combined atomics (.aggregate) take two words each from here: after the context and the range
#: words (thread_range.RANGE_WORDS), in the context the entry of a kernel whose threads never meet keeps
AGG_BASE = CTX_WORDS + 7
# what a kernel may read for the driver to run a row of blocks as one loop over global x
PER_BLOCK_X = {"thread_idx_x", "block_idx_x", "linear"}
EXCHANGE_SLOT = 4  # i64 words per lane and buffer: value, argument, tag, padding
EXCHANGE_BYTES = 2 * EXCHANGE_SLOT * 8  # per thread: two buffers, used in turn

# What a host kernel function returns to its driver; sanitized code tells a thread that left by `return`
# (EXITED: as on a GPU, it holds up no barrier) from one that ran to the end (DONE: it must have met
# every barrier the others wait at, see the sanitizer's synccheck)
DONE, FAILED, AT_BARRIER, AT_WARP, EXITED = 0, 1, 2, 3, 4


def combined_words(b: llir.IRBuilder, ctx: llir.Value, k: int) -> tuple[llir.Value, llir.Value]:
    """The entry's words of its combined atomic ``k`` (.aggregate): the combined value and the element's
    address (0: no thread reached it)."""
    value = b.gep(ctx, [llir.Constant(I64, AGG_BASE + 2 * k)], source_etype=I64)
    return value, b.gep(ctx, [llir.Constant(I64, AGG_BASE + 2 * k + 1)], source_etype=I64)


def ctx_slot(ops: Ops, ctx: llir.Value, word: str) -> llir.Value:
    return ops.b.gep(ctx, [llir.Constant(I64, CTX[word])], source_etype=I64)


def ctx_load(ops: Ops, ctx: llir.Value, word: str) -> llir.Value:
    host_record(ops.flavour).ctx_reads.add(word)
    return ops.b.load(ctx_slot(ops, ctx, word), typ=I64, align=8)


def ctx_pointer(ops: Ops, ctx: llir.Value, word: str) -> llir.Value:
    return ops.b.inttoptr(ctx_load(ops, ctx, word), PTR)


def ctx_store(ops: Ops, ctx: llir.Value, word: str, value: llir.Value) -> None:
    ops.b.store(value, ctx_slot(ops, ctx, word), align=8)


def special_register(ops: Ops, ctx: llir.Value, name: str) -> llir.Value:
    """``thread_idx_x`` ... ``global_size_z`` as i64, read from the thread context."""
    what, axis = name.rsplit("_", 1)
    b = ops.b
    if what == "global_tid":  # the driver keeps it: a row of blocks can then run as one loop
        value = ctx_load(ops, ctx, name)
        value.set_metadata("range", ops.module.add_metadata([llir.Constant(I64, 0), llir.Constant(I64, 2**62)]))
        return value
    if what == "global_size":
        grid, block = (special_register(ops, ctx, f"{w}_{axis}") for w in ("grid_dim", "block_dim"))
        return b.mul(grid, block, flags=["nuw", "nsw"])
    value = ctx_load(ops, ctx, name)
    # what CUDA guarantees (and the runtime checks): sizes positive, indices below them
    high = 1025 if what.startswith("thread") or what == "block_dim" else 2**31
    low = 1 if what.endswith("dim") else 0
    value.set_metadata("range", ops.module.add_metadata([llir.Constant(I64, low), llir.Constant(I64, high)]))
    return value


def lane_id(ops: Ops, ctx: llir.Value) -> llir.Value:
    return ops.b.and_(ctx_load(ops, ctx, "linear"), llir.Constant(I64, 31))


def threadfence(ops: Ops) -> None:
    ops.b.fence("seq_cst")


def shared_pointer(ops: Ops, ctx: llir.Value, offset: int) -> llir.Value:
    base = ctx_pointer(ops, ctx, "shared")
    ops.shared_bases.add(id(base))  # memory of its own: no kernel argument points into it (host.Frame)
    return ops.b.gep(base, [llir.Constant(I64, offset)], source_etype=llir.IntType(8)) if offset else base


def dynamic_shared(ops: Ops, ctx: llir.Value) -> tuple[llir.Value, llir.Value]:
    """The block's dynamic shared memory and its size in bytes."""
    base = ctx_pointer(ops, ctx, "dynamic")
    ops.shared_bases.add(id(base))
    return base, ctx_load(ops, ctx, "dynamic_size")


def exchange_slot(ops: Ops, ctx: llir.Value, parity: llir.Value, lane_linear: llir.Value) -> llir.Value:
    """The slot of thread ``lane_linear`` in exchange buffer ``parity`` (0 or 1) of the block."""
    b = ops.b
    threads = ctx_load(ops, ctx, "threads")
    index = b.add(b.mul(parity, threads), lane_linear)
    base = ctx_pointer(ops, ctx, "exchange")
    return b.gep(base, [b.mul(index, llir.Constant(I64, EXCHANGE_SLOT))], source_etype=I64)
