/* The worker pool of the native CPU libraries: the blocks of one launch spread over persistent threads.
 *
 * Every package's library links this in (hatch_hybrid/backend/host/pool.py compiles it per target);
 * the runtime (hybrid_runtime/native.py) uses the copy of the first library it loads for the
 * kernels of every package. No C library is needed: no malloc (the runtime allocates all memory and
 * passes pointers), no thread-locals, no thread creation (the runtime starts the workers as Python
 * threads that call hybrid_pool1_work and never come back). Waiting is a futex on Linux (raw system
 * calls), pthread mutex and condition variables on macOS, SRW locks and condition variables on
 * Windows (kernel32).
 *
 * One launch is one call of hybrid_pool1_launch: the calling thread is participant 0, workers join
 * as participants 1, 2, ... up to the number asked for (never more than the launch has chunks of
 * blocks: a 1-block launch wakes no worker). The blocks are split into as many parts as participants,
 * each with an atomic counter; each participant takes chunks of blocks from its own part first (halving
 * towards the part's end, down to single blocks: guided self-scheduling; the
 * caller part 0, worker k part k: the same blocks fall to the same thread at every launch, as with
 * OpenMP's static schedule, so that they find their data in that core's caches), then from the others
 * in turn (work stealing: a late or slow thread's blocks are not waited for). Each participant
 * builds its own launch words from the job's template at the start of its own memory (memory +
 * participant * stride), the words flagged in `relative` being offsets into that memory (its
 * shared, dynamic shared, frames and exchange buffers). An entry that returns nonzero (a failed
 * check) stops every participant from taking another chunk; the launch returns that value
 * once every participant has finished. One launch holds the workers at a time: a launch made while
 * another holds them runs on its caller's thread alone. Workers spin for about 50 microseconds
 * before they sleep, so that back-to-back launches find them awake.
 */

#include <stdatomic.h>
#include <stdint.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif
#if defined(__APPLE__)
#include <pthread.h>
#endif

#if defined(_WIN32) && defined(__x86_64__)
/* The stack probe LLVM calls (MinGW's name) in the prologue of a function whose frame is larger than a
 * page (a kernel's local array of a few KiB): Windows grows a thread's stack a guard page at a time, so
 * the pages below the stack pointer are touched in order before the function subtracts the size
 * (in rax) itself. Preserves every register. libgcc's and compiler-rt's, which -nostdlib leaves out. */
__asm__(".text\n"
        ".globl ___chkstk_ms\n"
        "___chkstk_ms:\n"
        "    pushq %rcx\n"
        "    pushq %rax\n"
        "    cmpq $0x1000, %rax\n"
        "    leaq 24(%rsp), %rcx\n" /* the caller's stack pointer */
        "    jb 1f\n"
        "2:\n"
        "    subq $0x1000, %rcx\n"
        "    testq %rcx, (%rcx)\n"
        "    subq $0x1000, %rax\n"
        "    cmpq $0x1000, %rax\n"
        "    ja 2b\n"
        "1:\n"
        "    subq %rax, %rcx\n"
        "    testq %rcx, (%rcx)\n"
        "    popq %rax\n"
        "    popq %rcx\n"
        "    retq\n");
#endif

typedef int32_t (*hybrid_entry)(void **params, int64_t *launch, int64_t first_block, int64_t end_block);

/* What the runtime passes: every field 8 bytes (hybrid_runtime.native packs it with struct). */
typedef struct {
    hybrid_entry entry;
    void **params;
    const int64_t *words; /* the launch words' template */
    int64_t nwords;       /* at most MAX_WORDS */
    int64_t relative;     /* bit k set: words[k] is an offset into the participant's memory */
    int64_t blocks;
    int64_t chunk;        /* blocks taken at a time */
    int64_t participants; /* at most this many threads, the caller's included */
    char *memory;         /* participant k's: memory + k * stride, its launch words first */
    int64_t stride;
} hybrid_job;

#define MAX_WORDS 16
#define MAX_PARTICIPANTS 0xFFFF /* the claim word counts them in 16 bits */
#define SPIN_MICROSECONDS 50
#define MAX_PARTS 256 /* of a launch's blocks, one per participant (see struct run) */

/* ------------------------------------------------------------------ waiting */

/* A 32-bit word threads wait on until it changes (a futex, or a condition variable beside it). */
typedef struct {
    atomic_uint word;
#if defined(_WIN32)
    CONDITION_VARIABLE changed;
#elif defined(__APPLE__)
    pthread_cond_t changed;
#endif
} event;

#if defined(__linux__)
static long futex(atomic_uint *word, long op, long value) {
#if defined(__x86_64__)
    long ret;
    register long timeout __asm__("r10") = 0;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"(202L), "D"(word), "S"(op), "d"(value), "r"(timeout)
                     : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = 98;
    register long x0 __asm__("x0") = (long)word;
    register long x1 __asm__("x1") = op;
    register long x2 __asm__("x2") = value;
    register long x3 __asm__("x3") = 0;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
#error "pool.c: no futex system call for this architecture"
#endif
}

#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

static void event_reset(event *e) { atomic_store(&e->word, 0); }

/* Sleep while the word holds `seen` (or return early: callers check again). */
static void park(event *e, unsigned seen) { futex(&e->word, FUTEX_WAIT_PRIVATE, (long)seen); }

/* Wake up to `n` of the threads parked on the word (after changing it). */
static void wake(event *e, unsigned n) { futex(&e->word, FUTEX_WAKE_PRIVATE, (long)n); }

#elif defined(__APPLE__)
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void event_reset(event *e) {
    static const pthread_cond_t fresh = PTHREAD_COND_INITIALIZER;
    atomic_store(&e->word, 0);
    e->changed = fresh;
}

static void park(event *e, unsigned seen) {
    pthread_mutex_lock(&lock);
    if (atomic_load(&e->word) == seen) pthread_cond_wait(&e->changed, &lock);
    pthread_mutex_unlock(&lock);
}

static void wake(event *e, unsigned n) {
    pthread_mutex_lock(&lock); /* a thread between its check and its wait is in the wait once we have the lock */
    pthread_mutex_unlock(&lock);
    while (n--) pthread_cond_signal(&e->changed);
}

#elif defined(_WIN32)
static SRWLOCK lock = SRWLOCK_INIT;

static void event_reset(event *e) {
    atomic_store(&e->word, 0);
    InitializeConditionVariable(&e->changed);
}

static void park(event *e, unsigned seen) {
    AcquireSRWLockExclusive(&lock);
    if (atomic_load(&e->word) == seen) SleepConditionVariableSRW(&e->changed, &lock, INFINITE, 0);
    ReleaseSRWLockExclusive(&lock);
}

static void wake(event *e, unsigned n) {
    AcquireSRWLockExclusive(&lock);
    ReleaseSRWLockExclusive(&lock);
    while (n--) WakeConditionVariable(&e->changed);
}
#else
#error "pool.c: no way to wait on this operating system"
#endif

/* A clock for spinning: the time-stamp counter (about 3 GHz) on x86-64, the generic timer on arm64. */
static uint64_t ticks(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    uint64_t t;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
    return t;
#endif
}

static uint64_t spin_ticks(void) {
#if defined(__x86_64__)
    return 3000ull * SPIN_MICROSECONDS;
#else
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz / 1000000 * SPIN_MICROSECONDS;
#endif
}

static void relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#else
    __asm__ volatile("isb" ::: "memory");
#endif
}

/* Spin, then sleep, until the word is no longer `seen` (`parked`: set while this thread sleeps, so that
 * the thread changing the word knows to wake it). Returns the new value. */
static unsigned wait_change(event *e, unsigned seen, atomic_uint *parked) {
    uint64_t start = ticks(), budget = spin_ticks();
    unsigned now;
    while ((now = atomic_load_explicit(&e->word, memory_order_acquire)) == seen) {
        if (ticks() - start < budget) {
            relax();
            continue;
        }
        atomic_fetch_add(parked, 1);
        if (atomic_load(&e->word) == seen) park(e, seen);
        atomic_fetch_sub(parked, 1);
    }
    return now;
}

/* ------------------------------------------------------------------ the pool */

/* The blocks are split into one part per participant (at most MAX_PARTS), each with its own counter;
 * a participant takes chunks from its home part first, then from the others in turn. A part's counter
 * only grows, up to its end. */
struct part {
    _Alignas(64) _Atomic uint64_t next; /* the first block of the part not yet taken */
    uint64_t end;
};

struct run {
    const hybrid_job *job;
    uint64_t chunk; /* blocks taken at a time (the job's, at least 1) */
    uint64_t parts;
    struct part *part; /* the pool's, for the launch that holds the workers; else the caller's one */
    _Alignas(64) atomic_int status; /* the first nonzero result of an entry */
};

static struct {
    _Alignas(64) atomic_uint busy;   /* a launch holds the workers */
    _Alignas(64) event start;        /* word: the generation, one per launch handed to the workers */
    atomic_uint sleeping;            /* workers parked on start */
    _Alignas(64) _Atomic uint64_t claim; /* generation << 32 | wanted << 16 | joined (the caller included) */
    struct run *_Atomic current;     /* the run of that generation */
    _Alignas(64) event done;         /* word: workers that have finished the current launch */
    atomic_uint caller_parked;       /* the launching thread sleeps on done */
    atomic_uint workers;             /* started: each one's number, from 1 */
    struct part part[MAX_PARTS];     /* of the launch that holds the workers */
} pool
#if defined(__APPLE__) /* a zeroed pthread_cond_t is not a condition variable there */
    = {.start = {.changed = PTHREAD_COND_INITIALIZER}, .done = {.changed = PTHREAD_COND_INITIALIZER}}
#endif
;

/* Take chunks of blocks, from part `home` first, then from the parts after it in turn, until none is
 * left or an entry failed; this participant's launch words and block memory are at the start of its
 * memory (slot). A part's counter only grows: one pass over the parts finds every block. */
static void participate(struct run *r, int64_t slot, uint64_t home) {
    const hybrid_job *job = r->job;
    char *base = job->memory + slot * job->stride;
    int64_t *words = (int64_t *)(void *)base;
    int64_t nwords = job->nwords < MAX_WORDS ? job->nwords : MAX_WORDS;
    for (int64_t k = 0; k < nwords; k++)
        words[k] = job->words[k] + (((job->relative >> k) & 1) ? (int64_t)(intptr_t)base : 0);
    uint64_t chunk = r->chunk;
    for (uint64_t k = 0; k < r->parts; k++) {
        struct part *p = &r->part[(home + k) % r->parts];
        uint64_t first = atomic_load_explicit(&p->next, memory_order_relaxed);
        while (!atomic_load_explicit(&r->status, memory_order_relaxed)) {
            if (first >= p->end) break;
            /* guided: half of what the part has left, at most a chunk, at least a block, so that the
             * last blocks of a part go one by one to whoever is free (a grid's costly blocks at its
             * end, or few blocks per participant, are not left to one thread while the others wait) */
            uint64_t take = (p->end - first) / 2;
            take = take > chunk ? chunk : take < 1 ? 1 : take;
            if (!atomic_compare_exchange_weak_explicit(&p->next, &first, first + take, memory_order_relaxed,
                                                       memory_order_relaxed))
                continue; /* (first is the counter's value now) */
            uint64_t end = first + take;
            int32_t status = job->entry(job->params, words, (int64_t)first, (int64_t)end);
            if (status) {
                int expected = 0;
                atomic_compare_exchange_strong(&r->status, &expected, status);
                return;
            }
            first = atomic_load_explicit(&p->next, memory_order_relaxed);
        }
    }
}

/* Split the job's blocks into `parts` runs of whole chunks, as even as they go, kept in `part`. */
static void split(struct run *r, struct part *part, uint64_t parts) {
    uint64_t blocks = (uint64_t)r->job->blocks, chunk = r->chunk;
    uint64_t chunks = blocks / chunk + (blocks % chunk != 0), each = chunks / parts, more = chunks % parts;
    r->parts = parts;
    r->part = part;
    uint64_t first = 0; /* in chunks: the first `more` parts have one more (no product can overflow) */
    for (uint64_t k = 0; k < parts; k++) {
        uint64_t end = first + each + (k < more);
        atomic_init(&r->part[k].next, first * chunk);
        r->part[k].end = end < chunks ? end * chunk : blocks;
        first = end;
    }
}

/* Run the job's blocks; returns 0, or the first nonzero result of the entry. */
EXPORT int32_t hybrid_pool1_launch(const hybrid_job *job) {
    struct run r;
    r.job = job;
    r.chunk = job->chunk > 0 ? (uint64_t)job->chunk : 1;
    atomic_init(&r.status, 0);
    if (job->blocks <= 0) return 0;
    int64_t chunk = (int64_t)r.chunk;
    int64_t wanted = job->blocks / chunk + (job->blocks % chunk != 0);
    if (wanted > job->participants) wanted = job->participants;
    if (wanted > MAX_PARTICIPANTS) wanted = MAX_PARTICIPANTS;
    unsigned idle = 0;
    if (wanted <= 1 || !atomic_compare_exchange_strong(&pool.busy, &idle, 1)) {
        struct part one;
        split(&r, &one, 1);
        participate(&r, 0, 0); /* nothing to share, or the workers are another launch's: this thread alone */
        return atomic_load(&r.status);
    }
    split(&r, pool.part, (uint64_t)(wanted < MAX_PARTS ? wanted : MAX_PARTS));
    atomic_store_explicit(&pool.current, &r, memory_order_relaxed);
    atomic_store_explicit(&pool.done.word, 0, memory_order_relaxed);
    unsigned generation = atomic_load_explicit(&pool.start.word, memory_order_relaxed) + 1;
    uint64_t open = (uint64_t)generation << 32 | (uint64_t)wanted << 16;
    atomic_store_explicit(&pool.claim, open | 1, memory_order_release);
    atomic_store(&pool.start.word, generation);
    unsigned sleeping = atomic_load(&pool.sleeping);
    if (sleeping) wake(&pool.start, sleeping < wanted - 1 ? sleeping : (unsigned)(wanted - 1));
    participate(&r, 0, 0);
    /* no worker joins from here on; wait for those that did */
    unsigned joined = (unsigned)(atomic_exchange(&pool.claim, open | (uint64_t)wanted) & 0xFFFF);
    unsigned helpers = joined - 1, finished;
    uint64_t start = ticks(), budget = spin_ticks();
    while ((finished = atomic_load_explicit(&pool.done.word, memory_order_acquire)) != helpers) {
        if (ticks() - start < budget) {
            relax();
            continue;
        }
        atomic_store(&pool.caller_parked, 1);
        if (atomic_load(&pool.done.word) == finished) park(&pool.done, finished);
        atomic_store(&pool.caller_parked, 0);
    }
    atomic_store_explicit(&pool.current, (struct run *)0, memory_order_relaxed);
    atomic_store_explicit(&pool.busy, 0, memory_order_release);
    return atomic_load(&r.status);
}

/* A worker: joins launches until the process ends (the runtime calls it on a thread of its own). */
EXPORT void hybrid_pool1_work(void) {
    /* the same part of every launch's blocks falls to the same thread, whose core's caches hold
     * them from the launch before when a program launches over the same data again */
    uint64_t me = atomic_fetch_add(&pool.workers, 1) + 1;
    unsigned seen = atomic_load(&pool.start.word);
    for (;;) {
        unsigned generation = wait_change(&pool.start, seen, &pool.sleeping);
        seen = generation;
        uint64_t claim = atomic_load_explicit(&pool.claim, memory_order_acquire);
        while ((unsigned)(claim >> 32) == generation && (claim & 0xFFFF) < ((claim >> 16) & 0xFFFF)) {
            if (!atomic_compare_exchange_weak_explicit(&pool.claim, &claim, claim + 1, memory_order_acq_rel,
                                                       memory_order_acquire))
                continue;
            /* joined: the run stays alive until this worker counts itself done */
            struct run *r = atomic_load_explicit(&pool.current, memory_order_relaxed);
            participate(r, (int64_t)(claim & 0xFFFF), me % r->parts);
            atomic_fetch_add(&pool.done.word, 1);
            if (atomic_load(&pool.caller_parked)) wake(&pool.done, 1);
            break;
        }
    }
}

/* In a child process after fork(): no worker exists there, and no launch is under way. */
EXPORT void hybrid_pool1_reset(void) {
    atomic_store(&pool.busy, 0);
    event_reset(&pool.start);
    event_reset(&pool.done);
    atomic_store(&pool.sleeping, 0);
    atomic_store(&pool.claim, 0);
    atomic_store(&pool.current, (struct run *)0);
    atomic_store(&pool.caller_parked, 0);
    atomic_store(&pool.workers, 0);
#if defined(__APPLE__)
    static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    lock = fresh;
#elif defined(_WIN32)
    InitializeSRWLock(&lock);
#endif
}

/* ------------------------------------------------------------ a cooperative launch's grid barrier */

/* `cuda.cg.this_grid().sync()`: the runtime runs every block of such a launch on its own thread at once
 * (hybrid_runtime/native_plan.py) and gives them this barrier, in memory it zeroed (GRID_BARRIER_WORDS
 * i64 words); each block's first thread calls hybrid_grid1_wait between two of the block's barriers. The
 * last block to arrive resets the count and starts the next generation, which the others wait for
 * (spinning, then asleep). A block that has returned no longer takes part (hybrid_grid1_leave: as a
 * thread that has returned holds up no barrier, and as the Python path counts it). A block that fails a
 * check leaves the launch: the runtime then gives up on the barrier (hybrid_grid1_abort), and every wait
 * returns at once from then on. Arrivals and departures take a spin lock (a few instructions each). */
typedef struct {
    _Alignas(64) atomic_uint lock;
    uint32_t arrived;
    uint32_t blocks; /* the blocks still running */
    atomic_uint aborted;
    atomic_uint parked;
    _Alignas(64) event generation;
} hybrid_grid;

_Static_assert(sizeof(hybrid_grid) <= 32 * 8, "hybrid_grid: GRID_BARRIER_WORDS in hybrid_runtime/abi.py");

static void grid_lock(hybrid_grid *g) {
    while (atomic_exchange_explicit(&g->lock, 1, memory_order_acquire)) relax();
}

static void grid_unlock(hybrid_grid *g) { atomic_store_explicit(&g->lock, 0, memory_order_release); }

/* (lock held) Every running block has arrived: the next generation. */
static void grid_release(hybrid_grid *g) {
    g->arrived = 0;
    atomic_fetch_add(&g->generation.word, 1);
    if (atomic_load(&g->parked)) wake(&g->generation, g->blocks + 1);
}

EXPORT void hybrid_grid1_init(hybrid_grid *g, int64_t blocks) {
    atomic_store(&g->lock, 0);
    g->arrived = 0;
    g->blocks = (uint32_t)blocks;
    atomic_store(&g->aborted, 0);
    atomic_store(&g->parked, 0);
    event_reset(&g->generation);
}

EXPORT int32_t hybrid_grid1_wait(hybrid_grid *g) {
    if (atomic_load(&g->aborted)) return 1;
    unsigned seen = atomic_load(&g->generation.word);
    grid_lock(g);
    if (++g->arrived >= g->blocks) {
        grid_release(g);
        grid_unlock(g);
        return 0;
    }
    grid_unlock(g);
    wait_change(&g->generation, seen, &g->parked);
    return atomic_load(&g->aborted) ? 1 : 0;
}

EXPORT void hybrid_grid1_leave(hybrid_grid *g) {
    grid_lock(g);
    g->blocks -= 1;
    if (g->arrived && g->arrived >= g->blocks) grid_release(g);
    grid_unlock(g);
}

EXPORT void hybrid_grid1_abort(hybrid_grid *g) {
    atomic_store(&g->aborted, 1);
    atomic_fetch_add(&g->generation.word, 1);
    wake(&g->generation, g->blocks + 1);
}
