/* alloc.c — allocation that never returns NULL, free lists of equal-sized
 * blocks, and the always-on assert. Out of memory is not a condition
 * locksim recovers from: print and abort. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

#if SIM_FL_BYPASS
void *sim_xgrow(void *p, size_t old_bytes, size_t new_bytes)
{
    sim_assert(new_bytes >= old_bytes);
    return sim_xrealloc(p, new_bytes);
}

void sim_xgrow_free(void *p, size_t bytes)
{
    (void)bytes;
    sim_xfree(p);
}
#else
static void *map_fresh(size_t n)
{
    void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) oom(n);
    return q;
}

void *sim_xgrow(void *p, size_t old_bytes, size_t new_bytes)
{
    sim_assert(new_bytes >= old_bytes && (p != NULL || old_bytes == 0));
    if (new_bytes < SIM_GROW_MAPPED) return sim_xrealloc(p, new_bytes);
    void *q;
    if (old_bytes >= SIM_GROW_MAPPED) {
        q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) oom(new_bytes);
    } else {
        q = map_fresh(new_bytes);
        if (old_bytes) memcpy(q, p, old_bytes);
        sim_xfree(p);
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(q, new_bytes, MADV_HUGEPAGE); /* a hint; refused is fine */
#endif
    return q;
}

void sim_xgrow_free(void *p, size_t bytes)
{
    if (p == NULL) return;
    if (bytes < SIM_GROW_MAPPED) {
        sim_xfree(p);
        return;
    }
    int rc = munmap(p, bytes);
    sim_assert(rc == 0);
}
#endif

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
