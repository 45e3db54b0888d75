/*
 * gindex_studio.core.native._mcsplit: the binding. Every function of the module parses its named
 * arguments here (METH_FASTCALL | METH_KEYWORDS), turns Python graphs, weights and budgets into
 * the plain structs of core.h, runs the plain C search (mcsplit_search.c, mcsplit_clique.c) or a
 * Python-value kernel (py_*.c) and turns the result back into Python values.
 */
#include "kernels.h"

/* native/__init__.py uses the module only when this matches its own (a stale build after a change
 * of the call is ignored rather than called wrongly) */
#define API_VERSION 14

#define LIMIT62 ((long long)1 << 62)

/* ---- Python graphs as RelGraph --------------------------------------------------------------- */

static long long masks_read; /* ints read by to_words since the module loaded (tests: masks_read()) */
static PyObject *_int_to_bytes; /* int.to_bytes */

/* a non-negative int below 2^(64W) into W words: one copy of its bytes (linear in W; shifting it
 * 64 bits at a time made a mask of a 20,000-vertex graph cost 313 big-int shifts) */
static int to_words(PyObject *x, word *out, int W)
{
    if (!PyLong_Check(x)) {
        PyErr_SetString(PyExc_TypeError, "bitset must be an int");
        return -1;
    }
    masks_read++;
    if (W == 1) {
        out[0] = (word)PyLong_AsUnsignedLongLong(x); /* raises on negative or too large */
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *b = PyObject_CallFunction(_int_to_bytes, "Ons", x, (Py_ssize_t)W * 8, "little");
    if (!b) { /* negative, or not below 2^(64W) */
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "bitset out of range");
        }
        return -1;
    }
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
    for (int i = 0; i < W; i++) {
        word v = 0;
        for (int j = 7; j >= 0; j--)
            v = v << 8 | p[8 * i + j];
        out[i] = v;
    }
    Py_DECREF(b);
    return 0;
}

/* A graph of n vertices as Graph.adj_out / adj_in (lists of {port: mask}) or, for a sparse Graph,
 * its edge array (an array('i') of sorted, distinct (src, port, dst) triples) with ins None, into
 * g. want (NULL: all): only the masks of vertices u with want[u] are read, the others get no
 * relations (McSplit reads only the vertices with a partner: a 20,000-vertex flow against a small
 * one read 40,000 masks per search for none). -1 with an exception set. */
static int relgraph_from_py(RelGraph *g, PyObject *outs, PyObject *ins, int n, const char *want)
{
    memset(g, 0, sizeof(RelGraph));
    g->n = n;
    if (ins == Py_None) {
        Py_buffer buf;
        if (PyObject_GetBuffer(outs, &buf, PyBUF_FORMAT) < 0)
            return -1;
        const char *f = buf.format ? buf.format : "B";
        int rc = -1;
        if (buf.itemsize != 4 || !(strcmp(f, "i") == 0 || strcmp(f, "=i") == 0 || strcmp(f, "<i") == 0) ||
            buf.len % 12 != 0) {
            PyErr_SetString(PyExc_TypeError, "edges: an array('i') of (src, port, dst) triples expected");
        } else {
            const char *err = NULL;
            rc = relgraph_from_edges(g, n, (const int32_t *)buf.buf, buf.len / 12, &err);
            if (rc < 0)
                raise_code(rc == -1 ? ABORT_NOMEM : rc, err);
        }
        PyBuffer_Release(&buf);
        return rc < 0 ? -1 : 0;
    }
    if (!PyList_Check(outs) || !PyList_Check(ins) || PyList_GET_SIZE(outs) != n || PyList_GET_SIZE(ins) != n) {
        PyErr_SetString(PyExc_ValueError, "adjacency: one dict per vertex and direction");
        return -1;
    }
    const int Wf = n > 64 ? (n + 63) / 64 : 1;
    size_t k = 0, cap = 64;
    word *tmp = malloc((size_t)Wf * sizeof(word));
    g->start = malloc(((size_t)n + 1) * sizeof(int32_t));
    g->key = malloc(cap * sizeof(int64_t));
    g->other = malloc(cap * sizeof(int32_t));
    if (!tmp || !g->start || !g->key || !g->other)
        goto nomem;
    for (int u = 0; u < n; u++) {
        g->start[u] = (int32_t)k;
        for (int dir = 0; dir < 2 && (!want || want[u]); dir++) {
            PyObject *d = PyList_GET_ITEM(dir ? ins : outs, u), *port, *mask;
            if (!PyDict_Check(d)) {
                PyErr_SetString(PyExc_TypeError, "adjacency: dicts {port: mask} expected");
                goto fail;
            }
            Py_ssize_t it = 0;
            while (PyDict_Next(d, &it, &port, &mask)) {
                long long p = PyLong_AsLongLong(port);
                if (p == -1 && PyErr_Occurred())
                    goto fail;
                if (p < 0 || p >= IN_KEY) {
                    PyErr_SetString(PyExc_ValueError, "port out of range");
                    goto fail;
                }
                if (to_words(mask, tmp, Wf) < 0)
                    goto fail;
                for (int j = 0; j < Wf; j++)
                    for (word x = tmp[j]; x; x &= x - 1) {
                        const int v = j * 64 + ctz64(x);
                        if (v >= n) {
                            PyErr_SetString(PyExc_ValueError, "bitset out of range");
                            goto fail;
                        }
                        if (k == cap) {
                            cap *= 2;
                            int64_t *nk = realloc(g->key, cap * sizeof(int64_t));
                            if (nk)
                                g->key = nk;
                            int32_t *no = realloc(g->other, cap * sizeof(int32_t));
                            if (no)
                                g->other = no;
                            if (!nk || !no)
                                goto nomem;
                        }
                        g->key[k] = (int64_t)p + (dir ? IN_KEY : 0);
                        g->other[k++] = v;
                    }
            }
        }
    }
    g->start[n] = (int32_t)k;
    free(tmp);
    return 0;
nomem:
    PyErr_NoMemory();
fail:
    free(tmp);
    relgraph_free(g);
    return -1;
}

/* one int of [lo, hi] per vertex of list into out */
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

/* w {(u, v): weight} (checked) into pairs; *out is malloc'ed (free it, also on error) */
static int weighted_pairs(PyObject *w, int n1, int n2, WeightedPair **out, size_t *count)
{
    if (!PyDict_Check(w)) {
        PyErr_SetString(PyExc_TypeError, "weights: dict {(u, v): w} expected");
        return -1;
    }
    *out = malloc(((size_t)PyDict_GET_SIZE(w) + 1) * sizeof(WeightedPair));
    if (!*out) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *val;
    Py_ssize_t it = 0;
    size_t t = 0;
    while (PyDict_Next(w, &it, &key, &val)) {
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
            PyErr_SetString(PyExc_TypeError, "weights: keys (u, v) expected");
            return -1;
        }
        long u = PyLong_AsLong(PyTuple_GET_ITEM(key, 0)), v = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
        long long wt = PyLong_AsLongLong(val);
        if (PyErr_Occurred())
            return -1;
        if (u < 0 || u >= n1 || v < 0 || v >= n2 || wt < 0 || wt >= LIMIT62) {
            PyErr_SetString(PyExc_ValueError, "weights: vertex or weight out of range");
            return -1;
        }
        (*out)[t++] = (WeightedPair){(int32_t)u, (int32_t)v, wt};
    }
    *count = t;
    return 0;
}

/* McSplit on the converted graphs of out1 .. in2 (n1, n2 vertices) with a Stop from the named
 * budget arguments: *found filled, or -1 with an exception */
static int run_mcsplit(PyObject *out1, PyObject *in1, PyObject *out2, PyObject *in2, int n1, int n2,
                       const WeightedPair *pairs, size_t npairs, const int32_t *gid1, const int32_t *gid2,
                       long long floor_, PyObject *const *budget, Found *found)
{
    if (floor_ >= LIMIT62) {
        PyErr_SetString(PyExc_OverflowError, "floor too large");
        return -1;
    }
    long long node_limit;
    const int check_signals = arg_bool(budget[1], 0);
    if (check_signals < 0 || arg_ll(budget[2], 0, &node_limit) < 0)
        return -1;
    PyStop ps;
    if (pystop_init(&ps, opt(budget[0]), check_signals, node_limit) < 0)
        return -1;
    RelGraph g1, g2;
    memset(&g2, 0, sizeof(g2));
    int rc = -1;
    char *want1 = calloc((size_t)n1 + 1, 1), *want2 = calloc((size_t)n2 + 1, 1); /* the vertices with a partner */
    if (!want1 || !want2) {
        free(want1);
        free(want2);
        pystop_release(&ps);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t t = 0; t < npairs; t++) {
        want1[pairs[t].u] = 1;
        want2[pairs[t].v] = 1;
    }
    if (relgraph_from_py(&g1, out1, in1, n1, want1) == 0 && relgraph_from_py(&g2, out2, in2, n2, want2) == 0) {
        rc = mcsplit_run(&g1, &g2, pairs, npairs, gid1, gid2, floor_, &ps.stop, found);
        if (rc)
            raise_code(rc, NULL);
    }
    free(want1);
    free(want2);
    relgraph_free(&g1);
    relgraph_free(&g2);
    pystop_release(&ps);
    return rc ? -1 : 0;
}

#define BUDGET_NAMES "budget", "check_signals", "node_limit"

static const char *const search_names[] = {"adj_out1", "adj_in1", "adj_out2", "adj_in2", "weights", "gid1", "gid2",
                                           "floor", BUDGET_NAMES, NULL};
static Params search_params = {"search", search_names, 8, 8, NULL};

static PyObject *py_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[11];
    long long floor_;
    if (named_args(&search_params, args, nargs, kwnames, a) < 0 || arg_list("gid1", a[5]) < 0 ||
        arg_list("gid2", a[6]) < 0 || arg_ll(a[7], -1, &floor_) < 0)
        return NULL;
    const Py_ssize_t n1_ = PyList_GET_SIZE(a[5]), n2_ = PyList_GET_SIZE(a[6]); /* one group id per vertex */
    if (n1_ > (1 << 26) || n2_ > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "graphs too large");
        return NULL;
    }
    const int n1 = (int)n1_, n2 = (int)n2_;
    PyObject *result = NULL;
    WeightedPair *pairs = NULL;
    size_t npairs = 0;
    Found found;
    memset(&found, 0, sizeof(found));
    int32_t *gid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *gid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    if (!gid1 || !gid2)
        PyErr_NoMemory();
    else if (read_ints(a[5], n1, -1, n1, gid1) == 0 && read_ints(a[6], n2, -1, n1, gid2) == 0 &&
             weighted_pairs(a[4], n1, n2, &pairs, &npairs) == 0 &&
             run_mcsplit(a[0], a[1], a[2], a[3], n1, n2, pairs, npairs, gid1, gid2, floor_, a + 8, &found) == 0)
        result = found_tuple(&found);
    found_free(&found);
    free(pairs);
    free(gid1);
    free(gid2);
    return result;
}

static const char *const clique_names[] = {"adj_out1", "adj_in1", "adj_out2", "adj_in2", "verts", "weights", "types",
                                           "floor", "budget", "check_signals", NULL};
static Params clique_params = {"clique_search", clique_names, 8, 8, NULL};

static PyObject *py_clique_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[10];
    long long floor_;
    if (named_args(&clique_params, args, nargs, kwnames, a) < 0)
        return NULL;
    for (int i = 0; i < 7; i++)
        if (arg_list(clique_names[i], a[i]) < 0)
            return NULL;
    const int check_signals = arg_bool(a[9], 0);
    if (check_signals < 0 || arg_ll(a[7], -1, &floor_) < 0)
        return NULL;
    if (floor_ >= LIMIT62) {
        PyErr_SetString(PyExc_OverflowError, "floor too large");
        return NULL;
    }
    PyObject *verts = a[4], *wts = a[5], *types = a[6];
    const Py_ssize_t n1_ = PyList_GET_SIZE(a[0]), n2_ = PyList_GET_SIZE(a[2]), nv_ = PyList_GET_SIZE(verts);
    if (n1_ > (1 << 26) || n2_ > (1 << 26) || nv_ > (1 << 20)) {
        PyErr_SetString(PyExc_ValueError, "graphs too large");
        return NULL;
    }
    if (PyList_GET_SIZE(wts) != nv_ || PyList_GET_SIZE(types) != nv_) {
        PyErr_SetString(PyExc_ValueError, "verts, weights and types: one per association vertex");
        return NULL;
    }
    const int n1 = (int)n1_, n2 = (int)n2_, nv = (int)nv_;
    PyStop ps;
    if (pystop_init(&ps, opt(a[8]), check_signals, 0) < 0)
        return NULL;
    PyObject *result = NULL;
    RelGraph g1, g2;
    memset(&g1, 0, sizeof(g1));
    memset(&g2, 0, sizeof(g2));
    Found found;
    memset(&found, 0, sizeof(found));
    int32_t *vu = malloc(((size_t)nv + 1) * 3 * sizeof(int32_t)), *vv = vu ? vu + nv + 1 : NULL, *vt = vv ? vv + nv + 1 : NULL;
    int64_t *wt = malloc(((size_t)nv + 1) * sizeof(int64_t));
    if (!vu || !wt) {
        PyErr_NoMemory();
        goto done;
    }
    if (relgraph_from_py(&g1, a[0], a[1], n1, NULL) < 0 || relgraph_from_py(&g2, a[2], a[3], n2, NULL) < 0)
        goto done;
    for (int i = 0; i < nv; i++) {
        PyObject *key = PyList_GET_ITEM(verts, i);
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
            PyErr_SetString(PyExc_TypeError, "verts: (u, v) tuples expected");
            goto done;
        }
        long u = PyLong_AsLong(PyTuple_GET_ITEM(key, 0)), v = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
        long long w = PyLong_AsLongLong(PyList_GET_ITEM(wts, i));
        long t = PyLong_AsLong(PyList_GET_ITEM(types, i));
        if (PyErr_Occurred())
            goto done;
        if (u < 0 || u >= n1 || v < 0 || v >= n2 || w < 0 || w >= LIMIT62 || t < 0 || t >= nv) {
            PyErr_SetString(PyExc_ValueError, "association vertex, weight or type out of range");
            goto done;
        }
        vu[i] = (int32_t)u;
        vv[i] = (int32_t)v;
        vt[i] = (int32_t)t;
        wt[i] = (int64_t)w;
    }
    const char *err = NULL;
    int rc = clique_search_run(&g1, &g2, nv, vu, vv, vt, wt, floor_, &ps.stop, &found, &err);
    result = rc ? raise_code(rc, err) : found_tuple(&found);
done:
    found_free(&found);
    relgraph_free(&g1);
    relgraph_free(&g2);
    free(vu);
    free(wt);
    pystop_release(&ps);
    return result;
}

/* ---- weights() and solve() ------------------------------------------------------------------- */

#define PAIR_NAMES "types1", "vals1", "loops1", "by_type2", "vals2", "loops2"

/* the pair input from a[0..5], self_equal1 and companion */
static int pair_input(PairInput *in, PyObject *const *a, PyObject *self_equal1, int companion, PyObject *threshold,
                      PyObject *table)
{
    memset(in, 0, sizeof(PairInput));
    if (arg_list("types1", a[0]) < 0 || arg_list("vals1", a[1]) < 0 || arg_list("vals2", a[4]) < 0)
        return -1;
    if (!PyDict_Check(a[3])) {
        PyErr_SetString(PyExc_TypeError, "by_type2: a dict expected");
        return -1;
    }
    *in = (PairInput){a[0], a[1], a[2], a[3], a[4], a[5], self_equal1, companion};
    return pair_input_check(in, threshold, table);
}

/* a new reference to (a, b) of two ints, or NULL */
static PyObject *pair_of(long long a, long long b)
{
    return Py_BuildValue("(LL)", a, b);
}

/* What weights() and solve() know of the rows before any dict or search */
typedef struct {
    long long scale, total, quick;
    int overflow; /* the scale would reach 2^62: no scaled weights */
    int big;      /* no total nor quick bound (overflow, or the total would reach 2^62) */
    int pruned;   /* the quick bound proves nothing beats threshold */
} RowSums;

/* -1 with an exception */
static int row_sums(const WeightRow *rows, size_t n, const PairInput *in, int n_types, PyObject *threshold, RowSums *r)
{
    *r = (RowSums){1, 0, 0, 0, 0, 0};
    r->big = r->overflow = rows_scale(rows, n, &r->scale);
    if (!r->big && (r->big = rows_bounds(rows, n, (int)in->n1, (int)in->n2, n_types, r->scale, &r->total, &r->quick)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (!r->big && threshold != Py_None && (r->pruned = threshold_prunes(threshold, r->scale, r->quick)) < 0)
        return -1;
    return 0;
}

static const char *const weights_names[] = {PAIR_NAMES, "companion", "self_equal1", "threshold", "table", NULL};
static Params weights_params = {"weights", weights_names, 8, 10, NULL};

/* weights(): see py_weights.c */
static PyObject *py_weights(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[10];
    PairInput in;
    int companion, n_types, cut;
    if (named_args(&weights_params, args, nargs, kwnames, a) < 0 || (companion = arg_bool(a[6], 0)) < 0 ||
        pair_input(&in, a, a[7], companion, opt(a[8]), opt(a[9])) < 0)
        return NULL;
    PyObject *threshold = opt(a[8]), *raw = NULL, *w = NULL, *out = NULL;
    WeightRow *rows = NULL;
    size_t n = 0;
    RowSums sums;
    if (pair_rows(&in, HUGE_VAL, &rows, &n, &n_types, &cut) < 0 || row_sums(rows, n, &in, n_types, threshold, &sums) < 0)
        goto done;
    const long long scale = sums.scale;
    if (sums.pruned) {
        out = Py_BuildValue("(OOLLL)", Py_None, Py_None, scale, sums.quick, sums.total);
        goto done;
    }
    if (!(raw = PyDict_New()) || (!sums.overflow && !(w = PyDict_New())))
        goto done;
    for (size_t i = 0; i < n; i++) {
        const WeightRow *r = rows + i;
        PyObject *key = pair_of(r->u, r->v);
        PyObject *val = r->den ? pair_of(r->num, r->den) : pair_of(1, 1);
        int bad = !key || !val || PyDict_SetItem(raw, key, val) < 0;
        if (!bad && w) {
            PyObject *x = PyLong_FromLongLong(row_weight(r, scale)); /* num * (scale / den) <= scale < 2^62 */
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
    else if (sums.big)
        out = Py_BuildValue("(OOLOO)", raw, w, scale, Py_None, Py_None);
    else
        out = Py_BuildValue("(OOLLL)", raw, w, scale, sums.quick, sums.total);
done:
    free(rows);
    Py_XDECREF(raw);
    Py_XDECREF(w);
    return out;
}

/* the row of pair (u, v): rows sorted by (u, v) are bisected, else scanned */
static const WeightRow *row_of(const WeightRow *rows, size_t n, int sorted, int u, int v)
{
    if (!sorted) {
        for (size_t i = 0; i < n; i++)
            if (rows[i].u == u && rows[i].v == v)
                return rows + i;
        return NULL;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].u < u || (rows[mid].u == u && rows[mid].v < v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rows[lo].u == u && rows[lo].v == v ? rows + lo : NULL;
}

/* solve()'s search once the rows are known: (scale, floor, best, pairs or None, upper, exact, nodes) */
static PyObject *solve_search(PyObject *const *a, const PairInput *in, const WeightRow *rows, size_t n,
                              long long scale)
{
    PyObject *types2 = a[7], *threshold = opt(a[12]);
    const Py_ssize_t n1 = in->n1, n2 = PyList_GET_SIZE(types2);
    if ((PyList_Check(a[8]) && PyList_GET_SIZE(a[8]) != n1) || (PyList_Check(a[10]) && PyList_GET_SIZE(a[10]) != n2) ||
        PyList_GET_SIZE(in->loops2) != n2) {
        PyErr_SetString(PyExc_ValueError, "solve: one entry per vertex expected");
        return NULL;
    }
    long long floor_ = -1; /* S·D must exceed isqrt(floor(tn·D² / td)) (not pruned: below quick < 2^62) */
    if (threshold != Py_None && threshold_floor(threshold, scale, &floor_) < 0)
        return NULL;
    PyObject *result = NULL;
    Found found;
    memset(&found, 0, sizeof(found));
    WeightedPair *uvw = malloc((n + 1) * sizeof(WeightedPair));
    int32_t *gid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *gid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    int32_t *rep = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    if (!uvw || !gid1 || !gid2 || !rep) {
        PyErr_NoMemory();
        goto done;
    }
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        const WeightRow *r = rows + i;
        uvw[i] = (WeightedPair){r->u, r->v, row_weight(r, scale)};
        if (i && (r[-1].u > r->u || (r[-1].u == r->u && r[-1].v >= r->v)))
            sorted = 0;
    }
    if (group_ids(in->types1, in->loops1, types2, in->loops2, gid1, gid2, rep) < 0 ||
        run_mcsplit(a[8], a[9], a[10], a[11], (int)n1, (int)n2, uvw, n, gid1, gid2, floor_, a + 14, &found) < 0)
        goto done;
    PyObject *pairs = Py_None;
    if (found.found) { /* (u, v, num, den) as weights()' raw */
        if (!(pairs = PyList_New(found.len)))
            goto done;
        for (int i = 0; i < found.len; i++) {
            const WeightRow *r = row_of(rows, n, sorted, found.u[i], found.v[i]);
            PyObject *t = r ? Py_BuildValue("(iiLL)", r->u, r->v, (long long)(r->den ? r->num : 1),
                                            (long long)(r->den ? r->den : 1)) : NULL;
            if (!t) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_RuntimeError, "solve: a pair without a weight");
                Py_DECREF(pairs);
                goto done;
            }
            PyList_SET_ITEM(pairs, i, t);
        }
    } else
        Py_INCREF(pairs);
    result = Py_BuildValue("(LLLNLOL)", scale, floor_, (long long)found.best, pairs, (long long)found.upper,
                           found.exact ? Py_True : Py_False, (long long)found.nodes);
done:
    found_free(&found);
    free(uvw);
    free(gid1);
    free(gid2);
    free(rep);
    return result;
}

static const char *const solve_names[] = {PAIR_NAMES, "self_equal1", "types2", "adj_out1", "adj_in1", "adj_out2",
                                          "adj_in2", "threshold", "table", BUDGET_NAMES, NULL};
static Params solve_params = {"solve", solve_names, 12, 0, NULL};

/* solve(): the paper profile's max_common_subgraph without a warm start in one call */
static PyObject *py_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[17];
    PairInput in;
    if (named_args(&solve_params, args, nargs, kwnames, a) < 0 || arg_list("types2", a[7]) < 0 ||
        pair_input(&in, a, a[6], 0, opt(a[12]), opt(a[13])) < 0)
        return NULL;
    PyObject *threshold = opt(a[12]), *out = NULL;
    /* one stop time, the budget's, for the weights (signal handlers run every 1024 pairs: Ctrl-C
     * ends a long loop at once) and the search after them */
    int use_stop;
    double stop_at;
    if (budget_stop_at(opt(a[14]), &use_stop, &stop_at) < 0)
        return NULL;
    if (!use_stop)
        stop_at = HUGE_VAL;
    WeightRow *rows = NULL;
    size_t n = 0;
    int n_types, cut;
    if (pair_rows(&in, stop_at, &rows, &n, &n_types, &cut) < 0)
        goto done;
    if (cut) { /* cut before the search: nothing found */
        out = Py_BuildValue("(iiiOnOi)", 1, threshold == Py_None ? -1 : 0, 0, Py_None, in.n1 < in.n2 ? in.n1 : in.n2,
                            Py_False, 0);
        goto done;
    }
    RowSums sums;
    if (row_sums(rows, n, &in, n_types, threshold, &sums) < 0)
        goto done;
    if (sums.pruned)
        out = Py_BuildValue("(LL)", sums.scale, sums.quick);
    else if (sums.big || !in.check_loops) /* the caller takes the other way */
        out = Py_NewRef(Py_None);
    else
        out = solve_search(a, &in, rows, n, sums.scale);
done:
    free(rows);
    return out;
}

/* ---- the other functions ---------------------------------------------------------------------- */

static const char *const weights_to_names[] = {"values", "self_equal", "others", "companion", NULL};
static Params weights_to_params = {"weights_to", weights_to_names, 4, 4, NULL};

static PyObject *py_weights_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[4];
    int se, companion;
    if (named_args(&weights_to_params, args, nargs, kwnames, a) < 0 || (se = arg_bool(a[1], 0)) < 0 ||
        (companion = arg_bool(a[3], 0)) < 0 || arg_list("others", a[2]) < 0)
        return NULL;
    if (!PyDict_Check(a[0])) {
        PyErr_SetString(PyExc_TypeError, "weights_to: values must be a dict");
        return NULL;
    }
    return weights_to_list(a[0], se, a[2], companion);
}

static const char *const counts_to_names[] = {"values", "others", NULL};
static Params counts_to_params = {"counts_to", counts_to_names, 2, 2, NULL};

static PyObject *py_counts_to(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[2];
    if (named_args(&counts_to_params, args, nargs, kwnames, a) < 0 || arg_list("others", a[1]) < 0)
        return NULL;
    if (!PyDict_Check(a[0])) {
        PyErr_SetString(PyExc_TypeError, "counts_to: values must be a dict");
        return NULL;
    }
    return counts_to_bytes(a[0], a[1]);
}

static const char *const signatures_names[] = {"datas", "ignored", "companion", "json_true", "json_false", "cls", NULL};
static Params signatures_params = {"signatures", signatures_names, 6, 6, NULL};

static PyObject *py_signatures(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[6];
    int companion;
    if (named_args(&signatures_params, args, nargs, kwnames, a) < 0 || arg_list("datas", a[0]) < 0 ||
        (companion = arg_bool(a[2], 0)) < 0)
        return NULL;
    if (!PyFrozenSet_Check(a[1]) || !PyType_Check(a[5])) {
        PyErr_SetString(PyExc_TypeError, "signatures: ignored a frozenset and cls a type expected");
        return NULL;
    }
    return signatures_of(a[0], a[1], companion, a[3], a[4], a[5]);
}

static const char *const flow_graph_names[] = {"nodes", "no_loops", "loop0", NULL};
static Params flow_graph_params = {"flow_graph", flow_graph_names, 3, 3, NULL};

static PyObject *py_flow_graph(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[3];
    if (named_args(&flow_graph_params, args, nargs, kwnames, a) < 0 || arg_list("nodes", a[0]) < 0)
        return NULL;
    return flow_graph_of(a[0], a[1], a[2]);
}

static const char *const companion_delta_names[] = {"value1", "value2", "ignored", "check_signals", NULL};
static Params companion_delta_params = {"companion_delta", companion_delta_names, 4, 4, NULL};

static PyObject *py_companion_delta(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[4];
    if (named_args(&companion_delta_params, args, nargs, kwnames, a) < 0)
        return NULL;
    if (!PyFrozenSet_Check(a[2])) {
        PyErr_Format(PyExc_TypeError, "companion_delta() argument 'ignored' must be frozenset, not %.50s",
                     Py_TYPE(a[2])->tp_name);
        return NULL;
    }
    /* None: signal handlers run in the main thread only, so check for them there (from 3.13 on,
     * where that test is internal, everywhere: elsewhere the check finds nothing to run) */
#if PY_VERSION_HEX < 0x030D0000
    const int check_signals = !a[3] || a[3] == Py_None ? _PyOS_IsMainThread() : PyObject_IsTrue(a[3]);
#else
    const int check_signals = !a[3] || a[3] == Py_None ? 1 : PyObject_IsTrue(a[3]);
#endif
    if (check_signals < 0)
        return NULL;
    return companion_delta_of(a[0], a[1], a[2], check_signals);
}

static const char *const n_names[] = {"n", NULL};
static Params sparse_params = {"set_sparse_from", n_names, 1, 1, NULL};
static Params symmetry_params = {"set_symmetry_pairs_upto", n_names, 1, 1, NULL};
static Params mask_params = {"companion_hash_mask", n_names, 1, 1, NULL};

/* the one int argument n of a test setter; -1 with an exception */
static int int_arg(Params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, long long lo, long long *n)
{
    PyObject *a[1];
    if (named_args(p, args, nargs, kwnames, a) < 0 || arg_ll(a[0], 0, n) < 0)
        return -1;
    if (*n < lo || *n > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: n >= %lld expected", p->fn, lo);
        return -1;
    }
    return 0;
}

static PyObject *py_set_sparse_from(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    long long n;
    return int_arg(&sparse_params, args, nargs, kwnames, 0, &n) < 0 ? NULL
                                                                      : PyLong_FromLong(mcsplit_set_sparse_from((int)n));
}

static PyObject *py_set_symmetry_pairs_upto(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                            PyObject *kwnames)
{
    long long n;
    return int_arg(&symmetry_params, args, nargs, kwnames, INT32_MIN, &n) < 0
               ? NULL
               : PyLong_FromLong(mcsplit_set_symmetry_pairs_upto((int)n));
}

static PyObject *py_companion_hash_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[1];
    long long mask;
    if (named_args(&mask_params, args, nargs, kwnames, a) < 0 || arg_ll(a[0], 0, &mask) < 0)
        return NULL;
    return PyLong_FromLongLong(companion_hash_mask_set(mask));
}

static PyObject *py_masks_read(PyObject *self, PyObject *noargs)
{
    return PyLong_FromLongLong(masks_read);
}

static PyObject *py_pure_python_requested(PyObject *self, PyObject *noargs)
{
    return PyBool_FromLong(pure_python_env());
}

#define NAMED(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
#define BUDGET_DOC                                                                                           \
    "Budget (keyword only): budget: None or a core.support.budget.Budget, read as it is: its stop_at\n"   \
    "(None, or an absolute time.perf_counter() time), its flag (a byte, non-zero: cancelled, read\n"      \
    "without the GIL) and its poll (None or an object with is_set()); check_signals: run signal\n"        \
    "handlers meanwhile; node_limit > 0: stop as at a deadline on visiting node node_limit + 1."

static PyMethodDef methods[] = {
    {"search", NAMED(py_search),
     "search(adj_out1, adj_in1, adj_out2, adj_in2, weights, gid1, gid2, floor, *, budget=None,\n"
     "       check_signals=False, node_limit=0) -> (best, pairs or None, upper, exact, nodes)\n\n"
     "Weighted McSplit on two graphs given as Graph.adj_out / adj_in (lists of {port: mask}; or an\n"
     "edge array and None), the integer weights {(u, v): w}, group ids per vertex (same id: same type\n"
     "and self-loop ports; -1: none) and the floor to beat strictly. " BUDGET_DOC},
    {"clique_search", NAMED(py_clique_search),
     "clique_search(adj_out1, adj_in1, adj_out2, adj_in2, verts, weights, types, floor, *, budget=None,\n"
     "              check_signals=False) -> (best, pairs or None, upper, exact, nodes)\n\n"
     "The companion profile's maximum-weight clique search (matching._CliqueSearch) on the\n"
     "association vertices verts [(u, v)] in branching order, their integer weights and node-type\n"
     "ids; the rest as for search()."},
    {"weights", NAMED(py_weights),
     "weights(types1, vals1, loops1, by_type2, vals2, loops2, companion, self_equal1, threshold=None,\n"
     "        table=None) -> (raw, w, scale, quick, total)\n\n"
     "The node weights of every same-type pair with w > 0, as matching._weights computes them for\n"
     "the paper (companion false) and companion (true) profiles, with the quick bound and the total\n"
     "of w; None for those that would reach 2^62."},
    {"solve", NAMED(py_solve),
     "solve(*, types1, vals1, loops1, by_type2, vals2, loops2, self_equal1, types2, adj_out1, adj_in1,\n"
     "      adj_out2, adj_in2, threshold=None, table=None, budget=None, check_signals=False,\n"
     "      node_limit=0)\n"
     "-> None, (scale, quick) or (scale, floor, best, pairs or None, upper, exact, nodes)\n\n"
     "The paper profile's max_common_subgraph without a warm start in one call: weights() without\n"
     "building the dicts, the group ids (type, self-loop ports) and search(), whose floor is\n"
     "isqrt(floor(tn * scale^2 / td)) for threshold (tn, td) (else -1). (scale, quick): the quick\n"
     "bound proves nothing beats the threshold. None: a weight total reaching 2^62 (or loops1\n"
     "None): use weights() and search(). pairs: (u, v, num, den) as weights()' raw. The budget's one\n"
     "stop time bounds the weights and the search together."},
    {"companion_delta", NAMED(py_companion_delta),
     "companion_delta(value1, value2, ignored, check_signals) -> float or None\n\n"
     "check_signals: None checks for signals when called in the main thread.\n"
     "The companion profile's Δ of two parsed flows (JSON values), as score(flow_from_value(...))\n"
     "gives it, in one call; None: not a plain flow shape, weights too large, or GINDEX_PURE_PYTHON set\n"
     "(take the general way)."},
    {"companion_hash_mask", NAMED(py_companion_hash_mask),
     "companion_hash_mask(n) -> the previous mask\n\n"
     "Tests only: every hash companion_delta's tables use is and-ed with n (0: all collide)."},
    {"counts_to", NAMED(py_counts_to),
     "counts_to(values, others) -> bytes\n\n"
     "The paper profile's w of one node against nodes of its type as int64 (num, den) pairs."},
    {"weights_to", NAMED(py_weights_to),
     "weights_to(values, self_equal, others, companion) -> [float]\n\n"
     "w of one node against nodes of its type, as floats (curriculum._weights_to)."},
    {"signatures", NAMED(py_signatures),
     "signatures(datas, ignored, companion, json_true, json_false, cls) -> [Signature]\n\n"
     "similarity.signature of every node dict, paper (companion false) or companion (true)."},
    {"set_sparse_from", NAMED(py_set_sparse_from),
     "set_sparse_from(n) -> previous n: search/solve keep adjacency and partner sets as lists, not masks,\n"
     "from n kept vertices on (the larger side; default 1024). For tests: the results are the same."},
    {"set_symmetry_pairs_upto", NAMED(py_set_symmetry_pairs_upto),
     "set_symmetry_pairs_upto(n) -> previous n: the symmetry tables of graphs up to n kept vertices are found\n"
     "by trying every pair, of larger ones by sorting hashes (default 128). For tests: the same tables."},
    {"masks_read", py_masks_read, METH_NOARGS,
     "masks_read() -> int: adjacency masks (bitset ints) read by search, solve and clique_search since the\n"
     "module loaded. For tests: a search reads the masks of the vertices with a partner only."},
    {"pure_python_requested", py_pure_python_requested, METH_NOARGS,
     "pure_python_requested() -> bool: GINDEX_PURE_PYTHON is set and not \"0\" (read with getenv)."},
    {"flow_graph", NAMED(py_flow_graph),
     "flow_graph(nodes, no_loops, loop0) -> (ids, datas, adj_out, adj_in, selfloop, cyclic, n_edges) or None\n\n"
     "A flow's vertices and their wires, ports merged (divergence.prepare without port_aware or ignored types)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_mcsplit", "Native weighted McSplit and clique searches (see gindex_studio.core.native).",
    -1, methods,
};

PyObject *_str_type, *_str_values, *_str_none_keys, *_str_self_equal;
PyObject *_str_data, *_str_flow, *_str_flows, *_str_id, *_str_wires, *_zero;

PyMODINIT_FUNC PyInit__mcsplit(void)
{
    struct {
        PyObject **to;
        const char *s;
    } names[] = {{&_str_type, "type"}, {&_str_values, "values"}, {&_str_none_keys, "none_keys"},
                 {&_str_self_equal, "self_equal"}, {&_str_data, "data"}, {&_str_flow, "flow"},
                 {&_str_flows, "flows"}, {&_str_id, "id"}, {&_str_wires, "wires"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!(*names[i].to = PyUnicode_InternFromString(names[i].s)))
            return NULL;
    if (!(_zero = PyLong_FromLong(0)))
        return NULL;
    PyObject *math = PyImport_ImportModule("math");
    _isqrt = math ? PyObject_GetAttrString(math, "isqrt") : NULL;
    Py_XDECREF(math);
    if (!_isqrt)
        return NULL;
    if (!(_int_to_bytes = PyObject_GetAttrString((PyObject *)&PyLong_Type, "to_bytes")))
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m && PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
