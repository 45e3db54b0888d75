/*
 * Native searches of gindex_studio.core.scoring.matching: the weighted McSplit search (paper profile) and
 * the maximum-weight clique search (companion profile).
 *
 * The algorithm is the one of matching._McSplit (the reference implementation, after McCreesh,
 * Prosser & Trimble, IJCAI 2017, extended to weights), step for step: the same label classes in
 * the same order, the same branching, bound and pruning, so the search tree, the node count, S
 * and the proven upper bound are those of the Python search. Vertex sets are arrays of W 64-bit
 * words; weights are the integer-scaled weights (the caller guarantees their total < 2^62).
 *
 * search(out1, in1, out2, in2, w, gid1, gid2, floor, remaining, check_signals[, cancel[, node_limit]])
 *   out/in: Graph.adj_out / adj_in; w: {(u, v): integer weight}; gid: group id per vertex
 *   floor: the search must beat it strictly; remaining: seconds left (None: no deadline)
 *   cancel: None, a buffer of at least one byte (non-zero: stop), or an object with is_set()
 *   node_limit: > 0: the search stops as at a deadline when it would visit node node_limit + 1
 * returns (best, pairs or None, upper, exact, nodes), as matching._McSplit.run.
 *
 * clique_search(...) is the companion profile's search (matching._CliqueSearch), in mcsplit_clique.c.
 *
 * The GIL is released while searching. With check_signals, the GIL is taken back every 2^18
 * nodes and at least every 50 ms to run signal handlers (Ctrl-C interrupts a long search with KeyboardInterrupt). A
 * cancel buffer is read without the GIL every 128 nodes, next to the deadline (matching.CancelToken
 * owns such a byte); a cancel object with is_set() is polled with the GIL every 4096 nodes. A
 * cancelled search returns as a deadline-cut one does (best found, not exact, proven bound).
 */
#include "_mcsplit.h"

/* ---- sums of the k largest weights ------------------------------------------------------- */

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

static int64_t sum_all(const int64_t *xs, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += xs[i];
    return s;
}

/* sum of the k largest of xs[0..n) (0 < k < n); reorders xs */
static int64_t sum_top(int64_t *xs, int n, int k)
{
    if (n <= 24) {
        for (int i = 1; i < n; i++) {
            int64_t x = xs[i];
            int j = i - 1;
            while (j >= 0 && xs[j] < x) {
                xs[j + 1] = xs[j];
                j--;
            }
            xs[j + 1] = x;
        }
    } else {
        qsort(xs, (size_t)n, sizeof(int64_t), cmp_desc);
    }
    return sum_all(xs, k);
}

/* ---- classes ------------------------------------------------------------------------------ */

/* Reduce the class (L, R) in place: drop vertices without a partner on the other side; its bound
 * is the smaller of the sums of the k = min(|L|, |R|) best weights of each side. 0: empty. */
static int reduce_class(Ctx *c, word *L, word *R, int64_t *bound, int32_t *size)
{
    const int W = c->W;
    int nl = 0, nr = 0;
    for (int i = 0; i < W; i++) {
        word x = L[i];
        while (x) {
            int b = ctz64(x);
            int u = i * 64 + b;
            x &= x - 1;
            int found = 0;
            for (int k = c->l1s[u]; k < c->l1s[u + 1]; k++) {
                if (intersects(c->l1m + (size_t)W * k, R, W)) {
                    c->sbl[nl++] = c->l1w[k];
                    found = 1;
                    break;
                }
            }
            if (!found)
                L[i] &= ~((word)1 << b);
        }
    }
    if (!nl)
        return 0;
    for (int i = 0; i < W; i++) {
        word x = R[i];
        while (x) {
            int b = ctz64(x);
            int v = i * 64 + b;
            x &= x - 1;
            int found = 0;
            for (int k = c->l2s[v]; k < c->l2s[v + 1]; k++) {
                if (intersects(c->l2m + (size_t)W * k, L, W)) {
                    c->sbr[nr++] = c->l2w[k];
                    found = 1;
                    break;
                }
            }
            if (!found)
                R[i] &= ~((word)1 << b);
        }
    }
    int64_t a, b;
    if (nl <= nr) {
        a = sum_all(c->sbl, nl);
        b = nr > nl ? sum_top(c->sbr, nr, nl) : sum_all(c->sbr, nr);
    } else {
        a = sum_top(c->sbl, nl, nr);
        b = sum_all(c->sbr, nr);
    }
    *bound = a < b ? a : b;
    *size = nl > nr ? nl : nr;
    return 1;
}

/* a new slot at the end of lv (grown as needed); its L, R are left to the caller */
static int level_push(Ctx *c, Level *lv)
{
    if (lv->n == lv->cap) {
        int cap = lv->cap ? 2 * lv->cap : 8;
        word *bits = realloc(lv->bits, (size_t)cap * 2 * c->W * sizeof(word));
        if (!bits)
            return -1;
        lv->bits = bits;
        int64_t *bound = realloc(lv->bound, (size_t)cap * sizeof(int64_t));
        if (!bound)
            return -1;
        lv->bound = bound;
        int32_t *size = realloc(lv->size, (size_t)cap * sizeof(int32_t));
        if (!size)
            return -1;
        lv->size = size;
        lv->cap = cap;
    }
    return lv->n++;
}

static inline word *cls_L(Ctx *c, Level *lv, int i) { return lv->bits + (size_t)2 * c->W * i; }
static inline word *cls_R(Ctx *c, Level *lv, int i) { return lv->bits + (size_t)2 * c->W * i + c->W; }

/* append (L, R) reduced to lv when it is a class */
static int push_reduced(Ctx *c, Level *lv, const word *L, const word *R)
{
    const int W = c->W;
    int i = level_push(c, lv);
    if (i < 0)
        return -1;
    word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
    memcpy(l, L, W * sizeof(word));
    memcpy(r, R, W * sizeof(word));
    if (!reduce_class(c, l, r, &lv->bound[i], &lv->size[i]))
        lv->n--;
    return 0;
}

static int push_copy(Ctx *c, Level *lv, Level *from, int j)
{
    int i = level_push(c, lv);
    if (i < 0)
        return -1;
    memcpy(cls_L(c, lv, i), cls_L(c, from, j), 2 * c->W * sizeof(word));
    lv->bound[i] = from->bound[j];
    lv->size[i] = from->size[j];
    return 0;
}

/* split (L, R) by the relations of the new pair (u, v) to it and append the classes to lv */
static int split_into(Ctx *c, Level *lv, const word *L, const word *R, int u, int v)
{
    const int W = c->W, W2 = 2 * c->W;
    word *cur = c->pa, *nxt = c->pb;
    int ncur = 1;
    memcpy(cur, L, W * sizeof(word));
    memcpy(cur + W, R, W * sizeof(word));
    int i = c->a1s[u], ie = c->a1s[u + 1];
    int j = c->a2s[v], je = c->a2s[v + 1];
    while ((i < ie || j < je) && ncur) {
        const word *a = NULL, *b = NULL;
        if (j >= je || (i < ie && c->a1k[i] < c->a2k[j])) {
            a = c->a1m + (size_t)W * i++;
        } else if (i >= ie || c->a2k[j] < c->a1k[i]) {
            b = c->a2m + (size_t)W * j++;
        } else {
            a = c->a1m + (size_t)W * i++;
            b = c->a2m + (size_t)W * j++;
        }
        int nn = 0;
        for (int p = 0; p < ncur; p++) {
            const word *l = cur + (size_t)W2 * p, *r = l + W;
            word *o1 = nxt + (size_t)W2 * nn;
            word any_l = 0, any_r = 0;
            for (int k = 0; k < W; k++) {
                word x = a ? (l[k] & a[k]) : 0, y = b ? (r[k] & b[k]) : 0;
                o1[k] = x;
                o1[W + k] = y;
                any_l |= x;
                any_r |= y;
            }
            if (any_l && any_r)
                nn++;
            word *o0 = nxt + (size_t)W2 * nn;
            any_l = any_r = 0;
            for (int k = 0; k < W; k++) {
                word x = a ? (l[k] & ~a[k]) : l[k], y = b ? (r[k] & ~b[k]) : r[k];
                o0[k] = x;
                o0[W + k] = y;
                any_l |= x;
                any_r |= y;
            }
            if (any_l && any_r)
                nn++;
        }
        word *t = cur;
        cur = nxt;
        nxt = t;
        ncur = nn;
    }
    for (int p = 0; p < ncur; p++) {
        const word *l = cur + (size_t)W2 * p;
        if (push_reduced(c, lv, l, l + W) < 0)
            return -1;
    }
    return 0;
}

/* ---- the search --------------------------------------------------------------------------- */


/* every relation (key) of x and y to the vertices other than x and y is the same */
static int same_relations(const int32_t *as, const int64_t *ak, const word *am, int W, int x, int y)
{
    int i = as[x], ie = as[x + 1], j = as[y], je = as[y + 1];
    while (i < ie || j < je) {
        const word *a = NULL, *b = NULL;
        if (j >= je || (i < ie && ak[i] < ak[j])) {
            a = am + (size_t)W * i++;
        } else if (i >= ie || ak[j] < ak[i]) {
            b = am + (size_t)W * j++;
        } else {
            a = am + (size_t)W * i++;
            b = am + (size_t)W * j++;
        }
        for (int t = 0; t < W; t++) {
            word m = (a ? a[t] : 0) ^ (b ? b[t] : 0);
            if (t == (x >> 6))
                m &= ~((word)1 << (x & 63));
            if (t == (y >> 6))
                m &= ~((word)1 << (y & 63));
            if (m)
                return 0;
        }
    }
    return 1;
}

/* Symmetry (exact): two vertices of one side are interchangeable at a search node when they lie in
 * the same class (the same relation to every matched vertex), have the same weight to every vertex
 * of the other side (rc), are not adjacent, and have the same relations to every vertex still left
 * to match: swapping them maps any completion to one of the same S. Two kinds are used: static
 * twins (tw: the same neighbourhood in the whole graph) and vertices with no neighbour left to
 * match at all. The branch vertex u's partner v is skipped when an interchangeable partner comes
 * before it in u's partner list and is still in R; "leave u unmatched" also leaves unmatched every
 * vertex of L interchangeable with u (a completion matching one matches u instead, by the swap). */
/* x has no neighbour (any relation) among the vertices left to match (rem) other than itself */
static inline int isolated_in(const word *nb, const word *rem, int x, int W)
{
    for (int i = 0; i < W; i++) {
        word m = nb[i] & rem[i];
        if (i == (x >> 6))
            m &= ~((word)1 << (x & 63));
        if (m)
            return 0;
    }
    return 1;
}

static int mirror_of_earlier(Ctx *c, int u, int k, int v, const word *R, const word *rem2)
{
    const int W = c->W;
    const int vfree = isolated_in(c->nb2 + (size_t)W * v, rem2, v, W);
    if (c->tw2[v] == v && !vfree) /* v is the first of its twins: none comes before it */
        return 0;
    for (int k2 = c->p1s[u]; k2 < k; k2++) {
        const int v0 = c->p1[k2].v;
        if (!has_bit(R, v0))
            continue;
        if (c->tw2[v0] == c->tw2[v])
            return 1;
        if (vfree && c->rc2[v0] == c->rc2[v] && isolated_in(c->nb2 + (size_t)W * v0, rem2, v0, W))
            return 1;
    }
    return 0;
}

static int search(Ctx *c, int depth, int64_t cur)
{
    const int W = c->W;
    Level *lv = &c->levels[depth];
    c->nodes++;
    if (c->stop.node_limit && c->nodes > c->stop.node_limit)
        return ABORT_DEADLINE; /* as a deadline: the best found and a proven bound */
    if ((c->nodes & 127) == 0) {
        int rc = poll_stop(&c->stop, c->nodes);
        if (rc)
            return rc;
    }
    if (cur > c->best) {
        c->best = cur;
        c->has_best = 1;
        c->best_len = c->map_len;
        memcpy(c->best_u, c->map_u, c->map_len * sizeof(int32_t));
        memcpy(c->best_v, c->map_v, c->map_len * sizeof(int32_t));
    }
    int64_t sum = 0;
    for (int i = 0; i < lv->n; i++)
        sum += lv->bound[i];
    int64_t bound = cur + sum;
    if (bound <= c->best || lv->n == 0)
        return 0;
    c->frames[c->n_frames++] = bound;
    int ci = 0;
    for (int i = 1; i < lv->n; i++)
        if (lv->size[i] < lv->size[ci])
            ci = i;
    const word *L = cls_L(c, lv, ci), *R = cls_R(c, lv, ci);
    const int u = lowest_bit(L, W);
    const word *nb1 = c->nb1 + (size_t)W * u;
    word *rem1 = c->rem + (size_t)2 * W * depth, *rem2 = rem1 + W; /* what is left to match */
    memset(rem1, 0, (size_t)2 * W * sizeof(word));
    for (int i = 0; i < lv->n; i++) {
        const word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
        for (int x = 0; x < W; x++) {
            rem1[x] |= l[x];
            rem2[x] |= r[x];
        }
    }
    Level *nx = &c->levels[depth + 1];
    word *L2 = c->tmp, *R2 = c->tmp + W;
    const int64_t rest = sum; /* optimistic: the branch class keeps its whole bound */
    for (int k = c->p1s[u]; k < c->p1s[u + 1]; k++) {
        const int v = c->p1[k].v;
        const int64_t wt = c->p1[k].w;
        if (!has_bit(R, v))
            continue;
        if (cur + wt + rest <= c->best)
            continue;
        if (mirror_of_earlier(c, u, k, v, R, rem2))
            continue;
        const word *nb2 = c->nb2 + (size_t)W * v;
        nx->n = 0;
        for (int i = 0; i < lv->n; i++) {
            if (i == ci)
                continue;
            const word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
            int rc;
            if (!intersects(l, nb1, W) && !intersects(r, nb2, W))
                rc = push_copy(c, nx, lv, i);
            else
                rc = split_into(c, nx, l, r, u, v);
            if (rc < 0)
                return ABORT_NOMEM;
        }
        memcpy(L2, L, W * sizeof(word));
        memcpy(R2, R, W * sizeof(word));
        L2[u >> 6] &= ~((word)1 << (u & 63));
        R2[v >> 6] &= ~((word)1 << (v & 63));
        int rc = 0;
        if (!intersects(L2, nb1, W) && !intersects(R2, nb2, W)) {
            if (!is_empty(L2, W) && !is_empty(R2, W))
                rc = push_reduced(c, nx, L2, R2);
        } else {
            rc = split_into(c, nx, L2, R2, u, v);
        }
        if (rc < 0)
            return ABORT_NOMEM;
        c->map_u[c->map_len] = u;
        c->map_v[c->map_len] = v;
        c->map_len++;
        rc = search(c, depth + 1, cur + wt);
        if (rc)
            return rc;
        c->map_len--;
    }
    /* leave u unmatched */
    nx->n = 0;
    for (int i = 0; i < lv->n; i++)
        if (i != ci && push_copy(c, nx, lv, i) < 0)
            return ABORT_NOMEM;
    memcpy(L2, L, W * sizeof(word));
    L2[u >> 6] &= ~((word)1 << (u & 63));
    {
        const int ufree = isolated_in(nb1, rem1, u, W);
        for (int x = 0; x < W; x++) {
            word m = L2[x];
            while (m) {
                const int b = ctz64(m);
                const int i = x * 64 + b;
                m &= m - 1;
                if (c->tw1[i] == c->tw1[u] ||
                    (ufree && c->rc1[i] == c->rc1[u] && isolated_in(c->nb1 + (size_t)W * i, rem1, i, W)))
                    L2[x] &= ~((word)1 << b);
            }
        }
    }
    if (!is_empty(L2, W) && push_reduced(c, nx, L2, R) < 0)
        return ABORT_NOMEM;
    int rc = search(c, depth + 1, cur);
    if (rc)
        return rc;
    c->n_frames--;
    return 0;
}

/* ---- conversion from Python ----------------------------------------------------------------- */

/* the partner lists of x and y (sorted alike) are equal: the same weight to every vertex */
static int same_partners(const int32_t *ps, const Partner *p, int x, int y)
{
    if (ps[x + 1] - ps[x] != ps[y + 1] - ps[y])
        return 0;
    for (int k = 0; k < ps[x + 1] - ps[x]; k++)
        if (p[ps[x] + k].v != p[ps[y] + k].v || p[ps[x] + k].w != p[ps[y] + k].w)
            return 0;
    return 1;
}

/* rc: the first vertex with the same partner list; tw: the first twin (same partner list and
 * group, not adjacent, same relations to every other vertex) */
static void symmetry_side(int n, int W, const int32_t *ps, const Partner *p, const int32_t *as, const int64_t *ak,
                          const word *am, const word *nb, const int32_t *group, int32_t *rc, int32_t *tw)
{
    for (int y = 0; y < n; y++) {
        rc[y] = tw[y] = y;
        for (int x = 0; x < y; x++) {
            if (rc[x] != x || !same_partners(ps, p, x, y))
                continue;
            rc[y] = x;
            break;
        }
        for (int x = 0; x < y; x++) {
            if (tw[x] != x || rc[x] != rc[y] || group[x] != group[y] || has_bit(nb + (size_t)W * x, y) ||
                has_bit(nb + (size_t)W * y, x) || !same_relations(as, ak, am, W, x, y))
                continue;
            tw[y] = x;
            break;
        }
    }
}

static int cmp_partner(const void *a, const void *b)
{
    const Partner *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* the sorted partner lists grouped by weight: per vertex, (weight, set of partners) descending */
static int weight_levels(int n, int W, const int32_t *ps, const Partner *p, int32_t **ls, int64_t **lw, word **lm)
{
    int total = ps[n];
    *ls = malloc(((size_t)n + 1) * sizeof(int32_t));
    *lw = malloc(((size_t)total + 1) * sizeof(int64_t));
    *lm = calloc(((size_t)total + 1) * W, sizeof(word));
    if (!*ls || !*lw || !*lm) {
        PyErr_NoMemory();
        return -1;
    }
    int k = 0;
    for (int u = 0; u < n; u++) {
        (*ls)[u] = k;
        for (int j = ps[u]; j < ps[u + 1]; j++) {
            if (j == ps[u] || p[j].w != p[j - 1].w) {
                (*lw)[k] = p[j].w;
                k++;
            }
            word *m = *lm + (size_t)W * (k - 1);
            m[p[j].v >> 6] |= (word)1 << (p[j].v & 63);
        }
    }
    (*ls)[n] = k;
    return 0;
}

/* weights as triples (u, v, w) into partner lists by descending weight, ties by vertex: p1 over
 * relabelled ref vertices (partners: generated vertices), p2 over generated vertices (partners
 * relabelled); the order of the triples does not matter */
static int partners_from(Ctx *c, const long long *uvw, Py_ssize_t total, const int32_t *pos, const int32_t *pos2)
{
    const int n1 = c->n1, n2 = c->n2;
    c->p1s = calloc((size_t)n1 + 2, sizeof(int32_t));
    c->p2s = calloc((size_t)n2 + 2, sizeof(int32_t));
    c->p1 = malloc((size_t)(total ? total : 1) * sizeof(Partner));
    c->p2 = malloc((size_t)(total ? total : 1) * sizeof(Partner));
    int32_t *f1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *f2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    int rc = -1;
    if (!c->p1s || !c->p2s || !c->p1 || !c->p2 || !f1 || !f2) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t t = 0; t < total; t++) {
        c->p1s[pos[uvw[3 * t]] + 1]++;
        c->p2s[pos2[uvw[3 * t + 1]] + 1]++;
    }
    for (int i = 0; i < n1; i++)
        c->p1s[i + 1] += c->p1s[i];
    for (int v = 0; v < n2; v++)
        c->p2s[v + 1] += c->p2s[v];
    memcpy(f1, c->p1s, (size_t)n1 * sizeof(int32_t));
    memcpy(f2, c->p2s, (size_t)n2 * sizeof(int32_t));
    for (Py_ssize_t t = 0; t < total; t++) {
        int i = pos[uvw[3 * t]];
        int v = pos2[uvw[3 * t + 1]];
        int64_t wt = (int64_t)uvw[3 * t + 2];
        c->p1[f1[i]++] = (Partner){(int32_t)v, wt};
        c->p2[f2[v]++] = (Partner){(int32_t)i, wt};
    }
    for (int i = 0; i < n1; i++)
        qsort(c->p1 + c->p1s[i], (size_t)(c->p1s[i + 1] - c->p1s[i]), sizeof(Partner), cmp_partner);
    for (int v = 0; v < n2; v++)
        qsort(c->p2 + c->p2s[v], (size_t)(c->p2s[v + 1] - c->p2s[v]), sizeof(Partner), cmp_partner);
    if (weight_levels(n1, c->W, c->p1s, c->p1, &c->l1s, &c->l1w, &c->l1m) < 0 ||
        weight_levels(n2, c->W, c->p2s, c->p2, &c->l2s, &c->l2w, &c->l2m) < 0)
        goto out;
    rc = 0;
out:
    free(f1);
    free(f2);
    return rc;
}

/* w {(u, v): weight} (checked) into triples (u, v, w); *uvw is malloc'ed (free it) */
static int weight_triples(PyObject *w, int n1, int n2, long long **uvw, Py_ssize_t *count)
{
    if (!PyDict_Check(w)) {
        PyErr_SetString(PyExc_TypeError, "weights: dict {(u, v): w} expected");
        return -1;
    }
    Py_ssize_t total = PyDict_GET_SIZE(w), t = 0;
    *uvw = malloc((size_t)(total ? total : 1) * 3 * sizeof(long long));
    if (!*uvw) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *val;
    Py_ssize_t it = 0;
    while (PyDict_Next(w, &it, &key, &val)) {
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
            PyErr_SetString(PyExc_TypeError, "weights: keys (u, v) expected");
            return -1;
        }
        long u = PyLong_AsLong(PyTuple_GET_ITEM(key, 0)), v = PyLong_AsLong(PyTuple_GET_ITEM(key, 1));
        long long wt = PyLong_AsLongLong(val);
        if (PyErr_Occurred())
            return -1;
        if (u < 0 || u >= n1 || v < 0 || v >= n2 || wt < 0 || wt >= ((long long)1 << 62)) {
            PyErr_SetString(PyExc_ValueError, "weights: vertex or weight out of range");
            return -1;
        }
        (*uvw)[3 * t] = u;
        (*uvw)[3 * t + 1] = v;
        (*uvw)[3 * t + 2] = wt;
        t++;
    }
    *count = t;
    return 0;
}

static void free_ctx(Ctx *c)
{
    void *ptrs[] = {c->p1s, c->p2s, c->p1, c->p2, c->l1s, c->l2s, c->l1w, c->l2w, c->l1m, c->l2m, c->a1s, c->a2s, c->a1k, c->a2k, c->a1m, c->a2m,
                    c->nb1, c->nb2, c->best_u, c->best_v, c->map_u, c->map_v, c->frames, c->sbl,
                    c->sbr, c->pa, c->pb, c->tmp, c->rc1, c->rc2, c->tw1, c->tw2, c->rem};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
        free(ptrs[i]);
    if (c->levels) {
        for (int i = 0; i < c->n_levels; i++) {
            free(c->levels[i].bits);
            free(c->levels[i].bound);
            free(c->levels[i].size);
        }
        free(c->levels);
    }
}

PyObject *py_search(PyObject *self, PyObject *args)
{
    PyObject *out1, *in1, *out2, *in2, *w, *gid1_l, *gid2_l, *remaining, *cancel = Py_None;
    long long floor_, node_limit = 0;
    int check_signals;
    if (!PyArg_ParseTuple(args, "OOOOO!O!O!LOp|OL", &out1, &in1, &out2, &in2, &PyDict_Type, &w, &PyList_Type, &gid1_l,
                          &PyList_Type, &gid2_l, &floor_, &remaining, &check_signals, &cancel, &node_limit))
        return NULL;
    Py_ssize_t n1_ = PyList_GET_SIZE(gid1_l), n2_ = PyList_GET_SIZE(gid2_l); /* one group id per vertex */
    if (n1_ > (1 << 26) || n2_ > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "graphs too large");
        return NULL;
    }
    const int n1 = (int)n1_, n2 = (int)n2_;
    PyObject *result = NULL;
    long long *uvw = NULL;
    Py_ssize_t n_uvw = 0;
    int32_t *gid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *gid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    if (!gid1 || !gid2) {
        PyErr_NoMemory();
        goto done;
    }
    if (read_ints(gid1_l, n1, -1, n1, gid1) < 0 || read_ints(gid2_l, n2, -1, n1, gid2) < 0)
        goto done;
    if (weight_triples(w, n1, n2, &uvw, &n_uvw) < 0)
        goto done;
    result = search_core(out1, in1, out2, in2, uvw, n_uvw, gid1, gid2, floor_, remaining, check_signals, cancel,
                         node_limit, n1, n2);
done:
    free(uvw);
    free(gid1);
    free(gid2);
    return result;
}

/* search() on checked inputs: weights as triples (u, v, w), group ids as arrays */
PyObject *search_core(PyObject *out1, PyObject *in1, PyObject *out2, PyObject *in2, const long long *uvw,
                      Py_ssize_t n_uvw, const int32_t *gid1, const int32_t *gid2, long long floor_,
                      PyObject *remaining, int check_signals, PyObject *cancel, long long node_limit,
                      Py_ssize_t n1_all, Py_ssize_t n2_all)
{
    if (floor_ >= ((long long)1 << 62)) {
        PyErr_SetString(PyExc_OverflowError, "floor too large");
        return NULL;
    }
    /* the graphs' sizes: n1 and n2 as given (edge arrays: from the group ids' lists) */
    const int n1 = (int)n1_all, n2 = (int)n2_all;
    PyObject *result = NULL;
    int32_t *order = NULL, *pos = NULL, *slot = NULL, *keep2 = NULL, *pos2 = NULL;
    int64_t *deg = NULL;
    word *groups = NULL;
    char *has1 = calloc((size_t)n1 + 1, 1), *has2 = calloc((size_t)n2 + 1, 1);
    Ctx ctx;
    Ctx *c = &ctx;
    memset(c, 0, sizeof(Ctx));
    if (init_stop(&c->stop, remaining, check_signals, cancel) < 0) {
        free(has1);
        free(has2);
        return NULL;
    }
    c->stop.node_limit = node_limit > 0 ? node_limit : 0;
    order = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    pos = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    deg = calloc((size_t)n1 + 1, sizeof(int64_t));
    keep2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    pos2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    if (!has1 || !has2 || !order || !pos || !deg || !keep2 || !pos2) {
        PyErr_NoMemory();
        goto done;
    }
    /* only vertices with a partner can ever enter a class: the others are dropped before anything
     * is built (the search tree is the same: the kept vertices keep their relative order) */
    for (Py_ssize_t t = 0; t < n_uvw; t++) {
        has1[uvw[3 * t]] = 1;
        has2[uvw[3 * t + 1]] = 1;
    }
    /* the kept reference vertices relabelled by descending degree in the whole graph (ties by index) */
    if (graph_degrees(out1, in1, n1, has1, deg) < 0)
        goto done;
    int n1k = 0, n2k = 0;
    for (int u = 0; u < n1; u++) {
        pos[u] = -1;
        if (has1[u]) /* sort key: degree descending, then index */
            deg[n1k++] = ((INT64_C(1) << 31) - 1 - deg[u]) * (INT64_C(1) << 31) + u;
    }
    qsort(deg, (size_t)n1k, sizeof(int64_t), cmp_int64);
    for (int i = 0; i < n1k; i++) {
        order[i] = (int32_t)(deg[i] & ((INT64_C(1) << 31) - 1));
        pos[order[i]] = i;
    }
    for (int v = 0; v < n2; v++) { /* the kept generated vertices in their order */
        pos2[v] = has2[v] ? n2k : -1;
        if (has2[v])
            keep2[n2k++] = v;
    }
    const int nmax = n1k > n2k ? n1k : n2k;
    const int W = nmax > 64 ? (nmax + 63) / 64 : 1;
    c->n1 = n1k;
    c->n2 = n2k;
    c->W = W;
    if (read_kept(out1, in1, n1, order, n1k, pos, W, &c->a1s, &c->a1k, &c->a1m) < 0 ||
        read_kept(out2, in2, n2, keep2, n2k, pos2, W, &c->a2s, &c->a2k, &c->a2m) < 0)
        goto done;
    if (neighbourhoods(n1k, W, c->a1s, c->a1m, &c->nb1) < 0 || neighbourhoods(n2k, W, c->a2s, c->a2m, &c->nb2) < 0)
        goto done;
    if (partners_from(c, uvw, n_uvw, pos, pos2) < 0)
        goto done;
    {
        c->n_levels = n1k + 3;
        c->levels = calloc((size_t)c->n_levels, sizeof(Level));
        c->best_u = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->best_v = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->map_u = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->map_v = malloc(((size_t)nmax + 1) * sizeof(int32_t));
        c->frames = malloc(((size_t)n1k + 3) * sizeof(int64_t));
        c->sbl = malloc(((size_t)nmax + 1) * sizeof(int64_t));
        c->sbr = malloc(((size_t)nmax + 1) * sizeof(int64_t));
        c->pa = malloc(((size_t)n1k + 2) * 2 * W * sizeof(word));
        c->pb = malloc(((size_t)n1k + 2) * 2 * W * sizeof(word));
        c->tmp = malloc((size_t)2 * W * sizeof(word));
        c->rem = malloc(((size_t)n1k + 3) * 2 * W * sizeof(word));
        c->rc1 = malloc(((size_t)n1k + 1) * sizeof(int32_t));
        c->tw1 = malloc(((size_t)n1k + 1) * sizeof(int32_t));
        c->rc2 = malloc(((size_t)n2k + 1) * sizeof(int32_t));
        c->tw2 = malloc(((size_t)n2k + 1) * sizeof(int32_t));
        slot = malloc(((size_t)n1 + 1) * sizeof(int32_t));
        groups = calloc(((size_t)n1k + 1) * 2 * W, sizeof(word));
        if (!c->levels || !c->best_u || !c->best_v || !c->map_u || !c->map_v || !c->frames || !c->sbl ||
            !c->sbr || !c->pa || !c->pb || !c->tmp || !slot || !groups || !c->rem || !c->rc1 || !c->tw1 ||
            !c->rc2 || !c->tw2) {
            PyErr_NoMemory();
            goto done;
        }
        /* the group of each kept vertex (slot: scratch here), then the symmetry tables */
        for (int i = 0; i < n1k; i++)
            slot[i] = gid1[order[i]];
        symmetry_side(n1k, W, c->p1s, c->p1, c->a1s, c->a1k, c->a1m, c->nb1, slot, c->rc1, c->tw1);
        int32_t *g2k = malloc(((size_t)n2k + 1) * sizeof(int32_t));
        if (!g2k) {
            PyErr_NoMemory();
            goto done;
        }
        for (int v = 0; v < n2k; v++)
            g2k[v] = gid2[keep2[v]];
        symmetry_side(n2k, W, c->p2s, c->p2, c->a2s, c->a2k, c->a2m, c->nb2, g2k, c->rc2, c->tw2);
        free(g2k);
    }
    /* initial classes: the vertices with a partner grouped by group id (node type and self-loop
     * ports), the groups in order of their first relabelled reference vertex */
    {
        int ng = 0;
        for (int g = 0; g <= n1; g++)
            slot[g] = -1;
        for (int i = 0; i < n1k; i++) {
            int g = gid1[order[i]];
            if (g < 0 || c->p1s[i + 1] == c->p1s[i])
                continue;
            if (slot[g] < 0)
                slot[g] = ng++;
            groups[(size_t)2 * W * slot[g] + (i >> 6)] |= (word)1 << (i & 63);
        }
        for (int v = 0; v < n2k; v++) {
            int g = gid2[keep2[v]];
            if (g < 0 || slot[g] < 0 || c->p2s[v + 1] == c->p2s[v])
                continue;
            groups[(size_t)2 * W * slot[g] + W + (v >> 6)] |= (word)1 << (v & 63);
        }
        for (int s = 0; s < ng; s++) {
            const word *L = groups + (size_t)2 * W * s, *R = L + W;
            if (is_empty(L, W) || is_empty(R, W))
                continue;
            if (push_reduced(c, &c->levels[0], L, R) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    {
        int64_t root_bound = 0;
        for (int i = 0; i < c->levels[0].n; i++)
            root_bound += c->levels[0].bound[i];
        const int64_t floor = (int64_t)floor_;
        c->best = floor;
        c->stop.ts = PyEval_SaveThread();
        int rc = search(c, 0, 0);
        PyEval_RestoreThread(c->stop.ts);
        if (rc == ABORT_SIGNAL || rc == ABORT_ERROR)
            goto done;
        if (rc == ABORT_NOMEM) {
            PyErr_NoMemory();
            goto done;
        }
        int exact = rc == 0; /* ABORT_DEADLINE and ABORT_CANCEL: the best found and a bound */
        int64_t upper = c->best > floor ? c->best : floor;
        if (!exact)
            for (int i = 0; i < c->n_frames; i++)
                if (c->frames[i] > upper)
                    upper = c->frames[i];
        int64_t cap = root_bound > c->best ? root_bound : c->best;
        if (cap < upper)
            upper = cap;
        PyObject *pairs;
        if (c->has_best) {
            pairs = PyList_New(c->best_len);
            if (!pairs)
                goto done;
            for (int i = 0; i < c->best_len; i++) {
                PyObject *p = Py_BuildValue("(ii)", order[c->best_u[i]], keep2[c->best_v[i]]);
                if (!p) {
                    Py_DECREF(pairs);
                    goto done;
                }
                PyList_SET_ITEM(pairs, i, p);
            }
        } else {
            pairs = Py_None;
            Py_INCREF(pairs);
        }
        result = Py_BuildValue("(LNLOL)", (long long)c->best, pairs, (long long)upper, exact ? Py_True : Py_False,
                               (long long)c->nodes);
    }
done:
    free(order);
    free(pos);
    free(deg);
    free(slot);
    free(groups);
    free(has1);
    free(has2);
    free(keep2);
    free(pos2);
    free_ctx(c);
    release_stop(&c->stop);
    return result;
}
