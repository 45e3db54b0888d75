/*
 * Native search of gindex_studio.core.flatland.search: branch and bound with the tree-DP bound,
 * step for step as search._Side (the same order, bound, candidate order and pruning), so the same
 * S, node count and proven upper bound. Vertex sets are arrays of W 64-bit words.
 *
 * search(n1, n2, w, rel1, rel2, order, parent, floor, remaining, cancel)
 *   w: [(u, v, weight)] with weight > 0; rel1 / rel2: [(x, y, rel)] for adjacent x != y (rel > 0,
 *   < 2^62); order: the BFS order of the tree side; parent: per vertex, -1 for a root;
 *   floor: the search must beat it strictly; remaining: seconds (None: no deadline);
 *   cancel: None or a buffer whose first byte, once non-zero, stops the search.
 * returns (best, pairs or None, upper, exact, nodes), as search._Side.run.
 *
 * The GIL is released while searching; the cancel byte is read every 128 nodes with the deadline.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t word;

typedef struct {
    int32_t v;
    int64_t val;
} Cand;

typedef struct {
    int n1, n2, W;
    int64_t *wt;      /* n1 * n2 */
    int64_t *rel1;    /* n1 * n1, 0: not adjacent */
    int32_t *gs;      /* per v of the other side: groups gs[v] .. gs[v + 1] */
    int64_t *grel;    /* relation of each group */
    word *gmask;      /* W words per group */
    word *nbmask;     /* W words per v */
    int32_t *order, *parent, *pos;
    int32_t *cs, *ch; /* children, CSR */
    word *dom;        /* (n1 + 1) levels * n1 * W */
    int64_t *f, *fnone, *best;
    Cand *cand;       /* (n1 + 1) levels * n2 */
    int32_t *mu, *mv, *bu, *bv;
    int depth, nbest;
    int64_t *frames;
    int nframes;
    int64_t incumbent;
    long long nodes;
    int use_deadline;
    double stop_at;
    const volatile unsigned char *cancel;
    int aborted;
} S;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_cand(const void *a, const void *b) {
    const Cand *x = a, *y = b;
    if (x->val != y->val) return x->val > y->val ? -1 : 1;
    return x->v - y->v;
}

/* the DP over order[i:]; f, fnone, best filled for those vertices; returns Σ best over roots */
static int64_t dp(S *s, int i, const word *D) {
    int n2 = s->n2, W = s->W;
    for (int k = s->n1 - 1; k >= i; k--) {
        int u = s->order[k];
        const word *du = D + (size_t)u * W;
        int64_t *fu = s->f + (size_t)u * n2;
        const int64_t *wu = s->wt + (size_t)u * n2;
        for (int q = 0; q < W; q++) {
            word m = du[q];
            while (m) {
                int v = q * 64 + __builtin_ctzll(m);
                m &= m - 1;
                fu[v] = wu[v];
            }
        }
        int64_t fn = 0;
        for (int j = s->cs[u]; j < s->cs[u + 1]; j++) {
            int c = s->ch[j];
            fn += s->best[c];
            int64_t r = s->rel1[(size_t)u * s->n1 + c];
            const word *dc = D + (size_t)c * W;
            const int64_t *fc = s->f + (size_t)c * n2;
            int64_t nc = s->fnone[c];
            for (int q = 0; q < W; q++) {
                word m = du[q];
                while (m) {
                    int v = q * 64 + __builtin_ctzll(m);
                    m &= m - 1;
                    int64_t b = nc;
                    for (int g = s->gs[v]; g < s->gs[v + 1]; g++) {
                        if (s->grel[g] != r) continue;
                        const word *gm = s->gmask + (size_t)g * W;
                        for (int p = 0; p < W; p++) {
                            word x = gm[p] & dc[p];
                            while (x) {
                                int y = p * 64 + __builtin_ctzll(x);
                                x &= x - 1;
                                if (fc[y] > b) b = fc[y];
                            }
                        }
                    }
                    fu[v] += b;
                }
            }
        }
        s->fnone[u] = fn;
        int64_t bu = fn;
        for (int q = 0; q < W; q++) {
            word m = du[q];
            while (m) {
                int v = q * 64 + __builtin_ctzll(m);
                m &= m - 1;
                if (fu[v] > bu) bu = fu[v];
            }
        }
        s->best[u] = bu;
    }
    int64_t total = 0;
    for (int k = i; k < s->n1; k++) {
        int u = s->order[k];
        int p = s->parent[u];
        if (p < 0 || s->pos[p] < i) total += s->best[u];
    }
    return total;
}

static void search(S *s, int i, int64_t cur, const word *D) {
    s->nodes++;
    if ((s->nodes & 127) == 0) {
        if ((s->use_deadline && now() > s->stop_at) || (s->cancel && *s->cancel)) s->aborted = 1;
    }
    if (s->aborted) return;
    if (cur > s->incumbent) {
        s->incumbent = cur;
        s->nbest = s->depth;
        memcpy(s->bu, s->mu, sizeof(int32_t) * s->depth);
        memcpy(s->bv, s->mv, sizeof(int32_t) * s->depth);
    }
    if (i == s->n1) return;
    int n1 = s->n1, n2 = s->n2, W = s->W;
    int64_t total = dp(s, i, D);
    if (cur + total <= s->incumbent) return;
    s->frames[s->nframes++] = cur + total;
    int u = s->order[i];
    int64_t rest = total - s->best[u];
    int64_t nu = s->fnone[u];
    Cand *cand = s->cand + (size_t)i * n2;
    int nc = 0;
    const word *du = D + (size_t)u * W;
    const int64_t *fu = s->f + (size_t)u * n2;
    for (int q = 0; q < W; q++) {
        word m = du[q];
        while (m) {
            int v = q * 64 + __builtin_ctzll(m);
            m &= m - 1;
            cand[nc].v = v;
            cand[nc].val = fu[v];
            nc++;
        }
    }
    qsort(cand, nc, sizeof(Cand), cmp_cand);
    word *nd = s->dom + (size_t)(i + 1) * n1 * W;
    const int64_t *relu = s->rel1 + (size_t)u * n1;
    for (int k = 0; k < nc && !s->aborted; k++) {
        int v = cand[k].v;
        if (cur + cand[k].val + rest <= s->incumbent) break;
        const word *nbm = s->nbmask + (size_t)v * W;
        for (int j = i + 1; j < n1; j++) {
            int x = s->order[j];
            const word *dx = D + (size_t)x * W;
            word *ndx = nd + (size_t)x * W;
            int64_t r = relu[x];
            if (r == 0) {
                for (int q = 0; q < W; q++) ndx[q] = dx[q] & ~nbm[q];
            } else {
                memset(ndx, 0, sizeof(word) * W);
                for (int g = s->gs[v]; g < s->gs[v + 1]; g++) {
                    if (s->grel[g] != r) continue;
                    const word *gm = s->gmask + (size_t)g * W;
                    for (int q = 0; q < W; q++) ndx[q] = dx[q] & gm[q];
                    break;
                }
            }
            ndx[v >> 6] &= ~((word)1 << (v & 63));
        }
        s->mu[s->depth] = u;
        s->mv[s->depth] = v;
        s->depth++;
        search(s, i + 1, cur + s->wt[(size_t)u * n2 + v], nd);
        s->depth--;
    }
    if (!s->aborted && cur + nu + rest > s->incumbent) search(s, i + 1, cur, D);
    if (!s->aborted) s->nframes--;
}

static int read_triples(PyObject *list, int n, int m, int64_t *dense, int nd_cols) {
    /* (x, y, value) triples into dense[x * nd_cols + y]; n, m: bounds of x and y */
    Py_ssize_t len = PyList_GET_SIZE(list);
    for (Py_ssize_t k = 0; k < len; k++) {
        int x, y;
        long long val;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, k), "iiL", &x, &y, &val)) return -1;
        if (x < 0 || x >= n || y < 0 || y >= m) {
            PyErr_SetString(PyExc_ValueError, "vertex out of range");
            return -1;
        }
        dense[(size_t)x * nd_cols + y] = val;
    }
    return 0;
}

static int read_ints(PyObject *list, int n, int32_t *out) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_SetString(PyExc_ValueError, "order and parent must be lists of n1 ints");
        return -1;
    }
    for (int k = 0; k < n; k++) {
        long x = PyLong_AsLong(PyList_GET_ITEM(list, k));
        if (x == -1 && PyErr_Occurred()) return -1;
        out[k] = (int32_t)x;
    }
    return 0;
}

static PyObject *py_search(PyObject *self, PyObject *args) {
    int n1, n2;
    PyObject *wl, *r1l, *r2l, *orderl, *parentl, *remaining, *cancel = Py_None;
    long long floor;
    if (!PyArg_ParseTuple(args, "iiO!O!O!OOLO|O", &n1, &n2, &PyList_Type, &wl, &PyList_Type, &r1l, &PyList_Type,
                          &r2l, &orderl, &parentl, &floor, &remaining, &cancel))
        return NULL;
    if (n1 < 0 || n2 < 0) {
        PyErr_SetString(PyExc_ValueError, "negative size");
        return NULL;
    }
    S s;
    memset(&s, 0, sizeof s);
    s.n1 = n1;
    s.n2 = n2;
    int W = s.W = n2 / 64 + 1;
    Py_buffer buf;
    int have_buf = 0;
    int64_t *rel2 = NULL;
    PyObject *result = NULL;
    s.wt = calloc((size_t)n1 * n2 + 1, sizeof(int64_t));
    s.rel1 = calloc((size_t)n1 * n1 + 1, sizeof(int64_t));
    rel2 = calloc((size_t)n2 * n2 + 1, sizeof(int64_t));
    s.gs = calloc((size_t)n2 + 1, sizeof(int32_t));
    s.nbmask = calloc((size_t)n2 * W + 1, sizeof(word));
    s.order = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.parent = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.pos = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.cs = calloc((size_t)n1 + 2, sizeof(int32_t));
    s.ch = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.dom = calloc((size_t)(n1 + 1) * n1 * W + 1, sizeof(word));
    s.f = calloc((size_t)n1 * n2 + 1, sizeof(int64_t));
    s.fnone = calloc((size_t)n1 + 1, sizeof(int64_t));
    s.best = calloc((size_t)n1 + 1, sizeof(int64_t));
    s.cand = calloc((size_t)(n1 + 1) * n2 + 1, sizeof(Cand));
    s.mu = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.mv = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.bu = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.bv = calloc((size_t)n1 + 1, sizeof(int32_t));
    s.frames = calloc((size_t)n1 + 2, sizeof(int64_t));
    if (!s.wt || !s.rel1 || !rel2 || !s.gs || !s.nbmask || !s.order || !s.parent || !s.pos || !s.cs || !s.ch ||
        !s.dom || !s.f || !s.fnone || !s.best || !s.cand || !s.mu || !s.mv || !s.bu || !s.bv || !s.frames) {
        PyErr_NoMemory();
        goto done;
    }
    if (read_triples(wl, n1, n2, s.wt, n2) < 0 || read_triples(r1l, n1, n1, s.rel1, n1) < 0 ||
        read_triples(r2l, n2, n2, rel2, n2) < 0 || read_ints(orderl, n1, s.order) < 0 ||
        read_ints(parentl, n1, s.parent) < 0)
        goto done;
    for (int k = 0; k < n1; k++) {
        if (s.order[k] < 0 || s.order[k] >= n1 || s.parent[k] < -1 || s.parent[k] >= n1) {
            PyErr_SetString(PyExc_ValueError, "order / parent out of range");
            goto done;
        }
        s.pos[s.order[k]] = k;
    }
    /* children in BFS order (as search._Side: appended while walking the order) */
    for (int k = 0; k < n1; k++)
        if (s.parent[k] >= 0) s.cs[s.parent[k] + 1]++;
    for (int k = 0; k < n1; k++) s.cs[k + 1] += s.cs[k];
    {
        int32_t *fill = calloc((size_t)n1 + 1, sizeof(int32_t));
        if (!fill) {
            PyErr_NoMemory();
            goto done;
        }
        for (int k = 0; k < n1; k++) {
            int u = s.order[k], p = s.parent[u];
            if (p >= 0) s.ch[s.cs[p] + fill[p]++] = u;
        }
        free(fill);
    }
    /* groups of the other side: per v, one group per distinct relation (first-seen order) */
    {
        int ng = 0;
        for (int v = 0; v < n2; v++) {
            s.gs[v] = ng;
            for (int x = 0; x < n2; x++) {
                int64_t r = rel2[(size_t)v * n2 + x];
                if (!r) continue;
                int seen = 0;
                for (int x2 = 0; x2 < x; x2++)
                    if (rel2[(size_t)v * n2 + x2] == r) seen = 1;
                if (!seen) ng++;
            }
        }
        s.gs[n2] = ng;
        s.grel = calloc((size_t)ng + 1, sizeof(int64_t));
        s.gmask = calloc((size_t)ng * W + 1, sizeof(word));
        if (!s.grel || !s.gmask) {
            PyErr_NoMemory();
            goto done;
        }
        for (int v = 0; v < n2; v++) {
            int g0 = s.gs[v], g = g0;
            for (int x = 0; x < n2; x++) {
                int64_t r = rel2[(size_t)v * n2 + x];
                if (!r) continue;
                int k = g0;
                while (k < g && s.grel[k] != r) k++;
                if (k == g) s.grel[g++] = r;
                s.gmask[(size_t)k * W + (x >> 6)] |= (word)1 << (x & 63);
                s.nbmask[(size_t)v * W + (x >> 6)] |= (word)1 << (x & 63);
            }
        }
    }
    for (int u = 0; u < n1; u++)
        for (int v = 0; v < n2; v++)
            if (s.wt[(size_t)u * n2 + v] > 0) s.dom[(size_t)u * W + (v >> 6)] |= (word)1 << (v & 63);
    if (remaining != Py_None) {
        double r = PyFloat_AsDouble(remaining);
        if (r == -1.0 && PyErr_Occurred()) goto done;
        s.use_deadline = 1;
        s.stop_at = now() + r;
    }
    if (cancel != Py_None) {
        if (PyObject_GetBuffer(cancel, &buf, PyBUF_SIMPLE) < 0) goto done;
        have_buf = 1;
        if (buf.len < 1) {
            PyErr_SetString(PyExc_ValueError, "cancel buffer is empty");
            goto done;
        }
        s.cancel = (const volatile unsigned char *)buf.buf;
    }
    s.incumbent = floor;
    s.nbest = -1;
    Py_BEGIN_ALLOW_THREADS
    search(&s, 0, 0, s.dom);
    Py_END_ALLOW_THREADS
    {
        int exact = !s.aborted;
        int64_t upper = s.incumbent > floor ? s.incumbent : floor;
        if (!exact)
            for (int k = 0; k < s.nframes; k++)
                if (s.frames[k] > upper) upper = s.frames[k];
        PyObject *pairs;
        if (s.nbest < 0) {
            pairs = Py_None;
            Py_INCREF(pairs);
        } else {
            pairs = PyList_New(s.nbest);
            if (!pairs) goto done;
            for (int k = 0; k < s.nbest; k++) {
                PyObject *t = Py_BuildValue("(ii)", s.bu[k], s.bv[k]);
                if (!t) {
                    Py_DECREF(pairs);
                    goto done;
                }
                PyList_SET_ITEM(pairs, k, t);
            }
        }
        result = Py_BuildValue("(LNLOL)", (long long)s.incumbent, pairs, (long long)upper,
                               exact ? Py_True : Py_False, (long long)s.nodes);
    }
done:
    if (have_buf) PyBuffer_Release(&buf);
    free(s.wt); free(s.rel1); free(rel2); free(s.gs); free(s.grel); free(s.gmask); free(s.nbmask);
    free(s.order); free(s.parent); free(s.pos); free(s.cs); free(s.ch); free(s.dom); free(s.f);
    free(s.fnone); free(s.best); free(s.cand); free(s.mu); free(s.mv); free(s.bu); free(s.bv);
    free(s.frames);
    return result;
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS, "The flatland profile's exact search (see flatland.search)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_flatsearch", NULL, -1, methods};

PyMODINIT_FUNC PyInit__flatsearch(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "API_VERSION", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
