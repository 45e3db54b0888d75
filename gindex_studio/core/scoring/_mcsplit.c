/*
 * Native searches of gindex_studio.core.scoring.matching: the weighted McSplit search (paper profile) and
 * the maximum-weight clique search (companion profile).
 *
 * The algorithm is the one of matching._McSplit (the reference implementation, after McCreesh,
 * Prosser & Trimble, IJCAI 2017, extended to weights), step for step: the same label classes in
 * the same order, the same branching, bound and pruning, so the search tree, the node count, S
 * and the proven upper bound are those of the Python search. Vertex sets are arrays of W 64-bit
 * words; weights are the integer-scaled weights (the caller guarantees their total < 2^62).
 *
 * search(out1, in1, out2, in2, w, gid1, gid2, floor, remaining, check_signals[, cancel[, node_limit]])
 *   out/in: Graph.adj_out / adj_in; w: {(u, v): integer weight}; gid: group id per vertex
 *   floor: the search must beat it strictly; remaining: seconds left (None: no deadline)
 *   cancel: None, a buffer of at least one byte (non-zero: stop), or an object with is_set()
 *   node_limit: > 0: the search stops as at a deadline when it would visit node node_limit + 1
 * returns (best, pairs or None, upper, exact, nodes), as matching._McSplit.run.
 *
 * clique_search(...) is the companion profile's search (matching._CliqueSearch), further below.
 *
 * The GIL is released while searching. With check_signals, the GIL is taken back every 2^18
 * nodes and at least every 50 ms to run signal handlers (Ctrl-C interrupts a long search with KeyboardInterrupt). A
 * cancel buffer is read without the GIL every 128 nodes, next to the deadline (matching.CancelToken
 * owns such a byte); a cancel object with is_set() is polled with the GIL every 4096 nodes. A
 * cancelled search returns as a deadline-cut one does (best found, not exact, proven bound).
 */
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
} Ctx;

static double now_seconds(void)
{
#ifdef _WIN32
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (!freq.QuadPart)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart / (double)freq.QuadPart;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#endif
}

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

/* ---- sums of the k largest weights ------------------------------------------------------- */

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

static int64_t sum_all(const int64_t *xs, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += xs[i];
    return s;
}

/* sum of the k largest of xs[0..n) (0 < k < n); reorders xs */
static int64_t sum_top(int64_t *xs, int n, int k)
{
    if (n <= 24) {
        for (int i = 1; i < n; i++) {
            int64_t x = xs[i];
            int j = i - 1;
            while (j >= 0 && xs[j] < x) {
                xs[j + 1] = xs[j];
                j--;
            }
            xs[j + 1] = x;
        }
    } else {
        qsort(xs, (size_t)n, sizeof(int64_t), cmp_desc);
    }
    return sum_all(xs, k);
}

/* ---- classes ------------------------------------------------------------------------------ */

/* Reduce the class (L, R) in place: drop vertices without a partner on the other side; its bound
 * is the smaller of the sums of the k = min(|L|, |R|) best weights of each side. 0: empty. */
static int reduce_class(Ctx *c, word *L, word *R, int64_t *bound, int32_t *size)
{
    const int W = c->W;
    int nl = 0, nr = 0;
    for (int i = 0; i < W; i++) {
        word x = L[i];
        while (x) {
            int b = ctz64(x);
            int u = i * 64 + b;
            x &= x - 1;
            int found = 0;
            for (int k = c->l1s[u]; k < c->l1s[u + 1]; k++) {
                if (intersects(c->l1m + (size_t)W * k, R, W)) {
                    c->sbl[nl++] = c->l1w[k];
                    found = 1;
                    break;
                }
            }
            if (!found)
                L[i] &= ~((word)1 << b);
        }
    }
    if (!nl)
        return 0;
    for (int i = 0; i < W; i++) {
        word x = R[i];
        while (x) {
            int b = ctz64(x);
            int v = i * 64 + b;
            x &= x - 1;
            int found = 0;
            for (int k = c->l2s[v]; k < c->l2s[v + 1]; k++) {
                if (intersects(c->l2m + (size_t)W * k, L, W)) {
                    c->sbr[nr++] = c->l2w[k];
                    found = 1;
                    break;
                }
            }
            if (!found)
                R[i] &= ~((word)1 << b);
        }
    }
    int64_t a, b;
    if (nl <= nr) {
        a = sum_all(c->sbl, nl);
        b = nr > nl ? sum_top(c->sbr, nr, nl) : sum_all(c->sbr, nr);
    } else {
        a = sum_top(c->sbl, nl, nr);
        b = sum_all(c->sbr, nr);
    }
    *bound = a < b ? a : b;
    *size = nl > nr ? nl : nr;
    return 1;
}

/* a new slot at the end of lv (grown as needed); its L, R are left to the caller */
static int level_push(Ctx *c, Level *lv)
{
    if (lv->n == lv->cap) {
        int cap = lv->cap ? 2 * lv->cap : 8;
        word *bits = realloc(lv->bits, (size_t)cap * 2 * c->W * sizeof(word));
        if (!bits)
            return -1;
        lv->bits = bits;
        int64_t *bound = realloc(lv->bound, (size_t)cap * sizeof(int64_t));
        if (!bound)
            return -1;
        lv->bound = bound;
        int32_t *size = realloc(lv->size, (size_t)cap * sizeof(int32_t));
        if (!size)
            return -1;
        lv->size = size;
        lv->cap = cap;
    }
    return lv->n++;
}

static inline word *cls_L(Ctx *c, Level *lv, int i) { return lv->bits + (size_t)2 * c->W * i; }
static inline word *cls_R(Ctx *c, Level *lv, int i) { return lv->bits + (size_t)2 * c->W * i + c->W; }

/* append (L, R) reduced to lv when it is a class */
static int push_reduced(Ctx *c, Level *lv, const word *L, const word *R)
{
    const int W = c->W;
    int i = level_push(c, lv);
    if (i < 0)
        return -1;
    word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
    memcpy(l, L, W * sizeof(word));
    memcpy(r, R, W * sizeof(word));
    if (!reduce_class(c, l, r, &lv->bound[i], &lv->size[i]))
        lv->n--;
    return 0;
}

static int push_copy(Ctx *c, Level *lv, Level *from, int j)
{
    int i = level_push(c, lv);
    if (i < 0)
        return -1;
    memcpy(cls_L(c, lv, i), cls_L(c, from, j), 2 * c->W * sizeof(word));
    lv->bound[i] = from->bound[j];
    lv->size[i] = from->size[j];
    return 0;
}

/* split (L, R) by the relations of the new pair (u, v) to it and append the classes to lv */
static int split_into(Ctx *c, Level *lv, const word *L, const word *R, int u, int v)
{
    const int W = c->W, W2 = 2 * c->W;
    word *cur = c->pa, *nxt = c->pb;
    int ncur = 1;
    memcpy(cur, L, W * sizeof(word));
    memcpy(cur + W, R, W * sizeof(word));
    int i = c->a1s[u], ie = c->a1s[u + 1];
    int j = c->a2s[v], je = c->a2s[v + 1];
    while ((i < ie || j < je) && ncur) {
        const word *a = NULL, *b = NULL;
        if (j >= je || (i < ie && c->a1k[i] < c->a2k[j])) {
            a = c->a1m + (size_t)W * i++;
        } else if (i >= ie || c->a2k[j] < c->a1k[i]) {
            b = c->a2m + (size_t)W * j++;
        } else {
            a = c->a1m + (size_t)W * i++;
            b = c->a2m + (size_t)W * j++;
        }
        int nn = 0;
        for (int p = 0; p < ncur; p++) {
            const word *l = cur + (size_t)W2 * p, *r = l + W;
            word *o1 = nxt + (size_t)W2 * nn;
            word any_l = 0, any_r = 0;
            for (int k = 0; k < W; k++) {
                word x = a ? (l[k] & a[k]) : 0, y = b ? (r[k] & b[k]) : 0;
                o1[k] = x;
                o1[W + k] = y;
                any_l |= x;
                any_r |= y;
            }
            if (any_l && any_r)
                nn++;
            word *o0 = nxt + (size_t)W2 * nn;
            any_l = any_r = 0;
            for (int k = 0; k < W; k++) {
                word x = a ? (l[k] & ~a[k]) : l[k], y = b ? (r[k] & ~b[k]) : r[k];
                o0[k] = x;
                o0[W + k] = y;
                any_l |= x;
                any_r |= y;
            }
            if (any_l && any_r)
                nn++;
        }
        word *t = cur;
        cur = nxt;
        nxt = t;
        ncur = nn;
    }
    for (int p = 0; p < ncur; p++) {
        const word *l = cur + (size_t)W2 * p;
        if (push_reduced(c, lv, l, l + W) < 0)
            return -1;
    }
    return 0;
}

/* Called every 128 search nodes without the GIL: 0, or why the search must stop. The deadline
 * and a cancel buffer are read every call, a cancel object is polled every 4096 nodes and signal
 * handlers run every 2^18 nodes and at least every SIGNAL_SECONDS (both with the GIL taken back). */
static int poll_stop(Stop *s, int64_t nodes)
{
    if (s->use_deadline && now_seconds() > s->stop)
        return ABORT_DEADLINE;
    if (s->cancel_flag && cancel_requested(s->cancel_flag))
        return ABORT_CANCEL;
    if (s->cancel_poll && (nodes & 4095) == 0) {
        PyEval_RestoreThread(s->ts);
        PyObject *r = PyObject_CallMethod(s->cancel_poll, "is_set", NULL);
        int on = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
        s->ts = PyEval_SaveThread();
        if (on < 0)
            return ABORT_ERROR;
        if (on)
            return ABORT_CANCEL;
    }
    if (s->check_signals && ((nodes & ((1 << 18) - 1)) == 0 || now_seconds() > s->next_signals)) {
        s->next_signals = now_seconds() + SIGNAL_SECONDS;
        PyEval_RestoreThread(s->ts);
        int err = PyErr_CheckSignals();
        s->ts = PyEval_SaveThread();
        if (err)
            return ABORT_SIGNAL;
    }
    return 0;
}

/* Fill s from the Python arguments: remaining (seconds or None), check_signals, and cancel (None,
 * a buffer whose first byte stops the search, held until release_stop, or an object with
 * is_set()). -1 with an exception set on bad input (nothing to release then). */
static int init_stop(Stop *s, PyObject *remaining, int check_signals, PyObject *cancel)
{
    memset(s, 0, sizeof(Stop));
    s->check_signals = check_signals;
    if (check_signals)
        s->next_signals = now_seconds() + SIGNAL_SECONDS;
    if (remaining != Py_None) {
        double r = PyFloat_AsDouble(remaining);
        if (r == -1.0 && PyErr_Occurred())
            return -1;
        s->use_deadline = 1;
        s->stop = now_seconds() + r;
    }
    if (cancel == Py_None)
        return 0;
    if (PyObject_CheckBuffer(cancel)) {
        if (PyObject_GetBuffer(cancel, &s->buf, PyBUF_SIMPLE) < 0)
            return -1;
        if (s->buf.len < 1) {
            PyBuffer_Release(&s->buf);
            PyErr_SetString(PyExc_ValueError, "cancel: a buffer of at least one byte expected");
            return -1;
        }
        s->have_buf = 1;
        s->cancel_flag = (const volatile unsigned char *)s->buf.buf;
    } else if (PyObject_HasAttrString(cancel, "is_set")) {
        s->cancel_poll = cancel;
    } else {
        PyErr_SetString(PyExc_TypeError, "cancel: None, a one-byte buffer or an object with is_set() expected");
        return -1;
    }
    return 0;
}

static void release_stop(Stop *s)
{
    if (s->have_buf)
        PyBuffer_Release(&s->buf);
    s->have_buf = 0;
}

/* ---- the search --------------------------------------------------------------------------- */

static int search(Ctx *c, int depth, int64_t cur)
{
    const int W = c->W;
    Level *lv = &c->levels[depth];
    c->nodes++;
    if (c->stop.node_limit && c->nodes > c->stop.node_limit)
        return ABORT_DEADLINE; /* as a deadline: the best found and a proven bound */
    if ((c->nodes & 127) == 0) {
        int rc = poll_stop(&c->stop, c->nodes);
        if (rc)
            return rc;
    }
    if (cur > c->best) {
        c->best = cur;
        c->has_best = 1;
        c->best_len = c->map_len;
        memcpy(c->best_u, c->map_u, c->map_len * sizeof(int32_t));
        memcpy(c->best_v, c->map_v, c->map_len * sizeof(int32_t));
    }
    int64_t sum = 0;
    for (int i = 0; i < lv->n; i++)
        sum += lv->bound[i];
    int64_t bound = cur + sum;
    if (bound <= c->best || lv->n == 0)
        return 0;
    c->frames[c->n_frames++] = bound;
    int ci = 0;
    for (int i = 1; i < lv->n; i++)
        if (lv->size[i] < lv->size[ci])
            ci = i;
    const word *L = cls_L(c, lv, ci), *R = cls_R(c, lv, ci);
    const int u = lowest_bit(L, W);
    const word *nb1 = c->nb1 + (size_t)W * u;
    Level *nx = &c->levels[depth + 1];
    word *L2 = c->tmp, *R2 = c->tmp + W;
    const int64_t rest = sum; /* optimistic: the branch class keeps its whole bound */
    for (int k = c->p1s[u]; k < c->p1s[u + 1]; k++) {
        const int v = c->p1[k].v;
        const int64_t wt = c->p1[k].w;
        if (!has_bit(R, v))
            continue;
        if (cur + wt + rest <= c->best)
            continue;
        const word *nb2 = c->nb2 + (size_t)W * v;
        nx->n = 0;
        for (int i = 0; i < lv->n; i++) {
            if (i == ci)
                continue;
            const word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
            int rc;
            if (!intersects(l, nb1, W) && !intersects(r, nb2, W))
                rc = push_copy(c, nx, lv, i);
            else
                rc = split_into(c, nx, l, r, u, v);
            if (rc < 0)
                return ABORT_NOMEM;
        }
        memcpy(L2, L, W * sizeof(word));
        memcpy(R2, R, W * sizeof(word));
        L2[u >> 6] &= ~((word)1 << (u & 63));
        R2[v >> 6] &= ~((word)1 << (v & 63));
        int rc = 0;
        if (!intersects(L2, nb1, W) && !intersects(R2, nb2, W)) {
            if (!is_empty(L2, W) && !is_empty(R2, W))
                rc = push_reduced(c, nx, L2, R2);
        } else {
            rc = split_into(c, nx, L2, R2, u, v);
        }
        if (rc < 0)
            return ABORT_NOMEM;
        c->map_u[c->map_len] = u;
        c->map_v[c->map_len] = v;
        c->map_len++;
        rc = search(c, depth + 1, cur + wt);
        if (rc)
            return rc;
        c->map_len--;
    }
    /* leave u unmatched */
    nx->n = 0;
    for (int i = 0; i < lv->n; i++)
        if (i != ci && push_copy(c, nx, lv, i) < 0)
            return ABORT_NOMEM;
    memcpy(L2, L, W * sizeof(word));
    L2[u >> 6] &= ~((word)1 << (u & 63));
    if (!is_empty(L2, W) && push_reduced(c, nx, L2, R) < 0)
        return ABORT_NOMEM;
    int rc = search(c, depth + 1, cur);
    if (rc)
        return rc;
    c->n_frames--;
    return 0;
}

/* ---- conversion from Python ----------------------------------------------------------------- */

/* a non-negative int below 2^(64W) into W words */
static int to_words(PyObject *x, word *out, int W)
{
    if (!PyLong_Check(x)) {
        PyErr_SetString(PyExc_TypeError, "bitset must be an int");
        return -1;
    }
    if (W == 1) {
        out[0] = (word)PyLong_AsUnsignedLongLong(x); /* raises on negative or too large */
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *shift = PyLong_FromLong(64);
    if (!shift)
        return -1;
    Py_INCREF(x);
    int ok = 0;
    for (int i = 0; i <= W; i++) {
        if (i == W) {
            ok = PyObject_Not(x); /* nothing left above the W words (a negative int never ends) */
            if (ok == 0)
                PyErr_SetString(PyExc_ValueError, "bitset out of range");
            break;
        }
        out[i] = (word)PyLong_AsUnsignedLongLongMask(x);
        if (PyErr_Occurred())
            break;
        PyObject *y = PyNumber_Rshift(x, shift);
        if (!y)
            break;
        Py_DECREF(x);
        x = y;
    }
    Py_DECREF(shift);
    Py_DECREF(x);
    return ok == 1 ? 0 : -1;
}

#define IN_KEY ((int64_t)1 << 32) /* relation keys: out-port p -> p, in-port p -> 2^32 + p */

/* Graph.adj_out / adj_in (lists of {port: mask}) into CSR by vertex: keys ascending (out-ports,
 * then in-ports, as the Python search refines), masks W words each. */
static int read_graph(PyObject *outs, PyObject *ins, int n, int W, int32_t **starts, int64_t **keys, word **masks)
{
    if (!PyList_Check(outs) || !PyList_Check(ins) || PyList_GET_SIZE(outs) != n || PyList_GET_SIZE(ins) != n) {
        PyErr_SetString(PyExc_ValueError, "adjacency: one dict per vertex and direction");
        return -1;
    }
    Py_ssize_t total = 0, most = 0;
    for (int u = 0; u < n; u++) {
        PyObject *o = PyList_GET_ITEM(outs, u), *i = PyList_GET_ITEM(ins, u);
        if (!PyDict_Check(o) || !PyDict_Check(i)) {
            PyErr_SetString(PyExc_TypeError, "adjacency: dicts {port: mask} expected");
            return -1;
        }
        Py_ssize_t k = PyDict_GET_SIZE(o) + PyDict_GET_SIZE(i);
        total += k;
        if (k > most)
            most = k;
    }
    *starts = malloc((size_t)(n + 1) * sizeof(int32_t));
    *keys = malloc((size_t)(total ? total : 1) * sizeof(int64_t));
    *masks = malloc((size_t)(total ? total : 1) * W * sizeof(word));
    int64_t *tk = malloc((size_t)(most ? most : 1) * sizeof(int64_t));
    int32_t *ti = malloc((size_t)(most ? most : 1) * sizeof(int32_t));
    word *tm = malloc((size_t)(most ? most : 1) * W * sizeof(word));
    int rc = -1;
    if (!*starts || !*keys || !*masks || !tk || !ti || !tm) {
        PyErr_NoMemory();
        goto out;
    }
    Py_ssize_t k = 0;
    for (int u = 0; u < n; u++) {
        (*starts)[u] = (int32_t)k;
        int m = 0;
        for (int dir = 0; dir < 2; dir++) {
            PyObject *d = PyList_GET_ITEM(dir ? ins : outs, u), *port, *mask;
            Py_ssize_t pos = 0;
            while (PyDict_Next(d, &pos, &port, &mask)) {
                long long p = PyLong_AsLongLong(port);
                if (p == -1 && PyErr_Occurred())
                    goto out;
                if (p < 0 || p >= IN_KEY) {
                    PyErr_SetString(PyExc_ValueError, "port out of range");
                    goto out;
                }
                if (to_words(mask, tm + (size_t)W * m, W) < 0)
                    goto out;
                tk[m] = (int64_t)p + (dir ? IN_KEY : 0);
                ti[m] = m;
                m++;
            }
        }
        for (int a = 1; a < m; a++) { /* few relations per vertex: insertion sort by key */
            int32_t x = ti[a];
            int b = a - 1;
            while (b >= 0 && tk[ti[b]] > tk[x]) {
                ti[b + 1] = ti[b];
                b--;
            }
            ti[b + 1] = x;
        }
        for (int a = 0; a < m; a++) {
            (*keys)[k] = tk[ti[a]];
            memcpy(*masks + (size_t)W * k, tm + (size_t)W * ti[a], W * sizeof(word));
            k++;
        }
    }
    (*starts)[n] = (int32_t)k;
    rc = 0;
out:
    free(tk);
    free(ti);
    free(tm);
    return rc;
}

/* the union of each vertex's relation masks */
static int neighbourhoods(int n, int W, const int32_t *starts, const word *masks, word **nb)
{
    *nb = calloc((size_t)(n ? n : 1) * W, sizeof(word));
    if (!*nb) {
        PyErr_NoMemory();
        return -1;
    }
    for (int u = 0; u < n; u++)
        for (int k = starts[u]; k < starts[u + 1]; k++)
            for (int i = 0; i < W; i++)
                (*nb)[(size_t)W * u + i] |= masks[(size_t)W * k + i];
    return 0;
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_partner(const void *a, const void *b)
{
    const Partner *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* the sorted partner lists grouped by weight: per vertex, (weight, set of partners) descending */
static int weight_levels(int n, int W, const int32_t *ps, const Partner *p, int32_t **ls, int64_t **lw, word **lm)
{
    int total = ps[n];
    *ls = malloc(((size_t)n + 1) * sizeof(int32_t));
    *lw = malloc(((size_t)total + 1) * sizeof(int64_t));
    *lm = calloc(((size_t)total + 1) * W, sizeof(word));
    if (!*ls || !*lw || !*lm) {
        PyErr_NoMemory();
        return -1;
    }
    int k = 0;
    for (int u = 0; u < n; u++) {
        (*ls)[u] = k;
        for (int j = ps[u]; j < ps[u + 1]; j++) {
            if (j == ps[u] || p[j].w != p[j - 1].w) {
                (*lw)[k] = p[j].w;
                k++;
            }
            word *m = *lm + (size_t)W * (k - 1);
            m[p[j].v >> 6] |= (word)1 << (p[j].v & 63);
        }
    }
    (*ls)[n] = k;
    return 0;
}

/* weights as triples (u, v, w) into partner lists by descending weight, ties by vertex: p1 over
 * relabelled ref vertices (partners: generated vertices), p2 over generated vertices (partners
 * relabelled); the order of the triples does not matter */
static int partners_from(Ctx *c, const long long *uvw, Py_ssize_t total, const int32_t *pos)
{
    const int n1 = c->n1, n2 = c->n2;
    c->p1s = calloc((size_t)n1 + 2, sizeof(int32_t));
    c->p2s = calloc((size_t)n2 + 2, sizeof(int32_t));
    c->p1 = malloc((size_t)(total ? total : 1) * sizeof(Partner));
    c->p2 = malloc((size_t)(total ? total : 1) * sizeof(Partner));
    int32_t *f1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *f2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    int rc = -1;
    if (!c->p1s || !c->p2s || !c->p1 || !c->p2 || !f1 || !f2) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t t = 0; t < total; t++) {
        c->p1s[pos[uvw[3 * t]] + 1]++;
        c->p2s[uvw[3 * t + 1] + 1]++;
    }
    for (int i = 0; i < n1; i++)
        c->p1s[i + 1] += c->p1s[i];
    for (int v = 0; v < n2; v++)
        c->p2s[v + 1] += c->p2s[v];
    memcpy(f1, c->p1s, (size_t)n1 * sizeof(int32_t));
    memcpy(f2, c->p2s, (size_t)n2 * sizeof(int32_t));
    for (Py_ssize_t t = 0; t < total; t++) {
        int i = pos[uvw[3 * t]];
        int v = (int)uvw[3 * t + 1];
        int64_t wt = (int64_t)uvw[3 * t + 2];
        c->p1[f1[i]++] = (Partner){(int32_t)v, wt};
        c->p2[f2[v]++] = (Partner){(int32_t)i, wt};
    }
    for (int i = 0; i < n1; i++)
        qsort(c->p1 + c->p1s[i], (size_t)(c->p1s[i + 1] - c->p1s[i]), sizeof(Partner), cmp_partner);
    for (int v = 0; v < n2; v++)
        qsort(c->p2 + c->p2s[v], (size_t)(c->p2s[v + 1] - c->p2s[v]), sizeof(Partner), cmp_partner);
    if (weight_levels(n1, c->W, c->p1s, c->p1, &c->l1s, &c->l1w, &c->l1m) < 0 ||
        weight_levels(n2, c->W, c->p2s, c->p2, &c->l2s, &c->l2w, &c->l2m) < 0)
        goto out;
    rc = 0;
out:
    free(f1);
    free(f2);
    return rc;
}

/* w {(u, v): weight} (checked) into triples (u, v, w); *uvw is malloc'ed (free it) */
static int weight_triples(PyObject *w, int n1, int n2, long long **uvw, Py_ssize_t *count)
{
    if (!PyDict_Check(w)) {
        PyErr_SetString(PyExc_TypeError, "weights: dict {(u, v): w} expected");
        return -1;
    }
    Py_ssize_t total = PyDict_GET_SIZE(w), t = 0;
    *uvw = malloc((size_t)(total ? total : 1) * 3 * sizeof(long long));
    if (!*uvw) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *val;
    Py_ssize_t it = 0;
    while (PyDict_Next(w, &it, &key, &val)) {
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
            PyErr_SetString(PyExc_TypeError, "weights: keys (u, v) expected");
            return -1;
        }
        long u = PyLong_AsLong(PyTuple_GET_ITEM(key, 0)), v = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
        long long wt = PyLong_AsLongLong(val);
        if (PyErr_Occurred())
            return -1;
        if (u < 0 || u >= n1 || v < 0 || v >= n2 || wt < 0 || wt >= ((long long)1 << 62)) {
            PyErr_SetString(PyExc_ValueError, "weights: vertex or weight out of range");
            return -1;
        }
        (*uvw)[3 * t] = u;
        (*uvw)[3 * t + 1] = v;
        (*uvw)[3 * t + 2] = wt;
        t++;
    }
    *count = t;
    return 0;
}

static int read_ints(PyObject *list, int n, long lo, long hi, int32_t *out)
{
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_SetString(PyExc_ValueError, "group ids: one per vertex");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long x = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (x == -1 && PyErr_Occurred())
            return -1;
        if (x < lo || x > hi) {
            PyErr_SetString(PyExc_ValueError, "group id out of range");
            return -1;
        }
        out[i] = (int32_t)x;
    }
    return 0;
}

static void free_ctx(Ctx *c)
{
    void *ptrs[] = {c->p1s, c->p2s, c->p1, c->p2, c->l1s, c->l2s, c->l1w, c->l2w, c->l1m, c->l2m, c->a1s, c->a2s, c->a1k, c->a2k, c->a1m, c->a2m,
                    c->nb1, c->nb2, c->best_u, c->best_v, c->map_u, c->map_v, c->frames, c->sbl,
                    c->sbr, c->pa, c->pb, c->tmp};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
        free(ptrs[i]);
    if (c->levels) {
        for (int i = 0; i < c->n_levels; i++) {
            free(c->levels[i].bits);
            free(c->levels[i].bound);
            free(c->levels[i].size);
        }
        free(c->levels);
    }
}

static PyObject *search_core(PyObject *out1, PyObject *in1, PyObject *out2, PyObject *in2, const long long *uvw,
                             Py_ssize_t n_uvw, const int32_t *gid1_in, const int32_t *gid2_in, long long floor_,
                             PyObject *remaining, int check_signals, PyObject *cancel, long long node_limit);

static PyObject *py_search(PyObject *self, PyObject *args)
{
    PyObject *out1, *in1, *out2, *in2, *w, *gid1_l, *gid2_l, *remaining, *cancel = Py_None;
    long long floor_, node_limit = 0;
    int check_signals;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!LOp|OL", &PyList_Type, &out1, &PyList_Type, &in1, &PyList_Type,
                          &out2, &PyList_Type, &in2, &PyDict_Type, &w, &PyList_Type, &gid1_l, &PyList_Type,
                          &gid2_l, &floor_, &remaining, &check_signals, &cancel, &node_limit))
        return NULL;
    Py_ssize_t n1_ = PyList_GET_SIZE(out1), n2_ = PyList_GET_SIZE(out2);
    if (n1_ > (1 << 26) || n2_ > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "graphs too large");
        return NULL;
    }
    const int n1 = (int)n1_, n2 = (int)n2_;
    PyObject *result = NULL;
    long long *uvw = NULL;
    Py_ssize_t n_uvw = 0;
    int32_t *gid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *gid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    if (!gid1 || !gid2) {
        PyErr_NoMemory();
        goto done;
    }
    if (read_ints(gid1_l, n1, -1, n1, gid1) < 0 || read_ints(gid2_l, n2, -1, n1, gid2) < 0)
        goto done;
    if (weight_triples(w, n1, n2, &uvw, &n_uvw) < 0)
        goto done;
    result = search_core(out1, in1, out2, in2, uvw, n_uvw, gid1, gid2, floor_, remaining, check_signals, cancel,
                         node_limit);
done:
    free(uvw);
    free(gid1);
    free(gid2);
    return result;
}

/* search() on checked inputs: weights as triples (u, v, w), group ids as arrays */
static PyObject *search_core(PyObject *out1, PyObject *in1, PyObject *out2, PyObject *in2, const long long *uvw,
                             Py_ssize_t n_uvw, const int32_t *gid1, const int32_t *gid2, long long floor_,
                             PyObject *remaining, int check_signals, PyObject *cancel, long long node_limit)
{
    if (floor_ >= ((long long)1 << 62)) {
        PyErr_SetString(PyExc_OverflowError, "floor too large");
        return NULL;
    }
    Py_ssize_t n1_ = PyList_GET_SIZE(out1), n2_ = PyList_GET_SIZE(out2);
    if (n1_ > (1 << 26) || n2_ > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "graphs too large");
        return NULL;
    }
    const int n1 = (int)n1_, n2 = (int)n2_;
    const int nmax = n1 > n2 ? n1 : n2;
    const int W = nmax > 64 ? (nmax + 63) / 64 : 1;
    Ctx ctx;
    Ctx *c = &ctx;
    memset(c, 0, sizeof(Ctx));
    c->n1 = n1;
    c->n2 = n2;
    c->W = W;
    if (init_stop(&c->stop, remaining, check_signals, cancel) < 0)
        return NULL;
    c->stop.node_limit = node_limit > 0 ? node_limit : 0;
    PyObject *result = NULL;
    int32_t *order = NULL, *pos = NULL, *slot = NULL, *raw_s = NULL;
    int64_t *raw_k = NULL, *deg = NULL;
    word *raw_m = NULL, *groups = NULL;
    /* the reference graph, relabelled by descending degree (ties by index) */
    if (read_graph(out1, in1, n1, W, &raw_s, &raw_k, &raw_m) < 0)
        goto done;
    order = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    pos = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    deg = calloc((size_t)n1 + 1, sizeof(int64_t));
    c->a1s = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    c->a1k = malloc(((size_t)raw_s[n1] + 1) * sizeof(int64_t));
    c->a1m = calloc(((size_t)raw_s[n1] + 1) * W, sizeof(word));
    if (!order || !pos || !deg || !c->a1s || !c->a1k || !c->a1m) {
        PyErr_NoMemory();
        goto done;
    }
    for (int u = 0; u < n1; u++) { /* sort key: degree descending, then index */
        int64_t d = 0;
        for (int k = raw_s[u]; k < raw_s[u + 1]; k++)
            for (int i = 0; i < W; i++)
                d += popcount64(raw_m[(size_t)W * k + i]);
        deg[u] = ((INT64_C(1) << 31) - 1 - d) * (INT64_C(1) << 31) + u;
    }
    qsort(deg, (size_t)n1, sizeof(int64_t), cmp_int64);
    for (int i = 0; i < n1; i++) {
        order[i] = (int32_t)(deg[i] & ((INT64_C(1) << 31) - 1));
        pos[order[i]] = i;
    }
    {
        int k2 = 0;
        for (int i = 0; i < n1; i++) {
            int u = order[i];
            c->a1s[i] = k2;
            for (int k = raw_s[u]; k < raw_s[u + 1]; k++, k2++) {
                c->a1k[k2] = raw_k[k];
                const word *m = raw_m + (size_t)W * k;
                word *o = c->a1m + (size_t)W * k2;
                for (int j = 0; j < W; j++) {
                    word x = m[j];
                    while (x) {
                        int b = pos[j * 64 + ctz64(x)];
                        x &= x - 1;
                        o[b >> 6] |= (word)1 << (b & 63);
                    }
                }
            }
        }
        c->a1s[n1] = k2;
    }
    if (read_graph(out2, in2, n2, W, &c->a2s, &c->a2k, &c->a2m) < 0)
        goto done;
    if (neighbourhoods(n1, W, c->a1s, c->a1m, &c->nb1) < 0 || neighbourhoods(n2, W, c->a2s, c->a2m, &c->nb2) < 0)
        goto done;
    if (partners_from(c, uvw, n_uvw, pos) < 0)
        goto done;
    {
        c->n_levels = n1 + 3;
        c->levels = calloc((size_t)c->n_levels, sizeof(Level));
        c->best_u = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->best_v = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->map_u = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->map_v = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->frames = malloc(((size_t)n1 + 3) * sizeof(int64_t));
        c->sbl = malloc(((size_t)nmax + 1) * sizeof(int64_t));
        c->sbr = malloc(((size_t)nmax + 1) * sizeof(int64_t));
        c->pa = malloc(((size_t)n1 + 2) * 2 * W * sizeof(word));
        c->pb = malloc(((size_t)n1 + 2) * 2 * W * sizeof(word));
        c->tmp = malloc((size_t)2 * W * sizeof(word));
        slot = malloc(((size_t)n1 + 1) * sizeof(int32_t));
        groups = calloc(((size_t)n1 + 1) * 2 * W, sizeof(word));
        if (!c->levels || !c->best_u || !c->best_v || !c->map_u || !c->map_v || !c->frames || !c->sbl ||
            !c->sbr || !c->pa || !c->pb || !c->tmp || !slot || !groups) {
            PyErr_NoMemory();
            goto done;
        }
    }
    /* initial classes: the vertices with a partner grouped by group id (node type and self-loop
     * ports), the groups in order of their first relabelled reference vertex */
    {
        int ng = 0;
        for (int g = 0; g <= n1; g++)
            slot[g] = -1;
        for (int i = 0; i < n1; i++) {
            int g = gid1[order[i]];
            if (g < 0 || c->p1s[i + 1] == c->p1s[i])
                continue;
            if (slot[g] < 0)
                slot[g] = ng++;
            groups[(size_t)2 * W * slot[g] + (i >> 6)] |= (word)1 << (i & 63);
        }
        for (int v = 0; v < n2; v++) {
            int g = gid2[v];
            if (g < 0 || slot[g] < 0 || c->p2s[v + 1] == c->p2s[v])
                continue;
            groups[(size_t)2 * W * slot[g] + W + (v >> 6)] |= (word)1 << (v & 63);
        }
        for (int s = 0; s < ng; s++) {
            const word *L = groups + (size_t)2 * W * s, *R = L + W;
            if (is_empty(L, W) || is_empty(R, W))
                continue;
            if (push_reduced(c, &c->levels[0], L, R) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    {
        int64_t root_bound = 0;
        for (int i = 0; i < c->levels[0].n; i++)
            root_bound += c->levels[0].bound[i];
        const int64_t floor = (int64_t)floor_;
        c->best = floor;
        c->stop.ts = PyEval_SaveThread();
        int rc = search(c, 0, 0);
        PyEval_RestoreThread(c->stop.ts);
        if (rc == ABORT_SIGNAL || rc == ABORT_ERROR)
            goto done;
        if (rc == ABORT_NOMEM) {
            PyErr_NoMemory();
            goto done;
        }
        int exact = rc == 0; /* ABORT_DEADLINE and ABORT_CANCEL: the best found and a bound */
        int64_t upper = c->best > floor ? c->best : floor;
        if (!exact)
            for (int i = 0; i < c->n_frames; i++)
                if (c->frames[i] > upper)
                    upper = c->frames[i];
        int64_t cap = root_bound > c->best ? root_bound : c->best;
        if (cap < upper)
            upper = cap;
        PyObject *pairs;
        if (c->has_best) {
            pairs = PyList_New(c->best_len);
            if (!pairs)
                goto done;
            for (int i = 0; i < c->best_len; i++) {
                PyObject *p = Py_BuildValue("(ii)", order[c->best_u[i]], c->best_v[i]);
                if (!p) {
                    Py_DECREF(pairs);
                    goto done;
                }
                PyList_SET_ITEM(pairs, i, p);
            }
        } else {
            pairs = Py_None;
            Py_INCREF(pairs);
        }
        result = Py_BuildValue("(LNLOL)", (long long)c->best, pairs, (long long)upper, exact ? Py_True : Py_False,
                               (long long)c->nodes);
    }
done:
    free(order);
    free(pos);
    free(deg);
    free(slot);
    free(groups);
    free(raw_s);
    free(raw_k);
    free(raw_m);
    free_ctx(c);
    release_stop(&c->stop);
    return result;
}

/* ---- the companion profile: maximum-weight clique on the association graph ------------------ *
 *
 * clique_search(out1, in1, out2, in2, verts, wt, types, floor, remaining, check_signals[, cancel])
 * is matching._CliqueSearch step for step: association vertices in the given order (descending
 * weight), adjacency u1 != u2, v1 != v2 and (u1->u2 <=> v1->v2 or u2->u1 <=> v2->v1) with edges
 * compared port by port, branching on the lowest vertex left (take, then leave), and the bound of
 * a candidate set: per node type, the maximum-weight assignment of its pairs (Hungarian method on
 * 64-bit integers). Same tree, node count, S and bounds as the Python search.
 */

/* carving one allocation: measure with base NULL (off is the size), then carve from base */
typedef struct {
    char *base; /* NULL: only measure */
    size_t off;
} Bump;

static void *bump(Bump *b, size_t n)
{
    void *r = b->base ? b->base + b->off : NULL;
    b->off += (n + 15) & ~(size_t)15;
    return r;
}

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

/* the edges u->x in g (CSR of read_graph) as port keys, compared with the edges v->y in h */
static int same_out_edges(const int32_t *gs, const int64_t *gk, const word *gm, int u, int x,
                          const int32_t *hs, const int64_t *hk, const word *hm, int v, int y, int W)
{
    int i = gs[u], ie = gs[u + 1], j = hs[v], je = hs[v + 1];
    while ((i < ie && gk[i] < IN_KEY) || (j < je && hk[j] < IN_KEY)) {
        int gi = i < ie && gk[i] < IN_KEY, hj = j < je && hk[j] < IN_KEY;
        int a = 0, b = 0;
        if (gi && (!hj || gk[i] <= hk[j])) {
            a = has_bit(gm + (size_t)W * i, x);
            if (hj && gk[i] == hk[j])
                b = has_bit(hm + (size_t)W * j++, y);
            i++;
        } else {
            b = has_bit(hm + (size_t)W * j++, y);
        }
        if (a != b)
            return 0;
    }
    return 1;
}

/* maximum-weight assignment of an nr x nc matrix (nr <= nc) of non-negative weights */
static int64_t max_assignment_c(Clq *q, const int64_t *mat, int nr, int nc)
{
    const int64_t INF = INT64_MAX / 4;
    int64_t *u = q->hu, *v = q->hv, *minv = q->minv;
    int32_t *p = q->hp, *way = q->way;
    char *used = q->used;
    for (int j = 0; j <= nc; j++) {
        v[j] = 0;
        p[j] = 0;
        way[j] = 0;
    }
    for (int i = 0; i <= nr; i++)
        u[i] = 0;
    for (int i = 1; i <= nr; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= nc; j++) {
            minv[j] = INF;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            int64_t delta = INF;
            const int64_t *row = mat + (size_t)(i0 - 1) * nc;
            for (int j = 1; j <= nc; j++) {
                if (!used[j]) {
                    int64_t cur = -row[j - 1] - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for (int j = 0; j <= nc; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    int64_t total = 0;
    for (int j = 1; j <= nc; j++)
        if (p[j])
            total += mat[(size_t)(p[j] - 1) * nc + j - 1];
    return total;
}

/* matching._assignment_bound: Σ over types of the best assignment of the pairs in P */
static int64_t clique_bound(Clq *q, const word *P)
{
    const int WV = q->WV, T = q->ntypes;
    for (int t = 0; t <= T; t++)
        q->tcount[t] = 0;
    for (int k = 0; k < WV; k++)
        for (word x = P[k]; x; x &= x - 1)
            q->tcount[q->vt[k * 64 + ctz64(x)] + 1]++;
    for (int t = 0; t < T; t++) {
        q->tstart[t] = q->tcount[t];
        q->tcount[t + 1] += q->tcount[t];
    }
    for (int k = 0; k < WV; k++)
        for (word x = P[k]; x; x &= x - 1) {
            int i = k * 64 + ctz64(x);
            q->titems[q->tstart[q->vt[i]]++] = i;
        }
    int64_t total = 0;
    for (int t = 0; t < T; t++) {
        const int32_t *items = q->titems + q->tcount[t];
        int m = q->tcount[t + 1] - q->tcount[t];
        if (m == 0)
            continue;
        if (m == 1) {
            total += q->wt[items[0]];
            continue;
        }
        int nr = 0, nc = 0;
        for (int a = 0; a < m; a++) {
            int i = items[a];
            if (q->rowof[q->vu[i]] < 0)
                q->rowof[q->vu[i]] = nr++;
            if (q->colof[q->vv[i]] < 0)
                q->colof[q->vv[i]] = nc++;
        }
        if (nr == 1 || nc == 1) {
            int64_t most = 0;
            for (int a = 0; a < m; a++)
                if (q->wt[items[a]] > most)
                    most = q->wt[items[a]];
            total += most;
        } else {
            int transpose = nr > nc;
            int r = transpose ? nc : nr, cc = transpose ? nr : nc;
            memset(q->mat, 0, (size_t)r * cc * sizeof(int64_t));
            for (int a = 0; a < m; a++) {
                int i = items[a], x = q->rowof[q->vu[i]], y = q->colof[q->vv[i]];
                if (transpose)
                    q->mat[(size_t)y * cc + x] = q->wt[i];
                else
                    q->mat[(size_t)x * cc + y] = q->wt[i];
            }
            total += max_assignment_c(q, q->mat, r, cc);
        }
        for (int a = 0; a < m; a++) {
            q->rowof[q->vu[items[a]]] = -1;
            q->colof[q->vv[items[a]]] = -1;
        }
    }
    return total;
}

static int clique_expand(Clq *q, int depth, int64_t cur)
{
    const int WV = q->WV;
    q->nodes++;
    if ((q->nodes & 127) == 0) {
        if (q->gil_held) { /* a small search past its 127th node: from here as any other */
            q->gil_held = 0;
            q->stop.ts = PyEval_SaveThread();
        }
        int rc = poll_stop(&q->stop, q->nodes);
        if (rc)
            return rc;
    }
    if (cur > q->best) {
        q->best = cur;
        q->has_best = 1;
        q->best_len = q->map_len;
        memcpy(q->best_set, q->map, q->map_len * sizeof(int32_t));
    }
    word *P = q->P + (size_t)WV * depth;
    if (is_empty(P, WV))
        return 0;
    int64_t bound = cur + clique_bound(q, P);
    if (bound <= q->best)
        return 0;
    q->frames[q->n_frames++] = bound;
    word *nx = q->P + (size_t)WV * (depth + 1);
    int first = 1;
    for (int k = 0; k < WV; k++) {
        while (P[k]) {
            if (!first && cur + clique_bound(q, P) <= q->best)
                goto out;
            first = 0;
            int i = k * 64 + ctz64(P[k]);
            const word *a = q->adj + (size_t)WV * i;
            for (int j = 0; j < WV; j++)
                nx[j] = P[j] & a[j];
            q->map[q->map_len++] = i;
            int rc = clique_expand(q, depth + 1, cur + q->wt[i]);
            if (rc)
                return rc;
            q->map_len--;
            P[k] &= P[k] - 1;
        }
    }
out:
    q->n_frames--;
    return 0;
}

static void free_clq(Clq *q)
{
    free(q->block);
    q->block = NULL;
}

/* q's arrays for nv association vertices between graphs of n1 and n2 vertices, carved from b (the
 * type scratch for up to nv types); with b->base NULL only measured */
static void clique_carve(Clq *q, int n1, int n2, int nv, Bump *b)
{
    const int nmax = n1 > n2 ? n1 : n2, nmin = n1 < n2 ? n1 : n2;
    q->nv = nv;
    q->WV = nv > 64 ? (nv + 63) / 64 : 1;
    q->n1 = n1;
    q->n2 = n2;
    const size_t WV = (size_t)q->WV, v1 = (size_t)nv + 1, x2 = (size_t)nmax + 2;
    q->adj = bump(b, v1 * WV * sizeof(word)); /* adj and P first: all the rest is written before read */
    q->P = bump(b, ((size_t)nmin + 3) * WV * sizeof(word));
    q->zeroed = b->off;
    q->vu = bump(b, v1 * sizeof(int32_t));
    q->vv = bump(b, v1 * sizeof(int32_t));
    q->vt = bump(b, v1 * sizeof(int32_t));
    q->wt = bump(b, v1 * sizeof(int64_t));
    q->best_set = bump(b, ((size_t)nmin + 2) * sizeof(int32_t));
    q->map = bump(b, ((size_t)nmin + 2) * sizeof(int32_t));
    q->frames = bump(b, ((size_t)nmin + 3) * sizeof(int64_t));
    q->tcount = bump(b, ((size_t)nv + 2) * sizeof(int32_t));
    q->tstart = bump(b, ((size_t)nv + 2) * sizeof(int32_t));
    q->titems = bump(b, v1 * sizeof(int32_t));
    q->rowof = bump(b, ((size_t)n1 + 1) * sizeof(int32_t));
    q->colof = bump(b, ((size_t)n2 + 1) * sizeof(int32_t));
    q->mat = bump(b, ((size_t)nmin + 1) * ((size_t)nmax + 1) * sizeof(int64_t));
    q->hu = bump(b, x2 * sizeof(int64_t));
    q->hv = bump(b, x2 * sizeof(int64_t));
    q->minv = bump(b, x2 * sizeof(int64_t));
    q->hp = bump(b, x2 * sizeof(int32_t));
    q->way = bump(b, x2 * sizeof(int32_t));
    q->used = bump(b, x2);
}

/* allocate q for nv association vertices between graphs of n1 and n2 vertices, in one block
 * (q->block, freed by free_clq); -1: no memory */
static int clique_alloc(Clq *q, int n1, int n2, int nv)
{
    Bump b = {NULL, 0};
    clique_carve(q, n1, n2, nv, &b);
    if (!(b.base = q->block = calloc(1, b.off))) {
        PyErr_NoMemory();
        return -1;
    }
    b.off = 0;
    clique_carve(q, n1, n2, nv, &b);
    return 0;
}

/* with vu, vv, vt, wt and ntypes filled: the type scratch, the association adjacency from the two
 * graphs (CSR of read_graph, W words a mask) and the root candidate set; -1: no memory */
static int clique_prepare(Clq *q, const int32_t *s1, const int64_t *k1, const word *m1, const int32_t *s2,
                          const int64_t *k2, const word *m2, int W)
{
    const int nv = q->nv, WV = q->WV;
    if (q->ntypes > q->nv) { /* clique_alloc made room for nv types */
        PyErr_SetString(PyExc_ValueError, "more node types than association vertices");
        return -1;
    }
    memset(q->tcount, 0, ((size_t)q->ntypes + 2) * sizeof(int32_t));
    memset(q->tstart, 0, ((size_t)q->ntypes + 2) * sizeof(int32_t));
    for (int u = 0; u < q->n1; u++)
        q->rowof[u] = -1;
    for (int v = 0; v < q->n2; v++)
        q->colof[v] = -1;
    for (int i = 0; i < nv; i++) {
        const int u1 = q->vu[i], v1 = q->vv[i];
        for (int j = i + 1; j < nv; j++) {
            const int u2 = q->vu[j], v2 = q->vv[j];
            if (u1 == u2 || v1 == v2)
                continue;
            if (same_out_edges(s1, k1, m1, u1, u2, s2, k2, m2, v1, v2, W) ||
                same_out_edges(s1, k1, m1, u2, u1, s2, k2, m2, v2, v1, W)) {
                q->adj[(size_t)WV * i + (j >> 6)] |= (word)1 << (j & 63);
                q->adj[(size_t)WV * j + (i >> 6)] |= (word)1 << (i & 63);
            }
        }
    }
    for (int i = 0; i < nv; i++)
        q->P[i >> 6] |= (word)1 << (i & 63);
    return 0;
}

/* the search from q's root above floor, the GIL released (q->stop set up): its return code (0:
 * exact, ABORT_*), and the proven upper bound. With at most CLQ_KEEP_GIL association vertices the
 * GIL is released only at the first poll (the 128th node): most such searches end before, and
 * releasing and taking back the GIL would cost more than they do. */
#define CLQ_KEEP_GIL 64
static int clique_run(Clq *q, long long floor_, int64_t *upper_out)
{
    const int64_t root_bound = clique_bound(q, q->P);
    const int64_t floor = (int64_t)floor_;
    q->best = floor;
    q->gil_held = q->nv <= CLQ_KEEP_GIL;
    if (!q->gil_held)
        q->stop.ts = PyEval_SaveThread();
    int rc = clique_expand(q, 0, 0);
    if (q->gil_held)
        q->gil_held = 0;
    else
        PyEval_RestoreThread(q->stop.ts);
    int64_t upper = q->best > floor ? q->best : floor;
    if (rc)
        for (int i = 0; i < q->n_frames; i++)
            if (q->frames[i] > upper)
                upper = q->frames[i];
    int64_t cap = root_bound > q->best ? root_bound : q->best;
    if (cap < upper)
        upper = cap;
    *upper_out = upper;
    return rc;
}

static PyObject *py_clique_search(PyObject *self, PyObject *args)
{
    PyObject *out1, *in1, *out2, *in2, *verts, *wts, *types, *remaining, *cancel = Py_None;
    long long floor_;
    int check_signals;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!LOp|O", &PyList_Type, &out1, &PyList_Type, &in1, &PyList_Type,
                          &out2, &PyList_Type, &in2, &PyList_Type, &verts, &PyList_Type, &wts, &PyList_Type,
                          &types, &floor_, &remaining, &check_signals, &cancel))
        return NULL;
    if (floor_ >= ((long long)1 << 62)) {
        PyErr_SetString(PyExc_OverflowError, "floor too large");
        return NULL;
    }
    Py_ssize_t n1_ = PyList_GET_SIZE(out1), n2_ = PyList_GET_SIZE(out2), nv_ = PyList_GET_SIZE(verts);
    if (n1_ > (1 << 26) || n2_ > (1 << 26) || nv_ > (1 << 20)) {
        PyErr_SetString(PyExc_ValueError, "graphs too large");
        return NULL;
    }
    if (PyList_GET_SIZE(wts) != nv_ || PyList_GET_SIZE(types) != nv_) {
        PyErr_SetString(PyExc_ValueError, "verts, weights and types: one per association vertex");
        return NULL;
    }
    const int n1 = (int)n1_, n2 = (int)n2_, nv = (int)nv_;
    const int nmax = n1 > n2 ? n1 : n2;
    const int W = nmax > 64 ? (nmax + 63) / 64 : 1;
    Clq clq;
    Clq *q = &clq;
    memset(q, 0, sizeof(Clq));
    if (init_stop(&q->stop, remaining, check_signals, cancel) < 0)
        return NULL;
    PyObject *result = NULL;
    int32_t *s1 = NULL, *s2 = NULL;
    int64_t *k1 = NULL, *k2 = NULL;
    word *m1 = NULL, *m2 = NULL;
    if (read_graph(out1, in1, n1, W, &s1, &k1, &m1) < 0 || read_graph(out2, in2, n2, W, &s2, &k2, &m2) < 0)
        goto done;
    if (clique_alloc(q, n1, n2, nv) < 0)
        goto done;
    for (int i = 0; i < nv; i++) {
        PyObject *key = PyList_GET_ITEM(verts, i);
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
            PyErr_SetString(PyExc_TypeError, "verts: (u, v) tuples expected");
            goto done;
        }
        long u = PyLong_AsLong(PyTuple_GET_ITEM(key, 0)), v = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
        long long wt = PyLong_AsLongLong(PyList_GET_ITEM(wts, i));
        long t = PyLong_AsLong(PyList_GET_ITEM(types, i));
        if (PyErr_Occurred())
            goto done;
        if (u < 0 || u >= n1 || v < 0 || v >= n2 || wt < 0 || wt >= ((long long)1 << 62) || t < 0 || t >= nv) {
            PyErr_SetString(PyExc_ValueError, "association vertex, weight or type out of range");
            goto done;
        }
        q->vu[i] = (int32_t)u;
        q->vv[i] = (int32_t)v;
        q->vt[i] = (int32_t)t;
        q->wt[i] = (int64_t)wt;
        if (t + 1 > q->ntypes)
            q->ntypes = (int)t + 1;
    }
    if (clique_prepare(q, s1, k1, m1, s2, k2, m2, W) < 0)
        goto done;
    {
        int64_t upper;
        int rc = clique_run(q, floor_, &upper);
        if (rc == ABORT_SIGNAL || rc == ABORT_ERROR)
            goto done;
        int exact = rc == 0;
        PyObject *pairs;
        if (q->has_best) {
            pairs = PyList_New(q->best_len);
            if (!pairs)
                goto done;
            for (int i = 0; i < q->best_len; i++) {
                PyObject *p = PyList_GET_ITEM(verts, q->best_set[i]);
                Py_INCREF(p);
                PyList_SET_ITEM(pairs, i, p);
            }
        } else {
            pairs = Py_None;
            Py_INCREF(pairs);
        }
        result = Py_BuildValue("(LNLOL)", (long long)q->best, pairs, (long long)upper, exact ? Py_True : Py_False,
                               (long long)q->nodes);
    }
done:
    free(s1);
    free(s2);
    free(k1);
    free(k2);
    free(m1);
    free(m2);
    free_clq(q);
    release_stop(&q->stop);
    return result;
}

/* ---- node weights w of every same-type pair (matching._weights, paper and companion) --------- *
 *
 * weights(types1, vals1, loops1, by_type2, vals2, loops2, companion, self_equal1)
 *   types1: the type of each reference vertex; vals1 / vals2: Signature.values per vertex;
 *   by_type2: {type: [generated vertices]}; loops1 / loops2: self-loop port sets per vertex, or
 *   None when they need not agree; companion: 0 (paper: K = keys(u) ∪ keys(v), JSON values) or 1
 *   (K = keys(u), a key missing in v is null); self_equal1: Signature.self_equal per reference
 *   vertex (companion only: False takes Python's `v.get(k) == u_value`, no identity shortcut).
 * returns (raw, w, scale, quick, total): raw {(u, v): (num, den)} for w > 0, w {(u, v): num *
 * scale / den}, scale the least common multiple of the denominators, quick matching._quick_bound
 * on w and total the sum of w; w and the rest are None when the scale would reach 2^62 (the
 * caller then scales in Python), quick and total None when the total would.
 * With threshold (tn, td), td > 0, tn >= 0: when quick <= isqrt(floor(tn * scale^2 / td)) (nothing
 * can have S^2 > tn / td, matching.max_common_subgraph's threshold_sq) raw and w are None and no
 * dict is built.
 *
 * The counts are those of the Signature's frozensets: a value equal under a key present on both
 * sides is an item of both (PyObject_RichCompareBool, identity first, as set membership; the
 * canonical values hash consistently with ==). */

static int paper_count(PyObject *a, PyObject *b, long long *num, long long *den)
{
    Py_ssize_t la = PyDict_GET_SIZE(a), lb = PyDict_GET_SIZE(b);
    PyObject *s = la <= lb ? a : b, *o = la <= lb ? b : a;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    long long common = 0, eq = 0;
    while (PyDict_Next(s, &pos, &k, &v)) {
        PyObject *ov = PyDict_GetItemWithError(o, k);
        if (!ov) {
            if (PyErr_Occurred())
                return -1;
            continue;
        }
        common++;
        int r = PyObject_RichCompareBool(v, ov, Py_EQ);
        if (r < 0)
            return -1;
        eq += r;
    }
    *den = (long long)(la + lb - common);
    *num = eq;
    return 0;
}

static int companion_count(PyObject *a, PyObject *b, int self_equal, long long *num)
{
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    long long eq = 0;
    while (PyDict_Next(a, &pos, &k, &v)) {
        PyObject *bv = PyDict_GetItemWithError(b, k);
        if (!bv && PyErr_Occurred())
            return -1;
        if (self_equal) { /* |a.items ∩ b.items| + |a.none_keys − b.keys| */
            if (!bv) {
                eq += v == Py_None;
                continue;
            }
            int r = PyObject_RichCompareBool(v, bv, Py_EQ);
            if (r < 0)
                return -1;
            eq += r;
        } else { /* b.values.get(k) == v */
            PyObject *res = PyObject_RichCompare(bv ? bv : Py_None, v, Py_EQ);
            if (!res)
                return -1;
            int r = PyObject_IsTrue(res);
            Py_DECREF(res);
            if (r < 0)
                return -1;
            eq += r;
        }
    }
    *num = eq;
    return 0;
}

/* a new reference to the tuple (a, b) of two ints, or NULL */
static PyObject *pair_of(long long a, long long b)
{
    PyObject *x = PyLong_FromLongLong(a), *y = PyLong_FromLongLong(b);
    if (!x || !y) {
        Py_XDECREF(x);
        Py_XDECREF(y);
        return NULL;
    }
    PyObject *t = PyTuple_New(2);
    if (!t) {
        Py_DECREF(x);
        Py_DECREF(y);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 0, x);
    PyTuple_SET_ITEM(t, 1, y);
    return t;
}

static long long gcd_ll(long long a, long long b)
{
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* *scale becomes lcm(*scale, den) (den > 0); 1, *scale unchanged, when that would reach 2^62 */
static int lcm_into(long long *scale, long long den)
{
    long long f = *scale / gcd_ll(*scale, den);
    if (f > (((long long)1 << 62) - 1) / den)
        return 1;
    *scale = f * den;
    return 0;
}

/* GINDEX_PURE_PYTHON is set and not "0" (os.environ writes reach the C environment; getenv costs
 * far less than os.environ.get) */
static int pure_python_env(void)
{
    const char *pure = getenv("GINDEX_PURE_PYTHON");
    return pure && pure[0] && strcmp(pure, "0") != 0;
}

static PyObject *solve_rest(PyObject *solve, const long long *rows, Py_ssize_t n, long long scale, PyObject *threshold,
                            PyObject *types1, PyObject *loops1, PyObject *loops2);

/* weights(); with solve (the rest of solve()'s arguments), the search instead of the dicts */
static PyObject *weights_impl(PyObject *args, PyObject *solve)
{
    PyObject *types1, *vals1, *loops1, *by_type2, *vals2, *loops2, *self_equal1, *threshold = Py_None, *table = Py_None;
    int companion;
    if (!PyArg_ParseTuple(args, "O!O!OO!O!OpO|OO", &PyList_Type, &types1, &PyList_Type, &vals1, &loops1, &PyDict_Type,
                          &by_type2, &PyList_Type, &vals2, &loops2, &companion, &self_equal1, &threshold, &table))
        return NULL;
    if (threshold != Py_None &&
        (!PyTuple_Check(threshold) || PyTuple_GET_SIZE(threshold) != 2 || !PyLong_Check(PyTuple_GET_ITEM(threshold, 0)) ||
         !PyLong_Check(PyTuple_GET_ITEM(threshold, 1)))) {
        PyErr_SetString(PyExc_TypeError, "weights: threshold (num, den) of ints expected");
        return NULL;
    }
    const Py_ssize_t n1 = PyList_GET_SIZE(types1), n2 = PyList_GET_SIZE(vals2);
    const int check_loops = loops1 != Py_None;
    /* table (paper profile): (rows, local, task_first) with the paper counts precomputed, as
     * curriculum.Curriculum keeps them: rows[t] = bytes of int64 (num, den) of task vertex t against
     * each distinct signature of its type (or None), local = int32 bytes, per vertex of the other
     * graph (a curriculum program) the index of its signature there; task_first: the task is g1 */
    PyObject *tab_rows = NULL;
    const int32_t *tab_local = NULL;
    int task_first = 1;
    if (table != Py_None) {
        PyObject *lb;
        if (companion || !PyTuple_Check(table) || PyTuple_GET_SIZE(table) != 3 ||
            !PyList_Check(tab_rows = PyTuple_GET_ITEM(table, 0)) || !PyBytes_Check(lb = PyTuple_GET_ITEM(table, 1)) ||
            (task_first = PyObject_IsTrue(PyTuple_GET_ITEM(table, 2))) < 0 ||
            PyList_GET_SIZE(tab_rows) != (task_first ? n1 : n2) ||
            PyBytes_GET_SIZE(lb) != 4 * (task_first ? n2 : n1)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "weights: table (rows, local, task_first) of the graphs' sizes expected");
            return NULL;
        }
        tab_local = (const int32_t *)PyBytes_AS_STRING(lb);
    }
    if (PyList_GET_SIZE(vals1) != n1 || (check_loops && (!PyList_Check(loops1) || PyList_GET_SIZE(loops1) != n1 ||
                                                         !PyList_Check(loops2) || PyList_GET_SIZE(loops2) != n2)) ||
        (companion && (!PyList_Check(self_equal1) || PyList_GET_SIZE(self_equal1) != n1))) {
        PyErr_SetString(PyExc_ValueError, "weights: one entry per vertex expected");
        return NULL;
    }
    PyObject *raw = PyDict_New(), *w = NULL, *out = NULL;
    /* (u, v, num, den) of each pair with w > 0 (den 0: w = 1 with nothing to compare) */
    Py_ssize_t cap = 64, n = 0, index_cap = 64;
    long long *rows = malloc((size_t)cap * 4 * sizeof(long long));
    long long *best1 = NULL, *best2 = NULL, *sum1 = NULL, *sum2 = NULL;
    int32_t *tid1 = NULL, *tid2 = NULL, *type_index = malloc((size_t)index_cap * sizeof(int32_t));
    int n_types = 0, types_cap = 16;
    PyObject **type_lists = malloc((size_t)types_cap * sizeof(PyObject *));
    if (!raw || !rows || !type_index || !type_lists) {
        PyErr_NoMemory();
        goto done;
    }
    long long scale = 1;
    int overflow = 0;
    for (Py_ssize_t u = 0; u < n1; u++) {
        PyObject *vs = PyDict_GetItemWithError(by_type2, PyList_GET_ITEM(types1, u));
        if (!vs) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        if (!PyList_Check(vs)) {
            PyErr_SetString(PyExc_TypeError, "weights: by_type2 values must be lists");
            goto done;
        }
        /* the type's index: by_type2 holds one list per type */
        int ti = 0;
        while (ti < n_types && type_lists[ti] != vs)
            ti++;
        if (ti == n_types) {
            if (n_types == types_cap) {
                PyObject **more = realloc(type_lists, (size_t)types_cap * 2 * sizeof(PyObject *));
                if (!more) {
                    PyErr_NoMemory();
                    goto done;
                }
                type_lists = more;
                types_cap *= 2;
            }
            type_lists[n_types++] = vs;
        }
        PyObject *a = PyList_GET_ITEM(vals1, u);
        if (!PyDict_Check(a)) {
            PyErr_SetString(PyExc_TypeError, "weights: values must be dicts");
            goto done;
        }
        int se = 1;
        if (companion && (se = PyObject_IsTrue(PyList_GET_ITEM(self_equal1, u))) < 0)
            goto done;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(vs); i++) {
            long long v = PyLong_AsLongLong(PyList_GET_ITEM(vs, i));
            if (v == -1 && PyErr_Occurred())
                goto done;
            if (v < 0 || v >= n2) {
                PyErr_SetString(PyExc_ValueError, "weights: vertex out of range");
                goto done;
            }
            if (check_loops) {
                int r = PyObject_RichCompareBool(PyList_GET_ITEM(loops1, u), PyList_GET_ITEM(loops2, v), Py_EQ);
                if (r < 0)
                    goto done;
                if (!r)
                    continue;
            }
            PyObject *b = PyList_GET_ITEM(vals2, v);
            if (!PyDict_Check(b)) {
                PyErr_SetString(PyExc_TypeError, "weights: values must be dicts");
                goto done;
            }
            long long num, den;
            PyObject *row = tab_rows ? PyList_GET_ITEM(tab_rows, task_first ? u : v) : NULL;
            const int32_t g = row ? tab_local[task_first ? v : u] : -1;
            if (row && PyBytes_Check(row) && g >= 0 && (Py_ssize_t)16 * (g + 1) <= PyBytes_GET_SIZE(row)) {
                const long long *r = (const long long *)PyBytes_AS_STRING(row);
                num = r[2 * g];
                den = r[2 * g + 1];
            } else if (companion) {
                den = (long long)PyDict_GET_SIZE(a);
                if (den && companion_count(a, b, se, &num) < 0)
                    goto done;
            } else if (paper_count(a, b, &num, &den) < 0)
                goto done;
            if (den == 0)
                num = 0; /* w = 1: recorded as (1, 1) below, no denominator */
            else if (num == 0)
                continue;
            if (n == cap) {
                long long *bigger = realloc(rows, (size_t)cap * 8 * sizeof(long long));
                if (!bigger) {
                    PyErr_NoMemory();
                    goto done;
                }
                rows = bigger;
                cap *= 2;
            }
            if (n == index_cap) {
                int32_t *more = realloc(type_index, (size_t)index_cap * 2 * sizeof(int32_t));
                if (!more) {
                    PyErr_NoMemory();
                    goto done;
                }
                type_index = more;
                index_cap *= 2;
            }
            type_index[n] = ti;
            rows[4 * n] = (long long)u;
            rows[4 * n + 1] = v;
            rows[4 * n + 2] = num;
            rows[4 * n + 3] = den;
            n++;
            if (den && !overflow)
                overflow = lcm_into(&scale, den);
        }
    }
    long long total = 0, quick = 0;
    int big = overflow; /* no total and quick bound */
    /* the total of w and matching._quick_bound: Σ over types of min(Σ best w of each reference
     * node, Σ best w of each generated node); none when the total reaches 2^62 */
    for (Py_ssize_t i = 0; i < n && !big; i++) {
        long long x = rows[4 * i + 3] ? rows[4 * i + 2] * (scale / rows[4 * i + 3]) : scale;
        if (x >= (((long long)1 << 62) - total))
            big = 1;
        else
            total += x;
    }
    if (!big) {
        best1 = calloc((size_t)n1 + 1, sizeof(long long));
        best2 = calloc((size_t)n2 + 1, sizeof(long long));
        tid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t));
        tid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
        sum1 = calloc((size_t)n_types + 1, sizeof(long long));
        sum2 = calloc((size_t)n_types + 1, sizeof(long long));
        if (!best1 || !best2 || !tid1 || !tid2 || !sum1 || !sum2) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            long long u = rows[4 * i], v = rows[4 * i + 1];
            long long x = rows[4 * i + 3] ? rows[4 * i + 2] * (scale / rows[4 * i + 3]) : scale;
            if (x > best1[u])
                best1[u] = x;
            if (x > best2[v])
                best2[v] = x;
            tid2[v] = tid1[u] = type_index[i]; /* a pair joins nodes of one type */
        }
        for (Py_ssize_t u = 0; u < n1; u++)
            if (best1[u])
                sum1[tid1[u]] += best1[u];
        for (Py_ssize_t v = 0; v < n2; v++)
            if (best2[v])
                sum2[tid2[v]] += best2[v];
        for (int t = 0; t < n_types; t++)
            quick += sum1[t] < sum2[t] ? sum1[t] : sum2[t];
        if (threshold != Py_None) {
            /* quick <= isqrt(floor(tn * scale^2 / td))  <=>  quick^2 * td <= tn * scale^2 */
            PyObject *tn = PyTuple_GET_ITEM(threshold, 0), *td = PyTuple_GET_ITEM(threshold, 1);
            PyObject *q = PyLong_FromLongLong(quick), *sc = PyLong_FromLongLong(scale);
            PyObject *q2 = q ? PyNumber_Multiply(q, q) : NULL, *s2 = sc ? PyNumber_Multiply(sc, sc) : NULL;
            PyObject *lhs = q2 ? PyNumber_Multiply(q2, td) : NULL, *rhs = s2 ? PyNumber_Multiply(tn, s2) : NULL;
            int pruned = lhs && rhs ? PyObject_RichCompareBool(lhs, rhs, Py_LE) : -1;
            Py_XDECREF(q);
            Py_XDECREF(sc);
            Py_XDECREF(q2);
            Py_XDECREF(s2);
            Py_XDECREF(lhs);
            Py_XDECREF(rhs);
            if (pruned < 0)
                goto done;
            if (pruned) {
                out = solve ? Py_BuildValue("(LL)", scale, quick) : Py_BuildValue("(OOLLL)", Py_None, Py_None, scale, quick, total);
                goto done;
            }
        }
    }
    if (solve) {
        if (big || !check_loops || companion) { /* the caller takes the other way */
            out = Py_None;
            Py_INCREF(out);
        } else
            out = solve_rest(solve, rows, n, scale, threshold, types1, loops1, loops2);
        goto done;
    }
    if (!overflow && !(w = PyDict_New()))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        long long u = rows[4 * i], v = rows[4 * i + 1], num = rows[4 * i + 2], den = rows[4 * i + 3];
        PyObject *key = pair_of(u, v);
        PyObject *val = den ? pair_of(num, den) : pair_of(1, 1);
        int bad = !key || !val || PyDict_SetItem(raw, key, val) < 0;
        if (!bad && w) {
            /* num * (scale / den) <= scale < 2^62 */
            PyObject *x = PyLong_FromLongLong(den ? num * (scale / den) : scale);
            bad = !x || PyDict_SetItem(w, key, x) < 0;
            Py_XDECREF(x);
        }
        Py_XDECREF(key);
        Py_XDECREF(val);
        if (bad)
            goto done;
    }
    if (!w)
        out = Py_BuildValue("(OOOOO)", raw, Py_None, Py_None, Py_None, Py_None);
    else if (big)
        out = Py_BuildValue("(OOLOO)", raw, w, scale, Py_None, Py_None);
    else
        out = Py_BuildValue("(OOLLL)", raw, w, scale, quick, total);
done:
    free(best1);
    free(best2);
    free(tid1);
    free(tid2);
    free(sum1);
    free(sum2);
    free(type_index);
    free(type_lists);
    free(rows);
    Py_XDECREF(raw);
    Py_XDECREF(w);
    return out;
}

static PyObject *py_weights(PyObject *self, PyObject *args)
{
    return weights_impl(args, NULL);
}

/* the row (u, v, num, den) of pair (u, v): rows sorted by (u, v) are bisected, else scanned */
static const long long *row_of(const long long *rows, Py_ssize_t n, int sorted, long long u, long long v)
{
    if (!sorted) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (rows[4 * i] == u && rows[4 * i + 1] == v)
                return rows + 4 * i;
        return NULL;
    }
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        const long long *r = rows + 4 * mid;
        if (r[0] < u || (r[0] == u && r[1] < v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rows[4 * lo] == u && rows[4 * lo + 1] == v ? rows + 4 * lo : NULL;
}

/* group id of every vertex: (node type, self-loop ports) numbered by first occurrence in g1, as
 * Graph.groups; g2's vertices get g1's id of their key, or -1 */
static int group_ids(PyObject *types1, PyObject *loops1, PyObject *types2, PyObject *loops2, int32_t *gid1, int32_t *gid2,
                     int32_t *rep)
{
    const Py_ssize_t n1 = PyList_GET_SIZE(types1), n2 = PyList_GET_SIZE(types2);
    int ng = 0;
    for (int side = 0; side < 2; side++) {
        PyObject *types = side ? types2 : types1, *loops = side ? loops2 : loops1;
        int32_t *gid = side ? gid2 : gid1;
        for (Py_ssize_t u = 0; u < (side ? n2 : n1); u++) {
            int g = -1;
            for (int k = 0; k < ng && g < 0; k++) {
                int r = PyObject_RichCompareBool(PyList_GET_ITEM(types, u), PyList_GET_ITEM(types1, rep[k]), Py_EQ);
                if (r > 0)
                    r = PyObject_RichCompareBool(PyList_GET_ITEM(loops, u), PyList_GET_ITEM(loops1, rep[k]), Py_EQ);
                if (r < 0)
                    return -1;
                if (r)
                    g = k;
            }
            if (g < 0 && !side) {
                rep[ng] = (int32_t)u;
                g = ng++;
            }
            gid[u] = g;
        }
    }
    return 0;
}

static PyObject *_isqrt; /* math.isqrt */

static PyObject *solve_rest(PyObject *solve, const long long *rows, Py_ssize_t n, long long scale, PyObject *threshold,
                            PyObject *types1, PyObject *loops1, PyObject *loops2)
{
    PyObject *types2, *out1, *in1, *out2, *in2, *remaining, *cancel;
    int check_signals;
    long long node_limit = 0;
    if (!PyArg_ParseTuple(solve, "O!O!O!O!O!OpO|L", &PyList_Type, &types2, &PyList_Type, &out1, &PyList_Type, &in1,
                          &PyList_Type, &out2, &PyList_Type, &in2, &remaining, &check_signals, &cancel, &node_limit))
        return NULL;
    const Py_ssize_t n1 = PyList_GET_SIZE(types1), n2 = PyList_GET_SIZE(types2);
    if (PyList_GET_SIZE(out1) != n1 || PyList_GET_SIZE(out2) != n2 || PyList_GET_SIZE(loops2) != n2) {
        PyErr_SetString(PyExc_ValueError, "solve: one entry per vertex expected");
        return NULL;
    }
    long long floor_ = -1;
    if (threshold != Py_None) { /* S·D must exceed isqrt(floor(tn·D² / td)) (not pruned: below quick < 2^62) */
        PyObject *tn = PyTuple_GET_ITEM(threshold, 0), *td = PyTuple_GET_ITEM(threshold, 1);
        PyObject *sc = PyLong_FromLongLong(scale);
        PyObject *s2 = sc ? PyNumber_Multiply(sc, sc) : NULL;
        PyObject *num = s2 ? PyNumber_Multiply(tn, s2) : NULL;
        PyObject *q = num ? PyNumber_FloorDivide(num, td) : NULL;
        PyObject *r = q ? PyObject_CallOneArg(_isqrt, q) : NULL;
        if (r)
            floor_ = PyLong_AsLongLong(r);
        Py_XDECREF(sc);
        Py_XDECREF(s2);
        Py_XDECREF(num);
        Py_XDECREF(q);
        Py_XDECREF(r);
        if (!r || PyErr_Occurred())
            return NULL;
    }
    PyObject *result = NULL, *found = NULL;
    long long *uvw = malloc((size_t)(n ? n : 1) * 3 * sizeof(long long));
    int32_t *gid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *gid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    int32_t *rep = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    if (!uvw || !gid1 || !gid2 || !rep) {
        PyErr_NoMemory();
        goto done;
    }
    int sorted = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        const long long *r = rows + 4 * i;
        uvw[3 * i] = r[0];
        uvw[3 * i + 1] = r[1];
        uvw[3 * i + 2] = r[3] ? r[2] * (scale / r[3]) : scale;
        if (i && (r[-4] > r[0] || (r[-4] == r[0] && r[-3] >= r[1])))
            sorted = 0;
    }
    if (group_ids(types1, loops1, types2, loops2, gid1, gid2, rep) < 0)
        goto done;
    found = search_core(out1, in1, out2, in2, uvw, n, gid1, gid2, floor_, remaining, check_signals, cancel, node_limit);
    if (!found)
        goto done;
    { /* (best, pairs or None, upper, exact, nodes) -> (scale, floor, best, pairs or None, upper, exact, nodes) */
        PyObject *pairs = PyTuple_GET_ITEM(found, 1), *full = Py_None;
        if (pairs != Py_None) {
            Py_ssize_t k = PyList_GET_SIZE(pairs);
            if (!(full = PyList_New(k)))
                goto done;
            for (Py_ssize_t i = 0; i < k; i++) {
                PyObject *p = PyList_GET_ITEM(pairs, i);
                long long u = PyLong_AsLongLong(PyTuple_GET_ITEM(p, 0)), v = PyLong_AsLongLong(PyTuple_GET_ITEM(p, 1));
                const long long *r = row_of(rows, n, sorted, u, v);
                PyObject *t = r ? Py_BuildValue("(LLLL)", u, v, r[3] ? r[2] : 1LL, r[3] ? r[3] : 1LL) : NULL;
                if (!t) {
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_RuntimeError, "solve: a pair without a weight");
                    Py_DECREF(full);
                    goto done;
                }
                PyList_SET_ITEM(full, i, t);
            }
        } else
            Py_INCREF(full);
        result = Py_BuildValue("(LLONOOO)", scale, floor_, PyTuple_GET_ITEM(found, 0), full, PyTuple_GET_ITEM(found, 2),
                               PyTuple_GET_ITEM(found, 3), PyTuple_GET_ITEM(found, 4));
    }
done:
    Py_XDECREF(found);
    free(uvw);
    free(gid1);
    free(gid2);
    free(rep);
    return result;
}

static PyObject *py_solve(PyObject *self, PyObject *args)
{
    PyObject *wargs, *rest;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &wargs, &PyTuple_Type, &rest))
        return NULL;
    return weights_impl(wargs, rest);
}

/* weights_to(a, self_equal, others, companion) -> [float]: w(a, b) = num / den as a float (1.0 with
 * no key to compare) for the Signature.values dicts ``others`` of a's type (curriculum._weights_to) */
static PyObject *py_weights_to(PyObject *self, PyObject *args)
{
    PyObject *a, *others;
    int se, companion;
    if (!PyArg_ParseTuple(args, "O!pO!p", &PyDict_Type, &a, &se, &PyList_Type, &others, &companion))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(others);
    PyObject *out = PyList_New(n);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(others, i);
        if (!PyDict_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "weights_to: values must be dicts");
            Py_DECREF(out);
            return NULL;
        }
        long long num = 0, den;
        if (companion) {
            den = (long long)PyDict_GET_SIZE(a);
            if (den && companion_count(a, b, se, &num) < 0) {
                Py_DECREF(out);
                return NULL;
            }
        } else if (paper_count(a, b, &num, &den) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        PyObject *x = PyFloat_FromDouble(den ? (double)num / (double)den : 1.0);
        if (!x) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, x);
    }
    return out;
}

/* counts_to(a, others) -> bytes: the paper profile's w(a, b) = num / den (den 0: nothing to
 * compare, w = 1) for the Signature.values dicts ``others``, as int64 (num, den) pairs in order
 * (curriculum.Curriculum's table for solve and its lower bounds) */
static PyObject *py_counts_to(PyObject *self, PyObject *args)
{
    PyObject *a, *others;
    if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &a, &PyList_Type, &others))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(others);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 16);
    if (!out)
        return NULL;
    long long *r = (long long *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(others, i);
        if (!PyDict_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "counts_to: values must be dicts");
            Py_DECREF(out);
            return NULL;
        }
        if (paper_count(a, b, r + 2 * i, r + 2 * i + 1) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static PyObject *_str_type, *_str_values, *_str_none_keys, *_str_self_equal;

/* ---- a flow's vertices and wires as a Graph (divergence.prepare) ------------------------------ *
 *
 * flow_graph(nodes, no_loops, loop0) -> (ids, datas, adj_out, adj_in, selfloop, cyclic, n_edges) or None
 *   nodes: Flow.nodes (objects with a ``data`` dict). The vertices are the first node of each id
 *   (ids: their ids, datas: their dicts, in file order). Ports are merged (relation key 0, prepare
 *   without port_aware, paper and companion profiles): a list of lists is a list of ports, another
 *   non-empty list one port, anything else no wire; non-string and unknown targets are skipped; a
 *   wire twice is one edge. adj_out / adj_in: per vertex {0: bitset} when it has such edges, else
 *   {}; selfloop: loop0 (frozenset({0})) for a vertex wired to itself, else no_loops; cyclic:
 *   whether the edges hold a cycle (a self-loop included); n_edges: the number of edges. None when
 *   a node's data is not a dict with an id or the flow is too large for a bitset table here (the
 *   caller takes its Python loop). */

static PyObject *_str_wires_g, *_str_id_g, *_zero_g;

/* the bitset m (W words) as a Python int, or NULL */
static PyObject *mask_to_long(const word *m, int W)
{
    if (W == 1)
        return PyLong_FromUnsignedLongLong(m[0]);
    unsigned char *bytes = malloc((size_t)W * 8);
    if (!bytes)
        return PyErr_NoMemory();
    for (int i = 0; i < W; i++) /* little-endian bytes, whatever the machine's order */
        for (int b = 0; b < 8; b++)
            bytes[8 * i + b] = (unsigned char)(m[i] >> (8 * b));
    PyObject *r = _PyLong_FromByteArray(bytes, (size_t)W * 8, 1, 0);
    free(bytes);
    return r;
}

/* 1 when the edges (n vertices, out bitsets of W words) hold a cycle: Kahn's test */
static int has_cycle(int n, int W, const word *out)
{
    int *indeg = calloc((size_t)n + 1, sizeof(int)), *queue = malloc(((size_t)n + 1) * sizeof(int));
    if (!indeg || !queue) {
        free(indeg);
        free(queue);
        return -1;
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < W; i++)
            for (word m = out[(size_t)W * k + i]; m; m &= m - 1)
                indeg[i * 64 + __builtin_ctzll(m)]++;
    int head = 0, tail = 0;
    for (int k = 0; k < n; k++)
        if (!indeg[k])
            queue[tail++] = k;
    while (head < tail) {
        int k = queue[head++];
        for (int i = 0; i < W; i++)
            for (word m = out[(size_t)W * k + i]; m; m &= m - 1) {
                int j = i * 64 + __builtin_ctzll(m);
                if (--indeg[j] == 0)
                    queue[tail++] = j;
            }
    }
    free(indeg);
    free(queue);
    return tail < n;
}

static PyObject *_str_data_g;

static PyObject *py_flow_graph(PyObject *self, PyObject *args)
{
    PyObject *all, *no_loops, *loop0;
    if (!PyArg_ParseTuple(args, "O!OO", &PyList_Type, &all, &no_loops, &loop0))
        return NULL;
    if (PyList_GET_SIZE(all) > 20000)
        Py_RETURN_NONE;
    PyObject *index = PyDict_New(), *ids = PyList_New(0), *nodes = PyList_New(0), *result = NULL;
    PyObject *adj_out = NULL, *adj_in = NULL, *loops = NULL;
    word *out = NULL, *in = NULL;
    char *loop = NULL;
    int back = 0, self_loop = 0;
    if (!index || !ids || !nodes)
        goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(all); k++) { /* the vertices: first node of each id */
        PyObject *d = PyObject_GetAttr(PyList_GET_ITEM(all, k), _str_data_g);
        if (!d)
            goto done;
        PyObject *i = PyDict_Check(d) ? PyDict_GetItemWithError(d, _str_id_g) : NULL;
        if (!i) {
            Py_DECREF(d);
            if (PyErr_Occurred())
                goto done;
            result = Py_NewRef(Py_None);
            goto done;
        }
        int r = PyDict_Contains(index, i);
        if (r == 0) {
            PyObject *pos = PyLong_FromSsize_t(PyList_GET_SIZE(nodes));
            r = pos && PyDict_SetItem(index, i, pos) == 0 && PyList_Append(ids, i) == 0 && PyList_Append(nodes, d) == 0
                    ? 0 : -1;
            Py_XDECREF(pos);
        }
        Py_DECREF(d);
        if (r < 0)
            goto done;
    }
    const Py_ssize_t n = PyList_GET_SIZE(nodes);
    const int W = n > 64 ? (int)((n + 63) / 64) : 1;
    out = calloc((size_t)n * W + 1, sizeof(word));
    in = calloc((size_t)n * W + 1, sizeof(word));
    loop = calloc((size_t)n + 1, 1);
    if (!out || !in || !loop) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *wires = PyDict_GetItemWithError(PyList_GET_ITEM(nodes, k), _str_wires_g);
        if (!wires) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        if (!PyList_Check(wires) || PyList_GET_SIZE(wires) == 0)
            continue;
        int nested = 1;
        for (Py_ssize_t p = 0; p < PyList_GET_SIZE(wires) && nested; p++)
            nested = PyList_Check(PyList_GET_ITEM(wires, p));
        for (Py_ssize_t p = 0; p < (nested ? PyList_GET_SIZE(wires) : 1); p++) {
            PyObject *port = nested ? PyList_GET_ITEM(wires, p) : wires;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(port); i++) {
                PyObject *t = PyList_GET_ITEM(port, i);
                if (!PyUnicode_Check(t))
                    continue;
                PyObject *j_ = PyDict_GetItemWithError(index, t);
                if (!j_) {
                    if (PyErr_Occurred())
                        goto done;
                    continue;
                }
                const long j = PyLong_AsLong(j_); /* a position this call gave */
                if (j <= k)
                    back = 1;
                if (j == k)
                    self_loop = loop[k] = 1;
                out[(size_t)W * k + (j >> 6)] |= (word)1 << (j & 63);
                in[(size_t)W * j + (k >> 6)] |= (word)1 << (k & 63);
            }
        }
    }
    adj_out = PyList_New(n);
    adj_in = PyList_New(n);
    loops = PyList_New(n);
    if (!adj_out || !adj_in || !loops)
        goto done;
    long long n_edges = 0;
    for (int dir = 0; dir < 2; dir++) {
        const word *bits = dir ? in : out;
        PyObject *adj = dir ? adj_in : adj_out;
        for (Py_ssize_t k = 0; k < n; k++) {
            const word *m = bits + (size_t)W * k;
            PyObject *dct = PyDict_New();
            if (!dct)
                goto done;
            PyList_SET_ITEM(adj, k, dct);
            if (is_empty(m, W))
                continue;
            if (!dir)
                for (int i = 0; i < W; i++)
                    n_edges += popcount64(m[i]);
            PyObject *x = mask_to_long(m, W);
            if (!x || PyDict_SetItem(dct, _zero_g, x) < 0) {
                Py_XDECREF(x);
                goto done;
            }
            Py_DECREF(x);
        }
    }
    for (Py_ssize_t k = 0; k < n; k++)
        PyList_SET_ITEM(loops, k, Py_NewRef(loop[k] ? loop0 : no_loops));
    int cyclic = self_loop ? 1 : back ? has_cycle((int)n, W, out) : 0;
    if (cyclic < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(OOOOONL)", ids, nodes, adj_out, adj_in, loops, PyBool_FromLong(cyclic), n_edges);
done:
    Py_XDECREF(index);
    Py_XDECREF(ids);
    Py_XDECREF(nodes);
    Py_XDECREF(adj_out);
    Py_XDECREF(adj_in);
    Py_XDECREF(loops);
    free(out);
    free(in);
    free(loop);
    return result;
}

/* ---- signatures of a flow's nodes (similarity.signature, paper and companion) ----------------- *
 *
 * signatures(datas, ignored, companion, json_true, json_false, cls) -> [Signature]
 *   datas: node dicts; ignored: the keys never compared (a frozenset); values that are not str,
 *   int, float or None (exact types) are canonicalised as canonical_json (paper: true and false
 *   become json_true and json_false) or canonical_python (companion) do; cls:
 *   similarity.Signature, filled as similarity.signature
 *   fills it (type = str(data.get("type")), values, none_keys, self_equal) except keys and items,
 *   which Signature builds from values on first use. */

/* similarity.canonical_json (json: true and false are the given objects) or canonical_python:
 * a dict becomes a frozenset of (key, canonical value), a list a tuple; a new reference */
static PyObject *canonical_value(PyObject *v, PyObject *json_true, PyObject *json_false)
{
    if (json_true) {
        if (v == Py_True) {
            Py_INCREF(json_true);
            return json_true;
        }
        if (v == Py_False) {
            Py_INCREF(json_false);
            return json_false;
        }
    }
    int is_dict = PyDict_Check(v);
    if (!is_dict && !PyList_Check(v)) {
        Py_INCREF(v);
        return v;
    }
    if (Py_EnterRecursiveCall(" in a canonical JSON value"))
        return NULL;
    PyObject *out = NULL;
    if (is_dict) {
        PyObject *items = PyList_New(0), *k, *x;
        Py_ssize_t pos = 0;
        if (!items)
            goto done;
        while (PyDict_Next(v, &pos, &k, &x)) {
            PyObject *cx = canonical_value(x, json_true, json_false);
            PyObject *pair = cx ? PyTuple_Pack(2, k, cx) : NULL;
            Py_XDECREF(cx);
            if (!pair || PyList_Append(items, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(items);
                goto done;
            }
            Py_DECREF(pair);
        }
        out = PyFrozenSet_New(items);
        Py_DECREF(items);
    } else {
        Py_ssize_t n = PyList_GET_SIZE(v);
        PyObject *t = PyTuple_New(n);
        if (!t)
            goto done;
        for (Py_ssize_t i = 0; i < n && i < PyList_GET_SIZE(v); i++) {
            PyObject *cx = canonical_value(PyList_GET_ITEM(v, i), json_true, json_false);
            if (!cx) {
                Py_DECREF(t);
                goto done;
            }
            PyTuple_SET_ITEM(t, i, cx);
        }
        if (PyList_GET_SIZE(v) != n) { /* changed while read (not by JSON values) */
            Py_DECREF(t);
            PyErr_SetString(PyExc_RuntimeError, "list changed size while canonicalised");
            goto done;
        }
        out = t;
    }
done:
    Py_LeaveRecursiveCall();
    return out;
}

static PyObject *one_signature(PyObject *data, PyObject *ignored, int companion, PyObject *json_true,
                               PyObject *json_false, PyTypeObject *cls, PyObject *empty_args, PyObject *empty_set)
{
    PyObject *values = NULL, *none_keys = NULL, *type = NULL, *obj = NULL, *dict = NULL, *result = NULL,
             *nonelist = NULL;
    if (!PyDict_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "signatures: node dicts expected");
        return NULL;
    }
    int self_equal = 1;
    if (!(values = PyDict_New()))
        goto done;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(data, &pos, &k, &v)) {
        int r = PySet_Contains(ignored, k);
        if (r < 0)
            goto done;
        if (r)
            continue;
        PyObject *cv;
        if (v == Py_None || PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v)) {
            cv = v;
            Py_INCREF(cv);
        } else if (!(cv = canonical_value(v, json_true, json_false)))
            goto done;
        if (companion) {
            if (cv == Py_None) {
                if (!nonelist && !(nonelist = PyList_New(0))) {
                    Py_DECREF(cv);
                    goto done;
                }
                if (PyList_Append(nonelist, k) < 0) {
                    Py_DECREF(cv);
                    goto done;
                }
            } else if (PyFloat_CheckExact(cv) && PyFloat_AS_DOUBLE(cv) != PyFloat_AS_DOUBLE(cv))
                self_equal = 0; /* a NaN: v == v is False */
        }
        int bad = PyDict_SetItem(values, k, cv) < 0;
        Py_DECREF(cv);
        if (bad)
            goto done;
    }
    if (nonelist) {
        if (!(none_keys = PyFrozenSet_New(nonelist)))
            goto done;
    } else {
        none_keys = empty_set;
        Py_INCREF(none_keys);
    }
    PyObject *t = PyDict_GetItemWithError(data, _str_type);
    if (!t && PyErr_Occurred())
        goto done;
    if (!(type = PyObject_Str(t ? t : Py_None)))
        goto done;
    if (!(obj = PyBaseObject_Type.tp_new(cls, empty_args, NULL)))
        goto done;
    if (!(dict = PyObject_GenericGetDict(obj, NULL)))
        goto done;
    if (PyDict_SetItem(dict, _str_type, type) < 0 || PyDict_SetItem(dict, _str_values, values) < 0 ||
        PyDict_SetItem(dict, _str_none_keys, none_keys) < 0 ||
        PyDict_SetItem(dict, _str_self_equal, self_equal ? Py_True : Py_False) < 0)
        goto done;
    result = obj;
    obj = NULL;
done:
    Py_XDECREF(values);
    Py_XDECREF(none_keys);
    Py_XDECREF(type);
    Py_XDECREF(obj);
    Py_XDECREF(dict);
    Py_XDECREF(nonelist);
    return result;
}

static PyObject *py_signatures(PyObject *self, PyObject *args)
{
    PyObject *datas, *ignored, *json_true, *json_false, *cls;
    int companion;
    if (!PyArg_ParseTuple(args, "O!O!pOOO!", &PyList_Type, &datas, &PyFrozenSet_Type, &ignored, &companion, &json_true,
                          &json_false, &PyType_Type, &cls))
        return NULL;
    if (companion)
        json_true = json_false = NULL; /* canonical_python: booleans stay */
    Py_ssize_t n = PyList_GET_SIZE(datas);
    PyObject *out = PyList_New(n), *empty_args = PyTuple_New(0), *empty_set = PyFrozenSet_New(NULL);
    if (!out || !empty_args || !empty_set) {
        Py_XDECREF(out);
        out = NULL;
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *sig = one_signature(PyList_GET_ITEM(datas, i), ignored, companion, json_true, json_false,
                                      (PyTypeObject *)cls, empty_args, empty_set);
        if (!sig) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, sig);
    }
done:
    Py_XDECREF(empty_args);
    Py_XDECREF(empty_set);
    return out;
}

/* ---- the companion profile's Δ of two parsed flows, in one call ---------------------------- *
 *
 * companion_delta(value1, value2, ignored, check_signals) is divergence.score(flow_from_value(
 * value1), flow_from_value(value2), ScoreOptions(profile="companion")).delta: the same vertices
 * (the first node dict of each string id), signatures (similarity.signature), edges (ports merged,
 * dangling and non-string targets dropped), weights, clique search and Δ, with no Flow, Prepared or
 * report built. None when the value is not one of the plain shapes (a list, or a dict holding
 * "flow" or "flows" as a list, or one node dict), when a weight total reaches 2^62 or when
 * GINDEX_PURE_PYTHON asks for the Python searches: the caller takes the general way, which also
 * gives the errors.
 *
 * No Python object is built: three blocks (kept from call to call) hold small open-addressing
 * tables that intern the keys, the node ids and the types (str hash, then identity or str
 * equality), per vertex its compared keys as (key id, raw value), the weights, the wires and the
 * clique search's arrays; a same-type pair costs one array read per key of the generated node. Raw values are compared with Python == (RichCompareBool, identity
 * first, when self_equal; else `v == u_value`). For exact JSON types at every depth (dict with str
 * keys, list, str, int, float, bool, None) that is == on canonical_python's values: dict ==
 * compares key by key, identity first, as membership in the frozenset of items does (hashes agree
 * with ==), list == item by item, identity first, as the tuple does. Anything else (a subclass, a
 * tuple, a non-str key, id or ignored key, nesting deeper than CJ_DEPTH) gives None as well.
 */

static PyObject *_str_flow, *_str_flows, *_str_id, *_str_wires;

#define CJ_DEPTH 64
#define CJ_IGNORED (-1) /* key table: a key never compared */
enum { CJ_PLAIN_KEY, CJ_ID, CJ_TYPE, CJ_WIRES };

/* every hash is and-ed with this; tests narrow it to make different keys' hashes equal
 * (companion_hash_mask) */
static Py_hash_t cj_hash_mask = -1;

typedef struct {
    PyObject *key; /* a borrowed exact str; NULL: an empty slot */
    Py_hash_t hash;
    int32_t val;  /* key id (or CJ_IGNORED), vertex, or type id */
    int32_t role; /* key table: CJ_ID, CJ_TYPE, CJ_WIRES or CJ_PLAIN_KEY */
} CSlot;

typedef struct {
    CSlot *s;
    size_t mask;  /* capacity - 1; the capacity is a power of two at least twice what is put in */
    size_t n;     /* the key table: slots in use (it grows past half full) */
    CSlot *grown; /* the key table: its slots once grown out of the call's block (malloc) */
} CTab;

static size_t cj_cap(size_t n)
{
    size_t c = 8;
    while (c < 2 * n)
        c <<= 1;
    return c;
}

/* the masked hash of an exact str (the one it caches once computed); -1: an error */
static inline Py_hash_t cj_hash(PyObject *s)
{
    Py_hash_t h = ((PyASCIIObject *)s)->hash;
    if (h == -1 && (h = PyObject_Hash(s)) == -1)
        return -1;
    return h & cj_hash_mask;
}

/* two exact str of equal hash are equal */
static int cj_str_eq(PyObject *a, PyObject *b)
{
#if PY_VERSION_HEX < 0x030C0000 /* (every str is ready from 3.12 on) */
    if (!PyUnicode_IS_READY(a) || !PyUnicode_IS_READY(b))
        return PyUnicode_Compare(a, b) == 0;
#endif
    const Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    const int kind = PyUnicode_KIND(a);
    return n == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * kind) == 0;
}

/* the slot of key (an exact str, masked hash h) in t: its own, or the empty one where it goes. A
 * slot found by equality takes key as its object: the next lookups of this object (JSON keys are
 * one object per document) stop at the identity test. */
static inline CSlot *ctab_slot(const CTab *t, PyObject *key, Py_hash_t h)
{
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        CSlot *s = t->s + i;
        if (!s->key || s->key == key)
            return s;
        if (s->hash == h && cj_str_eq(s->key, key)) {
            s->key = key; /* equal strs: either stands for the slot for the rest of the call */
            return s;
        }
    }
}

/* one more slot of the key table in use: past half full, its slots move to a table 4 times as
 * large (the keys of a flow are few and repeated: the table starts small); -1: no memory */
static int ctab_grow(CTab *t)
{
    if (++t->n * 2 <= t->mask + 1)
        return 0;
    const size_t cap = (t->mask + 1) * 4;
    CSlot *g = calloc(cap, sizeof(CSlot));
    if (!g) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->s[i].key)
            continue;
        size_t j = (size_t)t->s[i].hash & (cap - 1);
        while (g[j].key) /* the keys are distinct: the first empty slot */
            j = (j + 1) & (cap - 1);
        g[j] = t->s[i];
    }
    free(t->grown);
    t->s = t->grown = g;
    t->mask = cap - 1;
    return 0;
}

/* 1: v is an exact JSON value at every depth (see above), 0: not */
static int cj_plain(PyObject *v, int depth)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type || v == Py_None)
        return 1;
    if (depth >= CJ_DEPTH)
        return 0;
    if (t == &PyList_Type) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++)
            if (!cj_plain(PyList_GET_ITEM(v, i), depth + 1))
                return 0;
        return 1;
    }
    if (t == &PyDict_Type) {
        PyObject *k, *x;
        Py_ssize_t pos = 0;
        while (PyDict_Next(v, &pos, &k, &x))
            if (!PyUnicode_CheckExact(k) || !cj_plain(x, depth + 1))
                return 0;
        return 1;
    }
    return 0;
}

/* the keys every call's key table starts with: the ignored ones and "id", "type", "wires" (kept
 * for the last ignored set seen, which is held) */
typedef struct {
    PyObject *key;
    Py_hash_t hash; /* unmasked */
    int ignored, role;
} CjFixed;

static PyObject *cj_fixed_set;
static CjFixed *cj_fixed_e;
static int cj_nfixed;

/* 1, 0 (an ignored key that is not an exact str: the general way), -1 (an error) */
static int cj_fixed(PyObject *ignored)
{
    if (ignored == cj_fixed_set)
        return 1;
    const Py_ssize_t n = PySet_GET_SIZE(ignored);
    if (n > (1 << 20))
        return 0;
    CjFixed *e = malloc(((size_t)n + 4) * sizeof(CjFixed));
    PyObject *it = e ? PyObject_GetIter(ignored) : NULL, *k;
    if (!it) {
        if (!e)
            PyErr_NoMemory();
        free(e);
        return -1;
    }
    int m = 0, plain = 1;
    while (plain && (k = PyIter_Next(it))) {
        Py_hash_t h = -1;
        plain = PyUnicode_CheckExact(k) && m < n; /* a frozenset does not change: m < n always */
        if (plain && (h = PyObject_Hash(k)) == -1) {
            Py_DECREF(k);
            break;
        }
        e[m] = (CjFixed){k, h, 1, CJ_PLAIN_KEY}; /* borrowed: the set, held below, holds it */
        m += plain;
        Py_DECREF(k);
    }
    Py_DECREF(it);
    if (PyErr_Occurred() || !plain) {
        free(e);
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *roles[3] = {_str_id, _str_type, _str_wires};
    for (int r = 0; r < 3; r++) {
        int i = 0;
        while (i < m && PyUnicode_Compare(e[i].key, roles[r]) != 0)
            i++;
        if (i == m) {
            Py_hash_t h = PyObject_Hash(roles[r]);
            if (h == -1) {
                free(e);
                return -1;
            }
            e[m++] = (CjFixed){roles[r], h, 0, CJ_PLAIN_KEY};
        }
        e[i].role = CJ_ID + r;
    }
    Py_INCREF(ignored);
    Py_XSETREF(cj_fixed_set, ignored);
    free(cj_fixed_e);
    cj_fixed_e = e;
    cj_nfixed = m;
    return 1;
}

/* The call's three blocks are kept from call to call (a block malloc hands back after other work is
 * out of the cache, and calloc zeroes more than is needed): one call at a time uses them
 * (cj_keep_busy, changed with the GIL held); a call meanwhile, or a block over CJ_KEEP_MAX bytes,
 * takes calloc and free. */
#define CJ_KEEP_MAX ((size_t)1 << 20)
static struct {
    char *p;
    size_t cap;
} cj_keep[3];
static int cj_keep_busy;

/* n bytes for block i, the first nzero of them zeroed; NULL: no memory (set) */
static char *cj_block(int i, size_t n, size_t nzero, int own)
{
    if (!own || n > CJ_KEEP_MAX) {
        char *p = calloc(1, n);
        if (!p)
            PyErr_NoMemory();
        return p;
    }
    if (cj_keep[i].cap < n) {
        size_t cap = n < 4096 ? 4096 : n;
        char *p = malloc(cap);
        if (!p) {
            PyErr_NoMemory();
            return NULL;
        }
        free(cj_keep[i].p);
        cj_keep[i].p = p;
        cj_keep[i].cap = cap;
    }
    memset(cj_keep[i].p, 0, nzero);
    return cj_keep[i].p;
}

static void cj_unblock(int i, char *p)
{
    if (p != cj_keep[i].p)
        free(p);
}

/* one flow of the call */
typedef struct {
    PyObject **items; /* its entries (borrowed) */
    PyObject *one[1]; /* the entry of a single node object */
    Py_ssize_t count, nkeys; /* entries, and the keys of those that are dicts */
    int n;                   /* vertices */
    CTab ids;                /* node id -> vertex */
    PyObject **wires;        /* per vertex its "wires" value (borrowed) or NULL */
    int32_t *type;           /* per vertex its type id (-1: a type no reference vertex has) */
    int32_t *k0;             /* vertex u's compared keys: kid[k0[u] .. k0[u + 1]), values val[..] */
    int32_t *kid;
    PyObject **val;
    int32_t *nnone; /* how many of u's compared values are null */
    char *se;       /* self_equal: no compared value is a float NaN */
    word *out, *in; /* n * W words each */
} CFlow;

/* the entries of a parsed flow and how many keys they hold: 1, 0 (not a plain shape), -1 (error) */
static int cflow_shape(CFlow *f, PyObject *value)
{
    PyObject *arr = NULL;
    if (PyList_CheckExact(value))
        arr = value;
    else if (PyDict_CheckExact(value)) {
        PyObject *x = PyDict_GetItemWithError(value, _str_flow);
        if (!x && PyErr_Occurred())
            return -1;
        if (!x || !PyList_Check(x)) {
            x = PyDict_GetItemWithError(value, _str_flows);
            if (!x && PyErr_Occurred())
                return -1;
        }
        if (x && PyList_CheckExact(x))
            arr = x;
        else if (x && PyList_Check(x))
            return 0;
    } else
        return 0;
    if (arr) {
        f->items = PySequence_Fast_ITEMS(arr);
        f->count = PyList_GET_SIZE(arr);
    } else { /* a single node object (with a string id and type), else not a flow: the caller says so */
        PyObject *i = PyDict_GetItemWithError(value, _str_id), *t = i ? PyDict_GetItemWithError(value, _str_type) : NULL;
        if (PyErr_Occurred())
            return -1;
        if (!i || !t || !PyUnicode_Check(i) || !PyUnicode_Check(t))
            return 0;
        f->one[0] = value;
        f->items = f->one;
        f->count = 1;
    }
    if (f->count > (1 << 20))
        return 0;
    f->nkeys = 0;
    for (Py_ssize_t k = 0; k < f->count; k++)
        if (PyDict_Check(f->items[k]))
            f->nkeys += PyDict_GET_SIZE(f->items[k]);
    return 1;
}

/* f's id table in the first block (zeroed) */
static void cflow_layout_ids(CFlow *f, Bump *b)
{
    f->ids.mask = cj_cap((size_t)f->count) - 1;
    f->ids.s = bump(b, (f->ids.mask + 1) * sizeof(CSlot));
}

/* f's arrays of the first block (written before read) */
static void cflow_layout(CFlow *f, Bump *b)
{
    const size_t c = (size_t)f->count + 1, k = (size_t)f->nkeys + 1;
    f->wires = bump(b, c * sizeof(PyObject *));
    f->type = bump(b, c * sizeof(int32_t));
    f->k0 = bump(b, c * sizeof(int32_t));
    f->nnone = bump(b, c * sizeof(int32_t));
    f->se = bump(b, c);
    f->kid = bump(b, k * sizeof(int32_t));
    f->val = bump(b, k * sizeof(PyObject *));
}

/* f's vertices, their ids, types and compared (key id, value)s. ref: the reference flow (its new
 * keys and types get ids); the generated flow keeps only the keys and types the reference has.
 * 1, 0 (take the general way), -1 (error) */
static int cflow_read(CFlow *f, CTab *keys, int32_t *nextkey, CTab *types, int32_t *ntypes, int ref)
{
    int32_t at = 0; /* the next key slot */
    for (Py_ssize_t k = 0; k < f->count; k++) {
        PyObject *d = f->items[k], *id = NULL, *type = NULL, *wires = NULL, *key, *v;
        if (!PyDict_Check(d))
            continue; /* an invalid entry: never scored */
        if (!PyDict_CheckExact(d))
            return 0;
        const int32_t start = at;
        int32_t nnone = 0;
        char se = 1;
        Py_ssize_t pos = 0;
        while (PyDict_Next(d, &pos, &key, &v)) {
            if (!PyUnicode_CheckExact(key))
                return 0;
            Py_hash_t h = cj_hash(key);
            CSlot *s = h == -1 ? NULL : ctab_slot(keys, key, h);
            if (!s)
                return -1;
            int32_t kv, role;
            if (s->key) {
                kv = s->val;
                role = s->role;
            } else { /* a key met first here */
                if (!ref) {    /* no reference vertex has it: never compared */
                    if (!cj_plain(v, 0))
                        return 0;
                    continue;
                }
                kv = (*nextkey)++;
                role = CJ_PLAIN_KEY;
                *s = (CSlot){key, h, kv, role};
                if (ctab_grow(keys) < 0)
                    return -1;
            }
            if (role == CJ_ID)
                id = v;
            else if (role == CJ_TYPE)
                type = v;
            else if (role == CJ_WIRES)
                wires = v;
            if (kv == CJ_IGNORED)
                continue;
            if (!cj_plain(v, 0))
                return 0;
            f->kid[at] = kv;
            f->val[at] = v;
            at++;
            if (v == Py_None)
                nnone++;
            else if (PyFloat_CheckExact(v) && PyFloat_AS_DOUBLE(v) != PyFloat_AS_DOUBLE(v))
                se = 0; /* a NaN: v == v is False */
        }
        if (!id || !type || !PyUnicode_Check(id) || !PyUnicode_Check(type)) {
            at = start;
            continue;
        }
        if (!PyUnicode_CheckExact(id) || !PyUnicode_CheckExact(type))
            return 0;
        Py_hash_t hi = cj_hash(id), ht = hi == -1 ? -1 : cj_hash(type);
        CSlot *si = ht == -1 ? NULL : ctab_slot(&f->ids, id, hi);
        if (!si)
            return -1;
        if (si->key) { /* a duplicated id: the first node is the vertex */
            at = start;
            continue;
        }
        CSlot *st = ctab_slot(types, type, ht);
        if (!st)
            return -1;
        const int u = f->n++;
        si->key = id;
        si->hash = hi;
        si->val = u;
        if (!st->key && ref) {
            st->key = type;
            st->hash = ht;
            st->val = (*ntypes)++;
        }
        f->type[u] = st->key ? st->val : -1;
        f->wires[u] = wires;
        f->k0[u] = start;
        f->nnone[u] = nnone;
        f->se[u] = se;
    }
    f->k0[f->n] = at;
    return 1;
}

/* the wires of f's vertices as out / in bitsets (W words each, zeroed; ports merged, as prepare
 * without port_aware): a list of lists is a list of ports, another list one port; non-string and
 * dangling targets are dropped. 1, 0 (a str subclass target: the general way), -1 (error) */
static int cflow_wire(CFlow *f, int W)
{
    for (int k = 0; k < f->n; k++) {
        PyObject *wires = f->wires[k];
        if (!wires || !PyList_Check(wires) || PyList_GET_SIZE(wires) == 0)
            continue;
        int nested = 1;
        for (Py_ssize_t p = 0; p < PyList_GET_SIZE(wires) && nested; p++)
            nested = PyList_Check(PyList_GET_ITEM(wires, p));
        Py_ssize_t nports = nested ? PyList_GET_SIZE(wires) : 1;
        for (Py_ssize_t p = 0; p < nports; p++) {
            PyObject *port = nested ? PyList_GET_ITEM(wires, p) : wires;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(port); i++) {
                PyObject *t = PyList_GET_ITEM(port, i);
                if (!PyUnicode_Check(t))
                    continue;
                if (!PyUnicode_CheckExact(t))
                    return 0;
                Py_hash_t h = cj_hash(t);
                CSlot *s = h == -1 ? NULL : ctab_slot(&f->ids, t, h);
                if (!s)
                    return -1;
                if (!s->key)
                    continue;
                const int j = s->val;
                f->out[(size_t)W * k + (j >> 6)] |= (word)1 << (j & 63);
                f->in[(size_t)W * j + (k >> 6)] |= (word)1 << (k & 63);
            }
        }
    }
    return 1;
}

/* read_graph's CSR of f: per vertex the key 0 (out) and IN_KEY (in) when it has such edges */
static void cflow_csr(const CFlow *f, int W, int32_t *starts, int64_t *keys, word *masks)
{
    int k = 0;
    for (int u = 0; u < f->n; u++) {
        starts[u] = k;
        for (int dir = 0; dir < 2; dir++) {
            const word *m = (dir ? f->in : f->out) + (size_t)W * u;
            if (is_empty(m, W))
                continue;
            keys[k] = dir ? IN_KEY : 0;
            memcpy(masks + (size_t)W * k, m, W * sizeof(word));
            k++;
        }
    }
    starts[f->n] = k;
}

static inline int cmp_assoc(const void *a, const void *b)
{
    const long long *x = a, *y = b; /* (w, u, v, type): w descending, then (u, v) */
    if (x[0] != y[0])
        return x[0] > y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return (x[2] > y[2]) - (x[2] < y[2]);
}

/* u's compared value a against v's b: 1 equal, 0 not, -1 error (companion_count's rule) */
static inline int cj_equal(PyObject *a, PyObject *b, int self_equal)
{
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b)) { /* == of two str: their characters */
        const Py_hash_t ha = ((PyASCIIObject *)a)->hash, hb = ((PyASCIIObject *)b)->hash;
        return a == b || ((ha == -1 || hb == -1 || ha == hb) && cj_str_eq(a, b));
    }
    if (self_equal) /* |a.items ∩ b.items|: identity first, as set membership */
        return PyObject_RichCompareBool(a, b, Py_EQ);
    PyObject *res = PyObject_RichCompare(b, a, Py_EQ); /* b.values.get(k) == v */
    if (!res)
        return -1;
    int r = PyObject_IsTrue(res);
    Py_DECREF(res);
    return r;
}

/* Δ = 1 − S²/(n1·n2), S = best / scale, by integer true division (divergence._delta_of): in
 * doubles when both sides are below 2^53 (exact, and one correctly rounded division, as Python's
 * int / int then does), else with Python ints */
static PyObject *cj_delta(long long best, long long scale, long long nn)
{
    long long g = gcd_ll(best, scale);
    if (g == 0)
        g = 1;
    const long long num = best / g, den = scale / g, two53 = (long long)1 << 53;
    if (den < ((long long)1 << 27) && num < ((long long)1 << 27) && den * den <= (two53 - 1) / nn) {
        const long long tot = den * den * nn;
        return PyFloat_FromDouble((double)(tot - num * num) / (double)tot);
    }
    PyObject *result = NULL;
    PyObject *pn = PyLong_FromLongLong(num), *pd = PyLong_FromLongLong(den), *pnn = PyLong_FromLongLong(nn);
    PyObject *d2 = pd ? PyNumber_Multiply(pd, pd) : NULL;
    PyObject *tot = d2 && pnn ? PyNumber_Multiply(d2, pnn) : NULL;
    PyObject *sq = pn ? PyNumber_Multiply(pn, pn) : NULL;
    PyObject *diff = tot && sq ? PyNumber_Subtract(tot, sq) : NULL;
    result = diff ? PyNumber_TrueDivide(diff, tot) : NULL;
    Py_XDECREF(pn);
    Py_XDECREF(pd);
    Py_XDECREF(pnn);
    Py_XDECREF(d2);
    Py_XDECREF(tot);
    Py_XDECREF(sq);
    Py_XDECREF(diff);
    return result;
}

static PyObject *py_companion_delta(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "companion_delta() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *value1 = args[0], *value2 = args[1], *ignored = args[2];
    if (!PyFrozenSet_Check(ignored)) {
        PyErr_Format(PyExc_TypeError, "companion_delta() argument 3 must be frozenset, not %.50s",
                     Py_TYPE(ignored)->tp_name);
        return NULL;
    }
    /* None: signal handlers run in the main thread only, so check for them there (from 3.13 on,
     * where that test is internal, everywhere: elsewhere the check finds nothing to run) */
#if PY_VERSION_HEX < 0x030D0000
    const int check_signals = args[3] == Py_None ? _PyOS_IsMainThread() : PyObject_IsTrue(args[3]);
#else
    const int check_signals = args[3] == Py_None ? 1 : PyObject_IsTrue(args[3]);
#endif
    if (check_signals < 0)
        return NULL;
    if (pure_python_env()) /* the Python searches are asked for (matching.native_search_available) */
        Py_RETURN_NONE;
    CFlow f1, f2;
    memset(&f1, 0, sizeof(CFlow));
    memset(&f2, 0, sizeof(CFlow));
    PyObject *result = NULL;
    char *block1 = NULL, *block2 = NULL, *block3 = NULL;
    const int own = !cj_keep_busy;
    cj_keep_busy = 1;
    CTab keys, types; /* keys: the keys met (a small table that grows), types: the reference's */
    memset(&keys, 0, sizeof(CTab));
    memset(&types, 0, sizeof(CTab));
    Clq clq;
    Clq *q = &clq;
    memset(q, 0, sizeof(Clq));
    int r = cflow_shape(&f1, value1);
    if (r > 0)
        r = cflow_shape(&f2, value2);
    if (r > 0)
        r = cj_fixed(ignored);
    if (r <= 0)
        goto bail;
    /* the first block: both flows' arrays and id tables, the key and type tables */
    keys.mask = cj_cap((size_t)cj_nfixed + (size_t)(f1.nkeys < 48 ? f1.nkeys : 48)) - 1;
    types.mask = cj_cap((size_t)f1.count) - 1;
    int32_t *tcount = NULL;
    for (Bump b = {NULL, 0};; b.off = 0) { /* what must be zero first */
        cflow_layout_ids(&f1, &b);
        cflow_layout_ids(&f2, &b);
        keys.s = bump(&b, (keys.mask + 1) * sizeof(CSlot));
        types.s = bump(&b, (types.mask + 1) * sizeof(CSlot));
        tcount = bump(&b, ((size_t)f1.count + 2) * sizeof(int32_t));
        const size_t zeroed = b.off;
        cflow_layout(&f1, &b);
        cflow_layout(&f2, &b);
        if (b.base)
            break;
        if (!(b.base = block1 = cj_block(0, b.off, zeroed, own)))
            goto done;
    }
    int32_t nextkey = 0, ntypes = 0;
    for (int i = 0; i < cj_nfixed; i++) {
        const CjFixed *e = cj_fixed_e + i;
        CSlot *s = ctab_slot(&keys, e->key, e->hash & cj_hash_mask);
        if (!s)
            goto done;
        *s = (CSlot){e->key, e->hash & cj_hash_mask, e->ignored ? CJ_IGNORED : nextkey++, e->role};
        if (ctab_grow(&keys) < 0)
            goto done;
    }
    r = cflow_read(&f1, &keys, &nextkey, &types, &ntypes, 1);
    if (r > 0)
        r = cflow_read(&f2, &keys, &nextkey, &types, &ntypes, 0);
    if (r <= 0)
        goto bail;
    const int n1 = f1.n, n2 = f2.n;
    if (n1 == 0 || n2 == 0) {
        result = PyFloat_FromDouble(1.0);
        goto done;
    }
    if ((long long)n1 * n2 > (1LL << 22)) /* large flows: the general way (no n1·n2 table here) */
        goto bail;
    /* the generated vertices by type (gstart / gv), and how many same-type pairs there are */
    for (int v = 0; v < n2; v++)
        if (f2.type[v] >= 0)
            tcount[f2.type[v] + 1]++;
    long long npairs = 0;
    for (int u = 0; u < n1; u++)
        npairs += tcount[f1.type[u] + 1];
    const int nmax = n1 > n2 ? n1 : n2;
    const int W = nmax > 64 ? (nmax + 63) / 64 : 1;
    /* the second block: the pairs, the key lookup of a reference vertex, the wires and their CSR */
    int32_t *gstart = NULL, *gv = NULL, *slot = NULL, *s1 = NULL, *s2 = NULL;
    long long *rows = NULL, *dens = NULL;
    int64_t *k1 = NULL, *k2 = NULL;
    word *m1 = NULL, *m2 = NULL;
    for (Bump b = {NULL, 0};; b.off = 0) { /* what must be zero first */
        gstart = bump(&b, ((size_t)ntypes + 2) * sizeof(int32_t));
        f1.out = bump(&b, ((size_t)n1 + 1) * W * sizeof(word));
        f1.in = bump(&b, ((size_t)n1 + 1) * W * sizeof(word));
        f2.out = bump(&b, ((size_t)n2 + 1) * W * sizeof(word));
        f2.in = bump(&b, ((size_t)n2 + 1) * W * sizeof(word));
        const size_t zeroed = b.off;
        gv = bump(&b, ((size_t)n2 + 1) * sizeof(int32_t));
        slot = bump(&b, ((size_t)nextkey + 1) * sizeof(int32_t));
        rows = bump(&b, ((size_t)npairs + 1) * 4 * sizeof(long long));
        dens = bump(&b, ((size_t)npairs + 1) * sizeof(long long));
        s1 = bump(&b, ((size_t)n1 + 1) * sizeof(int32_t));
        s2 = bump(&b, ((size_t)n2 + 1) * sizeof(int32_t));
        k1 = bump(&b, ((size_t)n1 * 2 + 1) * sizeof(int64_t));
        k2 = bump(&b, ((size_t)n2 * 2 + 1) * sizeof(int64_t));
        m1 = bump(&b, ((size_t)n1 * 2 + 1) * W * sizeof(word));
        m2 = bump(&b, ((size_t)n2 * 2 + 1) * W * sizeof(word));
        if (b.base)
            break;
        if (!(b.base = block2 = cj_block(1, b.off, zeroed, own)))
            goto done;
    }
    for (int t = 0; t < ntypes; t++)
        gstart[t + 1] = gstart[t] + tcount[t + 1];
    for (int v = 0; v < n2; v++)
        if (f2.type[v] >= 0)
            gv[gstart[f2.type[v]]++] = v;
    for (int t = ntypes; t > 0; t--) /* back to the starts */
        gstart[t] = gstart[t - 1];
    gstart[0] = 0;
    for (int32_t k = 0; k < nextkey; k++)
        slot[k] = -1;
    /* the weights (matching._weights, companion) as (w, u, v, type of u), then scaled by the lcm:
     * w(u, v) = |{k in keys(u): u[k] == v.get(k)}| / |keys(u)|, 1 when u has no compared key */
    Py_ssize_t nv = 0;
    long long scale = 1;
    int overflow = 0;
    for (int u = 0; u < n1; u++) {
        const int t = f1.type[u], a0 = f1.k0[u], a1 = f1.k0[u + 1], se = f1.se[u];
        const long long den = a1 - a0;
        if (gstart[t] == gstart[t + 1])
            continue;
        for (int j = a0; j < a1; j++)
            slot[f1.kid[j]] = j;
        for (int g = gstart[t]; g < gstart[t + 1]; g++) {
            const int v = gv[g];
            long long num = f1.nnone[u]; /* a null that v lacks is equal; the shared keys below */
            for (int j = f2.k0[v]; den && j < f2.k0[v + 1]; j++) {
                const int i = slot[f2.kid[j]];
                if (i < 0)
                    continue;
                PyObject *a = f1.val[i];
                int eq = cj_equal(a, f2.val[j], se);
                if (eq < 0)
                    goto done;
                num += eq - (a == Py_None);
            }
            if (!den)
                num = 0;
            else if (num == 0)
                continue;
            rows[4 * nv] = num;
            rows[4 * nv + 1] = u;
            rows[4 * nv + 2] = v;
            rows[4 * nv + 3] = t;
            dens[nv] = den;
            nv++;
            if (den && !overflow)
                overflow = lcm_into(&scale, den);
        }
        for (int j = a0; j < a1; j++)
            slot[f1.kid[j]] = -1;
    }
    long long total = 0;
    for (Py_ssize_t i = 0; i < nv && !overflow; i++) {
        long long x = dens[i] ? rows[4 * i] * (scale / dens[i]) : scale;
        if (x >= (((long long)1 << 62) - total))
            overflow = 1;
        else {
            rows[4 * i] = x;
            total += x;
        }
    }
    if (overflow || nv > (1 << 20))
        goto bail;
    if (nv <= 64) /* (few rows: without qsort's calls) */
        for (Py_ssize_t i = 1; i < nv; i++) {
            long long row[4], *x = rows + 4 * i;
            memcpy(row, x, sizeof(row));
            for (; x > rows && cmp_assoc(x - 4, row) > 0; x -= 4)
                memcpy(x, x - 4, sizeof(row));
            memcpy(x, row, sizeof(row));
        }
    else
        qsort(rows, (size_t)nv, 4 * sizeof(long long), cmp_assoc);
    r = cflow_wire(&f1, W);
    if (r > 0)
        r = cflow_wire(&f2, W);
    if (r <= 0)
        goto bail;
    cflow_csr(&f1, W, s1, k1, m1);
    cflow_csr(&f2, W, s2, k2, m2);
    {
        Bump b = {NULL, 0};
        clique_carve(q, n1, n2, (int)nv, &b);
        if (!(b.base = block3 = cj_block(2, b.off, q->zeroed, own)))
            goto done;
        b.off = 0;
        clique_carve(q, n1, n2, (int)nv, &b);
    }
    int32_t *tmap = tcount; /* reused: type ids by first occurrence in this order (_type_ids) */
    for (int t = 0; t < ntypes; t++)
        tmap[t] = -1;
    for (Py_ssize_t i = 0; i < nv; i++) {
        int t = (int)rows[4 * i + 3];
        if (tmap[t] < 0)
            tmap[t] = q->ntypes++;
        q->vu[i] = (int32_t)rows[4 * i + 1];
        q->vv[i] = (int32_t)rows[4 * i + 2];
        q->vt[i] = tmap[t];
        q->wt[i] = (int64_t)rows[4 * i];
    }
    if (clique_prepare(q, s1, k1, m1, s2, k2, m2, W) < 0)
        goto done;
    if (init_stop(&q->stop, Py_None, check_signals, Py_None) < 0)
        goto done;
    int64_t upper;
    if (clique_run(q, -1, &upper)) { /* no deadline and no cancel: a signal handler's exception, or no memory */
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    result = cj_delta(q->best > 0 ? q->best : 0, scale, (long long)n1 * n2);
    goto done;
bail:
    if (r >= 0)
        result = Py_NewRef(Py_None);
done:
    cj_unblock(0, block1);
    cj_unblock(1, block2);
    cj_unblock(2, block3);
    if (own)
        cj_keep_busy = 0;
    free(keys.grown);
    return result;
}

/* companion_hash_mask(mask) -> the previous mask (tests: every hash companion_delta uses is
 * and-ed with it; 0 makes all keys, ids and types collide) */
static PyObject *py_companion_hash_mask(PyObject *self, PyObject *args)
{
    long long mask;
    if (!PyArg_ParseTuple(args, "L", &mask))
        return NULL;
    Py_hash_t old = cj_hash_mask;
    cj_hash_mask = (Py_hash_t)mask;
    return PyLong_FromLongLong((long long)old);
}

/* pure_python_requested() -> bool: pure_python_env() */
static PyObject *py_pure_python_requested(PyObject *self, PyObject *noargs)
{
    return PyBool_FromLong(pure_python_env());
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS,
     "search(out1, in1, out2, in2, w, gid1, gid2, floor, remaining, check_signals[, cancel[, node_limit]])\n"
     "-> (best, pairs or None, upper, exact, nodes)\n\n"
     "Weighted McSplit on two graphs given as Graph.adj_out / adj_in (lists of {port: mask}), the\n"
     "integer weights {(u, v): w}, group ids per vertex (same id: same type and self-loop ports;\n"
     "-1: none), the floor to beat strictly, the seconds left (None: no deadline), and whether to\n"
     "run signal handlers meanwhile; cancel: None, a buffer whose first byte set non-zero stops the\n"
     "search (read without the GIL), or an object with is_set(); node_limit > 0: stop as at a deadline\n"
     "on visiting node node_limit + 1. See gindex_studio.core.scoring.matching."},
    {"clique_search", py_clique_search, METH_VARARGS,
     "clique_search(out1, in1, out2, in2, verts, weights, types, floor, remaining, check_signals[, cancel])\n"
     "-> (best, pairs or None, upper, exact, nodes)\n\n"
     "The companion profile's maximum-weight clique search (matching._CliqueSearch) on the\n"
     "association vertices verts [(u, v)] in branching order, their integer weights and node-type\n"
     "ids; the other arguments and the result as for search()."},
    {"weights", py_weights, METH_VARARGS,
     "weights(types1, vals1, loops1, by_type2, vals2, loops2, companion, self_equal1[, threshold])\n"
     "-> (raw, w, scale, quick, total)\n\n"
     "The node weights of every same-type pair with w > 0, as matching._weights computes them for\n"
     "the paper (companion=0) and companion (companion=1) profiles, with the quick bound and the total\n"
     "of w; None for those that would reach 2^62."},
    {"solve", py_solve, METH_VARARGS,
     "solve((types1, vals1, loops1, by_type2, vals2, loops2, 0, self_equal1, threshold),\n"
     "      (types2, out1, in1, out2, in2, remaining, check_signals, cancel[, node_limit]))\n"
     "-> None, (scale, quick) or (scale, floor, best, pairs or None, upper, exact, nodes)\n\n"
     "The paper profile's max_common_subgraph without a warm start in one call: weights() without\n"
     "building the dicts, the group ids (type, self-loop ports) and search(), whose floor is\n"
     "isqrt(floor(tn * scale^2 / td)) for threshold (tn, td) (else -1). (scale, quick): the quick\n"
     "bound proves nothing beats the threshold. None: a weight total reaching 2^62 (or the\n"
     "companion profile): use weights() and search(). pairs: (u, v, num, den) as weights()' raw."},
    {"companion_delta", (PyCFunction)(void (*)(void))py_companion_delta, METH_FASTCALL,
     "companion_delta(value1, value2, ignored, check_signals) -> float or None\n\n"
     "check_signals: None checks for signals when called in the main thread.\n"
     "The companion profile's Δ of two parsed flows (JSON values), as score(flow_from_value(...))\n"
     "gives it, in one call; None: not a plain flow shape, weights too large, or GINDEX_PURE_PYTHON set\n"
     "(take the general way)."},
    {"companion_hash_mask", py_companion_hash_mask, METH_VARARGS,
     "companion_hash_mask(mask) -> the previous mask\n\n"
     "Tests only: every hash companion_delta's tables use is and-ed with mask (0: all collide)."},
    {"counts_to", py_counts_to, METH_VARARGS,
     "counts_to(values, others) -> bytes\n\n"
     "The paper profile's w of one node against nodes of its type as int64 (num, den) pairs."},
    {"weights_to", py_weights_to, METH_VARARGS,
     "weights_to(values, self_equal, others, companion) -> [float]\n\n"
     "w of one node against nodes of its type, as floats (curriculum._weights_to)."},
    {"signatures", py_signatures, METH_VARARGS,
     "signatures(datas, ignored, companion, json_true, json_false, cls) -> [Signature]\n\n"
     "similarity.signature of every node dict, paper (companion=0) or companion (companion=1)."},
    {"pure_python_requested", py_pure_python_requested, METH_NOARGS,
     "pure_python_requested() -> bool: GINDEX_PURE_PYTHON is set and not \"0\" (read with getenv)."},
    {"flow_graph", py_flow_graph, METH_VARARGS,
     "flow_graph(nodes, no_loops, loop0) -> (ids, datas, adj_out, adj_in, selfloop, cyclic, n_edges) or None\n\n"
     "A flow's vertices and their wires, ports merged (divergence.prepare without port_aware or ignored types)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_mcsplit", "Native weighted McSplit search (see gindex_studio.core.scoring.matching).", -1,
    methods,
};

/* matching.py uses the module only when this matches its own (a stale build after a change of the
 * call is ignored rather than called wrongly) */
#define API_VERSION 10

PyMODINIT_FUNC PyInit__mcsplit(void)
{
    if (!(_str_type = PyUnicode_InternFromString("type")) || !(_str_values = PyUnicode_InternFromString("values")) ||
        !(_str_none_keys = PyUnicode_InternFromString("none_keys")) ||
        !(_str_self_equal = PyUnicode_InternFromString("self_equal")))
        return NULL;
    if (!(_str_flow = PyUnicode_InternFromString("flow")) || !(_str_flows = PyUnicode_InternFromString("flows")) ||
        !(_str_id = PyUnicode_InternFromString("id")) || !(_str_wires = PyUnicode_InternFromString("wires")))
        return NULL;
    if (!(_str_wires_g = PyUnicode_InternFromString("wires")) || !(_str_id_g = PyUnicode_InternFromString("id")) ||
        !(_str_data_g = PyUnicode_InternFromString("data")) || !(_zero_g = PyLong_FromLong(0)))
        return NULL;
    PyObject *math = PyImport_ImportModule("math");
    _isqrt = math ? PyObject_GetAttrString(math, "isqrt") : NULL;
    Py_XDECREF(math);
    if (!_isqrt)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m && PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
