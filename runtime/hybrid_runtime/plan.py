"""Launch plans: everything about launching one kernel on one device that can be worked out once.

A plan lays the kernel's parameters out in a pre-allocated buffer (arrays as pointer, shape and
strides in elements), keeps a ``void*[]`` pointing into it, and holds a small argument packer
generated for this kernel's signature. The hot path for device arrays and plain scalars is then:
a few identity and dtype checks, one ``struct.pack_into``, and one ``cuLaunchKernel`` through the
driver's own entry point. Anything else (host NumPy arrays, ``__cuda_array_interface__`` or DLPack
objects, conversions, errors) takes the general path, which checks every argument and names the
parameter that is wrong. PyTorch, CuPy, numba and JAX arrays take it once per object: it leaves an
entry (``plan.foreign``) that later launches revalidate with the library's cheapest accessors.
"""

from __future__ import annotations

import ctypes
import operator
import struct
import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from .checks import ErrorSlot
from .config import LaunchConfig
from .device import CudaDevice, device_count, thread_state
from .driver import check, initialise, launch_function
from .interop import LIBRARIES, ArrayView, as_array_view, check_device, current_stream, fast_entry, same_stream
from .memory import DeviceArray, launch_signature, spans_index32
from .signature import Param, check_arguments, leaf_params
from .stream import stream_handle, wait_for
from .structs import STRUCT_MARK, is_struct, leaf_dtypes, leaves
from .targets import ENV_GET, ENV_KEY

_FORMAT = {
    "bool": "B",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "float16": "e",
    "float32": "f",
    "float64": "d",
}
_PY_TYPES = {"b": (bool,), "i": (int,), "u": (int,), "f": (float, int), "c": (complex, float, int)}


def _codes(p: Param) -> list[str]:
    """The parameter's pieces as struct codes: a scalar; a struct's fields; an array's pointer, shape, strides;
    a tuple's items'."""
    if p.kind == "tuple":
        return [code for item in p.items for code in _codes(item)]
    if p.kind == "array":
        return ["Q"] + ["q"] * (2 * p.ndim)
    if p.kind == "enum":
        return ["q"]
    return [_FORMAT[d.name] for d in leaf_dtypes(p.dtype)]


def _struct_leaves(value: Any) -> list[Any]:
    return [int(v) if isinstance(v, (bool, np.bool_)) else v for v in leaves(value)]


class LaunchPlan:
    def __init__(
        self,
        kernel: str,
        device: CudaDevice,
        function: Any,
        params: list[Param],
        slot: ErrorSlot | None = None,
        function32: Any = None,
        cooperative: bool = False,
    ) -> None:
        self.kernel = kernel
        self.cooperative = cooperative  # a grid-wide barrier: cuLaunchCooperativeKernel, every block resident
        self._resident: set[LaunchConfig] = set()  # configurations whose grid the GPU holds at once
        self.device = device
        self.params = params
        self.function = function
        # the kernel's 32-bit-index entry point, for launches whose arrays all span < 2**31 elements
        self.handle32 = initialise().CUfunction(function32) if function32 is not None else None
        self.slot = slot  # kernels with device-side checks: where a failure is reported
        fmt, offsets, pos = "<", [], 0
        for p in params:
            codes = _codes(p)
            for code in codes:
                size = struct.calcsize(code)
                pad = -pos % size
                fmt += "x" * pad + code
                offsets.append(pos + pad)
                pos += pad + size
        self.struct = struct.Struct(fmt)
        self._size, self._offsets = max(pos, 8), offsets
        # The fast path's buffer belongs to the thread that made the plan, so it needs no lock
        # (cuLaunchKernel copies the parameters before it returns); other threads take the general
        # path, which packs into a buffer of its own.
        self.owner = threading.get_ident()
        self.buffer, self.pointers = self._new_buffer()
        # other libraries' arrays checked by the general path, by id(): see interop.fast_entry
        self.foreign: dict[int, Any] = {}
        self._local = threading.local()
        self.handle = initialise().CUfunction(function)
        self.params_address = ctypes.addressof(self.pointers)
        device.ensure_current()  # the owner thread's context record exists before the first fast launch
        self.fast: Callable[..., bool] = _never
        self.make_launcher: Callable[..., Callable[..., Any]] = _never_make
        if not cooperative:  # (a cooperative launch checks its grid first: the general path)
            self.fast, self.make_launcher = _generate_fast_path(self)

    def _thread_buffer(self) -> tuple[Any, Any]:
        """This thread's parameter buffer for the general path (cuLaunchKernel copies the parameters
        before it returns, so one per thread is enough)."""
        found = getattr(self._local, "buffers", None)
        if found is None:
            found = self._local.buffers = self._new_buffer()
        return found

    def _new_buffer(self) -> tuple[Any, Any]:
        buffer = ctypes.create_string_buffer(self._size)
        base = ctypes.addressof(buffer)
        pointers = (ctypes.c_void_p * max(len(self._offsets), 1))(*[base + o for o in self._offsets])
        return buffer, pointers

    def launch_args(self, config: LaunchConfig, stream: int, params: int | None = None) -> tuple[Any, ...]:
        """cuLaunchKernel's arguments, made once per configuration; the parameter buffer (the plan's own
        unless ``params`` gives another) is refilled per launch."""
        address = self.params_address if params is None else params
        return (self.handle, *config.grid, *config.block, config.shared_bytes, stream, address, 0)

    # ----------------------------------------------------------- general path
    def launch(self, config: LaunchConfig, args: tuple[Any, ...], stream: Any) -> None:
        """Check and convert every argument, copy host arrays in (and back), launch."""
        if stream is None:  # PyTorch's or CuPy's current stream when their arrays are arguments
            handle = current_stream(args, self.device.ordinal) or 0
        else:
            handle = stream_handle(stream)
        values = check_arguments(self.kernel.rsplit(".", 1)[-1], self.params, args, handle)
        if self.cooperative:
            self._check_resident(config)  # (before any host array is copied in)
        params, values = leaf_params(self.params, values)  # a tuple's items are parameters of their own
        if params is not self.params:
            args = tuple(leaf_params(self.params, list(args))[1])
        flat: list[Any] = []
        small: list[bool] = []  # per array: do its offsets fit in 32 bits
        temporaries: list[tuple[DeviceArray, np.ndarray | None]] = []
        keep_alive: list[Any] = []
        producers: set[int] = set()
        entries: list[tuple[Any, ArrayView, Any, tuple[int, ...], bool, int]] = []  # other libraries' arrays
        for index, (p, a) in enumerate(zip(params, values)):
            if p.kind == "scalar":
                if p.dtype.kind == "c":
                    flat += (a.real, a.imag)
                else:
                    flat.append(a.item() if p.dtype.kind != "b" else int(a))
                continue
            if p.kind == "enum":
                flat.append(int(a))
                continue
            if p.kind == "struct":
                flat += _struct_leaves(a)
                continue
            if isinstance(a, np.ndarray):
                dev = DeviceArray(a.shape, a.dtype, self.device)
                dev.copy_from_host(a)
                temporaries.append((dev, a if p.writes else None))
                ptr, shape, strides = dev.ptr, dev.shape, dev.elem_strides
            elif isinstance(a, DeviceArray):
                if a.device is not self.device:
                    raise ValueError(
                        f"{self.kernel}(): parameter `{p.name}` is on cuda:{a.device.ordinal}, "
                        f"the launch on cuda:{self.device.ordinal}; copy it over first"
                    )
                ptr, shape, strides = a.ptr, a.shape, a.elem_strides
            else:
                view = a if isinstance(a, ArrayView) else as_array_view(a, handle)
                assert view is not None  # check_arguments accepted it as an array
                check_device(view, p.name, self.kernel, self.device, device_count())
                keep_alive.append(view)
                ptr, shape, strides = view.ptr, view.shape, view.elem_strides
                if view.stream is not None and not same_stream(view.stream, handle):
                    producers.add(view.stream)  # v3 interface: wait for the producer's stream
                if not isinstance(args[index], ArrayView):
                    signature = launch_signature(view.dtype, self.device, len(shape))
                    packed = (ptr, *shape, *strides)
                    entries.append((args[index], view, signature, packed, spans_index32(shape, strides), handle))
            flat += [ptr, *shape, *strides]
            small.append(spans_index32(tuple(shape), tuple(strides)))
        self.device.ensure_current()
        for producer in producers:
            wait_for(producer, handle, self.device)
        buffer, pointers = self._thread_buffer()
        self.struct.pack_into(buffer, 0, *flat)
        args = self.launch_args(config, handle, ctypes.addressof(pointers))
        if self.handle32 is not None and all(small):
            args = (self.handle32, *args[1:])
        if self.cooperative:
            (err,) = initialise().cuLaunchCooperativeKernel(*args[:-1])  # (no `extra` parameter)
        else:
            (err,) = launch_function()(*args)
        if err:
            self.fail(err)
        if temporaries:
            cu = initialise()
            check(cu.cuStreamSynchronize(handle), "cuStreamSynchronize", self.kernel)
            for dev, host in temporaries:
                if host is not None:
                    dev.copy_to_host(out=host)
                dev.free()
            if self.slot is not None:
                self.slot.take()  # the launch synchronised: report a failed check now
        elif self.slot is not None:
            self.device.pending[id(self.slot)] = self.slot
        for obj, view, signature, packed, fits, launched_on in entries:  # checked: later launches revalidate
            found = fast_entry(obj, view, signature, packed, fits, launched_on)
            if found is not None:
                if len(self.foreign) >= 256:
                    self.foreign.clear()
                self.foreign[id(obj)] = found
        del keep_alive  # DLPack views are released once the launch is queued; their owner keeps the memory

    def _check_resident(self, config: LaunchConfig) -> None:
        """A grid-wide barrier needs every block of the launch on the GPU at once: a ValueError naming how
        many fit, before anything runs (the driver would refuse the launch too). Checked once per
        configuration (the 32-bit-index entry point, when launched, has the same code and resources)."""
        if config in self._resident:
            return
        cu = initialise()
        threads = config.block[0] * config.block[1] * config.block[2]
        blocks = config.grid[0] * config.grid[1] * config.grid[2]
        self.device.ensure_current()
        err, per_sm = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(self.handle, threads, config.shared_bytes)
        check((err,), "cuOccupancyMaxActiveBlocksPerMultiprocessor", self.kernel)
        attr = cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
        err, sms = cu.cuDeviceGetAttribute(attr, self.device.handle)
        check((err,), "cuDeviceGetAttribute", self.kernel)
        if blocks > per_sm * sms:
            raise ValueError(
                f"{self.kernel}(): the kernel waits at a grid-wide barrier (cuda.cg.this_grid().sync()), so every "
                f"block must be on the GPU at once: {blocks} blocks of {threads} threads; {self.device.name} holds "
                f"{per_sm * sms} ({per_sm} per multiprocessor, {sms} multiprocessors). Launch fewer blocks "
                "(loop over the work in each thread)"
            )
        self._resident.add(config)

    def fail(self, err: Any) -> None:
        cu = initialise()
        check((cu.CUresult(int(err)),), "cuLaunchKernel", self.kernel)


def _never(args: Any, launch_args: Any) -> bool:
    return False


def _never_make(config: Any, stream: Any, env: Any, slow: Callable[..., Any], follow: bool) -> Callable[..., Any]:
    return slow


def _leaf_paths(cls: Any, prefix: str = "") -> list[str]:
    """``["pos.re", "pos.im", "mass"]``: the attribute paths of a struct's scalar fields, depth first (a
    complex field's real and imaginary parts: ``z.real``, ``z.imag``)."""
    out = []
    for name, convert in cls.__dict__[STRUCT_MARK].items():
        if is_struct(convert):
            out += _leaf_paths(convert, f"{prefix}{name}.")
        elif isinstance(convert, type) and issubclass(convert, np.complexfloating):
            out += [f"{prefix}{name}.real", f"{prefix}{name}.imag"]
        else:
            out.append(f"{prefix}{name}")
    return out


def _generate_fast_path(plan: LaunchPlan) -> tuple[Callable[..., bool], Callable[..., Callable[..., Any]]]:
    """Two functions generated for this kernel's signature.

    ``fast(args, launch_args) -> bool`` launches and returns True when every argument is a plain scalar or
    a device array of this device, else returns False (the general path then checks and names the
    parameter that is wrong).

    ``make(config, stream, env, slow, follow)`` returns ``launch(args)`` for one ``kernel[blocks, threads]``:
    the same checks with the ``$HYBRID_DEVICE`` and context checks inlined, other libraries' arrays
    accepted once the general path has checked them (revalidated per launch, see ``_array_checks``), a
    parameter buffer of its own that is re-packed only when an argument's packed values are not the very
    object of the previous launch, and anything else handed to ``slow(args)``. ``follow``: no ``stream=``
    was given, so the launch goes on PyTorch's or CuPy's current stream when their arrays are arguments.
    One Python frame per launch: the hot path of the runtime."""
    if any(p.kind == "tuple" for p in plan.params):
        return _never, _never_make  # tuples are checked item by item on the general path
    names = [f"a{i}" for i in range(len(plan.params))]
    env: dict[str, Any] = {
        "DeviceArray": DeviceArray,
        "device": plan.device,
        "ctx": plan.device.context,
        "tls": thread_state,
        "pack": plan.struct.pack_into,
        "buf": plan.buffer,
        "get_ident": threading.get_ident,
        "owner": plan.owner,
        "plan": plan,
        "struct_error": struct.error,
        "env_get": ENV_GET,
        "ENV_KEY": ENV_KEY,
        "handle32": plan.handle32,
        "addressof": ctypes.addressof,
        "launch": launch_function(),
        "libs": LIBRARIES,
        "foreign_get": plan.foreign.get,
        "wref": weakref.ref,
        "ordinal": plan.device.ordinal,
    }
    unpack = [f"if len(args) != {len(plan.params)}:", "    return NO"]
    if names:
        unpack.append(f"{', '.join(names)}{',' if len(names) == 1 else ''} = args")
    typed: list[str] = []  # checks by type (fast)
    mixed: list[str] = []  # the checks of make: device arrays, or other libraries' arrays checked before
    values: list[str] = []  # fast: what is packed
    make_values: list[str] = []  # make: the same, from the checks' variables
    keys: list[str | None] = []  # per parameter, what identifies its packed value (None: repack always)
    arrays: list[str] = []
    for i, p in enumerate(plan.params):
        a = names[i]
        if p.kind in ("struct", "enum"):
            if p.cls is None or any(d.kind == "b" for d in leaf_dtypes(p.dtype)):
                return _never, _never_make  # no class to check against (or booleans to convert)
            env[f"cls{i}"] = p.cls
            check = [f"if type({a}) is not cls{i}:", "    return NO"]
            typed += check
            mixed += check
            if p.kind == "enum":
                values.append(a)
                keys.append(a)
            else:
                env[f"get{i}"] = operator.attrgetter(*_leaf_paths(p.cls))
                values.append(f"*get{i}({a})")
                keys.append(None)  # fields can change between launches
            make_values.append(values[-1])
            continue
        if p.kind == "scalar":
            accepted = [f"type({a}) is {t.__name__}" for t in _PY_TYPES[p.dtype.kind]]
            env[f"np{i}"] = p.dtype.type
            accepted.append(f"type({a}) is np{i}")
            check = [f"if not ({' or '.join(accepted)}):", "    return NO"]
            typed += check
            mixed += check
            values.append(f"{a}.real, {a}.imag" if p.dtype.kind == "c" else a)  # complex: two parameters
            make_values.append(values[-1])
            keys.append(a)
        else:
            env[f"sig{i}"] = launch_signature(p.dtype, plan.device, p.ndim)
            typed += [f"if type({a}) is not DeviceArray or {a}._signature is not sig{i}:", "    return NO"]
            mixed += _array_checks(a, i)
            values.append(f"*{a}._flat")
            make_values.append(f"*f{i}")
            keys.append(f"f{i}")
            arrays.append(a)
    if plan.slot is not None:
        env["pending"], env["slot"], env["slot_id"] = plan.device.pending, plan.slot, id(plan.slot)
    common = [
        "if get_ident() != owner:",  # the buffers are the owner thread's; others take the general path
        "    return NO",
        "if tls.context is not ctx:",
        "    device.activate()",
    ]
    after = [
        "err, = launch(*LAUNCH_ARGS)",
        "if err:",
        "    plan.fail(err)",
        *(["pending[slot_id] = slot"] if plan.slot is not None else []),
        "return YES",
    ]
    # the 32-bit-index entry point when every array's offsets fit (DeviceArray._small), else the general one
    small = " and ".join(f"{a}._small" for a in arrays)
    make_small = " and ".join(f"m{names.index(a)}" for a in arrays)
    use32 = plan.handle32 is not None and bool(arrays)
    pack_all = f"pack(BUF, 0, {', '.join(values)})" if values else "pass"
    make_pack_all = f"pack(BUF, 0, {', '.join(make_values)})" if make_values else "pass"

    def body(lines: list[str], indent: str, no: str, yes: str, launch_args: str, buffer: str) -> list[str]:
        return [
            indent
            + line.replace("return NO", no)
            .replace("return YES", yes)
            .replace("LAUNCH_ARGS", launch_args)
            .replace("BUF", buffer)
            for line in lines
        ]

    fast_pack = ["try:", f"    {pack_all}", "except (struct_error, OverflowError):", "    return NO"]
    fast_args = f"((handle32, *launch_args[1:]) if {small} else launch_args)" if use32 else "launch_args"
    fast = ["def fast(args, launch_args):"] + body(
        unpack + typed + common + fast_pack + after, "    ", "return False", "return True", fast_args, "buf"
    )

    cached = [k for k in keys if k is not None] if None not in keys else []
    last = [f"k{i}" for i in range(len(cached))]
    make_args = f"(own_small if {make_small} else own_args)" if use32 else "own_args"
    # the stream: a launch without stream= follows PyTorch's (or CuPy's) current stream when their arrays
    # are arguments; arrays that need another stream than the launch's go to the general path
    streams = [
        "if follow:",
        "    st = ts if ts is not None else cs if cs is not None else 0",
        "else:",
        "    st = stream",
        "if (ts is not None and ts != st) or (cs is not None and cs != st) or (need is not None and need != st):",
        *([f"    {' = '.join(f'ow{names.index(a)}' for a in arrays)} = None"] if arrays else []),  # look them up again
        "    return NO",
        "if st != cur:",
        "    cur = st",
        "    own_args = plan.launch_args(config, st, own_address)",
        "    own_small = (handle32, *own_args[1:])",
        *([f"    {' = '.join(last)} = None"] if last else []),
    ]
    if cached:  # re-pack (and choose the entry point) only when an argument is not the object packed last time
        current = [f"c{i}" for i in range(len(cached))]
        make_pack = [f"{c} = {k}" for c, k in zip(current, cached)]
        make_pack += [
            f"if {' or '.join(f'{c} is not {k}' for c, k in zip(current, last))}:",
            "    try:",
            f"        {make_pack_all}",
            "    except (struct_error, OverflowError):",
            f"        {' = '.join(last)} = None  # the buffer may be half written",
            "        return NO",
            *[f"    {k} = {c}" for k, c in zip(last, current)],
            f"    chosen = {make_args}",
        ]
        last.append("chosen")
        make_args = "chosen"
    else:
        make_pack = ["try:", f"    {make_pack_all}", "except (struct_error, OverflowError):", "    return NO"]
    seen = [f"{x}{names.index(a)}" for a in arrays for x in ("ow", "oe", "ot")]  # _array_checks' last objects
    state = [*last, *seen, "cur", "own_args", "own_small"] if arrays else last
    make = [
        "def make(config, stream, env_value, slow, follow):",
        "    own_buf, own_ptrs = plan._new_buffer()",
        "    own_address = addressof(own_ptrs)",
        "    own_args = plan.launch_args(config, stream, own_address)",
        "    own_small = (handle32, *own_args[1:])",
        "    cur = stream",
        "    TorchT, CupyT, NumbaT, JaxT = libs.torch_tensor, libs.cupy_ndarray, libs.numba_array, libs.jax_array",
        "    torch_stream, cupy_stream = libs.torch_stream, libs.cupy_stream",
        *[f"    {k} = None" for k in [*last, *seen]],
        "    def launch_one(args):",
        *([f"        nonlocal {', '.join(state)}"] if state else []),
        "        if env_get(ENV_KEY) is not env_value:",
        "            return slow(args)",
    ]
    foreign_state = ["ts = cs = need = None"] if arrays else []
    make += body(
        unpack + foreign_state + mixed + (streams if arrays else []) + common + make_pack + after,
        "        ",
        "return slow(args)",
        "return",
        make_args,
        "own_buf",
    )
    make += [
        "    launch_one.buffers = own_buf, own_ptrs  # alive as long as the launch function",
        "    return launch_one",
    ]
    exec("\n".join(fast + make), env)  # noqa: S102 - generated from the kernel's own signature
    return env["fast"], env["make"]


def _array_checks(a: str, i: int) -> list[str]:
    """make's checks of array parameter ``i``: a device array by its interned signature; another
    library's array by the entry the general path left for this very object (``plan.foreign``, by id),
    revalidated with the library's cheapest accessors (anything checked or packed that can change in
    place: PyTorch's data_ptr()/shape/stride()/dtype; a CuPy array's entry holds a weak reference to it
    and its shape, the one thing of it that changes in place; numba and JAX arrays never change, their
    entry holds a weak reference). The launcher remembers the last such object at each position (``ow{i}``,
    a weak reference, ``oe{i}``, its entry, and ``ot{i}``, its type): the same object again skips its type's
    tests, the lookup by id and the identity check. Sets ``f{i}`` (the packed values) and ``m{i}`` (fits
    the 32-bit entry point); ``ts``/``cs``: PyTorch's/CuPy's current stream; ``need``: the stream a numba
    or JAX array's producer is ordered on."""
    lookup = [
        f"    t = type({a})",
        "    if t is DeviceArray:",
        f"        if {a}._signature is not sig{i}:",
        "            return NO",
        f"        f{i} = {a}._flat",
        f"        m{i} = {a}._small",
        "    else:",
        f"        e = foreign_get(id({a}))",
        f"        if e is None or e[0] is not sig{i}:",
        "            return NO",
        *_revalidate(a, i, "t", "        ", known=False),
        "        else:",
        "            return NO",
        f"        ow{i}, oe{i}, ot{i} = wref({a}), e, t",
        f"        f{i} = e[1]",
        f"        m{i} = e[2]",
    ]
    return [
        f"if ow{i} is not None and ow{i}() is {a}:",
        f"    e = oe{i}",
        *_revalidate(a, i, f"ot{i}", "    ", known=True),
        "    else:",
        f"        ow{i} = None",
        "        return NO",
        f"    f{i} = e[1]",
        f"    m{i} = e[2]",
        "else:",
        *lookup,
    ]


def _revalidate(a: str, i: int, t: str, indent: str, known: bool) -> list[str]:
    """The checks of another library's array ``a`` of type ``t`` against its entry ``e``; ``known``: the
    object of the last launch at this position, which the lookup proved to be the entry's own."""
    fail = [f"        ow{i} = None", "        return NO"]
    mine = "" if known else f" or e[3]() is not {a}"
    lines = [
        f"if {t} is CupyT:",
        f"    if {a}.shape != e[4]{mine}:",
        *fail,
        "    if cs is None:",
        "        cs = cupy_stream().ptr",
        f"elif {t} is TorchT:",
        f"    if {a}.data_ptr() != e[3] or {a}.shape != e[4] or {a}.stride() != e[5] or {a}.dtype is not e[6]:",
        *fail,
        "    if ts is None:",
        "        ts = torch_stream(ordinal)",
        f"elif {t} is NumbaT or {t} is JaxT:",
        f"    if ({t} is JaxT and {a}.is_deleted()){mine}:",
        *fail,
        "    if e[4] is not None:",
        "        if need is not None and need != e[4]:",
        "            return NO",
        "        need = e[4]",
    ]
    return [indent + line for line in lines]
