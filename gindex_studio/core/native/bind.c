/*
 * What both bindings share (see bind.h): named arguments, the interpreter as a search's host, and
 * a search's result as Python values.
 */
#include "bind.h"

static void host_attach(void *ctx)
{
    PyEval_RestoreThread(((PyStop *)ctx)->ts);
}

static void host_detach(void *ctx)
{
    ((PyStop *)ctx)->ts = PyEval_SaveThread();
}

static int host_cancelled(void *ctx)
{
    PyObject *r = PyObject_CallMethod(((PyStop *)ctx)->cancel_poll, "is_set", NULL);
    int on = r ? PyObject_IsTrue(r) : -1;
    Py_XDECREF(r);
    return on;
}

static int host_signals(void *ctx)
{
    (void)ctx;
    return PyErr_CheckSignals() ? -1 : 0;
}

int budget_stop_at(PyObject *budget, int *use, double *stop_at)
{
    *use = 0;
    *stop_at = 0.0;
    if (budget == Py_None)
        return 0;
    PyObject *t = PyObject_GetAttrString(budget, "stop_at");
    if (!t)
        return -1;
    if (t != Py_None) {
        *stop_at = PyFloat_AsDouble(t);
        *use = 1;
    }
    Py_DECREF(t);
    return *use && *stop_at == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* the budget's flag (a buffer of at least one byte; None: no flag) held in ps */
static int hold_flag(PyStop *ps, PyObject *flag)
{
    if (flag == Py_None)
        return 0;
    if (PyObject_GetBuffer(flag, &ps->buf, PyBUF_SIMPLE) < 0)
        return -1;
    if (ps->buf.len < 1) {
        PyBuffer_Release(&ps->buf);
        PyErr_SetString(PyExc_ValueError, "budget.flag: a buffer of at least one byte expected");
        return -1;
    }
    ps->have_buf = 1;
    ps->stop.cancel_flag = (const volatile unsigned char *)ps->buf.buf;
    return 0;
}

int pystop_init(PyStop *ps, PyObject *budget, int check_signals, long long node_limit)
{
    memset(ps, 0, sizeof(PyStop));
    Stop *s = &ps->stop;
    s->host = (Host){ps, host_attach, host_detach, NULL, host_signals};
    s->node_limit = node_limit > 0 ? node_limit : 0;
    s->check_signals = check_signals;
    if (check_signals)
        s->next_signals = now_seconds() + SIGNAL_SECONDS;
    if (budget_stop_at(budget, &s->use_deadline, &s->stop) < 0)
        return -1;
    if (budget == Py_None)
        return 0;
    PyObject *flag = PyObject_GetAttrString(budget, "flag");
    if (!flag)
        return -1;
    int rc = hold_flag(ps, flag);
    Py_DECREF(flag);
    if (rc < 0)
        return -1;
    PyObject *poll = PyObject_GetAttrString(budget, "poll");
    if (!poll) {
        pystop_release(ps);
        return -1;
    }
    if (poll != Py_None) {
        ps->cancel_poll = poll; /* held until pystop_release */
        s->host.cancelled = host_cancelled;
    } else
        Py_DECREF(poll);
    return 0;
}

void pystop_release(PyStop *ps)
{
    if (ps->have_buf)
        PyBuffer_Release(&ps->buf);
    ps->have_buf = 0;
    Py_CLEAR(ps->cancel_poll);
}

PyObject *raise_code(int rc, const char *err)
{
    if (rc == ABORT_NOMEM)
        return PyErr_NoMemory();
    if (rc == -2)
        PyErr_SetString(PyExc_ValueError, err);
    else if (!PyErr_Occurred())
        PyErr_SetString(PyExc_SystemError, "native search: stopped without a reason");
    return NULL;
}

PyObject *found_tuple(const Found *f)
{
    PyObject *pairs;
    if (f->found) {
        if (!(pairs = PyList_New(f->len)))
            return NULL;
        for (int i = 0; i < f->len; i++) {
            PyObject *p = Py_BuildValue("(ii)", f->u[i], f->v[i]);
            if (!p) {
                Py_DECREF(pairs);
                return NULL;
            }
            PyList_SET_ITEM(pairs, i, p);
        }
    } else
        pairs = Py_NewRef(Py_None);
    return Py_BuildValue("(LNLOL)", (long long)f->best, pairs, (long long)f->upper, f->exact ? Py_True : Py_False,
                         (long long)f->nodes);
}

/* ---- named arguments ------------------------------------------------------------------------- */

int named_args(Params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
    int n = 0;
    while (p->names[n])
        n++;
    if (!p->interned) {
        PyObject **in = calloc((size_t)n, sizeof(PyObject *));
        if (!in) {
            PyErr_NoMemory();
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (!(in[i] = PyUnicode_InternFromString(p->names[i]))) {
                free(in);
                return -1;
            }
        p->interned = in;
    }
    if (nargs > p->kwonly) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", p->fn, p->kwonly, nargs);
        return -1;
    }
    for (int i = 0; i < n; i++)
        out[i] = i < nargs ? args[i] : NULL;
    const Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int i = 0;
        while (i < n && p->interned[i] != key) /* keywords in a call are interned: identity first */
            i++;
        for (int j = 0; i == n && j < n; j++)
            if (PyUnicode_Compare(p->interned[j], key) == 0)
                i = j;
        if (i == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", p->fn, key);
            return -1;
        }
        if (out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", p->fn, p->names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (int i = 0; i < p->required; i++)
        if (!out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", p->fn, p->names[i]);
            return -1;
        }
    return 0;
}

int arg_ll(PyObject *x, long long dflt, long long *v)
{
    if (!x || x == Py_None) {
        *v = dflt;
        return 0;
    }
    *v = PyLong_AsLongLong(x);
    return *v == -1 && PyErr_Occurred() ? -1 : 0;
}

int arg_bool(PyObject *x, int dflt)
{
    return x ? PyObject_IsTrue(x) : dflt;
}

int arg_list(const char *what, PyObject *x)
{
    if (PyList_Check(x))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s: a list expected, not %.50s", what, Py_TYPE(x)->tp_name);
    return -1;
}

PyObject *opt(PyObject *x)
{
    return x ? x : Py_None;
}
