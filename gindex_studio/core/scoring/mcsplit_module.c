/*
 * The module table of gindex_studio.core.scoring._mcsplit and its initialisation.
 */
#include "_mcsplit.h"

/* pure_python_requested() -> bool: pure_python_env() */
static PyObject *py_pure_python_requested(PyObject *self, PyObject *noargs)
{
    return PyBool_FromLong(pure_python_env());
}

static PyMethodDef methods[] = {
    {"search", py_search, METH_VARARGS,
     "search(out1, in1, out2, in2, w, gid1, gid2, floor, remaining, check_signals[, cancel[, node_limit]])\n"
     "-> (best, pairs or None, upper, exact, nodes)\n\n"
     "Weighted McSplit on two graphs given as Graph.adj_out / adj_in (lists of {port: mask}), the\n"
     "integer weights {(u, v): w}, group ids per vertex (same id: same type and self-loop ports;\n"
     "-1: none), the floor to beat strictly, the seconds left (None: no deadline), and whether to\n"
     "run signal handlers meanwhile; cancel: None, a buffer whose first byte set non-zero stops the\n"
     "search (read without the GIL), or an object with is_set(); node_limit > 0: stop as at a deadline\n"
     "on visiting node node_limit + 1. See gindex_studio.core.scoring.matching."},
    {"clique_search", py_clique_search, METH_VARARGS,
     "clique_search(out1, in1, out2, in2, verts, weights, types, floor, remaining, check_signals[, cancel])\n"
     "-> (best, pairs or None, upper, exact, nodes)\n\n"
     "The companion profile's maximum-weight clique search (matching._CliqueSearch) on the\n"
     "association vertices verts [(u, v)] in branching order, their integer weights and node-type\n"
     "ids; the other arguments and the result as for search()."},
    {"weights", py_weights, METH_VARARGS,
     "weights(types1, vals1, loops1, by_type2, vals2, loops2, companion, self_equal1[, threshold])\n"
     "-> (raw, w, scale, quick, total)\n\n"
     "The node weights of every same-type pair with w > 0, as matching._weights computes them for\n"
     "the paper (companion=0) and companion (companion=1) profiles, with the quick bound and the total\n"
     "of w; None for those that would reach 2^62."},
    {"solve", py_solve, METH_VARARGS,
     "solve((types1, vals1, loops1, by_type2, vals2, loops2, 0, self_equal1, threshold),\n"
     "      (types2, out1, in1, out2, in2, remaining, check_signals, cancel[, node_limit]))\n"
     "-> None, (scale, quick) or (scale, floor, best, pairs or None, upper, exact, nodes)\n\n"
     "The paper profile's max_common_subgraph without a warm start in one call: weights() without\n"
     "building the dicts, the group ids (type, self-loop ports) and search(), whose floor is\n"
     "isqrt(floor(tn * scale^2 / td)) for threshold (tn, td) (else -1). (scale, quick): the quick\n"
     "bound proves nothing beats the threshold. None: a weight total reaching 2^62 (or the\n"
     "companion profile): use weights() and search(). pairs: (u, v, num, den) as weights()' raw."},
    {"companion_delta", (PyCFunction)(void (*)(void))py_companion_delta, METH_FASTCALL,
     "companion_delta(value1, value2, ignored, check_signals) -> float or None\n\n"
     "check_signals: None checks for signals when called in the main thread.\n"
     "The companion profile's Δ of two parsed flows (JSON values), as score(flow_from_value(...))\n"
     "gives it, in one call; None: not a plain flow shape, weights too large, or GINDEX_PURE_PYTHON set\n"
     "(take the general way)."},
    {"companion_hash_mask", py_companion_hash_mask, METH_VARARGS,
     "companion_hash_mask(mask) -> the previous mask\n\n"
     "Tests only: every hash companion_delta's tables use is and-ed with mask (0: all collide)."},
    {"counts_to", py_counts_to, METH_VARARGS,
     "counts_to(values, others) -> bytes\n\n"
     "The paper profile's w of one node against nodes of its type as int64 (num, den) pairs."},
    {"weights_to", py_weights_to, METH_VARARGS,
     "weights_to(values, self_equal, others, companion) -> [float]\n\n"
     "w of one node against nodes of its type, as floats (curriculum._weights_to)."},
    {"signatures", py_signatures, METH_VARARGS,
     "signatures(datas, ignored, companion, json_true, json_false, cls) -> [Signature]\n\n"
     "similarity.signature of every node dict, paper (companion=0) or companion (companion=1)."},
    {"set_sparse_from", py_set_sparse_from, METH_VARARGS,
     "set_sparse_from(n) -> previous n: search/solve keep adjacency and partner sets as lists, not masks,\n"
     "from n kept vertices on (the larger side; default 1024). For tests: the results are the same."},
    {"set_symmetry_pairs_upto", py_set_symmetry_pairs_upto, METH_VARARGS,
     "set_symmetry_pairs_upto(n) -> previous n: the symmetry tables of graphs up to n kept vertices are found\n"
     "by trying every pair, of larger ones by sorting hashes (default 128). For tests: the same tables."},
    {"pure_python_requested", py_pure_python_requested, METH_NOARGS,
     "pure_python_requested() -> bool: GINDEX_PURE_PYTHON is set and not \"0\" (read with getenv)."},
    {"flow_graph", py_flow_graph, METH_VARARGS,
     "flow_graph(nodes, no_loops, loop0) -> (ids, datas, adj_out, adj_in, selfloop, cyclic, n_edges) or None\n\n"
     "A flow's vertices and their wires, ports merged (divergence.prepare without port_aware or ignored types)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_mcsplit", "Native weighted McSplit search (see gindex_studio.core.scoring.matching).", -1,
    methods,
};

/* native.py uses the module only when this matches its own (a stale build after a change of the
 * call is ignored rather than called wrongly) */
#define API_VERSION 12

PyMODINIT_FUNC PyInit__mcsplit(void)
{
    if (!(_str_type = PyUnicode_InternFromString("type")) || !(_str_values = PyUnicode_InternFromString("values")) ||
        !(_str_none_keys = PyUnicode_InternFromString("none_keys")) ||
        !(_str_self_equal = PyUnicode_InternFromString("self_equal")))
        return NULL;
    if (!(_str_flow = PyUnicode_InternFromString("flow")) || !(_str_flows = PyUnicode_InternFromString("flows")) ||
        !(_str_id = PyUnicode_InternFromString("id")) || !(_str_wires = PyUnicode_InternFromString("wires")))
        return NULL;
    if (!(_str_wires_g = PyUnicode_InternFromString("wires")) || !(_str_id_g = PyUnicode_InternFromString("id")) ||
        !(_str_data_g = PyUnicode_InternFromString("data")) || !(_zero_g = PyLong_FromLong(0)))
        return NULL;
    PyObject *math = PyImport_ImportModule("math");
    _isqrt = math ? PyObject_GetAttrString(math, "isqrt") : NULL;
    Py_XDECREF(math);
    if (!_isqrt)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m && PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
