/*
 * Shared by the searches: the clock, what stops a search (deadline, cancel, signals), reading
 * Python graphs and ints, bump allocation, small integer helpers.
 */
#include "_mcsplit.h"

double now_seconds(void)
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

/* Called every 128 search nodes without the GIL: 0, or why the search must stop. The deadline
 * and a cancel buffer are read every call, a cancel object is polled every 4096 nodes and signal
 * handlers run every 2^18 nodes and at least every SIGNAL_SECONDS (both with the GIL taken back). */
int poll_stop(Stop *s, int64_t nodes)
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
int init_stop(Stop *s, PyObject *remaining, int check_signals, PyObject *cancel)
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

void release_stop(Stop *s)
{
    if (s->have_buf)
        PyBuffer_Release(&s->buf);
    s->have_buf = 0;
}

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

/* Graph.adj_out / adj_in (lists of {port: mask}) into CSR by vertex: keys ascending (out-ports,
 * then in-ports, as the Python search refines), masks W words each. */
int read_graph(PyObject *outs, PyObject *ins, int n, int W, int32_t **starts, int64_t **keys, word **masks)
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
int neighbourhoods(int n, int W, const int32_t *starts, const word *masks, word **nb)
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

int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int read_ints(PyObject *list, int n, long lo, long hi, int32_t *out)
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

void *bump(Bump *b, size_t n)
{
    void *r = b->base ? b->base + b->off : NULL;
    b->off += (n + 15) & ~(size_t)15;
    return r;
}

/* a new reference to the tuple (a, b) of two ints, or NULL */
PyObject *pair_of(long long a, long long b)
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

long long gcd_ll(long long a, long long b)
{
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* *scale becomes lcm(*scale, den) (den > 0); 1, *scale unchanged, when that would reach 2^62 */
int lcm_into(long long *scale, long long den)
{
    long long f = *scale / gcd_ll(*scale, den);
    if (f > (((long long)1 << 62) - 1) / den)
        return 1;
    *scale = f * den;
    return 0;
}

/* GINDEX_PURE_PYTHON is set and not "0" (os.environ writes reach the C environment; getenv costs
 * far less than os.environ.get) */
int pure_python_env(void)
{
    const char *pure = getenv("GINDEX_PURE_PYTHON");
    return pure && pure[0] && strcmp(pure, "0") != 0;
}

/* ---- a graph restricted to the vertices that can be matched ---------------------------------- *
 *
 * The searches only ever look at vertices with a partner (a same-type pair of w > 0): the others
 * never enter a class. A graph is read as Graph.adj_out / adj_in (lists of {port: mask}) or, for a
 * sparse Graph, as its edge array (a buffer of int32 triples (src, port, dst), sorted, each once,
 * with ``ins`` None), and only the relations among kept vertices are built: cost follows the kept
 * vertices and the edges, never n^2. */

typedef struct {
    Py_buffer buf;
    const int32_t *e; /* triples */
    Py_ssize_t m;     /* number of triples */
    int have;
} EdgeArray;

static int edges_open(PyObject *obj, int n, EdgeArray *ea)
{
    memset(ea, 0, sizeof(EdgeArray));
    if (PyObject_GetBuffer(obj, &ea->buf, PyBUF_FORMAT) < 0)
        return -1;
    ea->have = 1;
    const char *f = ea->buf.format ? ea->buf.format : "B";
    if (ea->buf.itemsize != 4 || !(strcmp(f, "i") == 0 || strcmp(f, "=i") == 0 || strcmp(f, "<i") == 0) ||
        ea->buf.len % 12 != 0) {
        PyErr_SetString(PyExc_TypeError, "edges: an array('i') of (src, port, dst) triples expected");
        return -1;
    }
    ea->e = (const int32_t *)ea->buf.buf;
    ea->m = ea->buf.len / 12;
    for (Py_ssize_t t = 0; t < ea->m; t++) {
        const int32_t *x = ea->e + 3 * t;
        if (x[0] < 0 || x[0] >= n || x[2] < 0 || x[2] >= n || x[1] < 0) {
            PyErr_SetString(PyExc_ValueError, "edges: vertex or port out of range");
            return -1;
        }
        if (t && (x[-3] > x[0] || (x[-3] == x[0] && (x[-2] > x[1] || (x[-2] == x[1] && x[-1] >= x[2]))))) {
            PyErr_SetString(PyExc_ValueError, "edges: triples must be sorted and distinct");
            return -1;
        }
    }
    return 0;
}

static void edges_close(EdgeArray *ea)
{
    if (ea->have)
        PyBuffer_Release(&ea->buf);
    ea->have = 0;
}

typedef struct {
    int64_t key;
    int32_t other; /* new index of the vertex at the other end */
} Rel;

static int cmp_rel(const void *a, const void *b)
{
    const Rel *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->other > y->other) - (x->other < y->other);
}

/* the relations of rels[0..m) (sorted by key) appended to the CSR as one mask per key */
static int emit_rels(const Rel *rels, int m, int W, int64_t **keys, word **masks, Py_ssize_t *k, Py_ssize_t *cap)
{
    for (int a = 0; a < m;) {
        int b = a;
        while (b < m && rels[b].key == rels[a].key)
            b++;
        if (*k == *cap) {
            Py_ssize_t c2 = *cap ? 2 * *cap : 16;
            int64_t *nk = realloc(*keys, (size_t)c2 * sizeof(int64_t));
            if (!nk)
                return -1;
            *keys = nk;
            word *nm = realloc(*masks, (size_t)c2 * W * sizeof(word));
            if (!nm)
                return -1;
            *masks = nm;
            *cap = c2;
        }
        (*keys)[*k] = rels[a].key;
        word *o = *masks + (size_t)W * *k;
        memset(o, 0, (size_t)W * sizeof(word));
        for (int i = a; i < b; i++)
            o[rels[i].other >> 6] |= (word)1 << (rels[i].other & 63);
        (*k)++;
        a = b;
    }
    return 0;
}

/* deg[u] for every vertex u: the bits of all its relation masks (out- and in-relations), as the
 * searches' relabelling counts them. ins None: outs is an edge array. Only vertices with want[u]
 * are counted from masks (the others are left 0). */
int graph_degrees(PyObject *outs, PyObject *ins, int n, const char *want, int64_t *deg)
{
    memset(deg, 0, (size_t)n * sizeof(int64_t));
    if (ins == Py_None) {
        EdgeArray ea;
        if (edges_open(outs, n, &ea) < 0) {
            edges_close(&ea);
            return -1;
        }
        for (Py_ssize_t t = 0; t < ea.m; t++) {
            deg[ea.e[3 * t]]++;
            deg[ea.e[3 * t + 2]]++;
        }
        edges_close(&ea);
        return 0;
    }
    if (!PyList_Check(outs) || !PyList_Check(ins) || PyList_GET_SIZE(outs) != n || PyList_GET_SIZE(ins) != n) {
        PyErr_SetString(PyExc_ValueError, "adjacency: one dict per vertex and direction");
        return -1;
    }
    const int Wf = n > 64 ? (n + 63) / 64 : 1;
    word *tmp = malloc((size_t)Wf * sizeof(word));
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    for (int u = 0; u < n; u++) {
        if (!want[u])
            continue;
        for (int dir = 0; dir < 2; dir++) {
            PyObject *d = PyList_GET_ITEM(dir ? ins : outs, u), *port, *mask;
            if (!PyDict_Check(d)) {
                PyErr_SetString(PyExc_TypeError, "adjacency: dicts {port: mask} expected");
                free(tmp);
                return -1;
            }
            Py_ssize_t pos = 0;
            while (PyDict_Next(d, &pos, &port, &mask)) {
                if (to_words(mask, tmp, Wf) < 0) {
                    free(tmp);
                    return -1;
                }
                for (int i = 0; i < Wf; i++)
                    deg[u] += popcount64(tmp[i]);
            }
        }
    }
    free(tmp);
    return 0;
}

/* sparse: the relations of rels[0..m) (sorted by key, then vertex) appended to the CSR as one
 * list of vertices per key: entry k holds (*others)[(*offs)[k] .. (*offs)[k + 1]) */
static int emit_lists(const Rel *rels, int m, int64_t **keys, int32_t **offs, int32_t **others, Py_ssize_t *k,
                      Py_ssize_t *cap, Py_ssize_t *nv, Py_ssize_t *vcap)
{
    if (*nv + m > *vcap) {
        Py_ssize_t c2 = *vcap ? 2 * *vcap : 16;
        while (c2 < *nv + m)
            c2 *= 2;
        int32_t *no = realloc(*others, (size_t)c2 * sizeof(int32_t));
        if (!no)
            return -1;
        *others = no;
        *vcap = c2;
    }
    for (int a = 0; a < m;) {
        int b = a;
        while (b < m && rels[b].key == rels[a].key)
            b++;
        if (*k + 1 >= *cap) { /* room for the entry and the final offset */
            Py_ssize_t c2 = *cap ? 2 * *cap : 16;
            int64_t *nk = realloc(*keys, (size_t)c2 * sizeof(int64_t));
            if (!nk)
                return -1;
            *keys = nk;
            int32_t *no = realloc(*offs, (size_t)c2 * sizeof(int32_t));
            if (!no)
                return -1;
            *offs = no;
            *cap = c2;
        }
        (*keys)[*k] = rels[a].key;
        (*offs)[*k] = (int32_t)*nv;
        for (int i = a; i < b; i++)
            (*others)[(*nv)++] = rels[i].other;
        (*k)++;
        a = b;
    }
    return 0;
}

/* The relations among kept vertices as CSR in the new numbering (vertex i is keep[i], i < nk;
 * pos[u]: u's new index or -1), keys ascending (out-ports, then IN_KEY + in-ports, as read_graph),
 * masks W words over new indices; a relation holding no kept vertex is left out (it splits no
 * class). ins None: outs is an edge array. With offs (sparse): no masks (*masks NULL), each
 * relation's vertices as a list instead (emit_lists): memory follows the edges, not nk * W. */
int read_kept(PyObject *outs, PyObject *ins, int n, const int32_t *keep, int nk, const int32_t *pos, int W,
              int32_t **starts, int64_t **keys, word **masks, int32_t **offs, int32_t **others)
{
    *starts = malloc(((size_t)nk + 1) * sizeof(int32_t));
    *keys = NULL;
    *masks = NULL;
    if (offs) {
        *offs = NULL;
        *others = NULL;
    }
    Py_ssize_t k = 0, cap = 0, nv = 0, vcap = 0;
#define EMIT(rels_, m_) \
    (offs ? emit_lists(rels_, m_, keys, offs, others, &k, &cap, &nv, &vcap) : emit_rels(rels_, m_, W, keys, masks, &k, &cap))
    int rc = -1;
    Rel *rels = NULL;
    int32_t *in_s = NULL;
    Rel *in_r = NULL;
    word *tmp = NULL;
    EdgeArray ea;
    memset(&ea, 0, sizeof(ea));
    if (!*starts)
        goto nomem;
    if (ins == Py_None) {
        if (edges_open(outs, n, &ea) < 0)
            goto out;
        /* out-edges by src: the triples are sorted by src; in-edges by dst: counting sort */
        int32_t *out_s = calloc((size_t)n + 2, sizeof(int32_t));
        in_s = calloc((size_t)n + 2, sizeof(int32_t));
        in_r = malloc((size_t)(ea.m ? ea.m : 1) * sizeof(Rel));
        rels = malloc((size_t)(ea.m ? ea.m : 1) * sizeof(Rel));
        if (!out_s || !in_s || !in_r || !rels) {
            free(out_s);
            goto nomem;
        }
        for (Py_ssize_t t = 0; t < ea.m; t++) {
            out_s[ea.e[3 * t] + 1]++;
            if (pos[ea.e[3 * t]] >= 0)
                in_s[ea.e[3 * t + 2] + 1]++;
        }
        for (int u = 0; u < n; u++) {
            out_s[u + 1] += out_s[u];
            in_s[u + 1] += in_s[u];
        }
        for (Py_ssize_t t = 0; t < ea.m; t++) {
            const int32_t *x = ea.e + 3 * t;
            if (pos[x[0]] >= 0)
                in_r[in_s[x[2]]++] = (Rel){IN_KEY + x[1], pos[x[0]]};
        }
        for (int u = n; u > 0; u--) /* back to the starts */
            in_s[u] = in_s[u - 1];
        in_s[0] = 0;
        for (int i = 0; i < nk; i++) {
            const int u = keep[i];
            (*starts)[i] = (int32_t)k;
            int m = 0;
            for (int t = out_s[u]; t < out_s[u + 1]; t++) /* (port, dst) ascending already */
                if (pos[ea.e[3 * t + 2]] >= 0)
                    rels[m++] = (Rel){ea.e[3 * t + 1], pos[ea.e[3 * t + 2]]};
            const int m_out = m;
            for (int t = in_s[u]; t < in_s[u + 1]; t++)
                rels[m++] = in_r[t];
            if (m - m_out > 1)
                qsort(rels + m_out, (size_t)(m - m_out), sizeof(Rel), cmp_rel);
            if (EMIT(rels, m) < 0) {
                free(out_s);
                goto nomem;
            }
        }
        free(out_s);
    } else {
        if (!PyList_Check(outs) || !PyList_Check(ins) || PyList_GET_SIZE(outs) != n || PyList_GET_SIZE(ins) != n) {
            PyErr_SetString(PyExc_ValueError, "adjacency: one dict per vertex and direction");
            goto out;
        }
        const int Wf = n > 64 ? (n + 63) / 64 : 1;
        int most = 0;
        for (int i = 0; i < nk; i++) {
            PyObject *o = PyList_GET_ITEM(outs, keep[i]), *x = PyList_GET_ITEM(ins, keep[i]);
            if (!PyDict_Check(o) || !PyDict_Check(x)) {
                PyErr_SetString(PyExc_TypeError, "adjacency: dicts {port: mask} expected");
                goto out;
            }
        }
        tmp = malloc((size_t)Wf * sizeof(word));
        if (!tmp)
            goto nomem;
        for (int i = 0; i < nk; i++) {
            const int u = keep[i];
            (*starts)[i] = (int32_t)k;
            int m = 0;
            for (int dir = 0; dir < 2; dir++) {
                PyObject *d = PyList_GET_ITEM(dir ? ins : outs, u), *port, *mask;
                Py_ssize_t it = 0;
                while (PyDict_Next(d, &it, &port, &mask)) {
                    long long p = PyLong_AsLongLong(port);
                    if (p == -1 && PyErr_Occurred())
                        goto out;
                    if (p < 0 || p >= IN_KEY) {
                        PyErr_SetString(PyExc_ValueError, "port out of range");
                        goto out;
                    }
                    if (to_words(mask, tmp, Wf) < 0)
                        goto out;
                    for (int j = 0; j < Wf; j++)
                        for (word x = tmp[j]; x; x &= x - 1) {
                            int v = j * 64 + ctz64(x);
                            if (v >= n) {
                                PyErr_SetString(PyExc_ValueError, "bitset out of range");
                                goto out;
                            }
                            if (pos[v] < 0)
                                continue;
                            if (m == most) {
                                int c2 = most ? 2 * most : 16;
                                Rel *r2 = realloc(rels, (size_t)c2 * sizeof(Rel));
                                if (!r2)
                                    goto nomem;
                                rels = r2;
                                most = c2;
                            }
                            rels[m++] = (Rel){(int64_t)p + (dir ? IN_KEY : 0), pos[v]};
                        }
                }
            }
            if (m > 1)
                qsort(rels, (size_t)m, sizeof(Rel), cmp_rel);
            if (EMIT(rels, m) < 0)
                goto nomem;
        }
    }
#undef EMIT
    (*starts)[nk] = (int32_t)k;
    if (offs) {
        if (!*keys) { /* callers index these: never NULL */
            *keys = malloc(sizeof(int64_t));
            *offs = malloc(sizeof(int32_t));
            if (!*keys || !*offs)
                goto nomem;
        }
        (*offs)[k] = (int32_t)nv; /* emit_lists left room for it */
        if (!*others && !(*others = malloc(sizeof(int32_t))))
            goto nomem;
    } else if (!*keys) { /* callers index these: never NULL */
        *keys = malloc(sizeof(int64_t));
        *masks = calloc((size_t)W, sizeof(word));
        if (!*keys || !*masks)
            goto nomem;
    }
    rc = 0;
    goto out;
nomem:
    PyErr_NoMemory();
out:
    edges_close(&ea);
    free(rels);
    free(in_s);
    free(in_r);
    free(tmp);
    return rc;
}
