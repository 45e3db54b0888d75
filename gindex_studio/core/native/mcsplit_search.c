/*
 * The weighted McSplit search of gindex_studio.core.scoring.matching (paper profile), in plain C:
 * mcsplit_run (core.h).
 *
 * The algorithm is the one of matching._McSplit (the reference implementation, after McCreesh,
 * Prosser & Trimble, IJCAI 2017, extended to weights), step for step: the same label classes in
 * the same order, the same branching, bound and pruning, so the search tree, the node count, S
 * and the proven upper bound are those of the Python search. Vertex sets are arrays of W 64-bit
 * words; weights are the integer-scaled weights (the caller guarantees their total < 2^62).
 *
 * The search runs detached from its host (the binding: without the GIL) and polls its Stop every
 * 128 nodes. A cancelled search returns as a deadline-cut one does (best found, not exact, proven
 * bound).
 */
#include "core.h"

typedef struct {
    int32_t v;
    int64_t w;
} Partner;

/* the class list of one search depth: class i has L = bits + 2Wi, R = bits + 2Wi + W */
typedef struct {
    int n, cap;
    word *bits;
    int64_t *bound;
    int32_t *size;
    word *rem; /* 2W words: the vertices left to match at this depth (L then R) */
} Level;

typedef struct {
    int n1, n2, W;
    int32_t *p1s, *p2s; /* partner lists, CSR: p1[p1s[u] .. p1s[u+1]) */
    Partner *p1, *p2;
    int32_t *l1s, *l2s; /* partners grouped by weight, CSR: weights l1w[l1s[u] ..] descending, */
    int64_t *l1w, *l2w; /* the partners of each weight as a set l1m + W * index                 */
    word *l1m, *l2m;
    int32_t *a1s, *a2s; /* adjacency, CSR: keys a1k[a1s[u] ..], masks a1m + W * index */
    int64_t *a1k, *a2k;
    word *a1m, *a2m;
    word *nb1, *nb2; /* all neighbours (any relation), n * W */
    int64_t best, nodes;
    int has_best;
    int best_len, map_len;
    int32_t *best_u, *best_v, *map_u, *map_v;
    int64_t *frames;
    int n_frames;
    Stop *stop;
    Level *levels;
    int n_levels;
    int64_t *sbl, *sbr;
    word *pa, *pb; /* split pieces, double buffer of (n1 + 1) pieces */
    word *tmp;     /* 2W scratch words */
    /* interchangeable vertices (mcsplit_search.c, symmetry_side): per side the first vertex with
     * the same partner list (weights to every vertex of the other side), the first twin (same
     * list, group and neighbourhood, not adjacent); the vertices left to match per depth are
     * Level.rem (made when the depth is first reached) */
    int32_t *rc1, *rc2, *tw1, *tw2;
    /* sparse (large graphs): no W-word mask per relation, neighbour set or weight level (their n^2
     * bits); instead the relation at CSR index k holds a1v[a1o[k] .. a1o[k + 1]) (a vertex's
     * neighbours: its relations' lists), the weight level k the partners p1[l1p[k] .. l1p[k + 1]).
     * a1m, a2m, nb1, nb2, l1m, l2m are then NULL. sa, sb: W-word scratch masks, zero between uses */
    int sparse;
    int32_t *a1o, *a2o, *a1v, *a2v, *l1p, *l2p;
    word *sa, *sb;
} Ctx;

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

/* ---- the graphs' sets, as masks (small graphs) or lists (sparse) ----------------------------- */

/* search_core keeps the adjacency and the partner sets as lists (c->sparse) from this many kept
 * vertices on (the larger side); below it, as W-word masks. set_sparse_from() changes it (tests). */
static int sparse_from = 1024;

/* The functions of the search take sp, c->sparse as a constant: each is compiled twice, for
 * masks and for lists (search_masks, search_lists), and the test of sp costs nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define TWICE static inline __attribute__((always_inline))
#else
#define TWICE static inline
#endif

/* one part of the class (l, r) split by the relations a (left) and b (right; NULL: holds
 * nothing) written to o as (l, r): inside both when in, else outside both; 1 when neither half is
 * empty (the part is a class) */
TWICE int split_part(word *o, const word *l, const word *r, const word *a, const word *b, int W, const int in)
{
    word any_l = 0, any_r = 0;
    for (int k = 0; k < W; k++) {
        word ak = a ? a[k] : 0, bk = b ? b[k] : 0;
        word x = l[k] & (in ? ak : ~ak), y = r[k] & (in ? bk : ~bk);
        o[k] = x;
        o[W + k] = y;
        any_l |= x;
        any_r |= y;
    }
    return any_l && any_r;
}

/* the vertices of relation entry k of side 1 or 2 as W words: its mask, or (sparse) the scratch s
 * filled from its list; rel_unset empties s again */
TWICE const word *rel_set(const Ctx *c, int side, int k, word *s, const int sp)
{
    if (!sp)
        return (side == 1 ? c->a1m : c->a2m) + (size_t)c->W * k;
    const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
    for (int j = o[k]; j < o[k + 1]; j++)
        s[v[j] >> 6] |= (word)1 << (v[j] & 63);
    return s;
}

TWICE void rel_unset(const Ctx *c, int side, int k, word *s, const int sp)
{
    if (!sp)
        return;
    const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
    for (int j = o[k]; j < o[k + 1]; j++)
        s[v[j] >> 6] = 0;
}

/* S meets the neighbours (any relation) of vertex u of side 1 or 2 */
TWICE int meets_neighbours(const Ctx *c, int side, int u, const word *S, const int sp)
{
    if (!sp)
        return intersects(S, (side == 1 ? c->nb1 : c->nb2) + (size_t)c->W * u, c->W);
    const int32_t *st = side == 1 ? c->a1s : c->a2s, *o = side == 1 ? c->a1o : c->a2o;
    const int32_t *v = side == 1 ? c->a1v : c->a2v;
    for (int j = o[st[u]]; j < o[st[u + 1]]; j++)
        if (has_bit(S, v[j]))
            return 1;
    return 0;
}

/* S meets the partners of weight level k of side 1 or 2 */
TWICE int level_meets(const Ctx *c, int side, int k, const word *S, const int sp)
{
    if (!sp)
        return intersects((side == 1 ? c->l1m : c->l2m) + (size_t)c->W * k, S, c->W);
    const int32_t *lp = side == 1 ? c->l1p : c->l2p;
    const Partner *p = side == 1 ? c->p1 : c->p2;
    for (int j = lp[k]; j < lp[k + 1]; j++)
        if (has_bit(S, p[j].v))
            return 1;
    return 0;
}

int mcsplit_set_sparse_from(int n)
{
    int old = sparse_from;
    sparse_from = n;
    return old;
}

/* ---- classes ------------------------------------------------------------------------------ */

/* Drop from M (the vertices of side 1 or 2) those without a partner in S (of the other side);
 * the weight of each one kept (its best level meeting S) goes to out, in turn. The count kept. */
TWICE int keep_partnered(const Ctx *c, int side, word *M, const word *S, int64_t *out, const int sp)
{
    const int32_t *ls = side == 1 ? c->l1s : c->l2s;
    const int64_t *lw = side == 1 ? c->l1w : c->l2w;
    const int W = c->W;
    int n = 0;
    for (int i = 0; i < W; i++) {
        word x = M[i];
        while (x) {
            int b = ctz64(x);
            int u = i * 64 + b;
            x &= x - 1;
            int found = 0;
            for (int k = ls[u]; k < ls[u + 1]; k++) {
                if (level_meets(c, side, k, S, sp)) {
                    out[n++] = lw[k];
                    found = 1;
                    break;
                }
            }
            if (!found)
                M[i] &= ~((word)1 << b);
        }
    }
    return n;
}

/* Reduce the class (L, R) in place: drop vertices without a partner on the other side; its bound
 * is the smaller of the sums of the k = min(|L|, |R|) best weights of each side. 0: empty. */
static int reduce_class(Ctx *c, word *L, word *R, int64_t *bound, int32_t *size, const int sp)
{
    int nl = keep_partnered(c, 1, L, R, c->sbl, sp);
    if (!nl)
        return 0;
    int nr = keep_partnered(c, 2, R, L, c->sbr, sp);
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
static int push_reduced(Ctx *c, Level *lv, const word *L, const word *R, const int sp)
{
    const int W = c->W;
    int i = level_push(c, lv);
    if (i < 0)
        return -1;
    word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
    memcpy(l, L, W * sizeof(word));
    memcpy(r, R, W * sizeof(word));
    if (!reduce_class(c, l, r, &lv->bound[i], &lv->size[i], sp))
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
static int split_into(Ctx *c, Level *lv, const word *L, const word *R, int u, int v, const int sp)
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
        int ka = -1, kb = -1;
        if (j >= je || (i < ie && c->a1k[i] < c->a2k[j])) {
            ka = i++;
        } else if (i >= ie || c->a2k[j] < c->a1k[i]) {
            kb = j++;
        } else {
            ka = i++;
            kb = j++;
        }
        if (ka >= 0)
            a = rel_set(c, 1, ka, c->sa, sp);
        if (kb >= 0)
            b = rel_set(c, 2, kb, c->sb, sp);
        int nn = 0;
        for (int p = 0; p < ncur; p++) {
            const word *l = cur + (size_t)W2 * p, *r = l + W;
            nn += split_part(nxt + (size_t)W2 * nn, l, r, a, b, W, 1);
            nn += split_part(nxt + (size_t)W2 * nn, l, r, a, b, W, 0);
        }
        if (ka >= 0)
            rel_unset(c, 1, ka, c->sa, sp);
        if (kb >= 0)
            rel_unset(c, 2, kb, c->sb, sp);
        word *t = cur;
        cur = nxt;
        nxt = t;
        ncur = nn;
    }
    for (int p = 0; p < ncur; p++) {
        const word *l = cur + (size_t)W2 * p;
        if (push_reduced(c, lv, l, l + W, sp) < 0)
            return -1;
    }
    return 0;
}

/* ---- the search --------------------------------------------------------------------------- */

/* Symmetry (exact): two vertices of one side are interchangeable at a search node when they lie in
 * the same class (the same relation to every matched vertex), have the same weight to every vertex
 * of the other side (rc), are not adjacent, and have the same relations to every vertex still left
 * to match: swapping them maps any completion to one of the same S. Two kinds are used: static
 * twins (tw: the same neighbourhood in the whole graph) and vertices with no neighbour left to
 * match at all. The branch vertex u's partner v is skipped when an interchangeable partner comes
 * before it in u's partner list and is still in R; "leave u unmatched" also leaves unmatched every
 * vertex of L interchangeable with u (a completion matching one matches u instead, by the swap). */

/* x (of side 1 or 2) has no neighbour (any relation) among the vertices left to match (rem) other
 * than itself */
TWICE int isolated_in(const Ctx *c, int side, int x, const word *rem, const int sp)
{
    const int W = c->W;
    if (!sp) {
        const word *nb = (side == 1 ? c->nb1 : c->nb2) + (size_t)W * x;
        for (int i = 0; i < W; i++) {
            word m = nb[i] & rem[i];
            if (i == (x >> 6))
                m &= ~((word)1 << (x & 63));
            if (m)
                return 0;
        }
        return 1;
    }
    const int32_t *st = side == 1 ? c->a1s : c->a2s, *o = side == 1 ? c->a1o : c->a2o;
    const int32_t *v = side == 1 ? c->a1v : c->a2v;
    for (int j = o[st[x]]; j < o[st[x + 1]]; j++)
        if (v[j] != x && has_bit(rem, v[j]))
            return 0;
    return 1;
}

TWICE int mirror_of_earlier(Ctx *c, int u, int k, int v, const word *R, const word *rem2, const int sp)
{
    const int vfree = isolated_in(c, 2, v, rem2, sp);
    if (c->tw2[v] == v && !vfree) /* v is the first of its twins: none comes before it */
        return 0;
    for (int k2 = c->p1s[u]; k2 < k; k2++) {
        const int v0 = c->p1[k2].v;
        if (!has_bit(R, v0))
            continue;
        if (c->tw2[v0] == c->tw2[v])
            return 1;
        if (vfree && c->rc2[v0] == c->rc2[v] && isolated_in(c, 2, v0, rem2, sp))
            return 1;
    }
    return 0;
}

static int search_masks(Ctx *c, int depth, int64_t cur);
static int search_lists(Ctx *c, int depth, int64_t cur);

TWICE int search_twice(Ctx *c, int depth, int64_t cur, const int sp)
{
    const int W = c->W;
    Level *lv = &c->levels[depth];
    c->nodes++;
    if (c->stop->node_limit && c->nodes > c->stop->node_limit)
        return ABORT_DEADLINE; /* as a deadline: the best found and a proven bound */
    if ((c->nodes & 127) == 0) {
        int rc = poll_stop(c->stop, c->nodes);
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
    if (!lv->rem && !(lv->rem = malloc((size_t)2 * W * sizeof(word))))
        return ABORT_NOMEM;
    word *rem1 = lv->rem, *rem2 = rem1 + W; /* what is left to match */
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
        if (mirror_of_earlier(c, u, k, v, R, rem2, sp))
            continue;
        nx->n = 0;
        for (int i = 0; i < lv->n; i++) {
            if (i == ci)
                continue;
            const word *l = cls_L(c, lv, i), *r = cls_R(c, lv, i);
            int rc;
            if (!meets_neighbours(c, 1, u, l, sp) && !meets_neighbours(c, 2, v, r, sp))
                rc = push_copy(c, nx, lv, i);
            else
                rc = split_into(c, nx, l, r, u, v, sp);
            if (rc < 0)
                return ABORT_NOMEM;
        }
        memcpy(L2, L, W * sizeof(word));
        memcpy(R2, R, W * sizeof(word));
        L2[u >> 6] &= ~((word)1 << (u & 63));
        R2[v >> 6] &= ~((word)1 << (v & 63));
        int rc = 0;
        if (!meets_neighbours(c, 1, u, L2, sp) && !meets_neighbours(c, 2, v, R2, sp)) {
            if (!is_empty(L2, W) && !is_empty(R2, W))
                rc = push_reduced(c, nx, L2, R2, sp);
        } else {
            rc = split_into(c, nx, L2, R2, u, v, sp);
        }
        if (rc < 0)
            return ABORT_NOMEM;
        c->map_u[c->map_len] = u;
        c->map_v[c->map_len] = v;
        c->map_len++;
        rc = sp ? search_lists(c, depth + 1, cur + wt) : search_masks(c, depth + 1, cur + wt);
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
        const int ufree = isolated_in(c, 1, u, rem1, sp);
        for (int x = 0; x < W; x++) {
            word m = L2[x];
            while (m) {
                const int b = ctz64(m);
                const int i = x * 64 + b;
                m &= m - 1;
                if (c->tw1[i] == c->tw1[u] || (ufree && c->rc1[i] == c->rc1[u] && isolated_in(c, 1, i, rem1, sp)))
                    L2[x] &= ~((word)1 << b);
            }
        }
    }
    if (!is_empty(L2, W) && push_reduced(c, nx, L2, R, sp) < 0)
        return ABORT_NOMEM;
    int rc = sp ? search_lists(c, depth + 1, cur) : search_masks(c, depth + 1, cur);
    if (rc)
        return rc;
    c->n_frames--;
    return 0;
}

static int search_masks(Ctx *c, int depth, int64_t cur) { return search_twice(c, depth, cur, 0); }
static int search_lists(Ctx *c, int depth, int64_t cur) { return search_twice(c, depth, cur, 1); }

/* ---- the symmetry tables (rc, tw) ------------------------------------------------------------ *
 * rc[y]: the first vertex with y's partner list; tw[y]: the first vertex x < y with tw[x] = x, the
 * same rc and group, not adjacent to y, with the same relations to every vertex but x and y. Found
 * by hashing, not by trying every pair: the vertices sorted by a hash of what must be equal (for
 * tw: rc, group and the relations but to the vertex itself, which is what "the same relations but
 * to x and y" means for two vertices that are not adjacent), each then compared, exactly, with the
 * first vertices of its run only. Cost: n log n and the runs' squares. */

static inline uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

typedef struct {
    uint64_t h;
    int32_t i;
} Keyed;

KEY_THEN_TIE_ORDER(cmp_keyed, Keyed, h, i)

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

/* relation entry k of side's vertex holds vertex t */
static int entry_has(const Ctx *c, int side, int k, int t)
{
    if (!c->sparse)
        return has_bit((side == 1 ? c->a1m : c->a2m) + (size_t)c->W * k, t);
    const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
    for (int j = o[k]; j < o[k + 1]; j++)
        if (v[j] == t)
            return 1;
    return 0;
}

/* x and y are adjacent (any relation, either way) */
static int adjacent(const Ctx *c, int side, int x, int y)
{
    if (!c->sparse) {
        const word *nb = side == 1 ? c->nb1 : c->nb2;
        return has_bit(nb + (size_t)c->W * x, y) || has_bit(nb + (size_t)c->W * y, x);
    }
    const int32_t *as = side == 1 ? c->a1s : c->a2s;
    for (int k = as[x]; k < as[x + 1]; k++)
        if (entry_has(c, side, k, y))
            return 1;
    for (int k = as[y]; k < as[y + 1]; k++)
        if (entry_has(c, side, k, x))
            return 1;
    return 0;
}

/* the members of relation entry k but x and y, into the zeroed scratch s (lists); their number */
static int entry_into(const Ctx *c, int side, int k, int x, int y, word *s)
{
    const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
    int m = 0;
    for (int j = o[k]; j < o[k + 1]; j++)
        if (v[j] != x && v[j] != y) {
            s[v[j] >> 6] |= (word)1 << (v[j] & 63);
            m++;
        }
    return m;
}

/* every relation (key) of x and y to the vertices other than x and y is the same */
static int same_relations(const Ctx *c, int side, int x, int y)
{
    const int32_t *as = side == 1 ? c->a1s : c->a2s;
    const int64_t *ak = side == 1 ? c->a1k : c->a2k;
    const int W = c->W;
    int i = as[x], ie = as[x + 1], j = as[y], je = as[y + 1];
    while (i < ie || j < je) {
        int ka = -1, kb = -1;
        if (j >= je || (i < ie && ak[i] < ak[j])) {
            ka = i++;
        } else if (i >= ie || ak[j] < ak[i]) {
            kb = j++;
        } else {
            ka = i++;
            kb = j++;
        }
        if (!c->sparse) {
            const word *am = side == 1 ? c->a1m : c->a2m;
            const word *a = ka >= 0 ? am + (size_t)W * ka : NULL, *b = kb >= 0 ? am + (size_t)W * kb : NULL;
            for (int t = 0; t < W; t++) {
                word m = (a ? a[t] : 0) ^ (b ? b[t] : 0);
                if (t == (x >> 6))
                    m &= ~((word)1 << (x & 63));
                if (t == (y >> 6))
                    m &= ~((word)1 << (y & 63));
                if (m)
                    return 0;
            }
            continue;
        }
        /* lists: the members of a but x and y as a set (scratch sa), those of b all in it, as many */
        int na = ka >= 0 ? entry_into(c, side, ka, x, y, c->sa) : 0, nb = 0, same = 1;
        if (kb >= 0) {
            const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
            for (int t = o[kb]; t < o[kb + 1]; t++)
                if (v[t] != x && v[t] != y) {
                    nb++;
                    if (!has_bit(c->sa, v[t]))
                        same = 0;
                }
        }
        if (ka >= 0) {
            const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
            for (int t = o[ka]; t < o[ka + 1]; t++)
                c->sa[v[t] >> 6] = 0;
        }
        if (!same || na != nb)
            return 0;
    }
    return 1;
}

/* order-free hash of x's relations but to x itself (equal for vertices with the same relations to
 * every vertex but themselves) */
static uint64_t relations_hash(const Ctx *c, int side, int x)
{
    const int32_t *as = side == 1 ? c->a1s : c->a2s;
    const int64_t *ak = side == 1 ? c->a1k : c->a2k;
    uint64_t h = 0;
    for (int k = as[x]; k < as[x + 1]; k++) {
        const uint64_t key = mix64((uint64_t)ak[k]);
        if (!c->sparse) {
            const word *m = (side == 1 ? c->a1m : c->a2m) + (size_t)c->W * k;
            for (int t = 0; t < c->W; t++)
                for (word bits = m[t]; bits; bits &= bits - 1) {
                    const int v = t * 64 + ctz64(bits);
                    if (v != x)
                        h += mix64(key ^ (uint64_t)v);
                }
        } else {
            const int32_t *o = side == 1 ? c->a1o : c->a2o, *v = side == 1 ? c->a1v : c->a2v;
            for (int j = o[k]; j < o[k + 1]; j++)
                if (v[j] != x)
                    h += mix64(key ^ (uint64_t)v[j]);
        }
    }
    return h;
}

/* up to this many vertices symmetry_side tries every pair (cheaper than sorting for small graphs);
 * set_symmetry_pairs_upto() changes it (tests: the same tables either way) */
static int symmetry_pairs_upto = 128;

int mcsplit_set_symmetry_pairs_upto(int n)
{
    int old = symmetry_pairs_upto;
    symmetry_pairs_upto = n;
    return old;
}

/* What symmetry_side's pass "twins" (0: rc, 1: tw) asks of x, before y with out[x] = x: the same
 * partner list (rc); the same rc and group, not adjacent, the same relations but to x and y (tw). */
static int alike(const Ctx *c, int side, const int32_t *group, const int32_t *rc, int twins, int x, int y)
{
    if (!twins)
        return same_partners(side == 1 ? c->p1s : c->p2s, side == 1 ? c->p1 : c->p2, x, y);
    return rc[x] == rc[y] && group[x] == group[y] && !adjacent(c, side, x, y) && same_relations(c, side, x, y);
}

/* out[y] = the first x before y with out[x] = x that is alike y (else y), trying every pair */
static void firsts_by_pairs(const Ctx *c, int side, int n, const int32_t *group, const int32_t *rc, int twins,
                            int32_t *out)
{
    for (int y = 0; y < n; y++) {
        out[y] = y;
        for (int x = 0; x < y; x++)
            if (out[x] == x && alike(c, side, group, rc, twins, x, y)) {
                out[y] = x;
                break;
            }
    }
}

/* the same by runs of one hash in ky[0..n) (sorted): x among the run's vertices before y, in ky's
 * order (reps: scratch of n) */
static void firsts_by_runs(const Ctx *c, int side, int n, const int32_t *group, const int32_t *rc, int twins,
                           int32_t *out, const Keyed *ky, int32_t *reps)
{
    for (int a = 0; a < n;) {
        int b = a, nr = 0;
        while (b < n && ky[b].h == ky[a].h)
            b++;
        for (int t = a; t < b; t++) {
            const int y = ky[t].i;
            out[y] = y;
            for (int r = 0; r < nr; r++)
                if (alike(c, side, group, rc, twins, reps[r], y)) {
                    out[y] = reps[r];
                    break;
                }
            if (out[y] == y)
                reps[nr++] = y;
        }
        a = b;
    }
}

/* rc and tw of side 1 or 2 (group: the group id of each kept vertex); -1: no memory */
static int symmetry_side(Ctx *c, int side, const int32_t *group, int32_t *rc, int32_t *tw)
{
    const int n = side == 1 ? c->n1 : c->n2;
    const int32_t *ps = side == 1 ? c->p1s : c->p2s;
    const Partner *p = side == 1 ? c->p1 : c->p2;
    if (n <= symmetry_pairs_upto) { /* small: every pair, in order (the same tables, no sorting) */
        firsts_by_pairs(c, side, n, group, rc, 0, rc);
        firsts_by_pairs(c, side, n, group, rc, 1, tw);
        return 0;
    }
    Keyed *ky = malloc(((size_t)n + 1) * sizeof(Keyed));
    int32_t *reps = malloc(((size_t)n + 1) * sizeof(int32_t));
    if (!ky || !reps) {
        free(ky);
        free(reps);
        return -1;
    }
    for (int x = 0; x < n; x++) {
        uint64_t h = mix64((uint64_t)(ps[x + 1] - ps[x]));
        for (int k = ps[x]; k < ps[x + 1]; k++)
            h = mix64(h ^ mix64((uint64_t)p[k].v ^ ((uint64_t)p[k].w << 20)));
        ky[x] = (Keyed){h, x};
    }
    qsort(ky, (size_t)n, sizeof(Keyed), cmp_keyed);
    firsts_by_runs(c, side, n, group, rc, 0, rc, ky, reps); /* rc[y]: the first with y's list */
    for (int x = 0; x < n; x++)
        ky[x] = (Keyed){mix64(((uint64_t)(uint32_t)rc[x] << 32) ^ (uint64_t)(uint32_t)group[x]) + relations_hash(c, side, x), x};
    qsort(ky, (size_t)n, sizeof(Keyed), cmp_keyed);
    firsts_by_runs(c, side, n, group, rc, 1, tw, ky, reps); /* tw[y]: the first twin among the run's firsts */
    free(ky);
    free(reps);
    return 0;
}

static int cmp_partner(const void *a, const void *b)
{
    const Partner *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* the sorted partner lists grouped by weight: per vertex, (weight, set of partners) descending;
 * the set as a W-word mask (lm), or with lp (sparse) as the range p[lp[k] .. lp[k + 1]) */
static int weight_levels(int n, int W, const int32_t *ps, const Partner *p, int32_t **ls, int64_t **lw, word **lm,
                         int32_t **lp)
{
    int total = ps[n];
    *ls = malloc(((size_t)n + 1) * sizeof(int32_t));
    *lw = malloc(((size_t)total + 1) * sizeof(int64_t));
    if (lp) {
        *lm = NULL;
        *lp = malloc(((size_t)total + 1) * sizeof(int32_t));
    } else {
        *lm = calloc(((size_t)total + 1) * W, sizeof(word));
    }
    if (!*ls || !*lw || (lp ? !*lp : !*lm))
        return -1;
    int k = 0;
    for (int u = 0; u < n; u++) {
        (*ls)[u] = k;
        for (int j = ps[u]; j < ps[u + 1]; j++) {
            if (j == ps[u] || p[j].w != p[j - 1].w) {
                (*lw)[k] = p[j].w;
                if (lp)
                    (*lp)[k] = j;
                k++;
            }
            if (!lp) {
                word *m = *lm + (size_t)W * (k - 1);
                m[p[j].v >> 6] |= (word)1 << (p[j].v & 63);
            }
        }
    }
    (*ls)[n] = k;
    if (lp)
        (*lp)[k] = total;
    return 0;
}

/* weights as triples (u, v, w) into partner lists by descending weight, ties by vertex: p1 over
 * relabelled ref vertices (partners: generated vertices), p2 over generated vertices (partners
 * relabelled); the order of the triples does not matter */
static int partners_from(Ctx *c, const WeightedPair *uvw, size_t total, const int32_t *pos, const int32_t *pos2)
{
    const int n1 = c->n1, n2 = c->n2;
    c->p1s = calloc((size_t)n1 + 2, sizeof(int32_t));
    c->p2s = calloc((size_t)n2 + 2, sizeof(int32_t));
    c->p1 = malloc((size_t)(total ? total : 1) * sizeof(Partner));
    c->p2 = malloc((size_t)(total ? total : 1) * sizeof(Partner));
    int32_t *f1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *f2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    int rc = -1;
    if (!c->p1s || !c->p2s || !c->p1 || !c->p2 || !f1 || !f2)
        goto out;
    for (size_t t = 0; t < total; t++) {
        c->p1s[pos[uvw[t].u] + 1]++;
        c->p2s[pos2[uvw[t].v] + 1]++;
    }
    for (int i = 0; i < n1; i++)
        c->p1s[i + 1] += c->p1s[i];
    for (int v = 0; v < n2; v++)
        c->p2s[v + 1] += c->p2s[v];
    memcpy(f1, c->p1s, (size_t)n1 * sizeof(int32_t));
    memcpy(f2, c->p2s, (size_t)n2 * sizeof(int32_t));
    for (size_t t = 0; t < total; t++) {
        int i = pos[uvw[t].u];
        int v = pos2[uvw[t].v];
        int64_t wt = uvw[t].w;
        c->p1[f1[i]++] = (Partner){(int32_t)v, wt};
        c->p2[f2[v]++] = (Partner){(int32_t)i, wt};
    }
    for (int i = 0; i < n1; i++)
        qsort(c->p1 + c->p1s[i], (size_t)(c->p1s[i + 1] - c->p1s[i]), sizeof(Partner), cmp_partner);
    for (int v = 0; v < n2; v++)
        qsort(c->p2 + c->p2s[v], (size_t)(c->p2s[v + 1] - c->p2s[v]), sizeof(Partner), cmp_partner);
    if (weight_levels(n1, c->W, c->p1s, c->p1, &c->l1s, &c->l1w, &c->l1m, c->sparse ? &c->l1p : NULL) < 0 ||
        weight_levels(n2, c->W, c->p2s, c->p2, &c->l2s, &c->l2w, &c->l2m, c->sparse ? &c->l2p : NULL) < 0)
        goto out;
    rc = 0;
out:
    free(f1);
    free(f2);
    return rc;
}

static void free_ctx(Ctx *c)
{
    void *ptrs[] = {c->p1s, c->p2s, c->p1, c->p2, c->l1s, c->l2s, c->l1w, c->l2w, c->l1m, c->l2m, c->a1s, c->a2s, c->a1k, c->a2k, c->a1m, c->a2m,
                    c->nb1, c->nb2, c->best_u, c->best_v, c->map_u, c->map_v, c->frames, c->sbl,
                    c->sbr, c->pa, c->pb, c->tmp, c->a1o, c->a2o, c->a1v, c->a2v, c->l1p, c->l2p, c->sa, c->sb,
                    c->rc1, c->rc2, c->tw1, c->tw2};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
        free(ptrs[i]);
    if (c->levels) {
        for (int i = 0; i < c->n_levels; i++) {
            free(c->levels[i].bits);
            free(c->levels[i].bound);
            free(c->levels[i].size);
            free(c->levels[i].rem);
        }
        free(c->levels);
    }
}

int mcsplit_run(const RelGraph *g1, const RelGraph *g2, const WeightedPair *uvw, size_t n_uvw,
                const int32_t *gid1, const int32_t *gid2, int64_t floor, Stop *stop, Found *out)
{
    const int n1 = g1->n, n2 = g2->n;
    int result = ABORT_NOMEM;
    int32_t *order = NULL, *pos = NULL, *slot = NULL, *keep2 = NULL, *pos2 = NULL;
    int64_t *deg = NULL;
    word *groups = NULL;
    char *has1 = calloc((size_t)n1 + 1, 1), *has2 = calloc((size_t)n2 + 1, 1);
    Ctx ctx;
    Ctx *c = &ctx;
    memset(c, 0, sizeof(Ctx));
    memset(out, 0, sizeof(Found));
    c->stop = stop;
    order = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    pos = malloc(((size_t)n1 + 1) * sizeof(int32_t));
    deg = calloc((size_t)n1 + 1, sizeof(int64_t));
    keep2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    pos2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    if (!has1 || !has2 || !order || !pos || !deg || !keep2 || !pos2)
        goto done;
    /* only vertices with a partner can ever enter a class: the others are dropped before anything
     * is built (the search tree is the same: the kept vertices keep their relative order) */
    for (size_t t = 0; t < n_uvw; t++) {
        has1[uvw[t].u] = 1;
        has2[uvw[t].v] = 1;
    }
    /* the kept reference vertices relabelled by descending degree in the whole graph (ties by index) */
    int n1k = 0, n2k = 0;
    for (int u = 0; u < n1; u++) {
        pos[u] = -1;
        if (has1[u]) /* sort key: degree (its relations) descending, then index */
            deg[n1k++] = ((INT64_C(1) << 31) - 1 - (g1->start[u + 1] - g1->start[u])) * (INT64_C(1) << 31) + u;
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
    /* a large graph keeps its relations and partner sets as lists (memory: the edges and the
     * pairs), a small one as masks (nmax * W words each, faster to test) */
    c->sparse = nmax >= sparse_from;
    if (c->sparse) {
        c->sa = calloc((size_t)W, sizeof(word));
        c->sb = calloc((size_t)W, sizeof(word));
        if (!c->sa || !c->sb)
            goto done;
        if (read_kept(g1, order, n1k, pos, W, &c->a1s, &c->a1k, &c->a1m, &c->a1o, &c->a1v) < 0 ||
            read_kept(g2, keep2, n2k, pos2, W, &c->a2s, &c->a2k, &c->a2m, &c->a2o, &c->a2v) < 0)
            goto done;
    } else {
        if (read_kept(g1, order, n1k, pos, W, &c->a1s, &c->a1k, &c->a1m, NULL, NULL) < 0 ||
            read_kept(g2, keep2, n2k, pos2, W, &c->a2s, &c->a2k, &c->a2m, NULL, NULL) < 0)
            goto done;
        if (neighbourhoods(n1k, W, c->a1s, c->a1m, &c->nb1) < 0 || neighbourhoods(n2k, W, c->a2s, c->a2m, &c->nb2) < 0)
            goto done;
    }
    if (partners_from(c, uvw, n_uvw, pos, pos2) < 0)
        goto done;
    /* a class holds at least one vertex of each side, the classes of a split are disjoint: at most
     * nmin of them (the split's first piece: one) */
    const int nmin = n1k < n2k ? n1k : n2k;
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
        c->pa = malloc(((size_t)nmin + 2) * 2 * W * sizeof(word));
        c->pb = malloc(((size_t)nmin + 2) * 2 * W * sizeof(word));
        c->tmp = malloc((size_t)2 * W * sizeof(word));
        c->rc1 = malloc(((size_t)n1k + 1) * sizeof(int32_t));
        c->tw1 = malloc(((size_t)n1k + 1) * sizeof(int32_t));
        c->rc2 = malloc(((size_t)n2k + 1) * sizeof(int32_t));
        c->tw2 = malloc(((size_t)n2k + 1) * sizeof(int32_t));
        slot = malloc(((size_t)n1 + 1) * sizeof(int32_t));
        if (!c->levels || !c->best_u || !c->best_v || !c->map_u || !c->map_v || !c->frames || !c->sbl ||
            !c->sbr || !c->pa || !c->pb || !c->tmp || !slot || !c->rc1 || !c->tw1 || !c->rc2 || !c->tw2)
            goto done;
        /* the group of each kept vertex (slot: scratch here), then the symmetry tables */
        for (int i = 0; i < n1k; i++)
            slot[i] = gid1[order[i]];
        int32_t *g2k = malloc(((size_t)n2k + 1) * sizeof(int32_t));
        if (!g2k || symmetry_side(c, 1, slot, c->rc1, c->tw1) < 0) {
            free(g2k);
            goto done;
        }
        for (int v = 0; v < n2k; v++)
            g2k[v] = gid2[keep2[v]];
        int src = symmetry_side(c, 2, g2k, c->rc2, c->tw2);
        free(g2k);
        if (src < 0)
            goto done;
    }
    /* initial classes: the vertices with a partner grouped by group id (node type and self-loop
     * ports), the groups in order of their first relabelled reference vertex; only the group ids
     * found on both sides get a slot (the others make no class): at most nmin slots */
    {
        int ng = 0;
        for (int g = 0; g <= n1; g++)
            slot[g] = -1;
        for (int v = 0; v < n2k; v++) {
            int g = gid2[keep2[v]];
            if (g >= 0 && c->p2s[v + 1] != c->p2s[v])
                slot[g] = -2; /* on side 2 */
        }
        for (int i = 0; i < n1k; i++) {
            int g = gid1[order[i]];
            if (g >= 0 && c->p1s[i + 1] != c->p1s[i] && slot[g] == -2)
                slot[g] = ng++;
        }
        groups = calloc(((size_t)ng + 1) * 2 * W, sizeof(word));
        if (!groups)
            goto done;
        for (int i = 0; i < n1k; i++) {
            int g = gid1[order[i]];
            if (g < 0 || c->p1s[i + 1] == c->p1s[i] || slot[g] < 0)
                continue;
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
            if (push_reduced(c, &c->levels[0], L, R, c->sparse) < 0)
                goto done;
        }
    }
    {
        int64_t root_bound = 0;
        for (int i = 0; i < c->levels[0].n; i++)
            root_bound += c->levels[0].bound[i];
        c->best = floor;
        stop_detach(stop);
        int rc = c->sparse ? search_lists(c, 0, 0) : search_masks(c, 0, 0);
        stop_attach(stop);
        if (rc == ABORT_SIGNAL || rc == ABORT_ERROR || rc == ABORT_NOMEM) {
            result = rc;
            goto done;
        }
        out->exact = rc == 0; /* ABORT_DEADLINE and ABORT_CANCEL: the best found and a bound */
        out->best = c->best;
        out->nodes = c->nodes;
        out->upper = proven_upper(c->best, floor, out->exact, c->frames, c->n_frames, root_bound);
        if (c->has_best) {
            if (found_alloc(out, c->best_len) < 0)
                goto done;
            for (int i = 0; i < c->best_len; i++) {
                out->u[i] = order[c->best_u[i]];
                out->v[i] = keep2[c->best_v[i]];
            }
        }
        result = 0;
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
    return result;
}
