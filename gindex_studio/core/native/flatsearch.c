/*
 * The flatland profile's exact search (gindex_studio.core.flatland.search), in plain C: flat_run
 * (core.h). Branch and bound with the tree-DP bound, step for step as search._Side (the same order,
 * bound, forced choices, candidate order and pruning), so the same S, node count and proven upper
 * bound. Vertex sets are arrays of W 64-bit words. Both root bounds are computed; the graph with
 * the smaller one is the tree side (ties: g1). The search runs detached from its host and polls
 * its Stop every 128 nodes.
 */
#include "core.h"

typedef struct {
    int32_t v;
    int64_t val;
} Cand;

typedef struct {
    const int32_t *gof; /* the child's relation column of S.gof (NULL: no such relation in the other graph) */
    const uint64_t *dc;
    const int64_t *fc;
    int64_t nc;
} Child;

typedef struct {
    int n1, n2, W;
    int64_t *wt;      /* n1 * n2 */
    int64_t *rel1;    /* n1 * n1, 0: not adjacent */
    int16_t *rid1;    /* n1 * n1: relation id (-1: no relation in the other graph) */
    int32_t *gof;     /* n2 * R: v's group with relation id: its only vertex y >= 0, or -2 - the group
                       * when it has several, -1 none (one load less in dp than group, then vertex) */
    int R;
    int32_t *gs;      /* per v of the other side: groups gs[v] .. gs[v + 1] */
    int64_t *grel;    /* relation of each group */
    word *gmask;      /* W words per group */
    int32_t *gone;    /* per group: its only vertex, or -1 when it has several */
    word *nbmask;     /* W words per v */
    int32_t *order, *parent, *pos;
    int32_t *cs, *ch; /* children, CSR */
    word *dom;        /* (n1 + 1) levels * n1 * W */
    int64_t *f, *fnone, *best;
    Cand *cand;       /* (n1 + 1) levels * n2 */
    int32_t *mu, *mv, *bu, *bv;
    int depth, nbest;
    int64_t *frames;
    int nframes;
    int64_t incumbent;
    long long nodes;
    Stop *stop;
    int aborted;      /* poll_stop's code once the search must stop */
    char *asg;       /* per vertex of the tree side: decided (matched or left out) */
    int32_t *forced;  /* (n1 + 1) levels * 2 * n1: the forced (root, partner or -1) of a node */
    Child *ci;        /* n1: dp's scratch, one per child of the vertex at hand */
} S;

/* by value, best first; ties: partners by index, then unmatched (v = -1) */
static int cmp_cand(const void *a, const void *b) {
    const Cand *x = a, *y = b;
    if (x->val != y->val) return x->val > y->val ? -1 : 1;
    if ((x->v < 0) != (y->v < 0)) return x->v < 0 ? 1 : -1;
    return x->v - y->v;
}

/* the DP over the undecided vertices (a forest: a vertex is decided only after its parent); f, fnone,
 * best filled for those; returns Σ best over the roots of that forest */
/* x is a root of the forest still to decide: x undecided, its parent (if any) decided */
static inline int open_root(const S *s, int x) {
    int p = s->parent[x];
    return !s->asg[x] && (p < 0 || s->asg[p]);
}

static int64_t dp(S *s, const word *D) {
    int n1 = s->n1, n2 = s->n2, W = s->W, R = s->R;
    Child *ci = s->ci;
    for (int k = n1 - 1; k >= 0; k--) {
        int u = s->order[k];
        if (s->asg[u]) continue;
        const word *du = D + (size_t)u * W;
        int64_t *fu = s->f + (size_t)u * n2;
        const int64_t *wu = s->wt + (size_t)u * n2;
        int64_t fn = 0;
        int m = 0;
        for (int j = s->cs[u]; j < s->cs[u + 1]; j++, m++) {
            int c = s->ch[j];
            fn += s->best[c];
            int rid = s->rid1[(size_t)u * n1 + c];
            ci[m].gof = rid >= 0 ? s->gof + rid : NULL;
            ci[m].dc = D + (size_t)c * W;
            ci[m].fc = s->f + (size_t)c * n2;
            ci[m].nc = s->fnone[c];
        }
        /* one pass over D(u): f(u, v) = w(u, v) + the children's best compatible choices */
        int64_t bu = fn;
        FOR_EACH_BIT(v, du, W) {
            int64_t val = wu[v];
            for (int t = 0; t < m; t++) {
                int64_t b = ci[t].nc;
                int y = ci[t].gof ? ci[t].gof[(size_t)v * R] : -1;
                if (y != -1) {
                    const word *dc = ci[t].dc;
                    const int64_t *fc = ci[t].fc;
                    if (y >= 0) {
                        if (((dc[y >> 6] >> (y & 63)) & 1) && fc[y] > b) b = fc[y];
                    } else {
                        const word *gm = s->gmask + (size_t)(-2 - y) * W;
                        for (int p = 0; p < W; p++) {
                            word x = gm[p] & dc[p];
                            while (x) {
                                int z = p * 64 + __builtin_ctzll(x);
                                x &= x - 1;
                                if (fc[z] > b) b = fc[z];
                            }
                        }
                    }
                }
                val += b;
            }
            fu[v] = val;
            if (val > bu) bu = val;
        }
        s->fnone[u] = fn;
        s->best[u] = bu;
    }
    int64_t total = 0;
    for (int u = 0; u < n1; u++) {
        if (open_root(s, u)) total += s->best[u];
    }
    return total;
}

static void search(S *s, int i, int64_t cur, const word *D) {
    s->nodes++;
    if ((s->nodes & 127) == 0) s->aborted = poll_stop(s->stop, s->nodes);
    if (s->aborted) return;
    if (cur > s->incumbent) {
        s->incumbent = cur;
        s->nbest = s->depth;
        memcpy(s->bu, s->mu, sizeof(int32_t) * s->depth);
        memcpy(s->bv, s->mv, sizeof(int32_t) * s->depth);
    }
    if (i == s->n1) return;
    int n1 = s->n1, n2 = s->n2, W = s->W;
    int64_t total = dp(s, D);
    if (cur + total <= s->incumbent) return;
    s->frames[s->nframes++] = cur + total;
    /* the roots with one choice left (search._forced): all taken at once, in one child node */
    int32_t *F = s->forced + (size_t)i * 2 * n1;
    int nf = 0;
    for (int k = 0; k < n1; k++) {
        int x = s->order[k];
        if (!open_root(s, x)) continue;
        int64_t room = s->incumbent - cur - (total - s->best[x]);
        int only = -1, count = s->fnone[x] > room ? 1 : 0;
        const word *dx = D + (size_t)x * W;
        const int64_t *fx = s->f + (size_t)x * n2;
        for (int q = 0; q < W && count < 2; q++) {
            word m = dx[q];
            while (m) {
                int v = q * 64 + __builtin_ctzll(m);
                m &= m - 1;
                if (fx[v] > room) {
                    only = v;
                    if (++count > 1) break;
                }
            }
        }
        if (count == 1) {
            F[2 * nf] = x;
            F[2 * nf + 1] = only;
            nf++;
        }
    }
    if (nf > 0) {
        word *nd = s->dom + (size_t)(i + 1) * n1 * W;
        memcpy(nd, D, sizeof(word) * (size_t)n1 * W);
        int64_t gain = 0;
        int done = 0, ok = 1, d0 = s->depth;
        for (; done < nf; done++) {
            int x = F[2 * done], v = F[2 * done + 1];
            if (v >= 0) {
                if (!((nd[(size_t)x * W + (v >> 6)] >> (v & 63)) & 1)) {
                    ok = 0;
                    break;
                }
                const word *nbm = s->nbmask + (size_t)v * W;
                const int64_t *relx = s->rel1 + (size_t)x * n1;
                for (int j = 0; j < n1; j++) {
                    int y = s->order[j];
                    if (s->asg[y] || y == x) continue;
                    word *ndy = nd + (size_t)y * W;
                    int64_t r = relx[y];
                    if (r == 0) {
                        for (int q = 0; q < W; q++) ndy[q] &= ~nbm[q];
                    } else {
                        const word *gm = NULL;
                        for (int g = s->gs[v]; g < s->gs[v + 1]; g++)
                            if (s->grel[g] == r) {
                                gm = s->gmask + (size_t)g * W;
                                break;
                            }
                        if (gm)
                            for (int q = 0; q < W; q++) ndy[q] &= gm[q];
                        else
                            memset(ndy, 0, sizeof(word) * W);
                    }
                    ndy[v >> 6] &= ~((word)1 << (v & 63));
                }
                gain += s->wt[(size_t)x * n2 + v];
                s->mu[s->depth] = x;
                s->mv[s->depth] = v;
                s->depth++;
            }
            s->asg[x] = 1;
        }
        if (ok) search(s, i + nf, cur + gain, nd);
        for (int j = 0; j < done; j++) s->asg[F[2 * j]] = 0;
        s->depth = d0;
        if (!s->aborted) s->nframes--;
        return;
    }
    /* the branch vertex: a root of the remaining forest, the one with the most at stake,
     * key = (best − f∅) + (best − second best of {f∅, f∅} ∪ {f(u, v)}); ties: first in BFS order */
    int u = -1;
    int64_t bestkey = 0;
    for (int k = 0; k < n1; k++) {
        int x = s->order[k];
        if (!open_root(s, x)) continue;
        const word *dx = D + (size_t)x * W;
        const int64_t *fx = s->f + (size_t)x * n2;
        int64_t f1 = s->fnone[x], f2 = s->fnone[x];
        FOR_EACH_BIT(v, dx, W) {
            int64_t y = fx[v];
            if (y > f1) {
                f2 = f1;
                f1 = y;
            } else if (y > f2) {
                f2 = y;
            }
        }
        int64_t key = (s->best[x] - s->fnone[x]) + (f1 - f2);
        if (u < 0 || key > bestkey) {
            u = x;
            bestkey = key;
        }
    }
    int64_t rest = total - s->best[u];
    Cand *cand = s->cand + (size_t)i * (n2 + 1);
    int nc = 0;
    cand[nc].v = -1; /* leave u unmatched */
    cand[nc].val = s->fnone[u];
    nc++;
    const word *du = D + (size_t)u * W;
    const int64_t *fu = s->f + (size_t)u * n2;
    FOR_EACH_BIT(v, du, W) {
        cand[nc].v = v;
        cand[nc].val = fu[v];
        nc++;
    }
    qsort(cand, nc, sizeof(Cand), cmp_cand);
    word *nd = s->dom + (size_t)(i + 1) * n1 * W;
    const int64_t *relu = s->rel1 + (size_t)u * n1;
    for (int k = 0; k < nc && !s->aborted; k++) {
        int v = cand[k].v;
        if (cur + cand[k].val + rest <= s->incumbent) break;
        if (v < 0) {
            s->asg[u] = 1;
            search(s, i + 1, cur, D);
            s->asg[u] = 0;
            continue;
        }
        const word *nbm = s->nbmask + (size_t)v * W;
        for (int j = 0; j < n1; j++) {
            int x = s->order[j];
            if (s->asg[x] || x == u) continue;
            const word *dx = D + (size_t)x * W;
            word *ndx = nd + (size_t)x * W;
            int64_t r = relu[x];
            if (r == 0) {
                for (int q = 0; q < W; q++) ndx[q] = dx[q] & ~nbm[q];
            } else {
                memset(ndx, 0, sizeof(word) * W);
                for (int g = s->gs[v]; g < s->gs[v + 1]; g++) {
                    if (s->grel[g] != r) continue;
                    const word *gm = s->gmask + (size_t)g * W;
                    for (int q = 0; q < W; q++) ndx[q] = dx[q] & gm[q];
                    break;
                }
            }
            ndx[v >> 6] &= ~((word)1 << (v & 63));
        }
        s->mu[s->depth] = u;
        s->mv[s->depth] = v;
        s->depth++;
        s->asg[u] = 1;
        search(s, i + 1, cur + s->wt[(size_t)u * n2 + v], nd);
        s->asg[u] = 0;
        s->depth--;
    }
    if (!s->aborted) s->nframes--;
}

static void free_side(S *s) {
    free(s->wt); free(s->rel1); free(s->gs); free(s->grel); free(s->gmask); free(s->nbmask);
    free(s->order); free(s->parent); free(s->pos); free(s->cs); free(s->ch); free(s->dom); free(s->f);
    free(s->fnone); free(s->best); free(s->cand); free(s->mu); free(s->mv); free(s->bu); free(s->bv);
    free(s->frames); free(s->rid1); free(s->gof); free(s->asg); free(s->gone); free(s->forced); free(s->ci);
    memset(s, 0, sizeof *s);
}

/* side with graph a (n1 vertices) as the tree: w[u * n2 + v] (or w[v * n1 + u] when transposed) */
static int setup_side(S *s, int n1, int n2, const int64_t *w, int transposed, const int64_t *rel1,
                      const int32_t *order, const int32_t *parent, const int64_t *rel2) {
    memset(s, 0, sizeof *s);
    s->n1 = n1;
    s->n2 = n2;
    int W = s->W = n2 / 64 + 1;
    s->wt = calloc((size_t)n1 * n2 + 1, sizeof(int64_t));
    s->rel1 = calloc((size_t)n1 * n1 + 1, sizeof(int64_t));
    s->gs = calloc((size_t)n2 + 1, sizeof(int32_t));
    s->nbmask = calloc((size_t)n2 * W + 1, sizeof(word));
    s->order = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->parent = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->pos = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->cs = calloc((size_t)n1 + 2, sizeof(int32_t));
    s->ch = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->dom = calloc((size_t)(n1 + 1) * n1 * W + 1, sizeof(word));
    s->f = calloc((size_t)n1 * n2 + 1, sizeof(int64_t));
    s->fnone = calloc((size_t)n1 + 1, sizeof(int64_t));
    s->best = calloc((size_t)n1 + 1, sizeof(int64_t));
    s->cand = calloc((size_t)(n1 + 1) * (n2 + 1) + 1, sizeof(Cand));
    s->mu = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->mv = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->bu = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->bv = calloc((size_t)n1 + 1, sizeof(int32_t));
    s->frames = calloc((size_t)n1 + 2, sizeof(int64_t));
    s->asg = calloc((size_t)n1 + 1, 1);
    s->forced = calloc((size_t)(n1 + 1) * 2 * n1 + 1, sizeof(int32_t));
    s->ci = calloc((size_t)n1 + 1, sizeof(Child));
    if (!s->forced || !s->ci) return -1;
    if (!s->wt || !s->rel1 || !s->gs || !s->nbmask || !s->order || !s->parent || !s->pos || !s->cs || !s->ch ||
        !s->dom || !s->f || !s->fnone || !s->best || !s->cand || !s->mu || !s->mv || !s->bu || !s->bv || !s->frames ||
        !s->asg)
        return -1;
    for (int u = 0; u < n1; u++)
        for (int v = 0; v < n2; v++)
            s->wt[(size_t)u * n2 + v] = transposed ? w[(size_t)v * n1 + u] : w[(size_t)u * n2 + v];
    memcpy(s->rel1, rel1, sizeof(int64_t) * n1 * n1);
    memcpy(s->order, order, sizeof(int32_t) * n1);
    memcpy(s->parent, parent, sizeof(int32_t) * n1);
    for (int k = 0; k < n1; k++) {
        if (s->order[k] < 0 || s->order[k] >= n1 || s->parent[k] < -1 || s->parent[k] >= n1) return -2;
        s->pos[s->order[k]] = k;
    }
    /* children in BFS order (as search._Side: appended while walking the order) */
    for (int k = 0; k < n1; k++)
        if (s->parent[k] >= 0) s->cs[s->parent[k] + 1]++;
    for (int k = 0; k < n1; k++) s->cs[k + 1] += s->cs[k];
    int32_t *fill = calloc((size_t)n1 + 1, sizeof(int32_t));
    if (!fill) return -1;
    for (int k = 0; k < n1; k++) {
        int u = s->order[k], p = s->parent[u];
        if (p >= 0) s->ch[s->cs[p] + fill[p]++] = u;
    }
    free(fill);
    /* groups of the other side: per v, one group per distinct relation */
    int ng = 0;
    for (int v = 0; v < n2; v++) {
        s->gs[v] = ng;
        for (int x = 0; x < n2; x++) {
            int64_t r = rel2[(size_t)v * n2 + x];
            if (!r) continue;
            int seen = 0;
            for (int x2 = 0; x2 < x && !seen; x2++)
                if (rel2[(size_t)v * n2 + x2] == r) seen = 1;
            if (!seen) ng++;
        }
    }
    s->gs[n2] = ng;
    s->grel = calloc((size_t)ng + 1, sizeof(int64_t));
    s->gmask = calloc((size_t)ng * W + 1, sizeof(word));
    s->gone = malloc(sizeof(int32_t) * ((size_t)ng + 1));
    if (!s->grel || !s->gmask || !s->gone) return -1;
    for (int v = 0; v < n2; v++) {
        int g0 = s->gs[v], g = g0;
        for (int x = 0; x < n2; x++) {
            int64_t r = rel2[(size_t)v * n2 + x];
            if (!r) continue;
            int k = g0;
            while (k < g && s->grel[k] != r) k++;
            if (k == g) s->grel[g++] = r;
            s->gmask[(size_t)k * W + (x >> 6)] |= (word)1 << (x & 63);
            s->nbmask[(size_t)v * W + (x >> 6)] |= (word)1 << (x & 63);
        }
    }
    for (int g = 0; g < ng; g++) {
        int count = 0, only = -1;
        for (int q = 0; q < W; q++) {
            word m = s->gmask[(size_t)g * W + q];
            count += __builtin_popcountll(m);
            if (m) only = q * 64 + __builtin_ctzll(m);
        }
        s->gone[g] = count == 1 ? only : -1;
    }
    for (int u = 0; u < n1; u++)
        for (int v = 0; v < n2; v++)
            if (s->wt[(size_t)u * n2 + v] > 0) s->dom[(size_t)u * W + (v >> 6)] |= (word)1 << (v & 63);
    /* relation ids: the distinct relations of the other graph's groups */
    int64_t *codes = calloc((size_t)ng + 1, sizeof(int64_t));
    if (!codes) return -1;
    int R = 0;
    for (int g = 0; g < ng; g++) {
        int k = 0;
        while (k < R && codes[k] != s->grel[g]) k++;
        if (k == R) codes[R++] = s->grel[g];
    }
    s->R = R > 0 ? R : 1;
    s->rid1 = malloc(sizeof(int16_t) * ((size_t)n1 * n1 + 1));
    s->gof = malloc(sizeof(int32_t) * ((size_t)n2 * s->R + 1));
    if (!s->rid1 || !s->gof) { free(codes); return -1; }
    for (size_t k = 0; k < (size_t)n1 * n1; k++) {
        int64_t r = s->rel1[k];
        int id = -1;
        if (r) for (int j = 0; j < R; j++) if (codes[j] == r) { id = j; break; }
        s->rid1[k] = (int16_t)id;
    }
    for (size_t k = 0; k < (size_t)n2 * s->R; k++) s->gof[k] = -1;
    for (int v = 0; v < n2; v++)
        for (int g = s->gs[v]; g < s->gs[v + 1]; g++)
            for (int j = 0; j < R; j++)
                if (codes[j] == s->grel[g]) s->gof[(size_t)v * s->R + j] = s->gone[g] >= 0 ? s->gone[g] : -2 - g;
    free(codes);
    return 0;
}

int flat_run(int n1, int n2, const int64_t *w, const int64_t *rel1, const int32_t *order1, const int32_t *parent1,
             const int64_t *rel2, const int32_t *order2, const int32_t *parent2, int64_t floor, Stop *stop,
             Found *out, int64_t *root, const char **err) {
    S a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof(Found));
    int rc = setup_side(&a, n1, n2, w, 0, rel1, order1, parent1, rel2);
    if (!rc) rc = setup_side(&b, n2, n1, w, 1, rel2, order2, parent2, rel1);
    if (rc) {
        free_side(&a);
        free_side(&b);
        if (rc == -1) return ABORT_NOMEM;
        *err = "order / parent out of range";
        return -2;
    }
    stop_detach(stop);
    int64_t ra = dp(&a, a.dom), rb = dp(&b, b.dom);
    S *s = rb < ra ? &b : &a;
    s->incumbent = floor;
    s->nbest = -1;
    s->stop = stop;
    search(s, 0, 0, s->dom);
    stop_attach(stop);
    const int swapped = s == &b;
    *root = swapped ? rb : ra;
    int result = 0;
    if (s->aborted == ABORT_SIGNAL || s->aborted == ABORT_ERROR) {
        result = s->aborted;
    } else {
        out->exact = !s->aborted;
        out->best = s->incumbent;
        out->nodes = s->nodes;
        out->upper = proven_upper(s->incumbent, floor, out->exact, s->frames, s->nframes, *root);
        if (s->nbest >= 0) {
            if (found_alloc(out, s->nbest) < 0) {
                result = ABORT_NOMEM;
            } else {
                memcpy(out->u, swapped ? s->bv : s->bu, (size_t)s->nbest * sizeof(int32_t));
                memcpy(out->v, swapped ? s->bu : s->bv, (size_t)s->nbest * sizeof(int32_t));
            }
        }
    }
    free_side(&a);
    free_side(&b);
    return result;
}
