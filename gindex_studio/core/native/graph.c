/*
 * Graphs for the searches, no Python object: a graph's relations (RelGraph) from an edge array,
 * and restricted to the vertices that can be matched (read_kept); bump allocation and small
 * integer helpers.
 */
#include "core.h"

void *bump(Bump *b, size_t n)
{
    void *r = b->base ? b->base + b->off : NULL;
    b->off += (n + 15) & ~(size_t)15;
    return r;
}

int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
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

void relgraph_free(RelGraph *g)
{
    free(g->start);
    free(g->key);
    free(g->other);
    g->start = NULL;
    g->key = NULL;
    g->other = NULL;
}

int relgraph_from_edges(RelGraph *g, int n, const int32_t *e, int64_t m, const char **err)
{
    memset(g, 0, sizeof(RelGraph));
    g->n = n;
    for (int64_t t = 0; t < m; t++) {
        const int32_t *x = e + 3 * t;
        if (x[0] < 0 || x[0] >= n || x[2] < 0 || x[2] >= n || x[1] < 0) {
            *err = "edges: vertex or port out of range";
            return -2;
        }
        if (t && (x[-3] > x[0] || (x[-3] == x[0] && (x[-2] > x[1] || (x[-2] == x[1] && x[-1] >= x[2]))))) {
            *err = "edges: triples must be sorted and distinct";
            return -2;
        }
    }
    g->start = calloc((size_t)n + 2, sizeof(int32_t));
    g->key = malloc((size_t)(2 * m + 1) * sizeof(int64_t));
    g->other = malloc((size_t)(2 * m + 1) * sizeof(int32_t));
    int32_t *fill = malloc(((size_t)n + 1) * sizeof(int32_t));
    if (!g->start || !g->key || !g->other || !fill) {
        free(fill);
        relgraph_free(g);
        return -1;
    }
    for (int64_t t = 0; t < m; t++) {
        g->start[e[3 * t] + 1]++;
        g->start[e[3 * t + 2] + 1]++;
    }
    for (int u = 0; u < n; u++)
        g->start[u + 1] += g->start[u];
    memcpy(fill, g->start, (size_t)n * sizeof(int32_t));
    for (int64_t t = 0; t < m; t++) {
        const int32_t *x = e + 3 * t;
        int j = fill[x[0]]++;
        g->key[j] = x[1];
        g->other[j] = x[2];
        j = fill[x[2]]++;
        g->key[j] = IN_KEY + x[1];
        g->other[j] = x[0];
    }
    free(fill);
    return 0;
}

/* the union of each vertex's relation masks; -1: no memory */
int neighbourhoods(int n, int W, const int32_t *starts, const word *masks, word **nb)
{
    *nb = calloc((size_t)(n ? n : 1) * W, sizeof(word));
    if (!*nb)
        return -1;
    for (int u = 0; u < n; u++)
        for (int k = starts[u]; k < starts[u + 1]; k++)
            for (int i = 0; i < W; i++)
                (*nb)[(size_t)W * u + i] |= masks[(size_t)W * k + i];
    return 0;
}

/* ---- a graph restricted to the vertices that can be matched ---------------------------------- *
 *
 * The searches only ever look at vertices with a partner (a same-type pair of w > 0): the others
 * never enter a class. Only the relations among kept vertices are built: cost follows the kept
 * vertices and the edges, never n^2. */

typedef struct {
    int64_t key;
    int32_t other; /* new index of the vertex at the other end */
} Rel;

KEY_THEN_TIE_ORDER(cmp_rel, Rel, key, other)

/* the relations of rels[0..m) (sorted by key) appended to the CSR as one mask per key */
static int emit_rels(const Rel *rels, int m, int W, int64_t **keys, word **masks, ptrdiff_t *k, ptrdiff_t *cap)
{
    for (int a = 0; a < m;) {
        int b = a;
        while (b < m && rels[b].key == rels[a].key)
            b++;
        if (*k == *cap) {
            ptrdiff_t c2 = *cap ? 2 * *cap : 16;
            int64_t *nk = realloc(*keys, (size_t)c2 * sizeof(int64_t));
            if (!nk)
                return -1;
            *keys = nk;
            word *nm = realloc(*masks, (size_t)c2 * W * sizeof(word));
            if (!nm)
                return -1;
            *masks = nm;
            *cap = c2;
        }
        (*keys)[*k] = rels[a].key;
        word *o = *masks + (size_t)W * *k;
        memset(o, 0, (size_t)W * sizeof(word));
        for (int i = a; i < b; i++)
            o[rels[i].other >> 6] |= (word)1 << (rels[i].other & 63);
        (*k)++;
        a = b;
    }
    return 0;
}

/* sparse: the relations of rels[0..m) (sorted by key, then vertex) appended to the CSR as one
 * list of vertices per key: entry k holds (*others)[(*offs)[k] .. (*offs)[k + 1]) */
static int emit_lists(const Rel *rels, int m, int64_t **keys, int32_t **offs, int32_t **others, ptrdiff_t *k,
                      ptrdiff_t *cap, ptrdiff_t *nv, ptrdiff_t *vcap)
{
    if (*nv + m > *vcap) {
        ptrdiff_t c2 = *vcap ? 2 * *vcap : 16;
        while (c2 < *nv + m)
            c2 *= 2;
        int32_t *no = realloc(*others, (size_t)c2 * sizeof(int32_t));
        if (!no)
            return -1;
        *others = no;
        *vcap = c2;
    }
    for (int a = 0; a < m;) {
        int b = a;
        while (b < m && rels[b].key == rels[a].key)
            b++;
        if (*k + 1 >= *cap) { /* room for the entry and the final offset */
            ptrdiff_t c2 = *cap ? 2 * *cap : 16;
            int64_t *nk = realloc(*keys, (size_t)c2 * sizeof(int64_t));
            if (!nk)
                return -1;
            *keys = nk;
            int32_t *no = realloc(*offs, (size_t)c2 * sizeof(int32_t));
            if (!no)
                return -1;
            *offs = no;
            *cap = c2;
        }
        (*keys)[*k] = rels[a].key;
        (*offs)[*k] = (int32_t)*nv;
        for (int i = a; i < b; i++)
            (*others)[(*nv)++] = rels[i].other;
        (*k)++;
        a = b;
    }
    return 0;
}

int read_kept(const RelGraph *g, const int32_t *keep, int nk, const int32_t *pos, int W, int32_t **starts,
              int64_t **keys, word **masks, int32_t **offs, int32_t **others)
{
    *starts = malloc(((size_t)nk + 1) * sizeof(int32_t));
    *keys = NULL;
    *masks = NULL;
    if (offs) {
        *offs = NULL;
        *others = NULL;
    }
    ptrdiff_t k = 0, cap = 0, nv = 0, vcap = 0;
    int most = 1;
    for (int i = 0; i < nk; i++)
        if (g->start[keep[i] + 1] - g->start[keep[i]] > most)
            most = g->start[keep[i] + 1] - g->start[keep[i]];
    Rel *rels = malloc((size_t)most * sizeof(Rel));
    if (!*starts || !rels)
        goto nomem;
    for (int i = 0; i < nk; i++) {
        const int u = keep[i];
        (*starts)[i] = (int32_t)k;
        int m = 0;
        for (int j = g->start[u]; j < g->start[u + 1]; j++)
            if (pos[g->other[j]] >= 0)
                rels[m++] = (Rel){g->key[j], pos[g->other[j]]};
        if (m > 1)
            qsort(rels, (size_t)m, sizeof(Rel), cmp_rel);
        if ((offs ? emit_lists(rels, m, keys, offs, others, &k, &cap, &nv, &vcap)
                  : emit_rels(rels, m, W, keys, masks, &k, &cap)) < 0)
            goto nomem;
    }
    (*starts)[nk] = (int32_t)k;
    if (offs) {
        if (!*keys) { /* callers index these: never NULL */
            *keys = malloc(sizeof(int64_t));
            *offs = malloc(sizeof(int32_t));
            if (!*keys || !*offs)
                goto nomem;
        }
        (*offs)[k] = (int32_t)nv; /* emit_lists left room for it */
        if (!*others && !(*others = malloc(sizeof(int32_t))))
            goto nomem;
    } else if (!*keys) { /* callers index these: never NULL */
        *keys = malloc(sizeof(int64_t));
        *masks = calloc((size_t)W, sizeof(word));
        if (!*keys || !*masks)
            goto nomem;
    }
    free(rels);
    return 0;
nomem:
    free(rels);
    return -1;
}
