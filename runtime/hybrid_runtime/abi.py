"""The ABI between compiled kernels and this runtime, defined once: the compiler (hatch_hybrid) imports
these names when it lowers and emits kernels, and the runtime reads the code it loads by them.

* GPU modules: the globals the runtime finds by name after a launch (a failed check's site and values,
  the print buffer) and the suffix of a kernel's 32-bit-index entry point.
* WebGPU shaders: the error buffer's words (binding 1) and the uniform's fixed fields.
* Native CPU libraries: the launch words, the i64 array the worker pool hands each block's call of a
  kernel's entry (its grid and block sizes and the addresses of its memory).
"""

from __future__ import annotations

ERROR_SLOT = "hybrid_error"  # i64[4] global: the failed check's site and two values (checks.ErrorSlot)
PRINT_BUFFER = "hybrid_print"  # the print buffer global: u64 cursor, u64 dropped records, the records
PRINT_HEADER = 16  # the bytes before the print buffer's records
INDEX32_SUFFIX = "__i32"  # a kernel's entry point whose offsets are computed in 32 bits
#: The TypeError of a helper's None result used as a number, on every path (the Python path converts the
#: value it uses with the conversion named NOT_NONE, which raises this)
NONE_USED = "None is used as a number here (a helper returned it: test the result with `is None` first)"
NOT_NONE = "not-None"
PYTHON_NUMBER = "python-"  # a conversion to a Python number of this kind (python-float: float(value))
OPTIONAL = "optional:"  # a conversion's dtype with this prefix: a value that may be None, converted where it is not

#: A WebGPU shader's error buffer: u32 words [site, a low, a high, b low, b high, failures]; the first
#: failure (the one that takes the count from 0) writes the record.
WGSL_ERROR_WORDS = 6
#: The uniform's trailing fields (name, WGSL type): the grid's size in blocks, then a word that is always 0
#: (a value the shader's compiler cannot see: the FMA barrier, bit identities).
WGSL_GRID_FIELDS = (("hh_gx", "u32"), ("hh_gy", "u32"), ("hh_gz", "u32"), ("hh_zero", "u32"))

#: The launch words of a native kernel's entry, by index (``grid`` and ``block`` are three words each).
LAUNCH = {
    "grid": 0,  # x, y, z
    "block": 3,  # x, y, z
    "shared": 6,  # this OS thread's block memory: static shared, then dynamic shared
    "dynamic": 7,
    "dynamic_size": 8,
    "error": 9,  # i64[4]: the launch's error slot
    "frames": 10,  # kernels with barriers: per thread, its context then its locals (frame_bytes each)
    "exchange": 11,  # kernels with warp calls: the exchange buffers, per thread
    "print": 12,  # kernels that print: the launch's print buffer
    "sanitizer": 13,  # sanitized launches: the sanitizer's state (sanitize.c)
    "grid_barrier": 14,  # cooperative launches: the grid barrier (pool.c's hybrid_grid)
}
LAUNCH_WORDS = 15
#: A cooperative launch's grid barrier (pool.c): its i64 words (the runtime's zeroed memory), the blocks
#: that meet at it, and the pool's functions that set it up, wait at it and give up on it
GRID_BARRIER_WORDS = 32
GRID_INIT, GRID_WAIT, GRID_LEAVE = "hybrid_grid1_init", "hybrid_grid1_wait", "hybrid_grid1_leave"
GRID_ABORT = "hybrid_grid1_abort"

#: The CPU sanitizer's state (``hatch_hybrid/targets/host/sanitize.c``), one per participant of a sanitized
#: launch, by i64 word: the report and a pending initcheck (``SANITIZER_REPORT`` words each), then the
#: error slot's address, the site a finding records there, the threads per block, the table of each kernel
#: parameter's region (an address per parameter, 0: not an array, or one that nobody writes), the map of
#: the block's shared memory (a byte per granule: 1 written by the block, as last found by
#: ``hybrid_san1_quiet``; 0 not; 2 in no shared array), the number of regions, then the regions
#: (``SANITIZER_REGION_WORDS`` each: lo, hi, shadow, shift, what), the block's shared memory first where
#: the kernel has any. Sanitized code reads the table, the map and the regions to check most accesses
#: without a call (``hatch_hybrid/targets/host/lowering/sanitize.py``).
SANITIZER_REPORT = 9
SANITIZER_PARAMS = 2 * SANITIZER_REPORT + 3
SANITIZER_WRITTEN = SANITIZER_PARAMS + 1
SANITIZER_REGIONS = SANITIZER_PARAMS + 3
SANITIZER_REGION_WORDS = 5
#: A shadow cell (one per granule of a region): three accesses (the last write, two reads), each an i64 of
#: the grid thread's index plus one (low 32 bits; 0: none), its epoch (16 bits) and its site (15 bits;
#: bit 63: an atomic).
SANITIZER_CELL_BYTES = 24
#: The version of this layout, which a package's manifest records beside its sanitized entries: a runtime
#: runs those only when it lays the state out the same way.
SANITIZER_LAYOUT = 2
