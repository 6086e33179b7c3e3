/* retried.c — a cause of violations told from the history alone: a thread
 * that called a release again right after that release failed, at the
 * same depth (an application that retries a call which timed out, but
 * may have run on the server: retry-unlock). Such a run breaks things
 * the lock alone would not; its violations carry
 * CHECK_CAUSE_RETRIED_RELEASE, so that signatures tell it apart. */
#include <string.h>

#include "sim/checkers/checkers.h"
#include "sim/kernel/ut.h"

/* A thread's last operation, when it is a failed release. */
typedef struct last_op {
    int key[3]; /* client, incarnation, thread */
    int failed_release;
    int lock, mode;
    int64_t n, depth;
    UT_hash_handle hh;
} last_op;

/* Is e, an invoke, the retry of the failed release in x? */
static int is_retry(const last_op *x, const hist_event *e)
{
    return x->failed_release && e->op == HOP_RELEASE && e->lock == x->lock && e->mode == x->mode && e->n == x->n &&
           e->value == x->depth;
}

/* The history index of the first retried release's invoke, or h->n. */
static size_t first_retry(const history *h)
{
    last_op *threads = NULL, *x, *tmp;
    size_t found = h->n;
    for (size_t k = 0; k < h->n && found == h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->kind == HIST_INFO || e->client <= 0) continue;
        int key[3] = {e->client, e->inc, e->thread};
        HASH_FIND(hh, threads, key, sizeof key, x);
        if (x == NULL) {
            x = sim_xcalloc(1, sizeof *x);
            memcpy(x->key, key, sizeof key);
            HASH_ADD(hh, threads, key, sizeof x->key, x);
        }
        if (e->kind == HIST_INVOKE && is_retry(x, e)) found = k;
        x->failed_release = e->op == HOP_RELEASE && e->kind == HIST_FAIL;
        x->lock = e->lock;
        x->mode = e->mode;
        x->n = e->n;
        x->depth = e->value;
    }
    HASH_ITER(hh, threads, x, tmp) {
        HASH_DEL(threads, x);
        sim_xfree(x);
    }
    return found;
}

void check_mark_retried(const history *h, check_result *r)
{
    if (r->nv == 0) return;
    size_t k = first_retry(h);
    for (size_t i = 0; i < r->nv; i++)
        if (r->v[i].upto >= k && k < h->n) r->v[i].cause |= CHECK_CAUSE_RETRIED_RELEASE;
}
