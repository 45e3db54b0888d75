/*
 * gindex_studio.core.scoring._mcsplit: one extension built from the mcsplit_*.c files (setup.py).
 * This header holds what they share: types, constants, inline bit operations, and the functions
 * and data one file defines and another uses (hidden: not exported from the module).
 */
#ifndef GINDEX_MCSPLIT_H
#define GINDEX_MCSPLIT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

typedef uint64_t word;

#define ABORT_DEADLINE 1
#define ABORT_SIGNAL 2
#define ABORT_NOMEM 3
#define ABORT_CANCEL 4
#define ABORT_ERROR 5 /* a Python exception is set (from a cancel object's is_set) */

typedef struct {
    int32_t v;
    int64_t w;
} Partner;

/* signal handlers run at least this often (seconds) in a search started with check_signals: the
 * clique search's nodes are slow (an assignment bound each), 2^18 of them can take seconds */
#define SIGNAL_SECONDS 0.05

/* what can stop a search: a deadline, a cancel flag or object, a signal (see poll_stop) */
typedef struct {
    int use_deadline;
    double stop;
    int check_signals;
    const volatile unsigned char *cancel_flag; /* another thread writes it: read it atomically */
    PyObject *cancel_poll;                     /* an object with is_set(), polled with the GIL */
    PyThreadState *ts;                         /* the saved thread state while the GIL is released */
    Py_buffer buf;                             /* the cancel buffer, held until release_stop */
    double next_signals;                       /* when to run signal handlers next (check_signals) */
    int have_buf;
    int64_t node_limit;                        /* McSplit: stop after this many nodes (0: no limit) */
} Stop;

/* the class list of one search depth: class i has L = bits + 2Wi, R = bits + 2Wi + W */
typedef struct {
    int n, cap;
    word *bits;
    int64_t *bound;
    int32_t *size;
} Level;

typedef struct {
    int n1, n2, W;
    int32_t *p1s, *p2s; /* partner lists, CSR: p1[p1s[u] .. p1s[u+1]) */
    Partner *p1, *p2;
    int32_t *l1s, *l2s; /* partners grouped by weight, CSR: weights l1w[l1s[u] ..] descending, */
    int64_t *l1w, *l2w; /* the partners of each weight as a set l1m + W * index                 */
    word *l1m, *l2m;
    int32_t *a1s, *a2s; /* adjacency, CSR: keys a1k[a1s[u] ..], masks a1m + W * index */
    int64_t *a1k, *a2k;
    word *a1m, *a2m;
    word *nb1, *nb2; /* all neighbours (any relation), n * W */
    int64_t best, nodes;
    int has_best;
    int best_len, map_len;
    int32_t *best_u, *best_v, *map_u, *map_v;
    int64_t *frames;
    int n_frames;
    Stop stop;
    Level *levels;
    int n_levels;
    int64_t *sbl, *sbr;
    word *pa, *pb; /* split pieces, double buffer of (n1 + 1) pieces */
    word *tmp;     /* 2W scratch words */
    /* interchangeable vertices (mcsplit_search.c, symmetry_tables): per side the first vertex with
     * the same partner list (weights to every vertex of the other side), the first twin (same
     * list, group and neighbourhood, not adjacent), and the vertices left to match per depth */
    int32_t *rc1, *rc2, *tw1, *tw2;
    word *rem;
} Ctx;

static inline int ctz64(word x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

static inline int popcount64(word x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
#endif
}

static inline int cancel_requested(const volatile unsigned char *flag)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n((const unsigned char *)flag, __ATOMIC_RELAXED) != 0;
#else
    return *flag != 0;
#endif
}

static inline int has_bit(const word *s, int i) { return (int)((s[i >> 6] >> (i & 63)) & 1); }

static inline int is_empty(const word *s, int W)
{
    for (int i = 0; i < W; i++)
        if (s[i])
            return 0;
    return 1;
}

static inline int intersects(const word *a, const word *b, int W)
{
    for (int i = 0; i < W; i++)
        if (a[i] & b[i])
            return 1;
    return 0;
}

static inline int lowest_bit(const word *s, int W)
{
    for (int i = 0; i < W; i++)
        if (s[i])
            return i * 64 + ctz64(s[i]);
    return -1;
}

#define IN_KEY ((int64_t)1 << 32) /* relation keys: out-port p -> p, in-port p -> 2^32 + p */

/* carving one allocation: measure with base NULL (off is the size), then carve from base */
typedef struct {
    char *base; /* NULL: only measure */
    size_t off;
} Bump;

typedef struct {
    int nv, WV, n1, n2, ntypes;
    int32_t *vu, *vv, *vt; /* association vertex: reference node, generated node, type id */
    int64_t *wt;
    word *adj; /* nv * WV */
    word *P;   /* candidate sets by depth, (n1 + 2) * WV */
    int64_t best, nodes;
    int has_best, best_len, map_len;
    int32_t *best_set, *map;
    int64_t *frames;
    int n_frames;
    Stop stop;
    /* bound scratch */
    int32_t *tcount, *tstart, *titems, *rowof, *colof;
    int64_t *mat, *hu, *hv, *minv;
    int32_t *hp, *way;
    char *used;
    void *block;  /* everything above, one allocation (clique_alloc) */
    size_t zeroed; /* the block's first bytes that must be zero (clique_carve) */
    int gil_held; /* clique_run: the GIL not released yet */
} Clq;

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(hidden)
#endif

/* ---- defined in one mcsplit_*.c file, used in another ----------------------------------- */

int poll_stop(Stop *s, int64_t nodes);
double now_seconds(void);
int init_stop(Stop *s, PyObject *remaining, int check_signals, PyObject *cancel);
void release_stop(Stop *s);
int read_graph(PyObject *outs, PyObject *ins, int n, int W, int32_t **starts, int64_t **keys, word **masks);
int neighbourhoods(int n, int W, const int32_t *starts, const word *masks, word **nb);
int graph_degrees(PyObject *outs, PyObject *ins, int n, const char *want, int64_t *deg);
int read_kept(PyObject *outs, PyObject *ins, int n, const int32_t *keep, int nk, const int32_t *pos, int W,
              int32_t **starts, int64_t **keys, word **masks);
int cmp_int64(const void *a, const void *b);
int read_ints(PyObject *list, int n, long lo, long hi, int32_t *out);
void *bump(Bump *b, size_t n);
PyObject *pair_of(long long a, long long b);
long long gcd_ll(long long a, long long b);
int lcm_into(long long *scale, long long den);
int pure_python_env(void);
PyObject *search_core(PyObject *out1, PyObject *in1, PyObject *out2, PyObject *in2, const long long *uvw,
                      Py_ssize_t n_uvw, const int32_t *gid1_in, const int32_t *gid2_in, long long floor_,
                      PyObject *remaining, int check_signals, PyObject *cancel, long long node_limit,
                      Py_ssize_t n1_all, Py_ssize_t n2_all);
PyObject *py_search(PyObject *self, PyObject *args);
void clique_carve(Clq *q, int n1, int n2, int nv, Bump *b);
int clique_prepare(Clq *q, const int32_t *s1, const int64_t *k1, const word *m1, const int32_t *s2,
                   const int64_t *k2, const word *m2, int W);
int clique_run(Clq *q, long long floor_, int64_t *upper_out);
PyObject *py_clique_search(PyObject *self, PyObject *args);
PyObject *py_weights(PyObject *self, PyObject *args);
PyObject *py_solve(PyObject *self, PyObject *args);
PyObject *py_weights_to(PyObject *self, PyObject *args);
PyObject *py_counts_to(PyObject *self, PyObject *args);
PyObject *py_flow_graph(PyObject *self, PyObject *args);
PyObject *py_signatures(PyObject *self, PyObject *args);
PyObject *py_companion_delta(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_companion_hash_mask(PyObject *self, PyObject *args);

extern PyObject *_isqrt; /* math.isqrt */
extern PyObject *_str_type, *_str_values, *_str_none_keys, *_str_self_equal;
extern PyObject *_str_wires_g, *_str_id_g, *_zero_g;
extern PyObject *_str_data_g;
extern PyObject *_str_flow, *_str_flows, *_str_id, *_str_wires;

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#endif /* GINDEX_MCSPLIT_H */
