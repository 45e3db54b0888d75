/*
 * The clique search of "or" adjacency (matching._CliqueSearch), in plain C: clique_search_run and
 * its parts (companion_delta builds its own graphs and calls them).
 */
#include "core.h"

/* ---- the companion profile: maximum-weight clique on the association graph ------------------ *
 *
 * clique_search_run is matching._CliqueSearch step for step: association vertices in the given order (descending
 * weight), adjacency u1 != u2, v1 != v2 and (u1->u2 <=> v1->v2 or u2->u1 <=> v2->v1) with edges
 * compared port by port, branching on the lowest vertex left (take, then leave), and the bound of
 * a candidate set: per node type, the maximum-weight assignment of its pairs (Hungarian method on
 * 64-bit integers). Same tree, node count, S and bounds as the Python search.
 */

/* the edges u->x in g (CSR of read_kept) as port keys, compared with the edges v->y in h */
static int same_out_edges(const int32_t *gs, const int64_t *gk, const word *gm, int u, int x,
                          const int32_t *hs, const int64_t *hk, const word *hm, int v, int y, int W)
{
    int i = gs[u], ie = gs[u + 1], j = hs[v], je = hs[v + 1];
    while ((i < ie && gk[i] < IN_KEY) || (j < je && hk[j] < IN_KEY)) {
        int gi = i < ie && gk[i] < IN_KEY, hj = j < je && hk[j] < IN_KEY;
        int a = 0, b = 0;
        if (gi && (!hj || gk[i] <= hk[j])) {
            a = has_bit(gm + (size_t)W * i, x);
            if (hj && gk[i] == hk[j])
                b = has_bit(hm + (size_t)W * j++, y);
            i++;
        } else {
            b = has_bit(hm + (size_t)W * j++, y);
        }
        if (a != b)
            return 0;
    }
    return 1;
}

/* maximum-weight assignment of an nr x nc matrix (nr <= nc) of non-negative weights */
static int64_t max_assignment_c(Clq *q, const int64_t *mat, int nr, int nc)
{
    const int64_t INF = INT64_MAX / 4;
    int64_t *u = q->hu, *v = q->hv, *minv = q->minv;
    int32_t *p = q->hp, *way = q->way;
    char *used = q->used;
    for (int j = 0; j <= nc; j++) {
        v[j] = 0;
        p[j] = 0;
        way[j] = 0;
    }
    for (int i = 0; i <= nr; i++)
        u[i] = 0;
    for (int i = 1; i <= nr; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= nc; j++) {
            minv[j] = INF;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            int64_t delta = INF;
            const int64_t *row = mat + (size_t)(i0 - 1) * nc;
            for (int j = 1; j <= nc; j++) {
                if (!used[j]) {
                    int64_t cur = -row[j - 1] - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for (int j = 0; j <= nc; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    int64_t total = 0;
    for (int j = 1; j <= nc; j++)
        if (p[j])
            total += mat[(size_t)(p[j] - 1) * nc + j - 1];
    return total;
}

/* matching._assignment_bound: Σ over types of the best assignment of the pairs in P */
static int64_t clique_bound(Clq *q, const word *P)
{
    const int WV = q->WV, T = q->ntypes;
    for (int t = 0; t <= T; t++)
        q->tcount[t] = 0;
    for (int k = 0; k < WV; k++)
        for (word x = P[k]; x; x &= x - 1)
            q->tcount[q->vt[k * 64 + ctz64(x)] + 1]++;
    for (int t = 0; t < T; t++) {
        q->tstart[t] = q->tcount[t];
        q->tcount[t + 1] += q->tcount[t];
    }
    for (int k = 0; k < WV; k++)
        for (word x = P[k]; x; x &= x - 1) {
            int i = k * 64 + ctz64(x);
            q->titems[q->tstart[q->vt[i]]++] = i;
        }
    int64_t total = 0;
    for (int t = 0; t < T; t++) {
        const int32_t *items = q->titems + q->tcount[t];
        int m = q->tcount[t + 1] - q->tcount[t];
        if (m == 0)
            continue;
        if (m == 1) {
            total += q->wt[items[0]];
            continue;
        }
        int nr = 0, nc = 0;
        for (int a = 0; a < m; a++) {
            int i = items[a];
            if (q->rowof[q->vu[i]] < 0)
                q->rowof[q->vu[i]] = nr++;
            if (q->colof[q->vv[i]] < 0)
                q->colof[q->vv[i]] = nc++;
        }
        if (nr == 1 || nc == 1) {
            int64_t most = 0;
            for (int a = 0; a < m; a++)
                if (q->wt[items[a]] > most)
                    most = q->wt[items[a]];
            total += most;
        } else {
            int transpose = nr > nc;
            int r = transpose ? nc : nr, cc = transpose ? nr : nc;
            memset(q->mat, 0, (size_t)r * cc * sizeof(int64_t));
            for (int a = 0; a < m; a++) {
                int i = items[a], x = q->rowof[q->vu[i]], y = q->colof[q->vv[i]];
                if (transpose)
                    q->mat[(size_t)y * cc + x] = q->wt[i];
                else
                    q->mat[(size_t)x * cc + y] = q->wt[i];
            }
            total += max_assignment_c(q, q->mat, r, cc);
        }
        for (int a = 0; a < m; a++) {
            q->rowof[q->vu[items[a]]] = -1;
            q->colof[q->vv[items[a]]] = -1;
        }
    }
    return total;
}

static int clique_expand(Clq *q, int depth, int64_t cur)
{
    const int WV = q->WV;
    q->nodes++;
    if ((q->nodes & 127) == 0) { /* (a small search started attached lets go of its host here) */
        int rc = poll_stop(q->stop, q->nodes);
        if (rc)
            return rc;
    }
    if (cur > q->best) {
        q->best = cur;
        q->has_best = 1;
        q->best_len = q->map_len;
        memcpy(q->best_set, q->map, q->map_len * sizeof(int32_t));
    }
    word *P = q->P + (size_t)WV * depth;
    if (is_empty(P, WV))
        return 0;
    int64_t bound = cur + clique_bound(q, P);
    if (bound <= q->best)
        return 0;
    q->frames[q->n_frames++] = bound;
    word *nx = q->P + (size_t)WV * (depth + 1);
    int first = 1;
    for (int k = 0; k < WV; k++) {
        while (P[k]) {
            if (!first && cur + clique_bound(q, P) <= q->best)
                goto out;
            first = 0;
            int i = k * 64 + ctz64(P[k]);
            const word *a = q->adj + (size_t)WV * i;
            for (int j = 0; j < WV; j++)
                nx[j] = P[j] & a[j];
            q->map[q->map_len++] = i;
            int rc = clique_expand(q, depth + 1, cur + q->wt[i]);
            if (rc)
                return rc;
            q->map_len--;
            P[k] &= P[k] - 1;
        }
    }
out:
    q->n_frames--;
    return 0;
}

static void free_clq(Clq *q)
{
    free(q->block);
    q->block = NULL;
}

/* q's arrays for nv association vertices between graphs of n1 and n2 vertices, carved from b (the
 * type scratch for up to nv types); with b->base NULL only measured */
void clique_carve(Clq *q, int n1, int n2, int nv, Bump *b)
{
    const int nmax = n1 > n2 ? n1 : n2, nmin = n1 < n2 ? n1 : n2;
    q->nv = nv;
    q->WV = nv > 64 ? (nv + 63) / 64 : 1;
    q->n1 = n1;
    q->n2 = n2;
    const size_t WV = (size_t)q->WV, v1 = (size_t)nv + 1, x2 = (size_t)nmax + 2;
    q->adj = bump(b, v1 * WV * sizeof(word)); /* adj and P first: all the rest is written before read */
    q->P = bump(b, ((size_t)nmin + 3) * WV * sizeof(word));
    q->zeroed = b->off;
    q->vu = bump(b, v1 * sizeof(int32_t));
    q->vv = bump(b, v1 * sizeof(int32_t));
    q->vt = bump(b, v1 * sizeof(int32_t));
    q->wt = bump(b, v1 * sizeof(int64_t));
    q->best_set = bump(b, ((size_t)nmin + 2) * sizeof(int32_t));
    q->map = bump(b, ((size_t)nmin + 2) * sizeof(int32_t));
    q->frames = bump(b, ((size_t)nmin + 3) * sizeof(int64_t));
    q->tcount = bump(b, ((size_t)nv + 2) * sizeof(int32_t));
    q->tstart = bump(b, ((size_t)nv + 2) * sizeof(int32_t));
    q->titems = bump(b, v1 * sizeof(int32_t));
    q->rowof = bump(b, ((size_t)n1 + 1) * sizeof(int32_t));
    q->colof = bump(b, ((size_t)n2 + 1) * sizeof(int32_t));
    q->mat = bump(b, ((size_t)nmin + 1) * ((size_t)nmax + 1) * sizeof(int64_t));
    q->hu = bump(b, x2 * sizeof(int64_t));
    q->hv = bump(b, x2 * sizeof(int64_t));
    q->minv = bump(b, x2 * sizeof(int64_t));
    q->hp = bump(b, x2 * sizeof(int32_t));
    q->way = bump(b, x2 * sizeof(int32_t));
    q->used = bump(b, x2);
}

/* allocate q for nv association vertices between graphs of n1 and n2 vertices, in one block
 * (q->block, freed by free_clq); -1: no memory */
int clique_alloc(Clq *q, int n1, int n2, int nv)
{
    Bump b = {NULL, 0};
    clique_carve(q, n1, n2, nv, &b);
    if (!(b.base = q->block = calloc(1, b.off)))
        return -1;
    b.off = 0;
    clique_carve(q, n1, n2, nv, &b);
    return 0;
}

/* with vu, vv, vt, wt and ntypes filled: the type scratch, the association adjacency from the two
 * graphs (CSR of read_kept, W words a mask) and the root candidate set; -2: more types than
 * association vertices */
int clique_prepare(Clq *q, const int32_t *s1, const int64_t *k1, const word *m1, const int32_t *s2,
                   const int64_t *k2, const word *m2, int W)
{
    const int nv = q->nv, WV = q->WV;
    if (q->ntypes > q->nv) /* clique_alloc made room for nv types */
        return -2;
    memset(q->tcount, 0, ((size_t)q->ntypes + 2) * sizeof(int32_t));
    memset(q->tstart, 0, ((size_t)q->ntypes + 2) * sizeof(int32_t));
    for (int u = 0; u < q->n1; u++)
        q->rowof[u] = -1;
    for (int v = 0; v < q->n2; v++)
        q->colof[v] = -1;
    for (int i = 0; i < nv; i++) {
        const int u1 = q->vu[i], v1 = q->vv[i];
        for (int j = i + 1; j < nv; j++) {
            const int u2 = q->vu[j], v2 = q->vv[j];
            if (u1 == u2 || v1 == v2)
                continue;
            if (same_out_edges(s1, k1, m1, u1, u2, s2, k2, m2, v1, v2, W) ||
                same_out_edges(s1, k1, m1, u2, u1, s2, k2, m2, v2, v1, W)) {
                q->adj[(size_t)WV * i + (j >> 6)] |= (word)1 << (j & 63);
                q->adj[(size_t)WV * j + (i >> 6)] |= (word)1 << (i & 63);
            }
        }
    }
    for (int i = 0; i < nv; i++)
        q->P[i >> 6] |= (word)1 << (i & 63);
    return 0;
}

/* the search from q's root above floor, detached from its host (q->stop set up): its return code
 * (0: exact, ABORT_*), and the proven upper bound. With at most CLQ_KEEP_ATTACHED association
 * vertices the search lets its host go only at the first poll (the 128th node): most such searches
 * end before, and releasing and taking back the GIL would cost more than they do. */
#define CLQ_KEEP_ATTACHED 64
int clique_run(Clq *q, long long floor_, int64_t *upper_out)
{
    const int64_t root_bound = clique_bound(q, q->P);
    const int64_t floor = (int64_t)floor_;
    q->best = floor;
    if (q->nv > CLQ_KEEP_ATTACHED)
        stop_detach(q->stop);
    int rc = clique_expand(q, 0, 0);
    stop_attach(q->stop);
    *upper_out = proven_upper(q->best, floor, rc == 0, q->frames, q->n_frames, root_bound);
    return rc;
}

int clique_search_run(const RelGraph *g1, const RelGraph *g2, int nv, const int32_t *vu, const int32_t *vv,
                      const int32_t *vt, const int64_t *wt, int64_t floor, Stop *stop, Found *out, const char **err)
{
    const int n1 = g1->n, n2 = g2->n;
    const int nmax = n1 > n2 ? n1 : n2;
    const int W = nmax > 64 ? (nmax + 63) / 64 : 1;
    Clq clq;
    Clq *q = &clq;
    memset(q, 0, sizeof(Clq));
    memset(out, 0, sizeof(Found));
    q->stop = stop;
    int result = ABORT_NOMEM;
    int32_t *s1 = NULL, *s2 = NULL, *id = malloc(((size_t)nmax + 1) * sizeof(int32_t));
    int64_t *k1 = NULL, *k2 = NULL;
    word *m1 = NULL, *m2 = NULL;
    if (!id)
        goto done;
    for (int u = 0; u < nmax; u++) /* every vertex kept, in its own numbering */
        id[u] = u;
    if (read_kept(g1, id, n1, id, W, &s1, &k1, &m1, NULL, NULL) < 0 ||
        read_kept(g2, id, n2, id, W, &s2, &k2, &m2, NULL, NULL) < 0 || clique_alloc(q, n1, n2, nv) < 0)
        goto done;
    memcpy(q->vu, vu, (size_t)nv * sizeof(int32_t));
    memcpy(q->vv, vv, (size_t)nv * sizeof(int32_t));
    memcpy(q->vt, vt, (size_t)nv * sizeof(int32_t));
    memcpy(q->wt, wt, (size_t)nv * sizeof(int64_t));
    for (int i = 0; i < nv; i++)
        if (vt[i] + 1 > q->ntypes)
            q->ntypes = vt[i] + 1;
    if (clique_prepare(q, s1, k1, m1, s2, k2, m2, W) < 0) {
        *err = "more node types than association vertices";
        result = -2;
        goto done;
    }
    int rc = clique_run(q, floor, &out->upper);
    if (rc == ABORT_SIGNAL || rc == ABORT_ERROR) {
        result = rc;
        goto done;
    }
    out->exact = rc == 0;
    out->best = q->best;
    out->nodes = q->nodes;
    if (q->has_best) {
        if (found_alloc(out, q->best_len) < 0)
            goto done;
        for (int i = 0; i < q->best_len; i++) {
            out->u[i] = q->vu[q->best_set[i]];
            out->v[i] = q->vv[q->best_set[i]];
        }
    }
    result = 0;
done:
    free(id);
    free(s1);
    free(s2);
    free(k1);
    free(k2);
    free(m1);
    free(m2);
    free_clq(q);
    return result;
}
