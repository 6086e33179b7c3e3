/* fairlock.c — what RedissonFairLock adds to the reentrant lock's client
 * (rlock.c runs both; PROTOCOLS.md §4): the queue and deadline keys, the
 * per-thread entry and channel, the waitMs rule, acquireFailed (the dequeue
 * script) and the observer's view of the wait queue. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/cl_int.h"
#include "protocols/rlock.h"

static const rlock_cfg *cfg_of(const cl_proc *p)
{
    return p->cw->proto->cfg;
}

void fair_keys(const char *name, char *queue, char *deadlines)
{
    rlock_prefix_name("redisson_lock_queue", name, queue, 192);
    rlock_prefix_name("redisson_lock_timeout", name, deadlines, 192);
}

/* Entry "<id>:<name>:<t>", channel "redisson_lock__channel:{name}:<id>:<t>":
 * one per thread, so the unlock message wakes only the head's thread. */
void fair_entry(const cl_thread *t, int lock, char *entry, char *channel)
{
    const char *name = t->p->cw->s->lock_names[lock];
    char base[192], lname[64];
    cl_lock_name(t, lname, sizeof lname);
    snprintf(entry, 192, "%.39s:%.120s:%d", t->p->id, name, t->index);
    rlock_prefix_name("redisson_lock__channel", name, base, sizeof base);
    snprintf(channel, 192, "%.120s:%.63s", base, lname);
}

int64_t fair_wait_ms(const cl_proc *p, int64_t wait_ms)
{
    if (cfg_of(p)->wait_is_queue_wait && wait_ms > 0) return wait_ms;
    int64_t tw = p->cw->s->thread_wait_us;
    return tw >= 0 ? tw / 1000 : cfg_of(p)->thread_wait_ms;
}

void fair_dequeue(cl_thread *t, int lock, int64_t wait_ms, int flags, cl_cmd_fn *fn, void *ud)
{
    cl_proc *p = t->p;
    char queue[192], deadlines[192], lname[64], wait[24];
    fair_keys(p->cw->s->lock_names[lock], queue, deadlines);
    cl_lock_name(t, lname, sizeof lname);
    sim_fmt_i64(wait, fair_wait_ms(p, wait_ms));
    cl_trace(p, t->name, "acquireFailed: leaves the queue of %s", p->cw->s->lock_names[lock]);
    const char *keys[] = {queue, deadlines};
    const char *args[] = {lname, wait};
    cl_eval(p, rlock_node_of(p->cw, lock), cfg_of(p)->dequeue, 2, keys, 2, args, flags, t->op_seq, fn, ud);
}

void fair_queue(cl_world *cw, int group, int lock, proto_queue_fn *fn, void *ud)
{
    char queue[192], deadlines[192];
    fair_keys(cw->s->lock_names[lock], queue, deadlines);
    world_peek_list(cw->w, world_master(cw->w, group), queue, strlen(queue), fn, ud);
}
