/* fairlock.c — what RedissonFairLock adds to the reentrant lock's client
 * (rlock.c runs both; PROTOCOLS.md §4): the queue and deadline keys, the
 * per-thread entry and channel, the waitMs rule, acquireFailed (the dequeue
 * script) and the observer's view of the wait queue. */
#include <stdio.h>
#include <string.h>

#include "protocols/fairlock.h"
#include "protocols/names.h"

void fair_keys(const char *name, char *queue, char *deadlines)
{
    proto_prefix_name("redisson_lock_queue", name, queue, 192);
    proto_prefix_name("redisson_lock_timeout", name, deadlines, 192);
}

void fair_place_key(const cl_thread *t, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "redisson_lock_thread:{%.120s}:%.63s", name, cl_thread_lock_name(t));
}

/* Entry "<id>:<name>:<t>", channel "redisson_lock__channel:{name}:<id>:<t>":
 * one per thread, so the unlock message wakes only the head's thread. */
void fair_entry(const cl_thread *t, int lock, char *entry, char *channel)
{
    const cl_proc *p = cl_thread_proc(t);
    const char *name = cl_world_scenario(cl_proc_world(p))->lock_names[lock];
    char base[192];
    snprintf(entry, 192, "%.39s:%.120s:%d", cl_proc_id(p), name, cl_thread_index(t));
    proto_prefix_name("redisson_lock__channel", name, base, sizeof base);
    snprintf(channel, 192, "%.120s:%.63s", base, cl_thread_lock_name(t));
}

int64_t fair_wait_ms(const fair_cfg *c, const cl_proc *p, int64_t wait_ms)
{
    if (c->wait_is_queue_wait && wait_ms > 0) return wait_ms;
    int64_t tw = cl_world_scenario(cl_proc_world(p))->thread_wait_us;
    return tw >= 0 ? tw / 1000 : c->thread_wait_ms;
}

int64_t fair_wait_us(const fair_cfg *c, const cl_world *cw, int64_t wait_us)
{
    int64_t wait_ms = wait_us < 0 ? -1 : cl_wait_ms(wait_us);
    if (c->wait_is_queue_wait && wait_ms > 0) return wait_ms * 1000;
    int64_t tw = cl_world_scenario(cw)->thread_wait_us;
    return tw >= 0 ? tw / 1000 * 1000 : c->thread_wait_ms * 1000;
}

void fair_dequeue(const fair_cfg *c, cl_thread *t, int lock, int64_t wait_ms, int flags, cl_cmd_fn *fn, void *ud)
{
    cl_proc *p = cl_thread_proc(t);
    cl_world *cw = cl_proc_world(p);
    const char *name = cl_world_scenario(cw)->lock_names[lock];
    char queue[192], deadlines[192], wait[24];
    fair_keys(name, queue, deadlines);
    sim_fmt_i64(wait, fair_wait_ms(c, p, wait_ms));
    cl_trace(p, cl_thread_name(t), "acquireFailed: leaves the queue of %s", name);
    const char *keys[] = {queue, deadlines};
    const char *args[] = {cl_thread_lock_name(t), wait};
    cl_eval(p, cl_key_group(cw, lock), cl_script_of(cw, c->dequeue), 2, keys, 2, args, flags, cl_thread_op(t), fn,
            ud);
}

void fair_queue(cl_world *cw, int group, int lock, hist_queue_fn *fn, void *ud)
{
    char queue[192], deadlines[192];
    fair_keys(cl_world_scenario(cw)->lock_names[lock], queue, deadlines);
    cl_store_peek_list(cw, group, queue, fn, ud);
}
