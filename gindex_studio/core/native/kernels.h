/*
 * The Python-value kernels (py_*.c) the binding mcsplit_module.c calls: work on Python values
 * that no plain C struct can hold (dicts compared with ==, JSON values), never a search.
 */
#ifndef GINDEX_NATIVE_KERNELS_H
#define GINDEX_NATIVE_KERNELS_H

#include "bind.h"

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(hidden)
#endif

/* py_weights.c: the pairs of weights() and solve() (see there) */
typedef struct {
    PyObject *types1, *vals1, *loops1, *by_type2, *vals2, *loops2, *self_equal1; /* borrowed */
    int companion;
    /* set by pair_input_check */
    Py_ssize_t n1, n2;
    int check_loops;
    PyObject *tab_rows;
    const int32_t *tab_local;
    int task_first;
} PairInput;

int pair_input_check(PairInput *in, PyObject *threshold, PyObject *table);
/* every same-type pair with w > 0 as rows (*rows malloc'ed, also on error), ti the index of its
 * by_type2 list; signal handlers every 1024 pairs; now_seconds() past stop_at (HUGE_VAL: never):
 * *cut = 1. -1: an error */
int pair_rows(const PairInput *in, double stop_at, WeightRow **rows, size_t *n, int *n_types, int *cut);
/* group ids (type, self-loop ports) by first occurrence in g1, as Graph.groups; -1: an error */
int group_ids(PyObject *types1, PyObject *loops1, PyObject *types2, PyObject *loops2, int32_t *gid1, int32_t *gid2,
              int32_t *rep);
/* threshold (tn, td): quick <= isqrt(floor(tn * scale^2 / td)) (1, 0, -1 error); that isqrt */
int threshold_prunes(PyObject *threshold, long long scale, long long quick);
int threshold_floor(PyObject *threshold, long long scale, long long *floor_);
PyObject *weights_to_list(PyObject *a, int se, PyObject *others, int companion);
PyObject *counts_to_bytes(PyObject *a, PyObject *others);
extern PyObject *_isqrt; /* math.isqrt */

/* py_signatures.c, py_flow_graph.c, py_companion_delta.c */
PyObject *signatures_of(PyObject *datas, PyObject *ignored, int companion, PyObject *json_true, PyObject *json_false,
                        PyObject *cls);
PyObject *flow_graph_of(PyObject *nodes, PyObject *no_loops, PyObject *loop0);
PyObject *companion_delta_of(PyObject *value1, PyObject *value2, PyObject *ignored, int check_signals);
long long companion_hash_mask_set(long long mask);
int pure_python_env(void);

/* interned in the module's initialisation */
extern PyObject *_str_type, *_str_values, *_str_none_keys, *_str_self_equal;
extern PyObject *_str_data, *_str_flow, *_str_flows, *_str_id, *_str_wires, *_zero;

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#endif /* GINDEX_NATIVE_KERNELS_H */
