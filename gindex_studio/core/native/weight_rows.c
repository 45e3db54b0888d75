/*
 * The totals of a pair list's weights (WeightRow, core.h): the common scale, the total and the
 * quick bound (matching._quick_bound), no Python object.
 */
#include "core.h"

int rows_scale(const WeightRow *rows, size_t n, long long *scale)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].den && lcm_into(scale, rows[i].den))
            return 1;
    return 0;
}

int rows_bounds(const WeightRow *rows, size_t n, int n1, int n2, int n_types, long long scale, long long *total,
                long long *quick)
{
    *total = *quick = 0;
    for (size_t i = 0; i < n; i++) {
        const long long x = row_weight(rows + i, scale);
        if (x >= (((long long)1 << 62) - *total))
            return 1;
        *total += x;
    }
    long long *best1 = calloc((size_t)n1 + 1, sizeof(long long)), *best2 = calloc((size_t)n2 + 1, sizeof(long long));
    int32_t *tid1 = malloc(((size_t)n1 + 1) * sizeof(int32_t)), *tid2 = malloc(((size_t)n2 + 1) * sizeof(int32_t));
    long long *sum1 = calloc((size_t)n_types + 1, sizeof(long long)), *sum2 = calloc((size_t)n_types + 1, sizeof(long long));
    int rc = -1;
    if (!best1 || !best2 || !tid1 || !tid2 || !sum1 || !sum2)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const int u = rows[i].u, v = rows[i].v;
        const long long x = row_weight(rows + i, scale);
        if (x > best1[u])
            best1[u] = x;
        if (x > best2[v])
            best2[v] = x;
        tid2[v] = tid1[u] = rows[i].ti; /* a pair joins nodes of one type */
    }
    for (int u = 0; u < n1; u++)
        if (best1[u])
            sum1[tid1[u]] += best1[u];
    for (int v = 0; v < n2; v++)
        if (best2[v])
            sum2[tid2[v]] += best2[v];
    for (int t = 0; t < n_types; t++)
        *quick += sum1[t] < sum2[t] ? sum1[t] : sum2[t];
    rc = 0;
out:
    free(best1);
    free(best2);
    free(tid1);
    free(tid2);
    free(sum1);
    free(sum2);
    return rc;
}
