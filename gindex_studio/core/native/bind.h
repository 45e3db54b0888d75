/*
 * What the bindings share (bind.c is built into both extensions): named arguments, a Stop filled
 * from Python arguments whose host is the interpreter (the GIL, is_set(), signal handlers), and a
 * search's result as Python values. Only the binding and the Python-value kernels (py_*.c) include this.
 */
#ifndef GINDEX_NATIVE_BIND_H
#define GINDEX_NATIVE_BIND_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(hidden)
#endif

/* a Stop and the interpreter behind its hooks; lives on the caller's stack for one search */
typedef struct {
    Stop stop;
    PyThreadState *ts;     /* the saved thread state while detached */
    PyObject *cancel_poll; /* the budget's poll (a reference held), polled attached */
    Py_buffer buf;         /* the cancel buffer, held until pystop_release */
    int have_buf;
} PyStop;

/* Fill ps from budget: None (nothing stops the search but check_signals and node_limit), or a
 * core.support.budget.Budget passed down unchanged: its stop_at (None, or an absolute time on
 * now_seconds()'s clock, Python's time.perf_counter()), its flag (a buffer whose first byte set
 * non-zero stops the search, read without the GIL; None: none) and its poll (None, or an object
 * with is_set(), polled attached every 4096 nodes). node_limit > 0: a node limit. -1 with an
 * exception set on bad input (nothing to release then). */
int pystop_init(PyStop *ps, PyObject *budget, int check_signals, long long node_limit);
/* *use = 1 and *stop_at = budget.stop_at when budget (None: none) has a stop time, else *use = 0;
 * -1 with an exception */
int budget_stop_at(PyObject *budget, int *use, double *stop_at);
void pystop_release(PyStop *ps);
/* NULL with the exception of a core code: ABORT_NOMEM, -2 (err: ValueError); the others leave the
 * host's own (a signal handler's, is_set()'s) */
PyObject *raise_code(int rc, const char *err);
/* (best, [(u, v)] or None, upper, exact, nodes) */
PyObject *found_tuple(const Found *f);

/* ---- named arguments (METH_FASTCALL | METH_KEYWORDS) ---- */

/* A function's parameters: names (NULL-terminated), the first `required` of them required, those
 * from `kwonly` on given by keyword only. */
typedef struct {
    const char *fn;
    const char *const *names;
    int required, kwonly;
    PyObject **interned; /* made on first use */
} Params;

/* out[i]: the argument of names[i] (borrowed) or NULL; -1 with TypeError */
int named_args(Params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
/* x (NULL or None: absent, then dflt) as an int; -1 with an exception */
int arg_ll(PyObject *x, long long dflt, long long *v);
/* x (NULL: absent, then dflt) as a truth value; -1 with an exception */
int arg_bool(PyObject *x, int dflt);
/* 0 when x is a list, else -1 with TypeError naming what */
int arg_list(const char *what, PyObject *x);
/* x, or None when absent (NULL) */
PyObject *opt(PyObject *x);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#endif /* GINDEX_NATIVE_BIND_H */
