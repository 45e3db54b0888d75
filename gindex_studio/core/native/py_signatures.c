/*
 * Signatures of a flow's nodes (signatures(), similarity.signatures), from Python values.
 */
#include "kernels.h"

/* ---- signatures of a flow's nodes (similarity.signature, paper and companion) ----------------- *
 *
 * signatures(datas, ignored, companion, json_true, json_false, cls) -> [Signature]
 *   datas: node dicts; ignored: the keys never compared (a frozenset); values that are not str,
 *   int, float or None (exact types) are canonicalised as canonical_json (paper: true and false
 *   become json_true and json_false) or canonical_python (companion) do; cls:
 *   similarity.Signature, filled as similarity.signature
 *   fills it (type = str(data.get("type")), values, none_keys, self_equal) except keys and items,
 *   which Signature builds from values on first use. */

/* similarity.canonical_json (json: true and false are the given objects) or canonical_python:
 * a dict becomes a frozenset of (key, canonical value), a list a tuple; a new reference */
static PyObject *canonical_value(PyObject *v, PyObject *json_true, PyObject *json_false)
{
    if (json_true) {
        if (v == Py_True) {
            Py_INCREF(json_true);
            return json_true;
        }
        if (v == Py_False) {
            Py_INCREF(json_false);
            return json_false;
        }
    }
    int is_dict = PyDict_Check(v);
    if (!is_dict && !PyList_Check(v)) {
        Py_INCREF(v);
        return v;
    }
    if (Py_EnterRecursiveCall(" in a canonical JSON value"))
        return NULL;
    PyObject *out = NULL;
    if (is_dict) {
        PyObject *items = PyList_New(0), *k, *x;
        Py_ssize_t pos = 0;
        if (!items)
            goto done;
        while (PyDict_Next(v, &pos, &k, &x)) {
            PyObject *cx = canonical_value(x, json_true, json_false);
            PyObject *pair = cx ? PyTuple_Pack(2, k, cx) : NULL;
            Py_XDECREF(cx);
            if (!pair || PyList_Append(items, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(items);
                goto done;
            }
            Py_DECREF(pair);
        }
        out = PyFrozenSet_New(items);
        Py_DECREF(items);
    } else {
        Py_ssize_t n = PyList_GET_SIZE(v);
        PyObject *t = PyTuple_New(n);
        if (!t)
            goto done;
        for (Py_ssize_t i = 0; i < n && i < PyList_GET_SIZE(v); i++) {
            PyObject *cx = canonical_value(PyList_GET_ITEM(v, i), json_true, json_false);
            if (!cx) {
                Py_DECREF(t);
                goto done;
            }
            PyTuple_SET_ITEM(t, i, cx);
        }
        if (PyList_GET_SIZE(v) != n) { /* changed while read (not by JSON values) */
            Py_DECREF(t);
            PyErr_SetString(PyExc_RuntimeError, "list changed size while canonicalised");
            goto done;
        }
        out = t;
    }
done:
    Py_LeaveRecursiveCall();
    return out;
}

static PyObject *one_signature(PyObject *data, PyObject *ignored, int companion, PyObject *json_true,
                               PyObject *json_false, PyTypeObject *cls, PyObject *empty_args, PyObject *empty_set)
{
    PyObject *values = NULL, *none_keys = NULL, *type = NULL, *obj = NULL, *dict = NULL, *result = NULL,
             *nonelist = NULL;
    if (!PyDict_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "signatures: node dicts expected");
        return NULL;
    }
    int self_equal = 1;
    if (!(values = PyDict_New()))
        goto done;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(data, &pos, &k, &v)) {
        int r = PySet_Contains(ignored, k);
        if (r < 0)
            goto done;
        if (r)
            continue;
        PyObject *cv;
        if (v == Py_None || PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v)) {
            cv = v;
            Py_INCREF(cv);
        } else if (!(cv = canonical_value(v, json_true, json_false)))
            goto done;
        if (companion) {
            if (cv == Py_None) {
                if (!nonelist && !(nonelist = PyList_New(0))) {
                    Py_DECREF(cv);
                    goto done;
                }
                if (PyList_Append(nonelist, k) < 0) {
                    Py_DECREF(cv);
                    goto done;
                }
            } else if (PyFloat_CheckExact(cv) && PyFloat_AS_DOUBLE(cv) != PyFloat_AS_DOUBLE(cv))
                self_equal = 0; /* a NaN: v == v is False */
        }
        int bad = PyDict_SetItem(values, k, cv) < 0;
        Py_DECREF(cv);
        if (bad)
            goto done;
    }
    if (nonelist) {
        if (!(none_keys = PyFrozenSet_New(nonelist)))
            goto done;
    } else {
        none_keys = empty_set;
        Py_INCREF(none_keys);
    }
    PyObject *t = PyDict_GetItemWithError(data, _str_type);
    if (!t && PyErr_Occurred())
        goto done;
    if (!(type = PyObject_Str(t ? t : Py_None)))
        goto done;
    if (!(obj = PyBaseObject_Type.tp_new(cls, empty_args, NULL)))
        goto done;
    if (!(dict = PyObject_GenericGetDict(obj, NULL)))
        goto done;
    if (PyDict_SetItem(dict, _str_type, type) < 0 || PyDict_SetItem(dict, _str_values, values) < 0 ||
        PyDict_SetItem(dict, _str_none_keys, none_keys) < 0 ||
        PyDict_SetItem(dict, _str_self_equal, self_equal ? Py_True : Py_False) < 0)
        goto done;
    result = obj;
    obj = NULL;
done:
    Py_XDECREF(values);
    Py_XDECREF(none_keys);
    Py_XDECREF(type);
    Py_XDECREF(obj);
    Py_XDECREF(dict);
    Py_XDECREF(nonelist);
    return result;
}

PyObject *signatures_of(PyObject *datas, PyObject *ignored, int companion, PyObject *json_true, PyObject *json_false,
                        PyObject *cls)
{
    if (companion)
        json_true = json_false = NULL; /* canonical_python: booleans stay */
    Py_ssize_t n = PyList_GET_SIZE(datas);
    PyObject *out = PyList_New(n), *empty_args = PyTuple_New(0), *empty_set = PyFrozenSet_New(NULL);
    if (!out || !empty_args || !empty_set) {
        Py_XDECREF(out);
        out = NULL;
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((i & 4095) == 4095 && PyErr_CheckSignals() < 0) { /* Ctrl-C during a very large flow */
            Py_CLEAR(out);
            goto done;
        }
        PyObject *sig = one_signature(PyList_GET_ITEM(datas, i), ignored, companion, json_true, json_false,
                                      (PyTypeObject *)cls, empty_args, empty_set);
        if (!sig) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, sig);
    }
done:
    Py_XDECREF(empty_args);
    Py_XDECREF(empty_set);
    return out;
}
