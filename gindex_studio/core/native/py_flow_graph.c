/*
 * A flow's vertices and wires as a Graph (flow_graph(), divergence.prepare).
 */
#include "kernels.h"

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
                indeg[i * 64 + ctz64(m)]++;
    int head = 0, tail = 0;
    for (int k = 0; k < n; k++)
        if (!indeg[k])
            queue[tail++] = k;
    while (head < tail) {
        int k = queue[head++];
        for (int i = 0; i < W; i++)
            for (word m = out[(size_t)W * k + i]; m; m &= m - 1) {
                int j = i * 64 + ctz64(m);
                if (--indeg[j] == 0)
                    queue[tail++] = j;
            }
    }
    free(indeg);
    free(queue);
    return tail < n;
}

PyObject *flow_graph_of(PyObject *all, PyObject *no_loops, PyObject *loop0)
{
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
        PyObject *d = PyObject_GetAttr(PyList_GET_ITEM(all, k), _str_data);
        if (!d)
            goto done;
        PyObject *i = PyDict_Check(d) ? PyDict_GetItemWithError(d, _str_id) : NULL;
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
        PyObject *wires = PyDict_GetItemWithError(PyList_GET_ITEM(nodes, k), _str_wires);
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
            if (!x || PyDict_SetItem(dct, _zero, x) < 0) {
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
