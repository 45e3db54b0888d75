/*
 * What stops a search (the clock, poll_stop, the host's lock) and what a search found: shared by
 * both extensions, no Python object.
 */
#include "core.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

/* the clock of Python's time.perf_counter(): QueryPerformanceCounter, mach_absolute_time, else
 * CLOCK_MONOTONIC (a Budget's stop_at, a perf_counter() time, is compared with it as it is) */
double now_seconds(void)
{
#ifdef _WIN32
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (!freq.QuadPart)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart / (double)freq.QuadPart;
#elif defined(__APPLE__)
    return 1e-9 * (double)clock_gettime_nsec_np(CLOCK_UPTIME_RAW); /* mach_absolute_time, as Python's */
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#endif
}

static inline int cancel_requested(const volatile unsigned char *flag)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n((const unsigned char *)flag, __ATOMIC_RELAXED) != 0;
#else
    return *flag != 0;
#endif
}

void stop_detach(Stop *s)
{
    if (s->detached)
        return;
    s->detached = 1;
    if (s->host.detach)
        s->host.detach(s->host.ctx);
}

void stop_attach(Stop *s)
{
    if (!s->detached)
        return;
    s->detached = 0;
    if (s->host.attach)
        s->host.attach(s->host.ctx);
}

/* Called every 128 search nodes, detached (a search that started attached lets go here). */
int poll_stop(Stop *s, int64_t nodes)
{
    stop_detach(s);
    if (s->use_deadline && now_seconds() > s->stop)
        return ABORT_DEADLINE;
    if (s->cancel_flag && cancel_requested(s->cancel_flag))
        return ABORT_CANCEL;
    if (s->host.cancelled && (nodes & 4095) == 0) {
        stop_attach(s);
        int on = s->host.cancelled(s->host.ctx);
        stop_detach(s);
        if (on < 0)
            return ABORT_ERROR;
        if (on)
            return ABORT_CANCEL;
    }
    if (s->check_signals && ((nodes & ((1 << 18) - 1)) == 0 || now_seconds() > s->next_signals)) {
        s->next_signals = now_seconds() + SIGNAL_SECONDS;
        int err = 0;
        if (s->host.signals) {
            stop_attach(s);
            err = s->host.signals(s->host.ctx);
            stop_detach(s);
        }
        if (err)
            return ABORT_SIGNAL;
    }
    return 0;
}

void found_free(Found *f)
{
    free(f->u);
    free(f->v);
    f->u = f->v = NULL;
}

int found_alloc(Found *f, int len)
{
    f->u = malloc(((size_t)len + 1) * sizeof(int32_t));
    f->v = malloc(((size_t)len + 1) * sizeof(int32_t));
    if (!f->u || !f->v) {
        found_free(f);
        return -1;
    }
    f->found = 1;
    f->len = len;
    return 0;
}

int64_t proven_upper(int64_t best, int64_t floor, int exact, const int64_t *frames, int n_frames, int64_t root)
{
    int64_t upper = best > floor ? best : floor;
    if (!exact)
        for (int i = 0; i < n_frames; i++)
            if (frames[i] > upper)
                upper = frames[i];
    const int64_t cap = root > best ? root : best;
    return cap < upper ? cap : upper;
}
