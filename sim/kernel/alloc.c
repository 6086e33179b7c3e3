/* alloc.c — allocation that never returns NULL, free lists of equal-sized
 * blocks, and the always-on assert. Out of memory is not a condition
 * locksim recovers from: print and abort. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/kernel/sim.h"

static void oom(size_t n)
{
    fprintf(stderr, "locksim: out of memory allocating %zu bytes\n", n);
    fflush(stderr);
    abort();
}

void *sim_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) oom(n);
    return p;
}

void *sim_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL) oom(count * size);
    return p;
}

void *sim_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) oom(n);
    return q;
}

char *sim_xstrdup(const char *s)
{
    return sim_xmemdup(s, strlen(s));
}

char *sim_xmemdup(const void *p, size_t n)
{
    char *q = sim_xmalloc(n + 1);
    if (n) memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

void sim_fl_drain(sim_freelist *fl)
{
    while (fl->head) {
        void **p = fl->head;
        fl->head = *p;
        free(p);
    }
    fl->kept = 0;
}

void sim_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "locksim: %s:%d: assertion failed: %s\n", file, line, expr);
    fflush(stderr);
    abort();
}
