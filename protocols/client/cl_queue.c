/* cl_queue.c — the observer of fair-lock wait queues: after each command a
 * master runs, the queue is read and compared with the last one seen, and
 * every waiter that entered or left it is recorded in the history at that
 * true time (HOP_QUEUED with its position, HOP_DEQUEUED). This is the
 * server's order, which the fifo checker judges grants against.
 *
 * Scripts only append at the tail and remove anywhere, so the new queue is
 * the old one with members removed, then new members appended: members of
 * the new queue that match the old one in order (greedily) stayed; the old
 * members left out were removed; the rest of the new queue entered. A
 * waiter purged at the head and queued again at the tail by the same script
 * is seen as leaving and entering. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/cl_int.h"

typedef struct qlist {
    char (*v)[64]; /* lock names, head first */
    size_t n, cap;
} qlist;

struct cl_queues {
    qlist last[SCN_MAX_LOCKS];
    qlist cur;
};

static void collect(void *ud, const char *lname, size_t len)
{
    qlist *q = ud;
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 16;
        q->v = sim_xrealloc(q->v, q->cap * sizeof *q->v);
    }
    snprintf(q->v[q->n++], sizeof q->v[0], "%.*s", (int)(len < 63 ? len : 63), lname);
}

static int same(const qlist *a, const qlist *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0) return 0;
    return 1;
}

static void record(cl_world *cw, int lock, const char *lname, hist_op op, int64_t value)
{
    int client, inc, thread;
    if (!cl_world_who(cw, lname, &client, &inc, &thread)) return; /* a foreign entry */
    if (op == HOP_DEQUEUED)
        value = cw->last_client[lock] == client && cw->last_inc[lock] == inc && cw->last_thread[lock] == thread;
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = op, .client = client, .inc = inc,
                    .thread = thread, .lock = lock, .value = value};
    hist_add(cw->h, &e);
}

void cl_queue_observe(cl_world *cw, int group, int lock)
{
    if (!world_node_up(cw->w, world_master(cw->w, group))) return; /* seen again once it is back */
    if (cw->queues == NULL) cw->queues = sim_xcalloc(1, sizeof *cw->queues);
    struct cl_queues *qs = cw->queues;
    qlist *old = &qs->last[lock], *cur = &qs->cur;
    cur->n = 0;
    cw->proto->queue(cw, group, lock, collect, cur);
    if (same(old, cur)) return;
    size_t j = 0;
    for (size_t i = 0; i < old->n; i++) {
        if (j < cur->n && strcmp(old->v[i], cur->v[j]) == 0) j++;
        else record(cw, lock, old->v[i], HOP_DEQUEUED, 0);
    }
    for (size_t k = j; k < cur->n; k++) record(cw, lock, cur->v[k], HOP_QUEUED, (int64_t)k + 1);
    qlist t = *old;
    *old = *cur;
    *cur = t;
}

void cl_queue_free(cl_world *cw)
{
    struct cl_queues *qs = cw->queues;
    if (qs == NULL) return;
    for (int i = 0; i < SCN_MAX_LOCKS; i++) sim_xfree(qs->last[i].v);
    sim_xfree(qs->cur.v);
    sim_xfree(qs);
    cw->queues = NULL;
}
