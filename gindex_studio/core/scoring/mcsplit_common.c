/*
 * Shared by the searches: the clock, what stops a search (deadline, cancel, signals), reading
 * Python graphs and ints, bump allocation, small integer helpers.
 */
#include "_mcsplit.h"

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
