/*
 * mpi_calls.c - a PMPI shim for LD_PRELOAD that counts, per rank, the calls
 * of the MPI functions an FFT's transposes may make, and says where they
 * were made:
 *
 *   first-execute, execute
 *             inside fftw_execute* / fftw_mpi_execute_* (the user's
 *             applies), per plan: its first execute, which may do lazy
 *             setup, and the later ones with their number, so that
 *             calls / executes is the steady cost of one apply; the
 *             planner's own trial runs are not in it (FFTW's planner calls
 *             the plans' apply directly);
 *   plan      inside fftw_mpi_plan_many_* (every fftw_mpi_plan_* goes
 *             through one of them), trial runs of FFTW_MEASURE included;
 *   destroy   inside fftw_destroy_plan;
 *   mark N    outside all of those, after MPI_Pcontrol(N) with 1 <= N <= 7,
 *             for a program's own phases (MPI_Pcontrol(0) ends the mark);
 *   other     everything else (MPI_Init, the program's setup and timing).
 *
 * Besides MPI, it counts the allocations (malloc, calloc, realloc, memalign,
 * posix_memalign, aligned_alloc: one counter "malloc"), frees and getenv
 * calls made in each phase.  Each count is also split by the caller's
 * object, told by its address: the program (prog), FFTW (fftw: libfftw3*,
 * our solvers included), liballtoall_inplace (aip), anything else (other:
 * the MPI library, libc, ...).  Nothing is configured: at MPI_Finalize
 * each rank prints one line per non-empty bucket on stderr, e.g.
 *
 *   mpi_calls rank=0 phase=plan n=1 MPI_Allreduce=38 MPI_Allreduce@fftw=38 ...
 *   mpi_calls rank=0 phase=first-execute plan=1 n=1 MPI_Comm_dup=1 MPI_Comm_dup@aip=1 ...
 *   mpi_calls rank=0 phase=execute plan=1 n=2047 MPI_Isend=4094 MPI_Isend@aip=4094 ...
 *
 * (n: executes of that plan, or top-level calls of the planners / of
 * fftw_destroy_plan; plans are numbered in the order of their first
 * execute).  bench/fftw_apply_cost.sh reads these lines.
 *
 * Build: mpicc -shared -fPIC -O2 -o mpi_calls.so mpi_calls.c -ldl (make
 * builds bench/.libs/mpi_calls.so); run: mpirun -n 2 env
 * LD_PRELOAD=/path/mpi_calls.so program.  Works with Open MPI and MPICH
 * (both provide PMPI_*), for programs using double-precision FFTW.
 * Calls that an MPI library makes internally do not go through the MPI_*
 * symbols and are not counted; calls of liballtoall_inplace, FFTW and the
 * program are.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- What is counted --------------------------------------------------- */

#define COUNTED(X)                                                                                 \
    X(MPI_Allreduce) X(MPI_Reduce) X(MPI_Bcast) X(MPI_Barrier) X(MPI_Allgather)                  \
    X(MPI_Allgatherv) X(MPI_Gather) X(MPI_Gatherv) X(MPI_Scatter) X(MPI_Scatterv)                  \
    X(MPI_Alltoall) X(MPI_Alltoallv) X(MPI_Alltoallw) X(MPI_Scan) X(MPI_Exscan)                    \
    X(MPI_Reduce_scatter_block) X(MPI_Iallreduce) X(MPI_Ibarrier) X(MPI_Ialltoall)                 \
    X(MPI_Comm_dup) X(MPI_Comm_split) X(MPI_Comm_split_type) X(MPI_Comm_create) X(MPI_Comm_free)   \
    X(MPI_Send) X(MPI_Ssend) X(MPI_Recv) X(MPI_Isend) X(MPI_Issend) X(MPI_Irecv) X(MPI_Sendrecv) \
    X(MPI_Sendrecv_replace) X(MPI_Wait) X(MPI_Waitall) X(MPI_Waitany) X(MPI_Waitsome)             \
    X(MPI_Test) X(MPI_Testall) X(MPI_Probe) X(MPI_Iprobe)                                          \
    X(MPI_Comm_get_attr) X(MPI_Comm_set_attr) X(MPI_Comm_create_keyval) X(MPI_Comm_rank)          \
    X(MPI_Comm_size) X(MPI_Type_contiguous) X(MPI_Type_vector) X(MPI_Type_create_hindexed)        \
    X(MPI_Type_create_hindexed_block) X(MPI_Type_commit) X(MPI_Type_free)                         \
    X(MPI_Type_get_envelope) X(MPI_Type_get_contents) X(MPI_Type_size) X(MPI_Type_size_x)         \
    X(MPI_Op_create) X(MPI_Op_free) X(MPI_Error_string) X(malloc) X(free) X(getenv)

#define ENUM(name) I_##name,
enum { COUNTED(ENUM) N_COUNTED };
#define NAME(name) #name,
static const char *const counted_name[N_COUNTED] = {COUNTED(NAME)};

/* ---- Where: buckets ---------------------------------------------------- */

#define N_MARKS 7
#define N_PLANS 16 /* executed plans told apart; later ones share the last */
enum {
    B_OTHER,
    B_MARK,                    /* B_MARK + 0 .. N_MARKS - 1: marks 1..N_MARKS */
    B_PLAN = B_MARK + N_MARKS, /* inside the MPI planners */
    B_DESTROY,                 /* inside fftw_destroy_plan */
    B_FIRST,                   /* B_FIRST + slot: inside a plan's first execute */
    B_EXECUTE = B_FIRST + N_PLANS, /* B_EXECUTE + slot: inside a later execute */
    N_BUCKETS = B_EXECUTE + N_PLANS
};

/* Who called: the caller's object. */
enum { S_PROGRAM, S_FFTW, S_AIP, S_OTHER, N_SOURCES };
static const char *const source_name[N_SOURCES] = {"prog", "fftw", "aip", "other"};

static unsigned long long counts[N_BUCKETS][N_COUNTED][N_SOURCES];
static unsigned long long bucket_calls[N_BUCKETS]; /* executes, planner calls */
static const void *plan_of_slot[N_PLANS];
static int n_slots, mark;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS int execute_depth, execute_bucket, plan_depth, destroy_depth;

static int bucket(void)
{
    if (execute_depth) return execute_bucket;
    if (plan_depth) return B_PLAN;
    if (destroy_depth) return B_DESTROY;
    if (mark) return B_MARK + mark - 1;
    return B_OTHER;
}

static int source_of(const void *caller);

static void count_from(int what, const void *caller)
{
    __atomic_fetch_add(&counts[bucket()][what][source_of(caller)], 1, __ATOMIC_RELAXED);
}

/* in the wrappers: count the call under the wrapper's caller */
#define COUNT(what) count_from(I_##what, __builtin_return_address(0))

/* The slot of plan p: its number among the executed plans, minus one. */
static int slot_of(const void *p)
{
    int k;
    pthread_mutex_lock(&slots_lock);
    for (k = 0; k < n_slots && plan_of_slot[k] != p; ++k) continue;
    if (k == n_slots) {
        if (n_slots < N_PLANS)
            plan_of_slot[n_slots++] = p;
        else
            k = N_PLANS - 1;
    }
    pthread_mutex_unlock(&slots_lock);
    return k;
}

/* ---- Callers ---------------------------------------------------------------
   The code of the program, libfftw3* and liballtoall_inplace*, as loaded at
   start-up (the constructor records it before main runs); objects loaded
   later (MPI's plug-ins) are "other". */

#define N_RANGES 64
static struct {
    uintptr_t lo, hi;
    int source;
} ranges[N_RANGES];
static int n_ranges;

static int add_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    const char *name = info->dlpi_name, *base = strrchr(name, '/');
    int k, source;
    (void)size;
    (void)data;
    base = base ? base + 1 : name;
    if (!*name) /* the first object, with no name */
        source = S_PROGRAM;
    else if (!strncmp(base, "libfftw3", 8))
        source = S_FFTW;
    else if (!strncmp(base, "liballtoall_inplace", 19))
        source = S_AIP;
    else
        return 0;
    for (k = 0; k < info->dlpi_phnum && n_ranges < N_RANGES; ++k)
        if (info->dlpi_phdr[k].p_type == PT_LOAD && (info->dlpi_phdr[k].p_flags & PF_X)) {
            ranges[n_ranges].lo = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
            ranges[n_ranges].hi = ranges[n_ranges].lo + info->dlpi_phdr[k].p_memsz;
            ranges[n_ranges].source = source;
            ++n_ranges;
        }
    return 0;
}

__attribute__((constructor)) static void find_ranges(void)
{
    dl_iterate_phdr(add_ranges, NULL);
}

static int source_of(const void *caller)
{
    uintptr_t a = (uintptr_t)caller;
    int k;
    for (k = 0; k < n_ranges; ++k)
        if (a >= ranges[k].lo && a < ranges[k].hi) return ranges[k].source;
    return S_OTHER;
}

/* ---- The report --------------------------------------------------------- */

static unsigned long long total(int b, int i)
{
    unsigned long long n = 0;
    int s;
    for (s = 0; s < N_SOURCES; ++s) n += counts[b][i][s];
    return n;
}

static void report_bucket(int rank, int b)
{
    char line[16384];
    size_t len;
    int i, s, any = 0;

    for (i = 0; i < N_COUNTED; ++i) any |= total(b, i) != 0;
    if (!any && !bucket_calls[b]) return;
    if (b == B_OTHER)
        len = (size_t)snprintf(line, sizeof line, "mpi_calls rank=%d phase=other", rank);
    else if (b < B_PLAN)
        len = (size_t)snprintf(line, sizeof line, "mpi_calls rank=%d phase=mark%d", rank,
                               b - B_MARK + 1);
    else if (b < B_FIRST)
        len = (size_t)snprintf(line, sizeof line, "mpi_calls rank=%d phase=%s n=%llu", rank,
                               b == B_PLAN ? "plan" : "destroy", bucket_calls[b]);
    else if (b < B_EXECUTE)
        len = (size_t)snprintf(line, sizeof line,
                               "mpi_calls rank=%d phase=first-execute plan=%d n=%llu", rank,
                               b - B_FIRST + 1, bucket_calls[b]);
    else
        len = (size_t)snprintf(line, sizeof line, "mpi_calls rank=%d phase=execute plan=%d n=%llu",
                               rank, b - B_EXECUTE + 1, bucket_calls[b]);
    for (i = 0; i < N_COUNTED && len < sizeof line - 256; ++i) {
        if (!total(b, i)) continue;
        len += (size_t)snprintf(line + len, sizeof line - len, " %s=%llu", counted_name[i],
                                total(b, i));
        for (s = 0; s < N_SOURCES; ++s)
            if (counts[b][i][s])
                len += (size_t)snprintf(line + len, sizeof line - len, " %s@%s=%llu",
                                        counted_name[i], source_name[s], counts[b][i][s]);
    }
    line[len++] = '\n';
    /* one write per line, so that the ranks' lines do not mix */
    if (write(STDERR_FILENO, line, len) < 0) return;
}

int MPI_Finalize(void)
{
    int rank = -1, b;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (b = 0; b < N_BUCKETS; ++b) report_bucket(rank, b);
    return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...)
{
    mark = level >= 1 && level <= N_MARKS ? level : 0;
    return PMPI_Pcontrol(level);
}

/* ---- MPI ----------------------------------------------------------------- */

#define WRAP(name, params, args)                                                                   \
    int name params                                                                                \
    {                                                                                              \
        COUNT(name);                                                                               \
        return P##name args;                                                                       \
    }

WRAP(MPI_Allreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
     (s, r, n, t, o, c))
WRAP(MPI_Reduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c),
     (s, r, n, t, o, root, c))
WRAP(MPI_Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
WRAP(MPI_Barrier, (MPI_Comm c), (c))
WRAP(MPI_Allgather,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
     (s, sn, st, r, rn, rt, c))
WRAP(MPI_Allgatherv,
     (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[],
      MPI_Datatype rt, MPI_Comm c),
     (s, sn, st, r, rn, rd, rt, c))
WRAP(MPI_Gather,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
      MPI_Comm c),
     (s, sn, st, r, rn, rt, root, c))
WRAP(MPI_Gatherv,
     (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[],
      MPI_Datatype rt, int root, MPI_Comm c),
     (s, sn, st, r, rn, rd, rt, root, c))
WRAP(MPI_Scatter,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
      MPI_Comm c),
     (s, sn, st, r, rn, rt, root, c))
WRAP(MPI_Scatterv,
     (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, int rn,
      MPI_Datatype rt, int root, MPI_Comm c),
     (s, sn, sd, st, r, rn, rt, root, c))
WRAP(MPI_Alltoall,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),
     (s, sn, st, r, rn, rt, c))
WRAP(MPI_Alltoallv,
     (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[],
      const int rd[], MPI_Datatype rt, MPI_Comm c),
     (s, sn, sd, st, r, rn, rd, rt, c))
WRAP(MPI_Alltoallw,
     (const void *s, const int sn[], const int sd[], const MPI_Datatype st[], void *r,
      const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c),
     (s, sn, sd, st, r, rn, rd, rt, c))
WRAP(MPI_Scan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
     (s, r, n, t, o, c))
WRAP(MPI_Exscan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c),
     (s, r, n, t, o, c))
WRAP(MPI_Reduce_scatter_block,
     (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), (s, r, n, t, o, c))
WRAP(MPI_Iallreduce,
     (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c, MPI_Request *q),
     (s, r, n, t, o, c, q))
WRAP(MPI_Ibarrier, (MPI_Comm c, MPI_Request *q), (c, q))
WRAP(MPI_Ialltoall,
     (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c,
      MPI_Request *q),
     (s, sn, st, r, rn, rt, c, q))

WRAP(MPI_Comm_dup, (MPI_Comm c, MPI_Comm *d), (c, d))
WRAP(MPI_Comm_split, (MPI_Comm c, int color, int key, MPI_Comm *d), (c, color, key, d))
WRAP(MPI_Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *d),
     (c, type, key, i, d))
WRAP(MPI_Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm *d), (c, g, d))
WRAP(MPI_Comm_free, (MPI_Comm * c), (c))

WRAP(MPI_Send, (const void *b, int n, MPI_Datatype t, int peer, int tag, MPI_Comm c),
     (b, n, t, peer, tag, c))
WRAP(MPI_Ssend, (const void *b, int n, MPI_Datatype t, int peer, int tag, MPI_Comm c),
     (b, n, t, peer, tag, c))
WRAP(MPI_Recv, (void *b, int n, MPI_Datatype t, int peer, int tag, MPI_Comm c, MPI_Status *s),
     (b, n, t, peer, tag, c, s))
WRAP(MPI_Isend,
     (const void *b, int n, MPI_Datatype t, int peer, int tag, MPI_Comm c, MPI_Request *q),
     (b, n, t, peer, tag, c, q))
WRAP(MPI_Issend,
     (const void *b, int n, MPI_Datatype t, int peer, int tag, MPI_Comm c, MPI_Request *q),
     (b, n, t, peer, tag, c, q))
WRAP(MPI_Irecv, (void *b, int n, MPI_Datatype t, int peer, int tag, MPI_Comm c, MPI_Request *q),
     (b, n, t, peer, tag, c, q))
WRAP(MPI_Sendrecv,
     (const void *sb, int sn, MPI_Datatype st, int dest, int stag, void *rb, int rn,
      MPI_Datatype rt, int src, int rtag, MPI_Comm c, MPI_Status *s),
     (sb, sn, st, dest, stag, rb, rn, rt, src, rtag, c, s))
WRAP(MPI_Sendrecv_replace,
     (void *b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag, MPI_Comm c,
      MPI_Status *s),
     (b, n, t, dest, stag, src, rtag, c, s))
WRAP(MPI_Wait, (MPI_Request * q, MPI_Status *s), (q, s))
WRAP(MPI_Waitall, (int n, MPI_Request q[], MPI_Status s[]), (n, q, s))
WRAP(MPI_Waitany, (int n, MPI_Request q[], int *i, MPI_Status *s), (n, q, i, s))
WRAP(MPI_Waitsome, (int n, MPI_Request q[], int *m, int i[], MPI_Status s[]), (n, q, m, i, s))
WRAP(MPI_Test, (MPI_Request * q, int *f, MPI_Status *s), (q, f, s))
WRAP(MPI_Testall, (int n, MPI_Request q[], int *f, MPI_Status s[]), (n, q, f, s))
WRAP(MPI_Probe, (int src, int tag, MPI_Comm c, MPI_Status *s), (src, tag, c, s))
WRAP(MPI_Iprobe, (int src, int tag, MPI_Comm c, int *f, MPI_Status *s), (src, tag, c, f, s))

WRAP(MPI_Comm_get_attr, (MPI_Comm c, int k, void *v, int *f), (c, k, v, f))
WRAP(MPI_Comm_set_attr, (MPI_Comm c, int k, void *v), (c, k, v))
WRAP(MPI_Comm_create_keyval,
     (MPI_Comm_copy_attr_function * cp, MPI_Comm_delete_attr_function *del, int *k, void *x),
     (cp, del, k, x))
WRAP(MPI_Comm_rank, (MPI_Comm c, int *r), (c, r))
WRAP(MPI_Comm_size, (MPI_Comm c, int *n), (c, n))
WRAP(MPI_Type_contiguous, (int n, MPI_Datatype t, MPI_Datatype *d), (n, t, d))
WRAP(MPI_Type_vector, (int n, int len, int stride, MPI_Datatype t, MPI_Datatype *d),
     (n, len, stride, t, d))
WRAP(MPI_Type_create_hindexed,
     (int n, const int lens[], const MPI_Aint displs[], MPI_Datatype t, MPI_Datatype *d),
     (n, lens, displs, t, d))
WRAP(MPI_Type_create_hindexed_block,
     (int n, int len, const MPI_Aint displs[], MPI_Datatype t, MPI_Datatype *d),
     (n, len, displs, t, d))
WRAP(MPI_Type_commit, (MPI_Datatype * t), (t))
WRAP(MPI_Type_free, (MPI_Datatype * t), (t))
WRAP(MPI_Type_get_envelope, (MPI_Datatype t, int *ni, int *na, int *nd, int *comb),
     (t, ni, na, nd, comb))
WRAP(MPI_Type_get_contents,
     (MPI_Datatype t, int ni, int na, int nd, int is[], MPI_Aint as[], MPI_Datatype ds[]),
     (t, ni, na, nd, is, as, ds))
WRAP(MPI_Type_size, (MPI_Datatype t, int *s), (t, s))
WRAP(MPI_Type_size_x, (MPI_Datatype t, MPI_Count *s), (t, s))
WRAP(MPI_Op_create, (MPI_User_function * f, int commute, MPI_Op *o), (f, commute, o))
WRAP(MPI_Op_free, (MPI_Op * o), (o))
WRAP(MPI_Error_string, (int e, char *s, int *n), (e, s, n))

/* ---- Allocations and getenv ------------------------------------------------
   glibc's own entry points, so no dlsym (which allocates) is needed. */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
    COUNT(malloc);
    return __libc_malloc(n);
}

void *calloc(size_t m, size_t n)
{
    COUNT(malloc);
    return __libc_calloc(m, n);
}

void *realloc(void *p, size_t n)
{
    COUNT(malloc);
    return __libc_realloc(p, n);
}

void *memalign(size_t alignment, size_t n)
{
    COUNT(malloc);
    return __libc_memalign(alignment, n);
}

void *aligned_alloc(size_t alignment, size_t n)
{
    COUNT(malloc);
    return __libc_memalign(alignment, n);
}

int posix_memalign(void **p, size_t alignment, size_t n)
{
    void *q;
    COUNT(malloc);
    if (alignment % sizeof(void *) || (alignment & (alignment - 1)) || !alignment) return EINVAL;
    if (!(q = __libc_memalign(alignment, n)) && n) return ENOMEM;
    *p = q;
    return 0;
}

void free(void *p)
{
    if (p) COUNT(free);
    __libc_free(p);
}

extern char **environ;

char *getenv(const char *name)
{
    size_t n = strlen(name);
    char **e;
    COUNT(getenv);
    for (e = environ; e && *e; ++e)
        if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

/* ---- FFTW: the phases ------------------------------------------------------ */

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "mpi_calls: %s not found\n", name);
        abort();
    }
    return f;
}

/* The bucket of an execute of plan p, which it counts. */
static int enter_execute(const void *p)
{
    int slot = slot_of(p);
    int b = __atomic_load_n(&bucket_calls[B_FIRST + slot], __ATOMIC_RELAXED) ? B_EXECUTE + slot
                                                                              : B_FIRST + slot;
    __atomic_fetch_add(&bucket_calls[b], 1, __ATOMIC_RELAXED);
    return b;
}

/* An execute function whose first argument is the plan. */
#define EXECUTE(name, params, args)                                                                \
    void name params                                                                               \
    {                                                                                              \
        static void(*real) params;                                                                 \
        if (!real) real = (void(*) params)next(#name);                                             \
        if (execute_depth++ == 0) execute_bucket = enter_execute(p);                               \
        real args;                                                                                 \
        --execute_depth;                                                                           \
    }

typedef void *ptr;
EXECUTE(fftw_execute, (const ptr p), (p))
EXECUTE(fftw_execute_dft, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_execute_split_dft, (const ptr p, ptr ri, ptr ii, ptr ro, ptr io), (p, ri, ii, ro, io))
EXECUTE(fftw_execute_dft_r2c, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_execute_split_dft_r2c, (const ptr p, ptr i, ptr ro, ptr io), (p, i, ro, io))
EXECUTE(fftw_execute_dft_c2r, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_execute_split_dft_c2r, (const ptr p, ptr ri, ptr ii, ptr o), (p, ri, ii, o))
EXECUTE(fftw_execute_r2r, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_mpi_execute_dft, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_mpi_execute_dft_r2c, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_mpi_execute_dft_c2r, (const ptr p, ptr i, ptr o), (p, i, o))
EXECUTE(fftw_mpi_execute_r2r, (const ptr p, ptr i, ptr o), (p, i, o))

/* The MPI planners all end in one of these. */
#define PLANNER(name, params, args)                                                                \
    ptr name params                                                                                \
    {                                                                                              \
        static ptr(*real) params;                                                                  \
        ptr plan;                                                                                  \
        if (!real) real = (ptr(*) params)next(#name);                                              \
        if (plan_depth++ == 0) __atomic_fetch_add(&bucket_calls[B_PLAN], 1, __ATOMIC_RELAXED);     \
        plan = real args;                                                                          \
        --plan_depth;                                                                              \
        return plan;                                                                               \
    }

typedef ptrdiff_t pd;
PLANNER(fftw_mpi_plan_many_dft,
        (int rnk, const pd *n, pd howmany, pd ib, pd ob, ptr i, ptr o, MPI_Comm c, int sign,
         unsigned flags),
        (rnk, n, howmany, ib, ob, i, o, c, sign, flags))
PLANNER(fftw_mpi_plan_many_dft_r2c,
        (int rnk, const pd *n, pd howmany, pd ib, pd ob, ptr i, ptr o, MPI_Comm c, unsigned flags),
        (rnk, n, howmany, ib, ob, i, o, c, flags))
PLANNER(fftw_mpi_plan_many_dft_c2r,
        (int rnk, const pd *n, pd howmany, pd ib, pd ob, ptr i, ptr o, MPI_Comm c, unsigned flags),
        (rnk, n, howmany, ib, ob, i, o, c, flags))
PLANNER(fftw_mpi_plan_many_r2r,
        (int rnk, const pd *n, pd howmany, pd ib, pd ob, ptr i, ptr o, MPI_Comm c,
         const int *kind, unsigned flags),
        (rnk, n, howmany, ib, ob, i, o, c, kind, flags))
PLANNER(fftw_mpi_plan_many_transpose,
        (pd n0, pd n1, pd howmany, pd b0, pd b1, ptr i, ptr o, MPI_Comm c, unsigned flags),
        (n0, n1, howmany, b0, b1, i, o, c, flags))

void fftw_destroy_plan(ptr p)
{
    static void (*real)(ptr);
    int k;
    if (!real) real = (void (*)(ptr))next("fftw_destroy_plan");
    if (destroy_depth++ == 0) __atomic_fetch_add(&bucket_calls[B_DESTROY], 1, __ATOMIC_RELAXED);
    real(p);
    --destroy_depth;
    /* a later plan at the same address is another plan */
    pthread_mutex_lock(&slots_lock);
    for (k = 0; k < n_slots; ++k)
        if (plan_of_slot[k] == p) plan_of_slot[k] = (const void *)&plan_of_slot[k];
    pthread_mutex_unlock(&slots_lock);
}
