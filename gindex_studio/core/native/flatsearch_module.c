/*
 * gindex_studio.core.native._flatsearch: the binding of Flatland's tree search (flatsearch.c).
 *
 * search(n1, n2, w, rel1, order1, parent1, rel2, order2, parent2, floor, *, budget=None)
 *   buffers: w = n1 x n2 int64 weights (0: no pair); rel = n x n int64 relations (0: not
 *   adjacent); order = the graph's BFS order, parent = per vertex (-1: a root), int32 each;
 *   floor: the search must beat it strictly; budget: None or a core.support.budget.Budget, read
 *   as it is (its absolute stop_at, its cancel byte flag, its polled poll: see bind.h).
 * returns (best, pairs as (g1, g2) or None, upper, exact, nodes, root bound), as search.run_search.
 * The GIL is released while searching.
 *
 * info(n, adj_out): the per-graph buffers above, built from a Graph's out-adjacency (see py_info).
 */
#include "bind.h"

#define API_VERSION 8

static int get_buf(PyObject *o, Py_buffer *b, Py_ssize_t need, const char *what)
{
    if (PyObject_GetBuffer(o, b, PyBUF_SIMPLE) < 0)
        return -1;
    if (b->len != need) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", what, b->len, need);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

static const char *const search_names[] = {"n1", "n2", "w", "rel1", "order1", "parent1", "rel2", "order2", "parent2",
                                           "floor", "budget", NULL};
static Params search_params = {"search", search_names, 10, 10, NULL};

static PyObject *py_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *a[11];
    long long n1, n2, floor_;
    if (named_args(&search_params, args, nargs, kwnames, a) < 0 || arg_ll(a[0], 0, &n1) < 0 ||
        arg_ll(a[1], 0, &n2) < 0 || arg_ll(a[9], -1, &floor_) < 0)
        return NULL;
    if (n1 < 0 || n2 < 0 || n1 > (1 << 20) || n2 > (1 << 20)) {
        PyErr_SetString(PyExc_ValueError, "size out of range");
        return NULL;
    }
    /* w, rel1, order1, parent1, rel2, order2, parent2 */
    const Py_ssize_t need[7] = {8 * n1 * n2, 8 * n1 * n1, 4 * n1, 4 * n1, 8 * n2 * n2, 4 * n2, 4 * n2};
    Py_buffer b[7];
    int got = 0;
    PyObject *result = NULL;
    PyStop ps;
    int have_stop = 0;
    for (; got < 7; got++)
        if (get_buf(a[2 + got], &b[got], need[got], search_names[2 + got]) < 0)
            goto done;
    if (pystop_init(&ps, opt(a[10]), 0, 0) < 0)
        goto done;
    have_stop = 1;
    Found found;
    int64_t root;
    const char *err = NULL;
    int rc = flat_run((int)n1, (int)n2, b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, floor_,
                      &ps.stop, &found, &root, &err);
    if (rc) {
        raise_code(rc, err);
        goto done;
    }
    PyObject *t = found_tuple(&found);
    found_free(&found);
    if (t) {
        result = Py_BuildValue("(OOOOOL)", PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1), PyTuple_GET_ITEM(t, 2),
                               PyTuple_GET_ITEM(t, 3), PyTuple_GET_ITEM(t, 4), (long long)root);
        Py_DECREF(t);
    }
done:
    if (have_stop)
        pystop_release(&ps);
    while (got > 0)
        PyBuffer_Release(&b[--got]);
    return result;
}

static const char *const info_names[] = {"n", "adj_out", NULL};
static Params info_params = {"info", info_names, 2, 2, NULL};

static PyObject *py_info(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[2];
    long long n_;
    if (named_args(&info_params, args, nargs, kwnames, a) < 0 || arg_ll(a[0], 0, &n_) < 0) return NULL;
    const long n = n_ < 0 || n_ > 64 ? -1 : (long)n_;
    PyObject *adj = a[1];
    if (n < 0 || n > 64 || !PyList_Check(adj) || PyList_GET_SIZE(adj) != n) Py_RETURN_NONE;
    PyObject *relb = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)8 * n * n);
    PyObject *ordb = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)4 * n);
    PyObject *parb = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)4 * n);
    if (!relb || !ordb || !parb) goto fail;
    int64_t *rel = (int64_t *)PyBytes_AS_STRING(relb);
    int32_t *order = (int32_t *)PyBytes_AS_STRING(ordb), *parent = (int32_t *)PyBytes_AS_STRING(parb);
    memset(rel, 0, sizeof(int64_t) * n * n);
    uint64_t nb[64];
    memset(nb, 0, sizeof nb);
    uint64_t full = n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    for (long x = 0; x < n; x++) {
        PyObject *d = PyList_GET_ITEM(adj, x);
        if (!PyDict_Check(d)) goto other;
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(d, &pos, &k, &v)) {
            if (!PyLong_Check(k) || !PyLong_Check(v)) goto other;
            long port = PyLong_AsLong(k);
            if (port < 0 || port > 23) {
                PyErr_Clear();
                goto other;
            }
            uint64_t m = PyLong_AsUnsignedLongLong(v);
            if (m == (uint64_t)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                goto other;
            }
            if (m & ~full) goto other;
            m &= ~((uint64_t)1 << x);
            int64_t bit = (int64_t)1 << port;
            while (m) {
                int y = __builtin_ctzll(m);
                m &= m - 1;
                rel[x * n + y] |= bit;
                rel[(long)y * n + x] |= bit << 16;
                nb[x] |= (uint64_t)1 << y;
                nb[y] |= (uint64_t)1 << x;
            }
        }
    }
    int64_t max_rel = 0;
    for (long k = 0; k < n * n; k++)
        if (rel[k] > max_rel) max_rel = rel[k];
    /* roots by degree, most first, stable: a counting pass per degree from n - 1 down */
    int32_t roots[64];
    int nr = 0;
    for (int deg = (int)n; deg >= 0; deg--)
        for (long u = 0; u < n; u++)
            if (__builtin_popcountll(nb[u]) == deg) roots[nr++] = (int32_t)u;
    uint64_t seen = 0;
    int len = 0;
    for (int k = 0; k < nr; k++) {
        int r = roots[k];
        if (seen >> r & 1) continue;
        seen |= (uint64_t)1 << r;
        parent[r] = -1;
        int head = len;
        order[len++] = r;
        while (head < len) {
            int u = order[head++];
            uint64_t m = nb[u] & ~seen;
            seen |= m;
            while (m) {
                int y = __builtin_ctzll(m);
                m &= m - 1;
                parent[y] = u;
                order[len++] = y;
            }
        }
    }
    return Py_BuildValue("(NNNL)", relb, ordb, parb, (long long)max_rel);
other:
    Py_DECREF(relb);
    Py_DECREF(ordb);
    Py_DECREF(parb);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(relb);
    Py_XDECREF(ordb);
    Py_XDECREF(parb);
    return NULL;
}

static PyMethodDef methods[] = {
    {"search", (PyCFunction)(void (*)(void))py_search, METH_FASTCALL | METH_KEYWORDS,
     "search(n1, n2, w, rel1, order1, parent1, rel2, order2, parent2, floor, *, budget=None)\n"
     "-> (best, pairs or None, upper, exact, nodes, root): the flatland profile's exact search (see flatland.search)."},
    {"info", (PyCFunction)(void (*)(void))py_info, METH_FASTCALL | METH_KEYWORDS,
     "info(n, adj_out) -> (rel, order, parent, max_rel) or None: a graph's relations and BFS forest (see flatland.search._Info)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_flatsearch", NULL, -1, methods};

PyMODINIT_FUNC PyInit__flatsearch(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
