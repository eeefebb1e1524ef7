"""Warp calls in a block run as loops over its threads (:mod:`.fission`): a shuffle or vote is one
thread loop in which every active lane posts (its value, a shuffle's lane offset), then the reads.

A vote's word is made once per warp. A shuffle whose offset turns out the same for every lane
(``shfl_down(v, k)`` in a reduction, ``shfl_xor(v, 2**j)``) reads its sources unconditionally from
post arrays that keep room around them, so that its thread loop's loads are contiguous and it
vectorises (COX's warp calls as vector operations); other shuffles read lane by lane.
:class:`WarpCallLowerer` is the part of :class:`~.fission.FissionLowerer` that lowers them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir as llir

from ....lower.calls import lane_in_mask, shuffle_source_lane, shuffle_width
from ....lower.ops import I1, I8, I64, as_bits
from ....lower.parts import LowererParts
from ....typecheck.rules import MATCHES, SHUFFLES
from ....types import WEAK_INT
from .fission_pieces import Exchange
from .fission_state import FissionState
from .threads import _from_bits

_ZERO = llir.Constant(I64, 0)


class WarpCallLowerer(LowererParts):
    fs: FissionState | None
    thread_loop: Callable[..., None]  # from FissionLowerer
    count_loop: Callable[..., None]
    active: Callable[[llir.Value], llir.Value]
    thread_pointer: Callable[[tuple[Any, ...], llir.Type], llir.Value]
    slot_at: Callable[[tuple[Any, ...], llir.Type, llir.Value], llir.Value]

    def exchange(self, p: Exchange) -> None:
        """A shuffle or vote: every active lane posts its value, then every active lane reads. A vote's
        word is made once per warp; a shuffle whose lane offset turns out the same for every lane
        (``shfl_down(v, k)`` in a reduction, ``shfl_xor(v, 2**j)``) reads its sources with contiguous
        loads, so that the read loop vectorises; other shuffles read lane by lane."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        e, name = p.call, p.name
        value_t = self.tf.types[e.nid]
        masked = fs.mask is not None or fs.exits
        width = shuffle_width(self.tf, p.call) if name in SHUFFLES else 32
        # a shuffle that can take the contiguous path tracks its lanes' offsets while they post
        offsets: tuple[llir.Value, llir.Value] | None = None
        partial = e.mask is not None  # CUDA's partial mask: each lane's, kept beside its post ("xmask")
        if name in ("shfl_down", "shfl_up", "shfl_xor") and width == 32 and not partial:
            offsets = (self._alloca(I64, "xarg.min"), self._alloca(I64, "xarg.max"))
            b.store(llir.Constant(I64, 2**63 - 1), offsets[0])
            b.store(llir.Constant(I64, -(2**63)), offsets[1])

        def post(t: llir.Value, nxt: llir.Block) -> None:
            if masked:
                b.store(b.zext(self.active(t), I8), self.post_slot("posted", I8, t))
                go = self.fn.append_basic_block("post.run")
                b.cbranch(self.active(t), go, nxt)
                b.position_at_end(go)
            if partial:
                assert e.mask is not None
                b.store(self.coerce(e.mask, WEAK_INT), self.thread_pointer(("xmask",), I64))
            if name in MATCHES:
                bits = as_bits(b, self.coerce(e.args[0], self.tf.callees[e.nid].arg_types[0]))
            elif name in SHUFFLES:
                bits = as_bits(b, self.coerce(e.args[0], value_t))
                arg = self.coerce(e.args[1], WEAK_INT)
                b.store(arg, self.thread_pointer(("xarg",), I64))
                if offsets is not None:
                    low, high = (b.load(x, typ=I64) for x in offsets)
                    b.store(b.select(b.icmp_signed("<", arg, low), arg, low), offsets[0])
                    b.store(b.select(b.icmp_signed(">", arg, high), arg, high), offsets[1])
            else:
                bits = b.zext(self.condition(e.args[0]), I64)
            b.store(bits, self.post_slot("xval", I64, t))

        self.thread_loop(post, guard=False)
        if name in MATCHES:
            self.thread_loop(lambda t, nxt: self.store_to(p.stmt.target, self.matched(t, masked, partial), value_t))
            return
        if name not in SHUFFLES:
            self.vote_words(name, masked)
            self.thread_loop(lambda t, nxt: self.store_to(p.stmt.target, self.vote_result(name, t, partial), value_t))
            return
        done = self.fn.append_basic_block("shfl.done")
        if offsets is not None:
            d = b.load(offsets[0], typ=I64)
            fast = b.icmp_unsigned("==", d, b.load(offsets[1], typ=I64))  # one offset for the block
            fast = b.and_(fast, b.icmp_unsigned("<", d, llir.Constant(I64, 32)))  # (negative: unsigned, large)
            fast = b.and_(fast, b.icmp_unsigned(">=", fs.threads, llir.Constant(I64, 32)))  # (see post_slot)
            if name == "shfl_xor":  # a power of two: the source is this lane's index plus or minus it
                power = b.icmp_unsigned("==", b.and_(d, b.sub(d, llir.Constant(I64, 1))), _ZERO)
                fast = b.and_(fast, b.and_(power, b.icmp_unsigned("!=", d, _ZERO)))
            uniform, general = self.fn.append_basic_block("shfl.uniform"), self.fn.append_basic_block("shfl.general")
            b.cbranch(fast, uniform, general)
            b.position_at_end(uniform)
            self.thread_loop(
                lambda t, nxt: self.store_to(
                    p.stmt.target, _from_bits(b, self.shuffled(name, t, d, masked), value_t), value_t
                )
            )
            b.branch(done)
            b.position_at_end(general)

        def read(t: llir.Value, nxt: llir.Block) -> None:
            lane = b.and_(t, llir.Constant(I64, 31))
            mine = b.load(self.post_slot("xval", I64, t), typ=I64)
            arg = b.load(self.thread_pointer(("xarg",), I64), typ=I64)
            src = shuffle_source_lane(b, name, lane, arg, width)
            in_warp = b.icmp_unsigned("<", src, llir.Constant(I64, 32))
            if partial:  # a source outside this lane's mask: its own value
                in_warp = b.and_(in_warp, self.member(src))
            posted, theirs = self.lane_post(b.add(b.sub(t, lane), b.select(in_warp, src, lane)), t, masked)
            self.store_to(
                p.stmt.target, _from_bits(b, b.select(b.and_(in_warp, posted), theirs, mine), value_t), value_t
            )

        self.thread_loop(read)
        b.branch(done)
        b.position_at_end(done)

    def post_slot(self, key: str, ty: llir.Type, t: llir.Value) -> llir.Value:
        """Thread ``t``'s post (``key``: "xval", "posted") of a warp call. The array has room for three
        posts a thread; in blocks of 32 threads or more it keeps them from slot 32 on (``post_shift``),
        so that ``t - d`` and ``t + d`` (0 <= d < 32) are inside it and a shuffle reads them
        unconditionally (smaller blocks keep them from slot 0 and read lane by lane)."""
        assert self.fs is not None
        b, fs = self.b, self.fs
        index = b.add(t, fs.post_shift)
        return fs.frame.pointer(b, (key,), ty, fs.threads, index, room=llir.ArrayType(ty, 3))

    def lane_post(self, index: llir.Value, fallback: llir.Value, masked: bool) -> tuple[llir.Value, llir.Value]:
        """Whether the thread ``index`` exists and posted, and its post (``fallback``: the thread whose
        post is read where it does not exist)."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        exists = b.icmp_unsigned("<", index, fs.threads)
        safe = b.select(exists, index, fallback)
        value = b.load(self.post_slot("xval", I64, safe), typ=I64)
        posted = exists
        if masked:
            flag = b.load(self.post_slot("posted", I8, safe), typ=I8)
            posted = b.and_(exists, b.icmp_unsigned("!=", flag, llir.Constant(I8, 0)))
        return posted, value

    def shuffled(self, name: str, t: llir.Value, d: llir.Value, masked: bool) -> llir.Value:
        """Thread ``t``'s shuffle result (bits) when every lane's offset is ``d`` (0 <= d < 32) and the
        block has 32 threads or more: its own post, or the post ``d`` threads later (``shfl_down``),
        earlier (``shfl_up``) or either way (``shfl_xor``, ``d`` a power of two), where that lane is in
        the warp, exists and posted. The posts are read unconditionally (:meth:`post_slot`), so the
        thread loop's loads are contiguous and it vectorises."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        lane = b.and_(t, llir.Constant(I64, 31))
        mine = b.load(self.post_slot("xval", I64, t), typ=I64)
        ways: list[tuple[llir.Value, llir.Value]] = []  # (read it, the source thread)
        if name in ("shfl_down", "shfl_xor"):
            later = b.add(t, d)
            ok = b.icmp_unsigned("<", b.add(lane, d), llir.Constant(I64, 32))
            ok = b.and_(ok, b.icmp_unsigned("<", later, fs.threads))
            if name == "shfl_xor":
                ok = b.and_(ok, b.icmp_unsigned("==", b.and_(lane, d), _ZERO))
            ways.append((ok, later))
        if name in ("shfl_up", "shfl_xor"):
            ok = b.icmp_unsigned(">=", lane, d)
            if name == "shfl_xor":
                ok = b.icmp_unsigned("!=", b.and_(lane, d), _ZERO)
            ways.append((ok, b.sub(t, d)))
        result = mine
        for ok, src in ways:
            theirs = b.load(self.post_slot("xval", I64, src), typ=I64)
            if masked:  # a lane that did not post: the reader keeps its own value
                flag = b.load(self.post_slot("posted", I8, src), typ=I8)
                ok = b.and_(ok, b.icmp_unsigned("!=", flag, llir.Constant(I8, 0)))
            result = b.select(ok, theirs, result)
        return result

    def member(self, lane: llir.Value) -> llir.Value:
        """Whether ``lane`` is one of the lanes the running thread's partial mask names ("xmask")."""
        return lane_in_mask(self.b, self.b.load(self.thread_pointer(("xmask",), I64), typ=I64), lane)

    def matched(self, t: llir.Value, masked: bool, partial: bool = False) -> llir.Value:
        """Thread ``t``'s ``match_any``: the lanes of its warp that posted its bits (and are in its mask)."""
        b = self.b
        lane = b.and_(t, llir.Constant(I64, 31))
        base = b.sub(t, lane)
        mine = b.load(self.post_slot("xval", I64, t), typ=I64)
        lanes: llir.Value = _ZERO
        for k in range(32):
            posted, theirs = self.lane_post(b.add(base, llir.Constant(I64, k)), t, masked)
            if partial:
                posted = b.and_(posted, self.member(llir.Constant(I64, k)))
            bit = b.and_(posted, b.icmp_unsigned("==", theirs, mine))
            lanes = b.or_(lanes, b.shl(b.zext(bit, I64), llir.Constant(I64, k)))
        return lanes

    def vote_words(self, name: str, masked: bool) -> None:
        """Each warp's vote word (bit k: lane k's), made once per warp into slot ``w`` of an array."""
        assert self.fs is not None
        fs, b = self.fs, self.b

        def word(w: llir.Value) -> None:
            base = b.mul(w, llir.Constant(I64, 32))
            ballot: llir.Value = _ZERO
            for k in range(32):
                posted, theirs = self.lane_post(b.add(base, llir.Constant(I64, k)), base, masked)
                bit = b.and_(posted, b.icmp_unsigned("!=", theirs, _ZERO))
                if name == "all_":
                    bit = b.or_(bit, b.xor(posted, llir.Constant(I1, 1)))
                ballot = b.or_(ballot, b.shl(b.zext(bit, I64), llir.Constant(I64, k)))
            b.store(ballot, self.slot_at(("ballot",), I64, w))

        warps = b.udiv(b.add(fs.threads, llir.Constant(I64, 31)), llir.Constant(I64, 32))
        self.count_loop(_ZERO, warps, word, "warp")

    def vote_result(self, name: str, t: llir.Value, partial: bool = False) -> llir.Value:
        """Thread ``t``'s vote from its warp's word; with a partial mask, over the lanes the mask names."""
        assert self.fs is not None
        b = self.b
        ballot = b.load(self.slot_at(("ballot",), I64, b.lshr(t, llir.Constant(I64, 5))), typ=I64)
        if partial:
            members = b.load(self.thread_pointer(("xmask",), I64), typ=I64)
            if name == "all_":  # (the word: a lane that did not post counts as true)
                ballot = b.or_(ballot, b.xor(members, llir.Constant(I64, -1)))
            else:
                ballot = b.and_(ballot, members)
            ballot = b.and_(ballot, llir.Constant(I64, 0xFFFFFFFF))
        if name == "ballot":
            return ballot
        if name == "any_":
            return b.icmp_unsigned("!=", ballot, _ZERO)
        return b.icmp_unsigned("==", ballot, llir.Constant(I64, 0xFFFFFFFF))
