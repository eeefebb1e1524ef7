/* The Windows side of scripts/cross/windows_replay.py: replays, under wine, the launches the runtime made
 * on Linux, against the package's x86_64-windows DLL.
 *
 *   replay.exe DLL JOBS OUT
 *
 * LoadLibrary's DLL, resolves every name JOBS lists with GetProcAddress (the kernels' entries at every
 * CPU level, their sanitized entries, the pool's functions: a name missing from the DLL's exports is
 * an error), starts the pool's workers as threads of their own (CreateThread -> hybrid_pool1_work, as
 * the runtime starts them as Python threads), then for each recorded launch and each entry variant to
 * run: rebuilds the job (hybrid_job of pool.c) in its own memory (the argument buffers from their
 * recorded inputs, the flattened parameters with the addresses moved to those buffers, the launch
 * words' template with the error slot's address, the participants' block memory), calls
 * hybrid_pool1_launch and appends the status, the error slot and every argument buffer to OUT.
 * JOBS's format is written by windows_replay.py (little-endian 64-bit words; strings and buffers padded
 * to 8 bytes). Freestanding: kernel32 only, no C library (so that zig builds none for it). */

#include <stdint.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

typedef int32_t (*hybrid_entry)(void **params, int64_t *launch, int64_t first_block, int64_t end_block);

typedef struct { /* pool.c's hybrid_job */
    hybrid_entry entry;
    void **params;
    const int64_t *words;
    int64_t nwords, relative, blocks, chunk, participants;
    char *memory;
    int64_t stride;
} hybrid_job;

typedef int32_t (*launch_fn)(const hybrid_job *);
typedef void (*work_fn)(void);

#define MAX_SLOTS 4096
#define MAX_REGIONS 64
#define MAX_WORDS 64
#define MAX_WORKERS 64

/* clang may call these for copies and zeroing, and nothing else provides them here */
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

static HANDLE out_handle;

static int64_t length(const char *s) {
    int64_t n = 0;
    while (s[n]) n++;
    return n;
}

static void say(const char *s) {
    DWORD wrote;
    WriteFile(out_handle, s, (DWORD)length(s), &wrote, NULL);
}

static void say_int(int64_t v) {
    char buf[32];
    int k = 31;
    int negative = v < 0;
    uint64_t u = negative ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    buf[k] = 0;
    do {
        buf[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (negative) buf[--k] = '-';
    say(buf + k);
}

static void fail(const char *what, const char *detail) {
    say("replay: ");
    say(what);
    say(detail);
    say("\n");
    ExitProcess(2);
}

static void *allocate(int64_t n) {
    void *p = VirtualAlloc(NULL, (SIZE_T)(n > 0 ? n : 1), MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (!p) fail("out of memory", "");
    return p; /* zeroed */
}

static char *read_all(const char *path, int64_t *size) {
    HANDLE f = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    if (f == INVALID_HANDLE_VALUE) fail("cannot open ", path);
    LARGE_INTEGER n;
    GetFileSizeEx(f, &n);
    char *data = allocate(n.QuadPart + 8);
    int64_t got = 0;
    while (got < n.QuadPart) {
        DWORD part;
        if (!ReadFile(f, data + got, (DWORD)(n.QuadPart - got > (1 << 30) ? (1 << 30) : n.QuadPart - got), &part, NULL) ||
            !part)
            fail("cannot read ", path);
        got += part;
    }
    CloseHandle(f);
    *size = n.QuadPart;
    return data;
}

static HANDLE output;

static void emit(const void *data, int64_t n) {
    static const char zeros[8];
    const char *p = data;
    while (n > 0) {
        DWORD wrote, part = (DWORD)(n > (1 << 30) ? (1 << 30) : n);
        if (!WriteFile(output, p, part, &wrote, NULL) || wrote != part) fail("cannot write the output", "");
        p += part;
        n -= part;
    }
    (void)zeros;
}

/* ------------------------------------------------------------------ reading JOBS */

static const char *cursor, *limit;

static int64_t word(void) {
    if (cursor + 8 > limit) fail("the jobs file ends early", "");
    int64_t v;
    memcpy(&v, cursor, 8);
    cursor += 8;
    return v;
}

/* a string (length, bytes padded to 8) into buf */
static const char *string(char *buf, int64_t cap) {
    int64_t n = word();
    if (n >= cap || cursor + n > limit) fail("a name is too long", "");
    memcpy(buf, cursor, (size_t)n);
    buf[n] = 0;
    cursor += (n + 7) & ~7;
    return buf;
}

static DWORD WINAPI worker(LPVOID work) {
    ((work_fn)work)();
    return 0;
}

/* ------------------------------------------------------------------ the command line */

static int split(char *line, char **argv, int cap) {
    int argc = 0;
    while (*line && argc < cap) {
        while (*line == ' ' || *line == '\t') line++;
        if (!*line) break;
        char quote = *line == '"' ? '"' : 0;
        if (quote) line++;
        argv[argc++] = line;
        while (*line && (quote ? *line != '"' : (*line != ' ' && *line != '\t'))) line++;
        if (*line) *line++ = 0;
    }
    return argc;
}

void __stdcall mainCRTStartup(void) {
    out_handle = GetStdHandle(STD_OUTPUT_HANDLE);
    char *argv[8];
    int argc = split(GetCommandLineA(), argv, 8);
    if (argc != 4) fail("usage: replay.exe DLL JOBS OUT", "");
    HMODULE dll = LoadLibraryA(argv[1]);
    if (!dll) {
        say("replay: LoadLibrary failed, error ");
        say_int((int64_t)GetLastError());
        fail(" for ", argv[1]);
    }
    int64_t size;
    char *jobs = read_all(argv[2], &size);
    cursor = jobs;
    limit = jobs + size;
    if (word() != 0x4a52444952425948LL) fail("not a jobs file: ", argv[2]); /* "HYBRIDRJ" */
    if (word() != 1) fail("unknown version of the jobs file", "");
    int64_t njobs = word(), nnames = word();
    char name[512], full[600];
    int64_t missing = 0;
    for (int64_t k = 0; k < nnames; k++) { /* every name must be exported */
        string(name, sizeof name);
        if (!GetProcAddress(dll, name)) {
            say("MISSING ");
            say(name);
            say("\n");
            missing++;
        }
    }
    launch_fn launch = (launch_fn)(void *)GetProcAddress(dll, "hybrid_pool1_launch");
    work_fn work = (work_fn)(void *)GetProcAddress(dll, "hybrid_pool1_work");
    if (!launch || !work) fail("the DLL has no pool", "");
    output = CreateFileA(argv[3], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (output == INVALID_HANDLE_VALUE) fail("cannot create ", argv[3]);

    int64_t workers = word(); /* started once: every launch shares them, as in the runtime's process */
    if (workers > MAX_WORKERS) workers = MAX_WORKERS;
    for (int64_t k = 0; k < workers; k++)
        if (!CreateThread(NULL, 0, worker, (LPVOID)(void *)work, 0, NULL)) fail("CreateThread failed", "");

    int64_t runs = 0, failed_runs = 0;
    static int64_t words[MAX_WORDS], kinds[MAX_WORDS], slot_region[MAX_SLOTS], slot_value[MAX_SLOTS];
    static int64_t region_size[MAX_REGIONS];
    static const char *region_input[MAX_REGIONS];
    static char suffixes[8][32];
    for (int64_t j = 0; j < njobs; j++) {
        string(name, sizeof name);
        int64_t nvariants = word();
        if (nvariants > 8) fail("too many variants of ", name);
        for (int64_t v = 0; v < nvariants; v++) string(suffixes[v], sizeof suffixes[v]);
        int64_t blocks = word(), chunk = word(), participants = word(), stride = word(), relative = word();
        int64_t nwords = word();
        if (nwords > MAX_WORDS) fail("too many launch words for ", name);
        for (int64_t k = 0; k < nwords; k++) words[k] = word();
        for (int64_t k = 0; k < nwords; k++) kinds[k] = word();
        int64_t nslots = word();
        if (nslots > MAX_SLOTS) fail("too many parameters for ", name);
        for (int64_t k = 0; k < nslots; k++) {
            slot_region[k] = word();
            slot_value[k] = word();
        }
        int64_t nregions = word();
        if (nregions > MAX_REGIONS) fail("too many buffers for ", name);
        for (int64_t r = 0; r < nregions; r++) {
            region_size[r] = word();
            region_input[r] = cursor;
            cursor += (region_size[r] + 7) & ~7;
            if (cursor > limit) fail("the jobs file ends early", "");
        }
        for (int64_t v = 0; v < nvariants; v++) {
            int64_t n = length(name), m = length(suffixes[v]);
            memcpy(full, name, (size_t)n);
            memcpy(full + n, suffixes[v], (size_t)m + 1);
            hybrid_entry entry = (hybrid_entry)(void *)GetProcAddress(dll, full);
            if (!entry) fail("no entry ", full);
            char *region[MAX_REGIONS];
            for (int64_t r = 0; r < nregions; r++) {
                region[r] = allocate(region_size[r]);
                memcpy(region[r], region_input[r], (size_t)region_size[r]);
            }
            int64_t *values = allocate(8 * nslots), *error = allocate(64), *template_ = allocate(8 * nwords);
            void **params = allocate(8 * nslots);
            for (int64_t k = 0; k < nslots; k++) {
                values[k] = slot_region[k] < 0 ? slot_value[k] : (int64_t)(intptr_t)(region[slot_region[k]] + slot_value[k]);
                params[k] = &values[k];
            }
            for (int64_t k = 0; k < nwords; k++)
                template_[k] = kinds[k] == 1 ? (int64_t)(intptr_t)error : words[k];
            char *memory = allocate(participants * stride);
            hybrid_job job;
            job.entry = entry;
            job.params = params;
            job.words = template_;
            job.nwords = nwords;
            job.relative = relative;
            job.blocks = blocks;
            job.chunk = chunk;
            job.participants = participants;
            job.memory = memory;
            job.stride = stride;
            int64_t status = launch(&job);
            runs++;
            failed_runs += status != 0;
            say("RUN ");
            say(full);
            say(" status ");
            say_int(status);
            say("\n");
            emit(&status, 8);
            emit(error, 32);
            for (int64_t r = 0; r < nregions; r++) {
                emit(region[r], region_size[r]);
                static const char pad[8];
                emit(pad, ((region_size[r] + 7) & ~7) - region_size[r]);
                VirtualFree(region[r], 0, MEM_RELEASE);
            }
            VirtualFree(memory, 0, MEM_RELEASE);
            VirtualFree(values, 0, MEM_RELEASE);
            VirtualFree(params, 0, MEM_RELEASE);
            VirtualFree(error, 0, MEM_RELEASE);
            VirtualFree(template_, 0, MEM_RELEASE);
        }
    }
    CloseHandle(output);
    say("DONE runs ");
    say_int(runs);
    say(" nonzero ");
    say_int(failed_runs);
    say(" missing ");
    say_int(missing);
    say("\n");
    ExitProcess(missing ? 1 : 0);
}
