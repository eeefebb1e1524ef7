/* A stress test of the worker pool (hatch_hybrid/targets/host/pool.c), linked with it as a program and run
 * by scripts/cross/pool_stress.py three ways: on Linux (futex waits), on Linux with pool.c's macOS branch
 * (pthread mutex and condition variables; pool.c compiled with -U__linux__ -D__APPLE__) and under wine
 * (the Windows branch: SRW locks and condition variables).
 *
 * Launches of a counting entry over a matrix of blocks, chunks and participants, back to back and after
 * pauses long enough for the workers to fall asleep (so that every launch wakes them through the
 * operating system's wait, the branch under test); launches from several threads at once (one holds the
 * workers, the others run alone); launches whose entry fails at one block; and the grid barrier with
 * blocks that leave and a block that gives up. Every block must run exactly once (at most once after a
 * failure), every participant must get its own launch words in its own memory, and nothing may hang
 * (a watchdog ends the program after WATCHDOG_SECONDS). Prints one line per part and exits 0 when all hold.
 */

#include <stdatomic.h>
#include <stdint.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
typedef HANDLE thread_t;
#else
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
typedef pthread_t thread_t;
#endif

#define WATCHDOG_SECONDS 120
#define WORKERS 8
#define MAX_BLOCKS 70000
#define MAX_PARTICIPANTS 9
#define STRIDE 256

typedef int32_t (*hybrid_entry)(void **params, int64_t *launch, int64_t first_block, int64_t end_block);
typedef struct {
    hybrid_entry entry;
    void **params;
    const int64_t *words;
    int64_t nwords, relative, blocks, chunk, participants;
    char *memory;
    int64_t stride;
} hybrid_job;

int32_t hybrid_pool1_launch(const hybrid_job *job);
void hybrid_pool1_work(void);
void hybrid_pool1_reset(void);
void hybrid_grid1_init(void *g, int64_t blocks);
int32_t hybrid_grid1_wait(void *g);
void hybrid_grid1_leave(void *g);
void hybrid_grid1_abort(void *g);

/* ------------------------------------------------------------------ a little portability */

#if defined(_WIN32)
static void say(const char *s) {
    DWORD wrote, n = 0;
    while (s[n]) n++;
    WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), s, n, &wrote, NULL);
}
static void leave_process(int code) { ExitProcess((UINT)code); }
static void pause_us(int us) { Sleep(us >= 1000 ? (DWORD)(us / 1000) : 1); }
static void *allocate(int64_t n) { return VirtualAlloc(NULL, (SIZE_T)n, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE); }
static void release(void *p) { VirtualFree(p, 0, MEM_RELEASE); }
typedef DWORD(WINAPI *thread_fn)(LPVOID);
#define THREAD(name) static DWORD WINAPI name(LPVOID arg)
#define THREAD_RETURN return 0
static thread_t start(thread_fn fn, void *arg) { return CreateThread(NULL, 0, fn, arg, 0, NULL); }
static void join(thread_t t) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
void *memset(void *d, int c, size_t n) {
    volatile unsigned char *p = d;
    while (n--) *p++ = (unsigned char)c;
    return d;
}
void *memcpy(void *d, const void *s, size_t n) {
    volatile unsigned char *p = d;
    const unsigned char *q = s;
    while (n--) *p++ = *q++;
    return d;
}
#else
static void say(const char *s) {
    fputs(s, stdout);
    fflush(stdout);
}
static void leave_process(int code) { _exit(code); }
static void pause_us(int us) {
    struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};
    while (nanosleep(&t, &t)) continue;
}
static void *allocate(int64_t n) { return calloc(1, (size_t)n); }
static void release(void *p) { free(p); }
typedef void *(*thread_fn)(void *);
#define THREAD(name) static void *name(void *arg)
#define THREAD_RETURN return NULL
static thread_t start(thread_fn fn, void *arg) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg)) leave_process(4);
    return t;
}
static void join(thread_t t) { pthread_join(t, NULL); }
#endif

static void say_int(int64_t v) {
    char buf[32];
    int k = 31;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    buf[k] = 0;
    do {
        buf[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) buf[--k] = '-';
    say(buf + k);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static atomic_int problems;

static void problem(const char *what, int64_t a, int64_t b) {
    if (atomic_fetch_add(&problems, 1) < 20) {
        say("PROBLEM ");
        say(what);
        say(" ");
        say_int(a);
        say(" ");
        say_int(b);
        say("\n");
    }
}

/* ------------------------------------------------------------------ the launches */

typedef struct {
    atomic_int *hits; /* per block */
    int64_t fail_at;  /* the block whose entry returns 7 (-1: none) */
    char *memory;
    int64_t participants;
    atomic_int seen[MAX_PARTICIPANTS]; /* launches that a participant's memory served */
} counting;

static int32_t count_blocks(void **params, int64_t *launch, int64_t first, int64_t end) {
    counting *c = params[0];
    int64_t offset = (int64_t)((char *)launch - c->memory);
    if (offset < 0 || offset % STRIDE || offset / STRIDE >= c->participants) problem("launch words outside", offset, 0);
    else atomic_fetch_add(&c->seen[offset / STRIDE], 1);
    if (launch[0] != (int64_t)(intptr_t)launch) problem("relative word", launch[0], (int64_t)(intptr_t)launch);
    if (launch[1] != 12345) problem("plain word", launch[1], 12345);
    if (launch[2] != (int64_t)(intptr_t)launch + 64) problem("second relative word", launch[2], 0);
    if (first >= end) problem("empty chunk", first, end);
    for (int64_t b = first; b < end; b++) {
        if (b == c->fail_at) return 7;
        atomic_fetch_add_explicit(&c->hits[b], 1, memory_order_relaxed);
    }
    return 0;
}

/* One launch; returns its status after checking every block ran once (at most once after a failure). */
static int64_t launch_once(int64_t blocks, int64_t chunk, int64_t participants, int64_t fail_at) {
    counting *c = allocate(sizeof(counting));
    c->hits = allocate((blocks + 1) * (int64_t)sizeof(atomic_int));
    c->fail_at = fail_at;
    c->memory = allocate(MAX_PARTICIPANTS * STRIDE);
    c->participants = participants;
    static const int64_t words[3] = {0, 12345, 64};
    void *params[1] = {c};
    hybrid_job job = {count_blocks, params, words, 3, 1 | 4, blocks, chunk, participants, c->memory, STRIDE};
    int64_t status = hybrid_pool1_launch(&job);
    if (status != (fail_at >= 0 && fail_at < blocks ? 7 : 0)) problem("status", status, fail_at);
    for (int64_t b = 0; b < blocks; b++) {
        int h = atomic_load(&c->hits[b]);
        if (fail_at < 0 ? h != 1 : (h > 1 || (b == fail_at && h))) problem("block ran", b, h);
    }
    release(c->memory);
    release(c->hits);
    release(c);
    return status;
}

static const int64_t BLOCKS[] = {0, 1, 2, 3, 5, 64, 1000, 65537};
static const int64_t CHUNKS[] = {0, 1, 3, 64};
static const int64_t PARTICIPANTS[] = {1, 2, 3, 4, MAX_PARTICIPANTS};

static int64_t matrix(int rounds) {
    int64_t n = 0;
    for (int r = 0; r < rounds; r++)
        for (unsigned i = 0; i < sizeof BLOCKS / sizeof *BLOCKS; i++)
            for (unsigned j = 0; j < sizeof CHUNKS / sizeof *CHUNKS; j++)
                for (unsigned k = 0; k < sizeof PARTICIPANTS / sizeof *PARTICIPANTS; k++) {
                    if ((n & 3) == 3) pause_us(300 + (int)(next_random(&rng_state) % 2000)); /* the workers sleep */
                    launch_once(BLOCKS[i], CHUNKS[j], PARTICIPANTS[k], -1);
                    n++;
                }
    return n;
}

THREAD(concurrent_launches) {
    uint64_t s = (uint64_t)(intptr_t)arg;
    for (int k = 0; k < 150; k++) {
        uint64_t r = next_random(&s);
        int64_t blocks = (int64_t)(r % 3000), chunk = (int64_t)(r >> 20) % 5, participants = 1 + (int64_t)(r >> 30) % 4;
        int64_t fail_at = (r >> 40) % 4 == 0 && blocks ? (int64_t)(r >> 44) % blocks : -1;
        launch_once(blocks, chunk, participants, fail_at);
        if (k % 16 == 0) pause_us(500);
    }
    THREAD_RETURN;
}

THREAD(worker) {
    (void)arg;
    hybrid_pool1_work();
    THREAD_RETURN;
}

/* ------------------------------------------------------------------ the grid barrier */

#define GRID_BLOCKS 6
#define GRID_ROUNDS 300

static _Alignas(64) int64_t grid[32 + 8];
static atomic_int arrived[GRID_ROUNDS];
static int64_t leaves_after[GRID_BLOCKS]; /* the block returns after this round (GRID_ROUNDS: never early) */
static int64_t abort_at = -1;             /* a block gives up at this round */
static atomic_int aborted_seen;

static int64_t running_in(int64_t round) {
    int64_t n = 0;
    for (int b = 0; b < GRID_BLOCKS; b++) n += leaves_after[b] >= round;
    return n;
}

THREAD(grid_block) {
    int64_t me = (int64_t)(intptr_t)arg;
    for (int64_t r = 0; r < GRID_ROUNDS; r++) {
        if (me == 0 && r == abort_at) {
            hybrid_grid1_abort(grid);
            THREAD_RETURN;
        }
        atomic_fetch_add(&arrived[r], 1);
        if (hybrid_grid1_wait(grid)) {
            if (abort_at < 0) problem("wait failed", me, r);
            atomic_fetch_add(&aborted_seen, 1);
            THREAD_RETURN;
        }
        if (abort_at < 0 && atomic_load(&arrived[r]) != running_in(r)) problem("barrier passed early", r, me);
        if (r == leaves_after[me]) {
            hybrid_grid1_leave(grid);
            THREAD_RETURN;
        }
        if (r % 50 == 49) pause_us(200); /* the others sleep at the barrier */
    }
    hybrid_grid1_leave(grid);
    THREAD_RETURN;
}

static void grid_run(int leaving, int64_t abort_round) {
    for (int r = 0; r < GRID_ROUNDS; r++) atomic_store(&arrived[r], 0);
    for (int b = 0; b < GRID_BLOCKS; b++) leaves_after[b] = GRID_ROUNDS;
    if (leaving) leaves_after[2] = 17, leaves_after[5] = 120;
    abort_at = abort_round;
    hybrid_grid1_init(grid, GRID_BLOCKS);
    thread_t t[GRID_BLOCKS];
    for (int b = 0; b < GRID_BLOCKS; b++) t[b] = start(grid_block, (void *)(intptr_t)b);
    for (int b = 0; b < GRID_BLOCKS; b++) join(t[b]);
}

/* ------------------------------------------------------------------ main */

THREAD(watchdog) {
    (void)arg;
    pause_us(WATCHDOG_SECONDS * 1000000);
    say("PROBLEM hung: the watchdog ended the program\n");
    leave_process(3);
    THREAD_RETURN;
}

static int run(void) {
    start(watchdog, NULL);
    hybrid_pool1_reset(); /* as in a child after fork(): no worker yet */
    int64_t n = 0;
    n += launch_once(1000, 1, 4, -1) == 0; /* before any worker exists: the caller does it all */
    for (int k = 0; k < WORKERS; k++) start(worker, NULL);
    pause_us(2000);
    n += matrix(3);
    say("launches (blocks x chunks x participants, with pauses): ");
    say_int(n);
    say("\n");
    int64_t failing = 0;
    for (int64_t b = 0; b < 200; b += 7) {
        launch_once(200, 3, 4, b);
        failing++;
    }
    say("launches that fail at one block: ");
    say_int(failing);
    say("\n");
    thread_t t[3];
    for (int k = 0; k < 3; k++) t[k] = start(concurrent_launches, (void *)(intptr_t)(k + 1));
    for (int k = 0; k < 3; k++) join(t[k]);
    say("launches from 3 threads at once: 450\n");
    grid_run(0, -1);
    grid_run(1, -1);
    grid_run(1, 77);
    /* every block but the one that gave up and the one that had left */
    if (atomic_load(&aborted_seen) != GRID_BLOCKS - 2) problem("blocks that saw the abort", atomic_load(&aborted_seen), 0);
    say("grid barrier: 3 launches of 6 blocks x 300 rounds (blocks leaving, a block giving up)\n");
    int bad = atomic_load(&problems);
    say(bad ? "FAILED: " : "OK: ");
    say_int(bad);
    say(" problems\n");
    return bad ? 1 : 0;
}

#if defined(_WIN32)
void __stdcall mainCRTStartup(void) { ExitProcess((UINT)run()); }
#else
int main(void) { return run(); }
#endif
