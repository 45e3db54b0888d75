/*
 * The plain C core of the native searches (McSplit, the clique search, Flatland's tree search): no
 * Python object crosses this header. The bindings (mcsplit_module.c, flatsearch_module.c, with
 * bind.h) turn Python arguments into these structs and the results back into Python values.
 */
#ifndef GINDEX_NATIVE_CORE_H
#define GINDEX_NATIVE_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t word;

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(hidden)
#endif

/* ---- what stops a search (stop.c) ---------------------------------------------------------- */

/* why a search returned early (0: it finished) */
#define ABORT_DEADLINE 1
#define ABORT_SIGNAL 2
#define ABORT_NOMEM 3
#define ABORT_CANCEL 4
#define ABORT_ERROR 5 /* a host hook failed; the host keeps its error */

/* signal handlers run at least this often (seconds) in a search with check_signals: the clique
 * search's nodes are slow (an assignment bound each), 2^18 of them can take seconds */
#define SIGNAL_SECONDS 0.05

/* The caller's side of a search (for a binding: the interpreter). Every hook may be NULL. The
 * search starts attached (the caller holds the host's lock), detaches before it searches and
 * attaches again before it returns; cancelled and signals are called attached. */
typedef struct {
    void *ctx;
    void (*attach)(void *ctx);   /* take the host's lock back */
    void (*detach)(void *ctx);   /* let it go */
    int (*cancelled)(void *ctx); /* 1 cancelled, 0 not, -1 failed (ABORT_ERROR) */
    int (*signals)(void *ctx);   /* run the host's signal handlers: 0, or -1 when one failed */
} Host;

/* What can stop a search, filled by its caller (the bindings: from a Budget, bind.h). Polled
 * every 128 search nodes (poll_stop). */
typedef struct {
    int use_deadline;
    double stop;                               /* now_seconds() past it: ABORT_DEADLINE */
    const volatile unsigned char *cancel_flag; /* non-zero: ABORT_CANCEL; another thread writes it */
    int64_t node_limit;                        /* McSplit: > 0: stop as at a deadline past this many nodes */
    int check_signals;                         /* run host.signals every 2^18 nodes and SIGNAL_SECONDS */
    double next_signals;                       /* set with check_signals: now_seconds() + SIGNAL_SECONDS */
    Host host;
    int detached; /* the search let the host's lock go */
} Stop;

/* the clock of every stop time: Python's time.perf_counter() (a Budget's stop_at is read as is) */
double now_seconds(void);
/* 0, or why the search must stop: the deadline and the cancel flag every call, host.cancelled
 * every 4096 nodes, host.signals every 2^18 nodes and at least every SIGNAL_SECONDS */
int poll_stop(Stop *s, int64_t nodes);
void stop_detach(Stop *s); /* let the host's lock go (once) */
void stop_attach(Stop *s); /* take it back when let go */

/* ---- what a search found ------------------------------------------------------------------- */

typedef struct {
    int64_t best;   /* the best S·D found, or the floor when nothing beat it */
    int found;      /* a mapping beat the floor: the pairs (u[i], v[i]), i < len, in the callers' numbering */
    int len;
    int32_t *u, *v; /* malloc'ed (found_free) */
    int64_t upper;  /* the proven upper bound */
    int exact;      /* the search finished (not cut by a deadline, a node limit or a cancel) */
    int64_t nodes;
} Found;

void found_free(Found *f);
/* f->u and f->v for len pairs, f->found and f->len set; -1: no memory */
int found_alloc(Found *f, int len);
/* the proven bound of a search from floor: the best found, or when cut the open frames' bounds, never
 * above the root bound (nor below the best) */
int64_t proven_upper(int64_t best, int64_t floor, int exact, const int64_t *frames, int n_frames, int64_t root);

/* ---- bit sets ------------------------------------------------------------------------------ */

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

/* a qsort comparison named NAME of T records: by their KEY field, ties by their TIE field (both ascending) */
#define KEY_THEN_TIE_ORDER(NAME, T, KEY, TIE)                                                            \
    static int NAME(const void *a, const void *b)                                                        \
    {                                                                                                    \
        const T *x = a, *y = b;                                                                          \
        if (x->KEY != y->KEY)                                                                            \
            return x->KEY < y->KEY ? -1 : 1;                                                             \
        return (x->TIE > y->TIE) - (x->TIE < y->TIE);                                                    \
    }

/* for each set bit of the W-word set s, lowest first, the statement after it with the bit's index
 * in int v (a break or continue there acts on a loop of the macro's own: use it for plain bodies) */
#define FOR_EACH_BIT(v, s, W)                                                                            \
    for (int v##_q_ = 0; v##_q_ < (W); v##_q_++)                                                         \
        for (word v##_m_ = (s)[v##_q_]; v##_m_; v##_m_ &= v##_m_ - 1)                                    \
            for (int v = v##_q_ * 64 + ctz64(v##_m_), v##_1_ = 1; v##_1_; v##_1_ = 0)

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

/* ---- graphs (graph.c) ---------------------------------------------------------------------- */

#define IN_KEY ((int64_t)1 << 32) /* relation keys: out-port p -> p, in-port p -> 2^32 + p */

/* A graph as its relations: vertex u has the relations (key[j], other[j]), j in [start[u],
 * start[u + 1]): an out-edge u -> x at port p is (p, x), an in-edge x -> u at port p (IN_KEY + p,
 * x); each (key, other) once per vertex, in any order. */
typedef struct {
    int n;
    int32_t *start; /* n + 1 */
    int64_t *key;
    int32_t *other;
} RelGraph;

void relgraph_free(RelGraph *g);
/* g from m edge triples (src, port, dst) of n vertices, sorted and distinct: 0, -1 no memory, or
 * -2 with *err (a vertex or port out of range, triples not sorted or repeated) */
int relgraph_from_edges(RelGraph *g, int n, const int32_t *e, int64_t m, const char **err);

/* carving one allocation: measure with base NULL (off is the size), then carve from base */
typedef struct {
    char *base; /* NULL: only measure */
    size_t off;
} Bump;

void *bump(Bump *b, size_t n);
int cmp_int64(const void *a, const void *b);
long long gcd_ll(long long a, long long b);
int lcm_into(long long *scale, long long den);

/* The relations among kept vertices as CSR in the new numbering (vertex i is keep[i], i < nk;
 * pos[u]: u's new index or -1), keys ascending, masks W words over new indices (a relation holding
 * no kept vertex is left out: it splits no class). With offs (sparse): no masks (*masks NULL), each
 * relation's vertices as a list instead: (*others)[(*offs)[k] .. (*offs)[k + 1]). -1: no memory. */
int read_kept(const RelGraph *g, const int32_t *keep, int nk, const int32_t *pos, int W, int32_t **starts,
              int64_t **keys, word **masks, int32_t **offs, int32_t **others);
int neighbourhoods(int n, int W, const int32_t *starts, const word *masks, word **nb);

/* ---- the searches ---------------------------------------------------------------------------- */

/* a weight of the search: reference vertex u, generated vertex v, integer weight w (0 <= w < 2^62) */
typedef struct {
    int32_t u, v;
    int64_t w;
} WeightedPair;

/* McSplit (mcsplit_search.c) on g1, g2 with the weights pairs[0..npairs) (vertices in range, the
 * total below 2^62), group ids gid1 (-1 .. n1) and gid2 per vertex, beating floor (< 2^62)
 * strictly: 0 with *out filled, or ABORT_SIGNAL, ABORT_ERROR (host's error), ABORT_NOMEM */
int mcsplit_run(const RelGraph *g1, const RelGraph *g2, const WeightedPair *pairs, size_t npairs,
                const int32_t *gid1, const int32_t *gid2, int64_t floor, Stop *stop, Found *out);
int mcsplit_set_sparse_from(int n);          /* tests: the previous value (default 1024) */
int mcsplit_set_symmetry_pairs_upto(int n);  /* tests: the previous value (default 128) */

/* the clique search of "or" adjacency (mcsplit_clique.c): see there */
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
    Stop *stop;
    /* bound scratch */
    int32_t *tcount, *tstart, *titems, *rowof, *colof;
    int64_t *mat, *hu, *hv, *minv;
    int32_t *hp, *way;
    char *used;
    void *block;   /* everything above, one allocation (clique_alloc) */
    size_t zeroed; /* the block's first bytes that must be zero (clique_carve) */
} Clq;

void clique_carve(Clq *q, int n1, int n2, int nv, Bump *b);
int clique_alloc(Clq *q, int n1, int n2, int nv);
int clique_prepare(Clq *q, const int32_t *s1, const int64_t *k1, const word *m1, const int32_t *s2,
                   const int64_t *k2, const word *m2, int W);
int clique_run(Clq *q, long long floor_, int64_t *upper_out);
/* the whole clique search of nv association vertices (vu, vv, vt, wt: n1, n2 and type ranges
 * checked) of g1, g2 from floor: 0 with *out filled, or ABORT_SIGNAL, ABORT_ERROR, ABORT_NOMEM, or
 * -2 with *err (more types than association vertices) */
int clique_search_run(const RelGraph *g1, const RelGraph *g2, int nv, const int32_t *vu, const int32_t *vv,
                      const int32_t *vt, const int64_t *wt, int64_t floor, Stop *stop, Found *out, const char **err);

/* Flatland's tree search (flatsearch.c) of graphs of n1 and n2 vertices: w n1 x n2 weights, rel
 * n x n relations (0: none), order and parent the BFS forest of each; the tree side is the graph of
 * the smaller root bound (*root). 0 with *out filled, ABORT_NOMEM, or -2 with *err. */
int flat_run(int n1, int n2, const int64_t *w, const int64_t *rel1, const int32_t *order1, const int32_t *parent1,
             const int64_t *rel2, const int32_t *order2, const int32_t *parent2, int64_t floor, Stop *stop,
             Found *out, int64_t *root, const char **err);

/* ---- the paper weights' totals (weight_rows.c) ----------------------------------------------- */

/* a pair of the same type with w = num / den > 0 (den 0: w = 1, nothing compared); ti its type */
typedef struct {
    int32_t u, v, ti;
    int64_t num, den;
} WeightRow;

/* the lcm of the denominators into *scale (1 on entry); 1: it would reach 2^62 */
int rows_scale(const WeightRow *rows, size_t n, long long *scale);
static inline long long row_weight(const WeightRow *r, long long scale) { return r->den ? r->num * (scale / r->den) : scale; }
/* the total of the scaled weights and the quick bound (Σ over types of min(Σ best w of each
 * reference node, Σ best w of each generated node)): 0, 1 (the total reaches 2^62), -1 no memory */
int rows_bounds(const WeightRow *rows, size_t n, int n1, int n2, int n_types, long long scale, long long *total,
                long long *quick);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#endif /* GINDEX_NATIVE_CORE_H */
