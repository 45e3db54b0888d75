/*
 * Node weights of every same-type pair (weights(), weights_to(), counts_to()) and solve(): weights,
 * group ids and McSplit in one call.
 */
#include "_mcsplit.h"

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
    /* solve: its deadline (remaining seconds, solve[5]) covers this loop too; signal handlers run
     * every 1024 pairs (Ctrl-C ends a long one at once) */
    double stop_at = -1.0;
    if (solve && PyTuple_Check(solve) && PyTuple_GET_SIZE(solve) > 5 && PyTuple_GET_ITEM(solve, 5) != Py_None) {
        double r = PyFloat_AsDouble(PyTuple_GET_ITEM(solve, 5));
        if (r == -1.0 && PyErr_Occurred())
            goto done;
        stop_at = now_seconds() + r;
    }
    long long polled = 0;
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
            if ((++polled & 1023) == 0) {
                if (PyErr_CheckSignals() < 0)
                    goto done;
                if (stop_at >= 0 && now_seconds() > stop_at) { /* cut before the search: nothing found */
                    out = Py_BuildValue("(iiiOnOi)", 1, threshold == Py_None ? -1 : 0, 0, Py_None,
                                        n1 < n2 ? n1 : n2, Py_False, 0);
                    goto done;
                }
            }
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

PyObject *py_weights(PyObject *self, PyObject *args)
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

PyObject *_isqrt; /* math.isqrt */

static PyObject *solve_rest(PyObject *solve, const long long *rows, Py_ssize_t n, long long scale, PyObject *threshold,
                            PyObject *types1, PyObject *loops1, PyObject *loops2)
{
    PyObject *types2, *out1, *in1, *out2, *in2, *remaining, *cancel;
    int check_signals;
    long long node_limit = 0;
    if (!PyArg_ParseTuple(solve, "O!OOOOOpO|L", &PyList_Type, &types2, &out1, &in1, &out2, &in2, &remaining,
                          &check_signals, &cancel, &node_limit))
        return NULL;
    const Py_ssize_t n1 = PyList_GET_SIZE(types1), n2 = PyList_GET_SIZE(types2);
    if ((PyList_Check(out1) && PyList_GET_SIZE(out1) != n1) || (PyList_Check(out2) && PyList_GET_SIZE(out2) != n2) ||
        PyList_GET_SIZE(loops2) != n2) {
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
    found = search_core(out1, in1, out2, in2, uvw, n, gid1, gid2, floor_, remaining, check_signals, cancel, node_limit,
                        n1, n2);
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

PyObject *py_solve(PyObject *self, PyObject *args)
{
    PyObject *wargs, *rest;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &wargs, &PyTuple_Type, &rest))
        return NULL;
    return weights_impl(wargs, rest);
}

/* weights_to(a, self_equal, others, companion) -> [float]: w(a, b) = num / den as a float (1.0 with
 * no key to compare) for the Signature.values dicts ``others`` of a's type (curriculum._weights_to) */
PyObject *py_weights_to(PyObject *self, PyObject *args)
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
PyObject *py_counts_to(PyObject *self, PyObject *args)
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

PyObject *_str_type, *_str_values, *_str_none_keys, *_str_self_equal;
