/* The CPU sanitizer: what a sanitized kernel's accesses and barriers are checked against.
 *
 * Every package's library links this in beside the worker pool (pool.py compiles both). A kernel's
 * sanitized entry (hatch_hybrid/targets/host/lowering/sanitize.py) calls hybrid_san1_access for every load, store
 * and atomic of an array element, and its driver calls hybrid_san1_sync after each round of a
 * block's threads and hybrid_san1_block after each block. The runtime (hybrid_runtime/sanitizer.py)
 * builds the state for one launch, which runs its blocks on the worker pool as a plain launch does, each participant with a state of its
 * own (its shared memory's region, its report) that shares the array arguments' regions with the
 * others, and reads the reports when the launch fails. Cells of array arguments are updated without
 * atomics: threads of two blocks only race on a cell where the kernel itself races (two reads of an
 * element leave one of the two reads, which is all a later write needs to find one).
 *
 * Memory is tracked in regions: the block's shared memory (one cell per granule of `1 << shift`
 * bytes) and each array argument (one cell per element; arguments that overlap share one region).
 * Addresses in no region (local arrays, constant tables) are not checked. A cell holds the last
 * write and two reads (the first of the window in which they are concurrent, and the last by another
 * thread), each as the thread's linear index in the grid plus one (0: none), the number of barriers
 * it had passed in its block (its epoch, modulo 2**16) and the site (bit 15: an atomic). So a write
 * finds a concurrent read by another thread whenever there is one. Two accesses by different threads
 * are concurrent when the threads are in different blocks or in the same epoch of one block: no
 * syncthreads() lies between them. Shared memory's cells count only for the block that made them
 * (a participant runs its blocks one at a time, each from fresh shared memory).
 */

#include <stdint.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

typedef struct {
    uint32_t tid;   /* the grid thread's index plus one (0: none) */
    uint16_t epoch; /* barriers its thread had passed, modulo 2**16 */
    uint16_t site;  /* its check site (bit 15: an atomic), at most 0x7FFF */
} access;

typedef struct {
    access write; /* the last write (site bit 15: an atomic) */
    access read;  /* the first read since the element could last be read safely */
    access other; /* the last read by another thread than `read`'s */
} cell;

typedef struct {
    char *lo, *hi;  /* the region's bytes */
    cell *shadow;   /* a cell per granule */
    int64_t shift;  /* granule = 1 << shift bytes */
    int64_t what;   /* -1: the block's shared memory; k: the k-th array argument the runtime lists */
} region;

/* What the sanitizer found first: these words, then the launch stops (hybrid_runtime/sanitizer.py). */
enum { FOUND, SITE, TID, HOW, OTHER_SITE, OTHER_TID, OTHER_HOW, WHAT, OFFSET, REPORT_WORDS };
/* findings */
enum { NONE, UNINITIALISED, RACE, BARRIER_EXIT, BARRIER_SITES };
/* how an element is accessed (targets/host/lowering/sanitize.py) */
enum { READ, WRITE, ATOMIC };
#define ATOMIC_SITE 0x8000u

typedef struct {
    int64_t report[REPORT_WORDS];
    int64_t pending[REPORT_WORDS]; /* the block's first read of shared memory not yet written */
    int64_t *error;     /* the launch's error slot */
    int64_t error_site; /* what a finding records in it */
    int64_t threads;    /* per block */
    region **params;    /* each kernel parameter's region (0: not an array, or one nobody writes), which
                         * sanitized code reads to check an access of a parameter's element inline */
    uint8_t *written;   /* a byte per granule of the block's shared memory (hybrid_san1_quiet) */
    int64_t nregions;
    region regions[];
} sanitizer;

static int32_t found(sanitizer *s, int64_t kind, int64_t site, int64_t tid, int64_t how, int64_t other_site,
                     int64_t other_tid, int64_t other_how, int64_t what, int64_t offset) {
    if (!s->report[FOUND]) {
        int64_t words[REPORT_WORDS] = {kind, site, tid, how, other_site, other_tid, other_how, what, offset};
        for (int k = 0; k < REPORT_WORDS; k++) s->report[k] = words[k];
        int64_t empty = 0;
        __atomic_compare_exchange_n(s->error, &empty, s->error_site, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    return 1;
}

/* Was the access made in this launch (shared memory: by this block)? */
static int counts(const access *a, int shared, uint64_t threads, uint64_t block) {
    return a->tid && (!shared || (a->tid - 1) / threads == block);
}

/* Is the access by another thread with no barrier between it and thread `me` in epoch `ep` of `block`? */
static int apart(const access *a, uint32_t me, uint16_t ep, uint64_t threads, uint64_t block) {
    return a->tid != me && ((a->tid - 1) / threads != block || a->epoch == ep);
}

/* An access of `nbytes` at `addr` by grid thread `tid` in its block's epoch `epoch`; `how_site` is
 * site << 2 | how. Returns 1 when it is a hazard (reported), else 0. */
EXPORT int32_t hybrid_san1_access(sanitizer *s, char *addr, int64_t nbytes, int64_t how_site, int64_t tid,
                                  int64_t epoch) {
    region *r = 0;
    for (int64_t k = 0; k < s->nregions; k++) {
        if (addr >= s->regions[k].lo && addr < s->regions[k].hi) {
            r = &s->regions[k];
            break;
        }
    }
    if (!r) return 0;
    int64_t how = how_site & 3;
    uint16_t site = (uint16_t)((how_site >> 2) & 0x7FFF);
    uint32_t me = (uint32_t)(tid + 1);
    uint16_t ep = (uint16_t)epoch;
    uint64_t threads = (uint64_t)s->threads, block = (uint64_t)tid / threads;
    int shared = r->what < 0;
    uint64_t first = (uint64_t)(addr - r->lo) >> r->shift;
    uint64_t last = (uint64_t)(addr + nbytes - 1 - r->lo) >> r->shift;
    uint64_t cells = (uint64_t)(r->hi - r->lo) >> r->shift;
    if (last >= cells) last = cells - 1;
    access now = {me, ep, site};
    int64_t offset = (int64_t)(addr - r->lo);
    for (uint64_t g = first; g <= last; g++) {
        cell *c = &r->shadow[g];
        int wrote = counts(&c->write, shared, threads, block);
        int w_atomic = (c->write.site & ATOMIC_SITE) != 0;
        if (shared && how != WRITE && !wrote && !s->pending[FOUND]) {
            /* reported when the block ends, unless a write by another thread before the next barrier
             * makes it a race (a missing syncthreads() between a write and the read) */
            int64_t words[REPORT_WORDS] = {UNINITIALISED, site, tid, how, 0, 0, 0, r->what, offset};
            for (int k = 0; k < REPORT_WORDS; k++) s->pending[k] = words[k];
        }
        if (wrote && apart(&c->write, me, ep, threads, block) && !(how == ATOMIC && w_atomic))
            return found(s, RACE, site, tid, how, c->write.site & (ATOMIC_SITE - 1), c->write.tid - 1,
                         w_atomic ? ATOMIC : WRITE, r->what, offset);
        if (how != READ) {
            for (access *a = &c->read; a <= &c->other; a++)
                if (counts(a, shared, threads, block) && apart(a, me, ep, threads, block))
                    return found(s, RACE, site, tid, how, a->site, a->tid - 1, READ, r->what, offset);
            c->write = now;
            if (how == ATOMIC) c->write.site = (uint16_t)(c->write.site | ATOMIC_SITE);
        } else if (!counts(&c->read, shared, threads, block) ||
                   (c->read.tid != me && !apart(&c->read, me, ep, threads, block))) {
            c->read = now; /* no read yet, or only ones a barrier separates from this thread */
            c->other.tid = 0;
        } else if (c->read.tid == me) {
            c->read = now;
        } else {
            c->other = now;
        }
    }
    return 0;
}

/* At the start of a stretch of code between barriers in which no thread of the block writes shared memory
 * (its first thread's index plus one: `first`): mark each granule of the block's shared memory that a
 * thread of the block has written in s->written (1; 0: not; granules in no shared array keep the 2 the
 * runtime put there). Returns 1 when every granule of a shared array is marked. A read of shared memory in
 * that stretch then passes when its granule is marked (targets/host/lowering/sanitize.py): no write of the stretch can
 * race with it, nor change the marks. */
EXPORT int32_t hybrid_san1_quiet(sanitizer *s, int64_t first) {
    if (!s->nregions || s->regions[0].what >= 0) return 1;
    region *r = &s->regions[0];
    uint64_t cells = ((uint64_t)(r->hi - r->lo) + ((uint64_t)1 << r->shift) - 1) >> r->shift;
    uint64_t threads = (uint64_t)s->threads;
    uint8_t all = 1;
    for (uint64_t g = 0; g < cells; g++) {
        uint8_t mark = s->written[g];
        if (mark == 2) continue;
        mark = (uint64_t)r->shadow[g].write.tid - (uint64_t)first < threads;
        s->written[g] = mark;
        all &= mark;
    }
    return all;
}

/* After each block: report the block's first read of shared memory that no thread wrote before it. */
EXPORT int32_t hybrid_san1_block(sanitizer *s) {
    if (!s->pending[FOUND]) return 0;
    int64_t *p = s->pending;
    return found(s, p[FOUND], p[SITE], p[TID], p[HOW], 0, 0, 0, p[WHAT], p[OFFSET]);
}

/* After a round of a block's threads (the block's first grid thread `first`): each thread's context
 * is `stride` bytes from the last in `frames`, with the words `status_word` (where it stopped:
 * `waiting` at a barrier, 0 at the kernel's end) and `state_word` (which barrier). Returns 1 when some
 * wait at a barrier that others ran past to the kernel's end, or at different barriers (reported).
 * A thread that left by `return` (another status) holds up no barrier, as an exited GPU thread. */
EXPORT int32_t hybrid_san1_sync(sanitizer *s, char *frames, int64_t stride, int64_t threads, int64_t first,
                                int64_t status_word, int64_t state_word, int64_t waiting) {
    int64_t waiter = -1, returned = -1;
    for (int64_t t = 0; t < threads; t++) {
        int64_t *ctx = (int64_t *)(void *)(frames + t * stride);
        if (ctx[status_word] == waiting) {
            if (waiter < 0) {
                waiter = t;
            } else {
                int64_t *other = (int64_t *)(void *)(frames + waiter * stride);
                if (other[state_word] != ctx[state_word])
                    return found(s, BARRIER_SITES, other[state_word], first + waiter, 0, ctx[state_word], first + t,
                                 0, 0, 0);
            }
        } else if (ctx[status_word] == 0 && returned < 0) {
            returned = t;
        }
    }
    if (waiter >= 0 && returned >= 0) {
        int64_t *ctx = (int64_t *)(void *)(frames + waiter * stride);
        return found(s, BARRIER_EXIT, ctx[state_word], first + waiter, 0, 0, first + returned, 0, 0, 0);
    }
    return 0;
}
