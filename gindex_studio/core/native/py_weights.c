/*
 * Node weights from Python values (Signature.values dicts compared with Python ==): the pair rows
 * behind weights() and solve(), weights_to(), counts_to(), the group ids, and the threshold's
 * integer arithmetic. The binding (mcsplit_module.c) parses the arguments.
 */
#include "kernels.h"

/* ---- node weights w of every same-type pair (matching._weights, paper and companion) --------- *
 *
 * weights(types1, vals1, loops1, by_type2, vals2, loops2, companion, self_equal1, threshold, table)
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

int pair_input_check(PairInput *in, PyObject *threshold, PyObject *table)
{
    if (threshold != Py_None &&
        (!PyTuple_Check(threshold) || PyTuple_GET_SIZE(threshold) != 2 || !PyLong_Check(PyTuple_GET_ITEM(threshold, 0)) ||
         !PyLong_Check(PyTuple_GET_ITEM(threshold, 1)))) {
        PyErr_SetString(PyExc_TypeError, "weights: threshold (num, den) of ints expected");
        return -1;
    }
    in->n1 = PyList_GET_SIZE(in->types1);
    in->n2 = PyList_GET_SIZE(in->vals2);
    in->check_loops = in->loops1 != Py_None;
    /* table (paper profile): (rows, local, task_first) with the paper counts precomputed, as
     * curriculum.Curriculum keeps them: rows[t] = bytes of int64 (num, den) of task vertex t against
     * each distinct signature of its type (or None), local = int32 bytes, per vertex of the other
     * graph (a curriculum program) the index of its signature there; task_first: the task is g1 */
    in->tab_rows = NULL;
    in->tab_local = NULL;
    in->task_first = 1;
    if (table != Py_None) {
        PyObject *lb;
        if (in->companion || !PyTuple_Check(table) || PyTuple_GET_SIZE(table) != 3 ||
            !PyList_Check(in->tab_rows = PyTuple_GET_ITEM(table, 0)) || !PyBytes_Check(lb = PyTuple_GET_ITEM(table, 1)) ||
            (in->task_first = PyObject_IsTrue(PyTuple_GET_ITEM(table, 2))) < 0 ||
            PyList_GET_SIZE(in->tab_rows) != (in->task_first ? in->n1 : in->n2) ||
            PyBytes_GET_SIZE(lb) != 4 * (in->task_first ? in->n2 : in->n1)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "weights: table (rows, local, task_first) of the graphs' sizes expected");
            return -1;
        }
        in->tab_local = (const int32_t *)PyBytes_AS_STRING(lb);
    }
    if (PyList_GET_SIZE(in->vals1) != in->n1 ||
        (in->check_loops && (!PyList_Check(in->loops1) || PyList_GET_SIZE(in->loops1) != in->n1 ||
                             !PyList_Check(in->loops2) || PyList_GET_SIZE(in->loops2) != in->n2)) ||
        (in->companion && (!PyList_Check(in->self_equal1) || PyList_GET_SIZE(in->self_equal1) != in->n1))) {
        PyErr_SetString(PyExc_ValueError, "weights: one entry per vertex expected");
        return -1;
    }
    return 0;
}

int pair_rows(const PairInput *in, double stop_at, WeightRow **rows, size_t *n, int *n_types, int *cut)
{
    size_t cap = 64;
    int types_cap = 16, rc = -1;
    *n = 0;
    *n_types = 0;
    *cut = 0;
    *rows = malloc(cap * sizeof(WeightRow));
    PyObject **type_lists = malloc((size_t)types_cap * sizeof(PyObject *));
    if (!*rows || !type_lists) {
        PyErr_NoMemory();
        goto done;
    }
    long long polled = 0;
    for (Py_ssize_t u = 0; u < in->n1; u++) {
        PyObject *vs = PyDict_GetItemWithError(in->by_type2, PyList_GET_ITEM(in->types1, u));
        if (!vs) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        if (!PyList_Check(vs)) {
            PyErr_SetString(PyExc_TypeError, "weights: by_type2 values must be lists");
            goto done;
        }
        /* the type's index: in->by_type2 holds one list per type */
        int ti = 0;
        while (ti < *n_types && type_lists[ti] != vs)
            ti++;
        if (ti == *n_types) {
            if (*n_types == types_cap) {
                PyObject **more = realloc(type_lists, (size_t)types_cap * 2 * sizeof(PyObject *));
                if (!more) {
                    PyErr_NoMemory();
                    goto done;
                }
                type_lists = more;
                types_cap *= 2;
            }
            type_lists[(*n_types)++] = vs;
        }
        PyObject *a = PyList_GET_ITEM(in->vals1, u);
        if (!PyDict_Check(a)) {
            PyErr_SetString(PyExc_TypeError, "weights: values must be dicts");
            goto done;
        }
        int se = 1;
        if (in->companion && (se = PyObject_IsTrue(PyList_GET_ITEM(in->self_equal1, u))) < 0)
            goto done;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(vs); i++) {
            if ((++polled & 1023) == 0) {
                if (PyErr_CheckSignals() < 0)
                    goto done;
                if (now_seconds() > stop_at) { /* cut: no rows */
                    *cut = 1;
                    rc = 0;
                    goto done;
                }
            }
            long long v = PyLong_AsLongLong(PyList_GET_ITEM(vs, i));
            if (v == -1 && PyErr_Occurred())
                goto done;
            if (v < 0 || v >= in->n2) {
                PyErr_SetString(PyExc_ValueError, "weights: vertex out of range");
                goto done;
            }
            if (in->check_loops) {
                int r = PyObject_RichCompareBool(PyList_GET_ITEM(in->loops1, u), PyList_GET_ITEM(in->loops2, v), Py_EQ);
                if (r < 0)
                    goto done;
                if (!r)
                    continue;
            }
            PyObject *b = PyList_GET_ITEM(in->vals2, v);
            if (!PyDict_Check(b)) {
                PyErr_SetString(PyExc_TypeError, "weights: values must be dicts");
                goto done;
            }
            long long num, den;
            PyObject *row = in->tab_rows ? PyList_GET_ITEM(in->tab_rows, in->task_first ? u : v) : NULL;
            const int32_t g = row ? in->tab_local[in->task_first ? v : u] : -1;
            if (row && PyBytes_Check(row) && g >= 0 && (Py_ssize_t)16 * (g + 1) <= PyBytes_GET_SIZE(row)) {
                const long long *r = (const long long *)PyBytes_AS_STRING(row);
                num = r[2 * g];
                den = r[2 * g + 1];
            } else if (in->companion) {
                den = (long long)PyDict_GET_SIZE(a);
                if (den && companion_count(a, b, se, &num) < 0)
                    goto done;
            } else if (paper_count(a, b, &num, &den) < 0)
                goto done;
            if (den == 0)
                num = 0; /* w = 1: recorded as (1, 1) below, no denominator */
            else if (num == 0)
                continue;
            if (*n == cap) {
                WeightRow *bigger = realloc(*rows, cap * 2 * sizeof(WeightRow));
                if (!bigger) {
                    PyErr_NoMemory();
                    goto done;
                }
                *rows = bigger;
                cap *= 2;
            }
            (*rows)[(*n)++] = (WeightRow){(int32_t)u, (int32_t)v, ti, num, den};
        }
    }
    rc = 0;
done:
    free(type_lists);
    return rc;
}

/* group id of every vertex: (node type, self-loop ports) numbered by first occurrence in g1, as
 * Graph.groups; g2's vertices get g1's id of their key, or -1 */
int group_ids(PyObject *types1, PyObject *loops1, PyObject *types2, PyObject *loops2, int32_t *gid1, int32_t *gid2,
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

PyObject *_isqrt; /* math.isqrt */

/* *num: tn * scale^2 of threshold (tn, td), a new reference; -1: an error */
static int scaled_threshold(PyObject *threshold, long long scale, PyObject **num)
{
    PyObject *sc = PyLong_FromLongLong(scale);
    PyObject *s2 = sc ? PyNumber_Multiply(sc, sc) : NULL;
    *num = s2 ? PyNumber_Multiply(PyTuple_GET_ITEM(threshold, 0), s2) : NULL;
    Py_XDECREF(sc);
    Py_XDECREF(s2);
    return *num ? 0 : -1;
}

int threshold_prunes(PyObject *threshold, long long scale, long long quick)
{
    /* quick <= isqrt(floor(tn * scale^2 / td))  <=>  quick^2 * td <= tn * scale^2 */
    PyObject *rhs, *q = PyLong_FromLongLong(quick);
    if (scaled_threshold(threshold, scale, &rhs) < 0) {
        Py_XDECREF(q);
        return -1;
    }
    PyObject *q2 = q ? PyNumber_Multiply(q, q) : NULL;
    PyObject *lhs = q2 ? PyNumber_Multiply(q2, PyTuple_GET_ITEM(threshold, 1)) : NULL;
    int pruned = lhs ? PyObject_RichCompareBool(lhs, rhs, Py_LE) : -1;
    Py_XDECREF(q);
    Py_XDECREF(q2);
    Py_XDECREF(lhs);
    Py_DECREF(rhs);
    return pruned;
}

int threshold_floor(PyObject *threshold, long long scale, long long *floor_)
{
    PyObject *num;
    if (scaled_threshold(threshold, scale, &num) < 0)
        return -1;
    PyObject *q = PyNumber_FloorDivide(num, PyTuple_GET_ITEM(threshold, 1));
    PyObject *r = q ? PyObject_CallOneArg(_isqrt, q) : NULL;
    if (r)
        *floor_ = PyLong_AsLongLong(r);
    Py_DECREF(num);
    Py_XDECREF(q);
    Py_XDECREF(r);
    return !r || PyErr_Occurred() ? -1 : 0;
}

/* others[i] (borrowed) when it is a dict; else NULL with a TypeError naming the function ``who`` */
static PyObject *dict_item(PyObject *others, Py_ssize_t i, const char *who)
{
    PyObject *b = PyList_GET_ITEM(others, i);
    if (PyDict_Check(b))
        return b;
    PyErr_Format(PyExc_TypeError, "%s: values must be dicts", who);
    return NULL;
}

/* weights_to(a, self_equal, others, companion) -> [float]: w(a, b) = num / den as a float (1.0 with
 * no key to compare) for the Signature.values dicts ``others`` of a's type (curriculum._weights_to) */
PyObject *weights_to_list(PyObject *a, int se, PyObject *others, int companion)
{
    Py_ssize_t n = PyList_GET_SIZE(others);
    PyObject *out = PyList_New(n);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = dict_item(others, i, "weights_to");
        long long num = 0, den;
        if (!b)
            goto fail;
        if (companion) {
            den = (long long)PyDict_GET_SIZE(a);
            if (den && companion_count(a, b, se, &num) < 0)
                goto fail;
        } else if (paper_count(a, b, &num, &den) < 0) {
            goto fail;
        }
        PyObject *x = PyFloat_FromDouble(den ? (double)num / (double)den : 1.0);
        if (!x)
            goto fail;
        PyList_SET_ITEM(out, i, x);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* counts_to(a, others) -> bytes: the paper profile's w(a, b) = num / den (den 0: nothing to
 * compare, w = 1) for the Signature.values dicts ``others``, as int64 (num, den) pairs in order
 * (curriculum.Curriculum's table for solve and its lower bounds) */
PyObject *counts_to_bytes(PyObject *a, PyObject *others)
{
    Py_ssize_t n = PyList_GET_SIZE(others);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 16);
    if (!out)
        return NULL;
    long long *r = (long long *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = dict_item(others, i, "counts_to");
        if (!b || paper_count(a, b, r + 2 * i, r + 2 * i + 1) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

