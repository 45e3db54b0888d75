/*
 * Δ of two parsed flows in one call from their JSON values (companion_delta(): the
 * REFERENCE_PYTHON weights, "or" adjacency and the clique search of mcsplit_clique.c), and
 * companion_hash_mask().
 */
#include "kernels.h"

/* ---- the companion profile's Δ of two parsed flows, in one call ---------------------------- *
 *
 * companion_delta(value1, value2, ignored, check_signals) is divergence.score(flow_from_value(
 * value1), flow_from_value(value2), ScoreOptions(profile="companion")).delta: the same vertices
 * (the first node dict of each string id), signatures (similarity.signature), edges (ports merged,
 * dangling and non-string targets dropped), weights, clique search and Δ, with no Flow, Prepared or
 * report built. None when the value is not one of the plain shapes (a list, or a dict holding
 * "flow" or "flows" as a list, or one node dict), when a weight total reaches 2^62 or when
 * GINDEX_PURE_PYTHON asks for the Python searches: the caller takes the general way, which also
 * gives the errors.
 *
 * No Python object is built: three blocks (kept from call to call) hold small open-addressing
 * tables that intern the keys, the node ids and the types (str hash, then identity or str
 * equality), per vertex its compared keys as (key id, raw value), the weights, the wires and the
 * clique search's arrays; a same-type pair costs one array read per key of the generated node. Raw values are compared with Python == (RichCompareBool, identity
 * first, when self_equal; else `v == u_value`). For exact JSON types at every depth (dict with str
 * keys, list, str, int, float, bool, None) that is == on canonical_python's values: dict ==
 * compares key by key, identity first, as membership in the frozenset of items does (hashes agree
 * with ==), list == item by item, identity first, as the tuple does. Anything else (a subclass, a
 * tuple, a non-str key, id or ignored key, nesting deeper than CJ_DEPTH) gives None as well.
 */

#define CJ_DEPTH 64
#define CJ_IGNORED (-1) /* key table: a key never compared */
enum { CJ_PLAIN_KEY, CJ_ID, CJ_TYPE, CJ_WIRES };

/* every hash is and-ed with this; tests narrow it to make different keys' hashes equal
 * (companion_hash_mask) */
static Py_hash_t cj_hash_mask = -1;

typedef struct {
    PyObject *key; /* a borrowed exact str; NULL: an empty slot */
    Py_hash_t hash;
    int32_t val;  /* key id (or CJ_IGNORED), vertex, or type id */
    int32_t role; /* key table: CJ_ID, CJ_TYPE, CJ_WIRES or CJ_PLAIN_KEY */
} CSlot;

typedef struct {
    CSlot *s;
    size_t mask;  /* capacity - 1; the capacity is a power of two at least twice what is put in */
    size_t n;     /* the key table: slots in use (it grows past half full) */
    CSlot *grown; /* the key table: its slots once grown out of the call's block (malloc) */
} CTab;

static size_t cj_cap(size_t n)
{
    size_t c = 8;
    while (c < 2 * n)
        c <<= 1;
    return c;
}

/* the masked hash of an exact str (the one it caches once computed); -1: an error */
static inline Py_hash_t cj_hash(PyObject *s)
{
    Py_hash_t h = ((PyASCIIObject *)s)->hash;
    if (h == -1 && (h = PyObject_Hash(s)) == -1)
        return -1;
    return h & cj_hash_mask;
}

/* two exact str of equal hash are equal */
static int cj_str_eq(PyObject *a, PyObject *b)
{
#if PY_VERSION_HEX < 0x030C0000 /* (every str is ready from 3.12 on) */
    if (!PyUnicode_IS_READY(a) || !PyUnicode_IS_READY(b))
        return PyUnicode_Compare(a, b) == 0;
#endif
    const Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    const int kind = PyUnicode_KIND(a);
    return n == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * kind) == 0;
}

/* the slot of key (an exact str, masked hash h) in t: its own, or the empty one where it goes. A
 * slot found by equality takes key as its object: the next lookups of this object (JSON keys are
 * one object per document) stop at the identity test. */
static inline CSlot *ctab_slot(const CTab *t, PyObject *key, Py_hash_t h)
{
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        CSlot *s = t->s + i;
        if (!s->key || s->key == key)
            return s;
        if (s->hash == h && cj_str_eq(s->key, key)) {
            s->key = key; /* equal strs: either stands for the slot for the rest of the call */
            return s;
        }
    }
}

/* one more slot of the key table in use: past half full, its slots move to a table 4 times as
 * large (the keys of a flow are few and repeated: the table starts small); -1: no memory */
static int ctab_grow(CTab *t)
{
    if (++t->n * 2 <= t->mask + 1)
        return 0;
    const size_t cap = (t->mask + 1) * 4;
    CSlot *g = calloc(cap, sizeof(CSlot));
    if (!g) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->s[i].key)
            continue;
        size_t j = (size_t)t->s[i].hash & (cap - 1);
        while (g[j].key) /* the keys are distinct: the first empty slot */
            j = (j + 1) & (cap - 1);
        g[j] = t->s[i];
    }
    free(t->grown);
    t->s = t->grown = g;
    t->mask = cap - 1;
    return 0;
}

/* 1: v is an exact JSON value at every depth (see above), 0: not */
static int cj_plain(PyObject *v, int depth)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type || v == Py_None)
        return 1;
    if (depth >= CJ_DEPTH)
        return 0;
    if (t == &PyList_Type) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++)
            if (!cj_plain(PyList_GET_ITEM(v, i), depth + 1))
                return 0;
        return 1;
    }
    if (t == &PyDict_Type) {
        PyObject *k, *x;
        Py_ssize_t pos = 0;
        while (PyDict_Next(v, &pos, &k, &x))
            if (!PyUnicode_CheckExact(k) || !cj_plain(x, depth + 1))
                return 0;
        return 1;
    }
    return 0;
}

/* the keys every call's key table starts with: the ignored ones and "id", "type", "wires" (kept
 * for the last ignored set seen, which is held) */
typedef struct {
    PyObject *key;
    Py_hash_t hash; /* unmasked */
    int ignored, role;
} CjFixed;

static PyObject *cj_fixed_set;
static CjFixed *cj_fixed_e;
static int cj_nfixed;

/* 1, 0 (an ignored key that is not an exact str: the general way), -1 (an error) */
static int cj_fixed(PyObject *ignored)
{
    if (ignored == cj_fixed_set)
        return 1;
    const Py_ssize_t n = PySet_GET_SIZE(ignored);
    if (n > (1 << 20))
        return 0;
    CjFixed *e = malloc(((size_t)n + 4) * sizeof(CjFixed));
    PyObject *it = e ? PyObject_GetIter(ignored) : NULL, *k;
    if (!it) {
        if (!e)
            PyErr_NoMemory();
        free(e);
        return -1;
    }
    int m = 0, plain = 1;
    while (plain && (k = PyIter_Next(it))) {
        Py_hash_t h = -1;
        plain = PyUnicode_CheckExact(k) && m < n; /* a frozenset does not change: m < n always */
        if (plain && (h = PyObject_Hash(k)) == -1) {
            Py_DECREF(k);
            break;
        }
        e[m] = (CjFixed){k, h, 1, CJ_PLAIN_KEY}; /* borrowed: the set, held below, holds it */
        m += plain;
        Py_DECREF(k);
    }
    Py_DECREF(it);
    if (PyErr_Occurred() || !plain) {
        free(e);
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *roles[3] = {_str_id, _str_type, _str_wires};
    for (int r = 0; r < 3; r++) {
        int i = 0;
        while (i < m && PyUnicode_Compare(e[i].key, roles[r]) != 0)
            i++;
        if (i == m) {
            Py_hash_t h = PyObject_Hash(roles[r]);
            if (h == -1) {
                free(e);
                return -1;
            }
            e[m++] = (CjFixed){roles[r], h, 0, CJ_PLAIN_KEY};
        }
        e[i].role = CJ_ID + r;
    }
    Py_INCREF(ignored);
    Py_XSETREF(cj_fixed_set, ignored);
    free(cj_fixed_e);
    cj_fixed_e = e;
    cj_nfixed = m;
    return 1;
}

/* The call's three blocks are kept from call to call (a block malloc hands back after other work is
 * out of the cache, and calloc zeroes more than is needed): one call at a time uses them
 * (cj_keep_busy, changed with the GIL held); a call meanwhile, or a block over CJ_KEEP_MAX bytes,
 * takes calloc and free. */
#define CJ_KEEP_MAX ((size_t)1 << 20)
static struct {
    char *p;
    size_t cap;
} cj_keep[3];
static int cj_keep_busy;

/* n bytes for block i, the first nzero of them zeroed; NULL: no memory (set) */
static char *cj_block(int i, size_t n, size_t nzero, int own)
{
    if (!own || n > CJ_KEEP_MAX) {
        char *p = calloc(1, n);
        if (!p)
            PyErr_NoMemory();
        return p;
    }
    if (cj_keep[i].cap < n) {
        size_t cap = n < 4096 ? 4096 : n;
        char *p = malloc(cap);
        if (!p) {
            PyErr_NoMemory();
            return NULL;
        }
        free(cj_keep[i].p);
        cj_keep[i].p = p;
        cj_keep[i].cap = cap;
    }
    memset(cj_keep[i].p, 0, nzero);
    return cj_keep[i].p;
}

static void cj_unblock(int i, char *p)
{
    if (p != cj_keep[i].p)
        free(p);
}

/* one flow of the call */
typedef struct {
    PyObject **items; /* its entries (borrowed) */
    PyObject *one[1]; /* the entry of a single node object */
    Py_ssize_t count, nkeys; /* entries, and the keys of those that are dicts */
    int n;                   /* vertices */
    CTab ids;                /* node id -> vertex */
    PyObject **wires;        /* per vertex its "wires" value (borrowed) or NULL */
    int32_t *type;           /* per vertex its type id (-1: a type no reference vertex has) */
    int32_t *k0;             /* vertex u's compared keys: kid[k0[u] .. k0[u + 1]), values val[..] */
    int32_t *kid;
    PyObject **val;
    int32_t *nnone; /* how many of u's compared values are null */
    char *se;       /* self_equal: no compared value is a float NaN */
    word *out, *in; /* n * W words each */
} CFlow;

/* the entries of a parsed flow and how many keys they hold: 1, 0 (not a plain shape), -1 (error) */
static int cflow_shape(CFlow *f, PyObject *value)
{
    PyObject *arr = NULL;
    if (PyList_CheckExact(value))
        arr = value;
    else if (PyDict_CheckExact(value)) {
        PyObject *x = PyDict_GetItemWithError(value, _str_flow);
        if (!x && PyErr_Occurred())
            return -1;
        if (!x || !PyList_Check(x)) {
            x = PyDict_GetItemWithError(value, _str_flows);
            if (!x && PyErr_Occurred())
                return -1;
        }
        if (x && PyList_CheckExact(x))
            arr = x;
        else if (x && PyList_Check(x))
            return 0;
    } else
        return 0;
    if (arr) {
        f->items = PySequence_Fast_ITEMS(arr);
        f->count = PyList_GET_SIZE(arr);
    } else { /* a single node object (with a string id and type), else not a flow: the caller says so */
        PyObject *i = PyDict_GetItemWithError(value, _str_id), *t = i ? PyDict_GetItemWithError(value, _str_type) : NULL;
        if (PyErr_Occurred())
            return -1;
        if (!i || !t || !PyUnicode_Check(i) || !PyUnicode_Check(t))
            return 0;
        f->one[0] = value;
        f->items = f->one;
        f->count = 1;
    }
    if (f->count > (1 << 20))
        return 0;
    f->nkeys = 0;
    for (Py_ssize_t k = 0; k < f->count; k++)
        if (PyDict_Check(f->items[k]))
            f->nkeys += PyDict_GET_SIZE(f->items[k]);
    return 1;
}

/* f's id table in the first block (zeroed) */
static void cflow_layout_ids(CFlow *f, Bump *b)
{
    f->ids.mask = cj_cap((size_t)f->count) - 1;
    f->ids.s = bump(b, (f->ids.mask + 1) * sizeof(CSlot));
}

/* f's arrays of the first block (written before read) */
static void cflow_layout(CFlow *f, Bump *b)
{
    const size_t c = (size_t)f->count + 1, k = (size_t)f->nkeys + 1;
    f->wires = bump(b, c * sizeof(PyObject *));
    f->type = bump(b, c * sizeof(int32_t));
    f->k0 = bump(b, c * sizeof(int32_t));
    f->nnone = bump(b, c * sizeof(int32_t));
    f->se = bump(b, c);
    f->kid = bump(b, k * sizeof(int32_t));
    f->val = bump(b, k * sizeof(PyObject *));
}

/* f's vertices, their ids, types and compared (key id, value)s. ref: the reference flow (its new
 * keys and types get ids); the generated flow keeps only the keys and types the reference has.
 * 1, 0 (take the general way), -1 (error) */
static int cflow_read(CFlow *f, CTab *keys, int32_t *nextkey, CTab *types, int32_t *ntypes, int ref)
{
    int32_t at = 0; /* the next key slot */
    for (Py_ssize_t k = 0; k < f->count; k++) {
        PyObject *d = f->items[k], *id = NULL, *type = NULL, *wires = NULL, *key, *v;
        if (!PyDict_Check(d))
            continue; /* an invalid entry: never scored */
        if (!PyDict_CheckExact(d))
            return 0;
        const int32_t start = at;
        int32_t nnone = 0;
        char se = 1;
        Py_ssize_t pos = 0;
        while (PyDict_Next(d, &pos, &key, &v)) {
            if (!PyUnicode_CheckExact(key))
                return 0;
            Py_hash_t h = cj_hash(key);
            CSlot *s = h == -1 ? NULL : ctab_slot(keys, key, h);
            if (!s)
                return -1;
            int32_t kv, role;
            if (s->key) {
                kv = s->val;
                role = s->role;
            } else { /* a key met first here */
                if (!ref) {    /* no reference vertex has it: never compared */
                    if (!cj_plain(v, 0))
                        return 0;
                    continue;
                }
                kv = (*nextkey)++;
                role = CJ_PLAIN_KEY;
                *s = (CSlot){key, h, kv, role};
                if (ctab_grow(keys) < 0)
                    return -1;
            }
            if (role == CJ_ID)
                id = v;
            else if (role == CJ_TYPE)
                type = v;
            else if (role == CJ_WIRES)
                wires = v;
            if (kv == CJ_IGNORED)
                continue;
            if (!cj_plain(v, 0))
                return 0;
            f->kid[at] = kv;
            f->val[at] = v;
            at++;
            if (v == Py_None)
                nnone++;
            else if (PyFloat_CheckExact(v) && PyFloat_AS_DOUBLE(v) != PyFloat_AS_DOUBLE(v))
                se = 0; /* a NaN: v == v is False */
        }
        if (!id || !type || !PyUnicode_Check(id) || !PyUnicode_Check(type)) {
            at = start;
            continue;
        }
        if (!PyUnicode_CheckExact(id) || !PyUnicode_CheckExact(type))
            return 0;
        Py_hash_t hi = cj_hash(id), ht = hi == -1 ? -1 : cj_hash(type);
        CSlot *si = ht == -1 ? NULL : ctab_slot(&f->ids, id, hi);
        if (!si)
            return -1;
        if (si->key) { /* a duplicated id: the first node is the vertex */
            at = start;
            continue;
        }
        CSlot *st = ctab_slot(types, type, ht);
        if (!st)
            return -1;
        const int u = f->n++;
        si->key = id;
        si->hash = hi;
        si->val = u;
        if (!st->key && ref) {
            st->key = type;
            st->hash = ht;
            st->val = (*ntypes)++;
        }
        f->type[u] = st->key ? st->val : -1;
        f->wires[u] = wires;
        f->k0[u] = start;
        f->nnone[u] = nnone;
        f->se[u] = se;
    }
    f->k0[f->n] = at;
    return 1;
}

/* the wires of f's vertices as out / in bitsets (W words each, zeroed; ports merged, as prepare
 * without port_aware): a list of lists is a list of ports, another list one port; non-string and
 * dangling targets are dropped. 1, 0 (a str subclass target: the general way), -1 (error) */
static int cflow_wire(CFlow *f, int W)
{
    for (int k = 0; k < f->n; k++) {
        PyObject *wires = f->wires[k];
        if (!wires || !PyList_Check(wires) || PyList_GET_SIZE(wires) == 0)
            continue;
        int nested = 1;
        for (Py_ssize_t p = 0; p < PyList_GET_SIZE(wires) && nested; p++)
            nested = PyList_Check(PyList_GET_ITEM(wires, p));
        Py_ssize_t nports = nested ? PyList_GET_SIZE(wires) : 1;
        for (Py_ssize_t p = 0; p < nports; p++) {
            PyObject *port = nested ? PyList_GET_ITEM(wires, p) : wires;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(port); i++) {
                PyObject *t = PyList_GET_ITEM(port, i);
                if (!PyUnicode_Check(t))
                    continue;
                if (!PyUnicode_CheckExact(t))
                    return 0;
                Py_hash_t h = cj_hash(t);
                CSlot *s = h == -1 ? NULL : ctab_slot(&f->ids, t, h);
                if (!s)
                    return -1;
                if (!s->key)
                    continue;
                const int j = s->val;
                f->out[(size_t)W * k + (j >> 6)] |= (word)1 << (j & 63);
                f->in[(size_t)W * j + (k >> 6)] |= (word)1 << (k & 63);
            }
        }
    }
    return 1;
}

/* read_graph's CSR of f: per vertex the key 0 (out) and IN_KEY (in) when it has such edges */
static void cflow_csr(const CFlow *f, int W, int32_t *starts, int64_t *keys, word *masks)
{
    int k = 0;
    for (int u = 0; u < f->n; u++) {
        starts[u] = k;
        for (int dir = 0; dir < 2; dir++) {
            const word *m = (dir ? f->in : f->out) + (size_t)W * u;
            if (is_empty(m, W))
                continue;
            keys[k] = dir ? IN_KEY : 0;
            memcpy(masks + (size_t)W * k, m, W * sizeof(word));
            k++;
        }
    }
    starts[f->n] = k;
}

static inline int cmp_assoc(const void *a, const void *b)
{
    const long long *x = a, *y = b; /* (w, u, v, type): w descending, then (u, v) */
    if (x[0] != y[0])
        return x[0] > y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] < y[1] ? -1 : 1;
    return (x[2] > y[2]) - (x[2] < y[2]);
}

/* u's compared value a against v's b: 1 equal, 0 not, -1 error (companion_count's rule) */
static inline int cj_equal(PyObject *a, PyObject *b, int self_equal)
{
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b)) { /* == of two str: their characters */
        const Py_hash_t ha = ((PyASCIIObject *)a)->hash, hb = ((PyASCIIObject *)b)->hash;
        return a == b || ((ha == -1 || hb == -1 || ha == hb) && cj_str_eq(a, b));
    }
    if (self_equal) /* |a.items ∩ b.items|: identity first, as set membership */
        return PyObject_RichCompareBool(a, b, Py_EQ);
    PyObject *res = PyObject_RichCompare(b, a, Py_EQ); /* b.values.get(k) == v */
    if (!res)
        return -1;
    int r = PyObject_IsTrue(res);
    Py_DECREF(res);
    return r;
}

/* Δ = 1 − S²/(n1·n2), S = best / scale, by integer true division (divergence._delta_of): in
 * doubles when both sides are below 2^53 (exact, and one correctly rounded division, as Python's
 * int / int then does), else with Python ints */
static PyObject *cj_delta(long long best, long long scale, long long nn)
{
    long long g = gcd_ll(best, scale);
    if (g == 0)
        g = 1;
    const long long num = best / g, den = scale / g, two53 = (long long)1 << 53;
    if (den < ((long long)1 << 27) && num < ((long long)1 << 27) && den * den <= (two53 - 1) / nn) {
        const long long tot = den * den * nn;
        return PyFloat_FromDouble((double)(tot - num * num) / (double)tot);
    }
    PyObject *result = NULL;
    PyObject *pn = PyLong_FromLongLong(num), *pd = PyLong_FromLongLong(den), *pnn = PyLong_FromLongLong(nn);
    PyObject *d2 = pd ? PyNumber_Multiply(pd, pd) : NULL;
    PyObject *tot = d2 && pnn ? PyNumber_Multiply(d2, pnn) : NULL;
    PyObject *sq = pn ? PyNumber_Multiply(pn, pn) : NULL;
    PyObject *diff = tot && sq ? PyNumber_Subtract(tot, sq) : NULL;
    result = diff ? PyNumber_TrueDivide(diff, tot) : NULL;
    Py_XDECREF(pn);
    Py_XDECREF(pd);
    Py_XDECREF(pnn);
    Py_XDECREF(d2);
    Py_XDECREF(tot);
    Py_XDECREF(sq);
    Py_XDECREF(diff);
    return result;
}

/* GINDEX_PURE_PYTHON is set and not "0" (os.environ writes reach the C environment; getenv costs
 * far less than os.environ.get) */
int pure_python_env(void)
{
    const char *pure = getenv("GINDEX_PURE_PYTHON");
    return pure && pure[0] && strcmp(pure, "0") != 0;
}

PyObject *companion_delta_of(PyObject *value1, PyObject *value2, PyObject *ignored, int check_signals)
{
    if (pure_python_env()) /* the Python searches are asked for (matching.native_search_available) */
        Py_RETURN_NONE;
    CFlow f1, f2;
    memset(&f1, 0, sizeof(CFlow));
    memset(&f2, 0, sizeof(CFlow));
    PyObject *result = NULL;
    char *block1 = NULL, *block2 = NULL, *block3 = NULL;
    const int own = !cj_keep_busy;
    cj_keep_busy = 1;
    CTab keys, types; /* keys: the keys met (a small table that grows), types: the reference's */
    memset(&keys, 0, sizeof(CTab));
    memset(&types, 0, sizeof(CTab));
    Clq clq;
    Clq *q = &clq;
    memset(q, 0, sizeof(Clq));
    int r = cflow_shape(&f1, value1);
    if (r > 0)
        r = cflow_shape(&f2, value2);
    if (r > 0)
        r = cj_fixed(ignored);
    if (r <= 0)
        goto bail;
    /* the first block: both flows' arrays and id tables, the key and type tables */
    keys.mask = cj_cap((size_t)cj_nfixed + (size_t)(f1.nkeys < 48 ? f1.nkeys : 48)) - 1;
    types.mask = cj_cap((size_t)f1.count) - 1;
    int32_t *tcount = NULL;
    for (Bump b = {NULL, 0};; b.off = 0) { /* what must be zero first */
        cflow_layout_ids(&f1, &b);
        cflow_layout_ids(&f2, &b);
        keys.s = bump(&b, (keys.mask + 1) * sizeof(CSlot));
        types.s = bump(&b, (types.mask + 1) * sizeof(CSlot));
        tcount = bump(&b, ((size_t)f1.count + 2) * sizeof(int32_t));
        const size_t zeroed = b.off;
        cflow_layout(&f1, &b);
        cflow_layout(&f2, &b);
        if (b.base)
            break;
        if (!(b.base = block1 = cj_block(0, b.off, zeroed, own)))
            goto done;
    }
    int32_t nextkey = 0, ntypes = 0;
    for (int i = 0; i < cj_nfixed; i++) {
        const CjFixed *e = cj_fixed_e + i;
        CSlot *s = ctab_slot(&keys, e->key, e->hash & cj_hash_mask);
        if (!s)
            goto done;
        *s = (CSlot){e->key, e->hash & cj_hash_mask, e->ignored ? CJ_IGNORED : nextkey++, e->role};
        if (ctab_grow(&keys) < 0)
            goto done;
    }
    r = cflow_read(&f1, &keys, &nextkey, &types, &ntypes, 1);
    if (r > 0)
        r = cflow_read(&f2, &keys, &nextkey, &types, &ntypes, 0);
    if (r <= 0)
        goto bail;
    const int n1 = f1.n, n2 = f2.n;
    if (n1 == 0 || n2 == 0) {
        result = PyFloat_FromDouble(1.0);
        goto done;
    }
    if ((long long)n1 * n2 > (1LL << 22)) /* large flows: the general way (no n1·n2 table here) */
        goto bail;
    /* the generated vertices by type (gstart / gv), and how many same-type pairs there are */
    for (int v = 0; v < n2; v++)
        if (f2.type[v] >= 0)
            tcount[f2.type[v] + 1]++;
    long long npairs = 0;
    for (int u = 0; u < n1; u++)
        npairs += tcount[f1.type[u] + 1];
    const int nmax = n1 > n2 ? n1 : n2;
    const int W = nmax > 64 ? (nmax + 63) / 64 : 1;
    /* the second block: the pairs, the key lookup of a reference vertex, the wires and their CSR */
    int32_t *gstart = NULL, *gv = NULL, *slot = NULL, *s1 = NULL, *s2 = NULL;
    long long *rows = NULL, *dens = NULL;
    int64_t *k1 = NULL, *k2 = NULL;
    word *m1 = NULL, *m2 = NULL;
    for (Bump b = {NULL, 0};; b.off = 0) { /* what must be zero first */
        gstart = bump(&b, ((size_t)ntypes + 2) * sizeof(int32_t));
        f1.out = bump(&b, ((size_t)n1 + 1) * W * sizeof(word));
        f1.in = bump(&b, ((size_t)n1 + 1) * W * sizeof(word));
        f2.out = bump(&b, ((size_t)n2 + 1) * W * sizeof(word));
        f2.in = bump(&b, ((size_t)n2 + 1) * W * sizeof(word));
        const size_t zeroed = b.off;
        gv = bump(&b, ((size_t)n2 + 1) * sizeof(int32_t));
        slot = bump(&b, ((size_t)nextkey + 1) * sizeof(int32_t));
        rows = bump(&b, ((size_t)npairs + 1) * 4 * sizeof(long long));
        dens = bump(&b, ((size_t)npairs + 1) * sizeof(long long));
        s1 = bump(&b, ((size_t)n1 + 1) * sizeof(int32_t));
        s2 = bump(&b, ((size_t)n2 + 1) * sizeof(int32_t));
        k1 = bump(&b, ((size_t)n1 * 2 + 1) * sizeof(int64_t));
        k2 = bump(&b, ((size_t)n2 * 2 + 1) * sizeof(int64_t));
        m1 = bump(&b, ((size_t)n1 * 2 + 1) * W * sizeof(word));
        m2 = bump(&b, ((size_t)n2 * 2 + 1) * W * sizeof(word));
        if (b.base)
            break;
        if (!(b.base = block2 = cj_block(1, b.off, zeroed, own)))
            goto done;
    }
    for (int t = 0; t < ntypes; t++)
        gstart[t + 1] = gstart[t] + tcount[t + 1];
    for (int v = 0; v < n2; v++)
        if (f2.type[v] >= 0)
            gv[gstart[f2.type[v]]++] = v;
    for (int t = ntypes; t > 0; t--) /* back to the starts */
        gstart[t] = gstart[t - 1];
    gstart[0] = 0;
    for (int32_t k = 0; k < nextkey; k++)
        slot[k] = -1;
    /* the weights (matching._weights, companion) as (w, u, v, type of u), then scaled by the lcm:
     * w(u, v) = |{k in keys(u): u[k] == v.get(k)}| / |keys(u)|, 1 when u has no compared key */
    Py_ssize_t nv = 0;
    long long scale = 1;
    int overflow = 0;
    for (int u = 0; u < n1; u++) {
        const int t = f1.type[u], a0 = f1.k0[u], a1 = f1.k0[u + 1], se = f1.se[u];
        const long long den = a1 - a0;
        if (gstart[t] == gstart[t + 1])
            continue;
        for (int j = a0; j < a1; j++)
            slot[f1.kid[j]] = j;
        for (int g = gstart[t]; g < gstart[t + 1]; g++) {
            const int v = gv[g];
            long long num = f1.nnone[u]; /* a null that v lacks is equal; the shared keys below */
            for (int j = f2.k0[v]; den && j < f2.k0[v + 1]; j++) {
                const int i = slot[f2.kid[j]];
                if (i < 0)
                    continue;
                PyObject *a = f1.val[i];
                int eq = cj_equal(a, f2.val[j], se);
                if (eq < 0)
                    goto done;
                num += eq - (a == Py_None);
            }
            if (!den)
                num = 0;
            else if (num == 0)
                continue;
            rows[4 * nv] = num;
            rows[4 * nv + 1] = u;
            rows[4 * nv + 2] = v;
            rows[4 * nv + 3] = t;
            dens[nv] = den;
            nv++;
            if (den && !overflow)
                overflow = lcm_into(&scale, den);
        }
        for (int j = a0; j < a1; j++)
            slot[f1.kid[j]] = -1;
    }
    long long total = 0;
    for (Py_ssize_t i = 0; i < nv && !overflow; i++) {
        long long x = dens[i] ? rows[4 * i] * (scale / dens[i]) : scale;
        if (x >= (((long long)1 << 62) - total))
            overflow = 1;
        else {
            rows[4 * i] = x;
            total += x;
        }
    }
    if (overflow || nv > (1 << 20))
        goto bail;
    if (nv <= 64) /* (few rows: without qsort's calls) */
        for (Py_ssize_t i = 1; i < nv; i++) {
            long long row[4], *x = rows + 4 * i;
            memcpy(row, x, sizeof(row));
            for (; x > rows && cmp_assoc(x - 4, row) > 0; x -= 4)
                memcpy(x, x - 4, sizeof(row));
            memcpy(x, row, sizeof(row));
        }
    else
        qsort(rows, (size_t)nv, 4 * sizeof(long long), cmp_assoc);
    r = cflow_wire(&f1, W);
    if (r > 0)
        r = cflow_wire(&f2, W);
    if (r <= 0)
        goto bail;
    cflow_csr(&f1, W, s1, k1, m1);
    cflow_csr(&f2, W, s2, k2, m2);
    {
        Bump b = {NULL, 0};
        clique_carve(q, n1, n2, (int)nv, &b);
        if (!(b.base = block3 = cj_block(2, b.off, q->zeroed, own)))
            goto done;
        b.off = 0;
        clique_carve(q, n1, n2, (int)nv, &b);
    }
    int32_t *tmap = tcount; /* reused: type ids by first occurrence in this order (_type_ids) */
    for (int t = 0; t < ntypes; t++)
        tmap[t] = -1;
    for (Py_ssize_t i = 0; i < nv; i++) {
        int t = (int)rows[4 * i + 3];
        if (tmap[t] < 0)
            tmap[t] = q->ntypes++;
        q->vu[i] = (int32_t)rows[4 * i + 1];
        q->vv[i] = (int32_t)rows[4 * i + 2];
        q->vt[i] = tmap[t];
        q->wt[i] = (int64_t)rows[4 * i];
    }
    if (clique_prepare(q, s1, k1, m1, s2, k2, m2, W) < 0) {
        PyErr_SetString(PyExc_SystemError, "companion_delta: more types than association vertices");
        goto done;
    }
    PyStop ps;
    if (pystop_init(&ps, Py_None, check_signals, 0) < 0)
        goto done;
    q->stop = &ps.stop;
    int64_t upper;
    if (clique_run(q, -1, &upper)) { /* no deadline and no cancel: a signal handler's exception, or no memory */
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    result = cj_delta(q->best > 0 ? q->best : 0, scale, (long long)n1 * n2);
    goto done;
bail:
    if (r >= 0)
        result = Py_NewRef(Py_None);
done:
    cj_unblock(0, block1);
    cj_unblock(1, block2);
    cj_unblock(2, block3);
    if (own)
        cj_keep_busy = 0;
    free(keys.grown);
    return result;
}

/* companion_hash_mask(mask) -> the previous mask (tests: every hash companion_delta uses is
 * and-ed with it; 0 makes all keys, ids and types collide) */
long long companion_hash_mask_set(long long mask)
{
    Py_hash_t old = cj_hash_mask;
    cj_hash_mask = (Py_hash_t)mask;
    return (long long)old;
}
