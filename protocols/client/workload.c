/* workload.c — what the threads of a client process do: either the random
 * workload of [clients] (think → acquire → optional reentry → hold →
 * release, repeated) or, for a thread named in [steps], its scripted
 * operations at their times (one at a time, in order; a step whose time
 * comes while the thread is busy waits for it). Every operation is
 * recorded in the history: invoke, then ok or fail, with the hold depth
 * the thread believes it has. A random cycle keeps its holds in the order
 * taken, each with its side, so that each release names the side it ends
 * (a re-entry may take the other side of a read/write lock: switch).
 *
 * Invariants (asserted): a thread runs at most one operation at a time
 * and each ends once; hold depths never go negative; a random cycle
 * re-enters only a lock that claims re-entry; a scripted thread
 * takes its steps in time order, a random one runs the cycle, and its
 * depth on the cycle's lock is the number of holds it keeps. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/client_int.h"

/* PH_SOLO: the protocol's one random operation (a latch's countDown or
 * await), then think again. */
enum phase { PH_IDLE, PH_THINK, PH_ACQUIRE, PH_REENTER, PH_HOLD, PH_RELEASE, PH_DONE, PH_SOLO, PH_ADD, PH_ADDED, PH_UNADD };

static void next_random(cl_thread *t);
static void next_step(cl_thread *t);
static void hold_push(cl_thread *t);

/* ----------------------------------------------------------- operations */

/* A write to the fenced resource, now, under the thread's token. */
static void resource_write(cl_thread *t, int lock)
{
    cl_proc *p = t->p;
    cl_world *cw = p->cw;
    sim_assert(lock >= 0 && lock < cw->s->nlocks && p->alive);
    int64_t token = cw->proto->token ? cw->proto->token(t, lock) : 0;
    int accept = !(cw->s->reject_stale && token > 0 && token < cw->resource_max[lock]);
    if (accept && token > cw->resource_max[lock]) cw->resource_max[lock] = token;
    cl_hist(p, t, accept ? HIST_OK : HIST_FAIL, HOP_WRITE, lock, token, 0, accept ? NULL : "stale token");
    cl_trace(p, t->name, "write %s token %lld: %s", cw->s->lock_names[lock], (long long)token,
             accept ? "accepted" : "rejected");
}

static hist_op hop_of(scn_op op)
{
    switch (op) {
    case SCN_OP_LOCK:
    case SCN_OP_TRYLOCK: return HOP_ACQUIRE;
    case SCN_OP_UNLOCK: return HOP_RELEASE;
    case SCN_OP_FORCEUNLOCK: return HOP_FORCE_UNLOCK;
    case SCN_OP_COUNTDOWN: return HOP_COUNTDOWN;
    case SCN_OP_AWAIT: return HOP_AWAIT;
    case SCN_OP_ADDPERMITS: return HOP_PERMITS_ADD;
    case SCN_OP_TRYSETPERMITS: return HOP_PERMITS_SET;
    case SCN_OP_TRYSETCOUNT: return HOP_COUNT_SET;
    case SCN_OP_DRAINPERMITS: return HOP_PERMITS_DRAIN;
    default: return HOP_QUERY;
    }
}

static void op_done(cl_thread *t, int ok, int64_t value, const char *err)
{
    cl_proc *p = t->p;
    cl_world *cw = p->cw;
    int lock = t->cur_lock;
    hist_op hop = hop_of(t->cur_op);
    sim_assert(t->busy && p->alive); /* an operation ends once */
    sim_assert(lock >= 0 && lock < cw->s->nlocks && t->depth[lock] >= 0);
    t->busy = 0;
    if (hop == HOP_ACQUIRE) {
        t->waiting_since = -1;
        if (ok) {
            t->depth[lock]++;
            cw->acquisitions++;
        } else if (err) {
            cw->op_errors++;
        } else {
            cw->acquire_failures++;
        }
        value = t->depth[lock];
    } else if (hop == HOP_RELEASE) {
        value = t->depth[lock];
        if (!ok) cw->op_errors++;
    } else if (hop == HOP_FORCE_UNLOCK) {
        t->depth[lock] = 0; /* whoever held it, this thread does not now */
    }
    if (!t->scripted && hop == HOP_ACQUIRE && ok) hold_push(t);
    if (!t->scripted && hop == HOP_RELEASE) t->release_failed = !ok;
    t->cur_ok = ok;
    cl_hist(p, t, ok ? HIST_OK : HIST_FAIL, hop, lock, value, 0, ok ? NULL : err ? err : "not acquired");
    cl_trace(p, t->name, "%s %s %s = %lld%s%s", ok ? "ok" : "fail",
             hop == HOP_ACQUIRE ? "acquire" : hop == HOP_RELEASE ? "release"
                                                : hop == HOP_FORCE_UNLOCK ? "forceunlock"
                                                : hop == HOP_QUERY ? "query" : scn_op_name(t->cur_op),
             cw->s->lock_names[lock], (long long)value, err ? ": " : "", err ? err : "");
    if (t->scripted) next_step(t);
    else next_random(t);
}

/* mode and n: the read/write side and the permits of the operation
 * (0: none; protocols that need them read t->cur_mode / t->cur_n). */
static void start_op(cl_thread *t, scn_op op, int lock, int64_t wait_us, int64_t lease_us, int mode,
                     int64_t n, int async)
{
    cl_proc *p = t->p;
    const cl_protocol *pd = p->cw->proto;
    sim_assert(!t->busy && p->alive); /* one operation at a time */
    sim_assert(lock >= 0 && lock < p->cw->s->nlocks && !cl_timer_armed(&t->wake));
    t->busy = 1;
    t->cur_async = async;
    t->cur_lease_us = lease_us;
    t->cur_mode = mode;
    t->cur_n = n;
    t->cur_wait_us = wait_us;
    t->cur_op = op;
    t->cur_lock = lock;
    t->op_seq = hist_tag(p->client, p->inc, t->index, lock, ++t->opcount);
    hist_op hop = hop_of(op);
    cl_trace(p, t->name, "invoke %s %s", scn_op_name(op), p->cw->s->lock_names[lock]);
    switch (op) {
    case SCN_OP_LOCK:
    case SCN_OP_TRYLOCK:
        t->waiting_since = sim_now(p->cw->ctx);
        cl_hist(p, t, HIST_INVOKE, hop, lock, t->depth[lock], op == SCN_OP_LOCK ? -1 : wait_us, NULL);
        pd->acquire(t, lock, op == SCN_OP_LOCK ? -1 : wait_us, lease_us, op_done);
        break;
    case SCN_OP_UNLOCK:
        /* The caller leaves its critical section as it calls unlock. */
        if (t->depth[lock] > 0) t->depth[lock]--;
        cl_hist(p, t, HIST_INVOKE, hop, lock, t->depth[lock], 0, NULL);
        pd->release(t, lock, op_done);
        break;
    case SCN_OP_FORCEUNLOCK:
        cl_hist(p, t, HIST_INVOKE, hop, lock, t->depth[lock], 0, NULL);
        pd->force_unlock(t, lock, op_done);
        break;
    case SCN_OP_AWAIT: /* the protocol reads the wait from t->cur_wait_us */
        cl_hist(p, t, HIST_INVOKE, hop, lock, 0, wait_us, NULL);
        pd->query(t, lock, op, op_done);
        break;
    default:
        cl_hist(p, t, HIST_INVOKE, hop, lock, 0, (int64_t)op, NULL);
        pd->query(t, lock, op, op_done);
        break;
    }
}

/* ------------------------------------------------------ random workload */

static void on_wake(cl_proc *p, void *arg)
{
    (void)p;
    next_random(arg);
}

/* One acquire of the cycle on side mode, with [protocol] lease or, with
 * [clients] lease, one drawn for it (1ms at least). */
static void acquire_once(cl_thread *t, int mode)
{
    const scenario *s = t->p->cw->s;
    int64_t lease = s->lease_us;
    if (scn_has_acquire_lease(s)) {
        lease = scn_dist_draw(t->p->cw->ctx, &s->acquire_lease, "lease");
        if (lease < SIM_MS(1)) lease = SIM_MS(1);
    }
    start_op(t, s->mode == SCN_MODE_LOCK ? SCN_OP_LOCK : SCN_OP_TRYLOCK, t->cycle_lock, s->wait_us, lease, mode,
             t->cycle_n, s->async);
}

/* ------------------------------------------------------ the cycle's holds */

/* A random acquire of the cycle succeeded: its side joins the holds; with
 * [clients] lease the holds to come end 9/10 of its lease after now (the
 * lease began with the script, before this reply: a hold stays under it
 * by a tenth, network and timer included). */
static void hold_push(cl_thread *t)
{
    const scenario *s = t->p->cw->s;
    sim_assert(t->held_to < CL_CYCLE_HOLDS);
    t->held_mode[t->held_to++] = (unsigned char)t->cur_mode;
    if (t->cur_mode != t->cycle_mode) t->cycle_mixed = 1;
    if (scn_has_acquire_lease(s)) {
        int64_t end = sim_now(t->p->cw->ctx) + t->cur_lease_us / 10 * 9;
        if (end < t->cycle_deadline_us) t->cycle_deadline_us = end;
        if (end > t->cycle_keep_us) t->cycle_keep_us = end;
    }
}

/* When the cycle's holds must end: the earliest lease's end, or where the
 * protocol declares that a re-entry adds its lease to the lock's (one
 * TTL for all the holds: the read/write lock's write side), the latest
 * one's while every hold of the cycle is of that kind and none was
 * released (after a release, what the lock keeps is the release
 * script's). A read hold keeps a lease of its own (its timeout key), which
 * it must not outlive whatever the TTL says. */
static int64_t hold_deadline(const cl_thread *t)
{
    if (!t->p->cw->proto->reentry_adds_lease || t->cycle_released || t->cycle_keep_us == 0)
        return t->cycle_deadline_us;
    for (int i = t->held_from; i < t->held_to; i++)
        if (t->held_mode[i] == SCN_RW_READ) return t->cycle_deadline_us;
    return t->cycle_keep_us;
}

/* The side the next release ends: the newest hold, or with the chance
 * [clients] release-fifo (drawn once per cycle that took both sides) the
 * oldest: a downgrade's write goes first and the read stays. */
static int hold_pop(cl_thread *t)
{
    const scenario *s = t->p->cw->s;
    sim_assert(t->held_to > t->held_from && t->held_to - t->held_from == t->depth[t->cycle_lock]);
    if (t->cycle_fifo < 0)
        t->cycle_fifo = s->release_fifo_ppm > 0 && t->cycle_mixed &&
                        sim_choose(t->p->cw->ctx, SCN_PPM, "release order") < (uint64_t)s->release_fifo_ppm;
    return t->cycle_fifo ? t->held_mode[t->held_from++] : t->held_mode[--t->held_to];
}

/* The side of a re-entry: the cycle's, or with the chance [clients]
 * switch the other one. A reader asking for write (an upgrade) waits for
 * its own read hold to go, which only the watchdog keeps alive that long:
 * under a lease the re-entry keeps its side (the read hold would outlast
 * its lease: the application's error, not the lock's). */
static int reentry_mode(cl_thread *t)
{
    const scenario *s = t->p->cw->s;
    if (s->switch_ppm == 0 || sim_choose(t->p->cw->ctx, SCN_PPM, "switch") >= (uint64_t)s->switch_ppm)
        return t->cycle_mode;
    if (t->cycle_mode != SCN_RW_READ) return SCN_RW_READ; /* no side is write */
    int watchdog = s->lease_us == SCN_LEASE_WATCHDOG && !scn_has_acquire_lease(s);
    return watchdog ? SCN_RW_WRITE : SCN_RW_READ;
}

/* [clients] stop: the work is over, the process lives on. */
static int work_over(const cl_thread *t)
{
    const scenario *s = t->p->cw->s;
    return s->work_stop_us > 0 && sim_now(t->p->cw->ctx) >= s->work_stop_us;
}

static void think(cl_thread *t)
{
    cl_proc *p = t->p;
    const scenario *s = p->cw->s;
    if (p->cw->stopping || (s->ops_per_thread && (int64_t)t->opcount >= s->ops_per_thread * 2) || work_over(t)) {
        t->phase = PH_DONE;
        return;
    }
    t->phase = PH_THINK;
    int64_t d = scn_dist_draw(p->cw->ctx, &s->think, "think");
    cl_timer_arm(p, &t->wake, d, "think", on_wake, t);
}

static void release_one(cl_thread *t)
{
    t->phase = PH_RELEASE;
    t->cycle_released = 1;
    t->release_mode = hold_pop(t);
    /* [clients] async: unlockAsync too */
    start_op(t, SCN_OP_UNLOCK, t->cycle_lock, 0, 0, t->release_mode, t->cycle_n, t->p->cw->s->async);
}

/* [clients] retry-unlock: a release that failed (a timeout, an error) is
 * called once more, as an application that takes the failure at its word
 * does: it still believes it holds what the call was to release. The retry
 * is not retried. 1 when it started. */
static int retry_release(cl_thread *t)
{
    if (!t->p->cw->s->retry_unlock || !t->release_failed || t->release_retried) {
        t->release_retried = 0;
        return 0;
    }
    t->release_retried = 1;
    t->depth[t->cycle_lock]++; /* the unlock below takes it again */
    start_op(t, SCN_OP_UNLOCK, t->cycle_lock, 0, 0, t->release_mode, t->cycle_n, t->p->cw->s->async);
    return 1;
}

/* The critical section: a hold drawn from [clients] hold, cut to end with
 * the cycle's leases ([clients] lease). */
static void hold(cl_thread *t)
{
    cl_proc *p = t->p;
    t->phase = PH_HOLD;
    int64_t d = scn_dist_draw(p->cw->ctx, &p->cw->s->hold, "hold");
    int64_t left = hold_deadline(t) - sim_now(p->cw->ctx);
    if (d > left) d = left > 0 ? left : 0;
    cl_timer_arm(p, &t->wake, d, "hold", on_wake, t);
}

/* Runs after each random-workload event: a timer, or an operation done. */
static void next_random(cl_thread *t)
{
    cl_proc *p = t->p;
    const scenario *s = p->cw->s;
    int lock = t->cycle_lock;
    sim_assert(!t->scripted && !t->busy && lock >= 0 && lock < s->nlocks);
    switch (t->phase) {
    case PH_THINK: /* thinking is over */
        if (p->cw->stopping || work_over(t)) {
            t->phase = PH_DONE;
            return;
        }
        t->cycle_lock = s->nlocks > 1 ? (int)sim_choose(p->cw->ctx, (uint64_t)s->nlocks, "lock pick") : 0;
        /* The cycle's side and permits, drawn only when the scenario asks
         * (other runs keep their choice sequence). */
        t->cycle_mode = 0;
        if (s->read_ppm)
            t->cycle_mode = sim_choose(p->cw->ctx, SCN_PPM, "read or write") < (uint64_t)s->read_ppm ? SCN_RW_READ
                                                                                                  : SCN_RW_WRITE;
        t->cycle_n = 0;
        if (s->acquire_permits.b_us > 1) t->cycle_n = scn_dist_draw(p->cw->ctx, &s->acquire_permits, "permits");
        t->held_from = t->held_to = t->cycle_mixed = 0;
        t->cycle_fifo = -1;
        t->cycle_deadline_us = INT64_MAX;
        t->cycle_keep_us = 0;
        t->cycle_released = 0;
        /* [clients] addpermits: a cycle that lends the semaphore n more
         * permits for a hold, drawn only when the key is set; n is the
         * cycle's own count, or one drawn from [clients] lend. */
        if (s->addpermits_ppm && sim_choose(p->cw->ctx, SCN_PPM, "addpermits") < (uint64_t)s->addpermits_ppm) {
            if (s->lend_permits.a_us > 0) t->cycle_n = scn_dist_draw(p->cw->ctx, &s->lend_permits, "lend");
            if (t->cycle_n <= 0) t->cycle_n = 1;
            t->phase = PH_ADD;
            start_op(t, SCN_OP_ADDPERMITS, t->cycle_lock, 0, 0, 0, t->cycle_n, 0);
            return;
        }
        if (p->cw->proto->random_op) {
            t->phase = PH_SOLO;
            scn_op op = p->cw->proto->random_op(t);
            /* a latch's trySetCount sets [protocol] count */
            int64_t n = op == SCN_OP_TRYSETCOUNT ? (s->init_count > 0 ? s->init_count : 1) : 0;
            start_op(t, op, t->cycle_lock, s->mode == SCN_MODE_LOCK ? -1 : s->wait_us, 0, 0, n, s->async);
            return;
        }
        t->phase = PH_ACQUIRE;
        acquire_once(t, t->cycle_mode);
        return;
    case PH_ACQUIRE:
        if (t->depth[lock] == 0) {
            think(t); /* not acquired: try again later */
            return;
        }
        if (s->reentry_ppm && sim_choose(p->cw->ctx, SCN_PPM, "reentry") < (uint64_t)s->reentry_ppm &&
            !p->cw->stopping) {
            /* only a lock that claims re-entry (a scenario's reentry is
             * refused at load, the swarm draws none) */
            sim_assert(p->cw->proto->reentry != CL_REENTRY_NO);
            t->phase = PH_REENTER;
            t->cycle_left = s->reentry_depth;
            acquire_once(t, reentry_mode(t));
            return;
        }
        break;
    case PH_REENTER:
        if (--t->cycle_left > 0 && !p->cw->stopping) {
            acquire_once(t, reentry_mode(t));
            return;
        }
        break;
    case PH_HOLD:
        if (s->resource) resource_write(t, lock);
        release_one(t);
        return;
    case PH_RELEASE:
        if (retry_release(t)) return;
        /* A downgrade goes on reading: the section goes on under the side
         * left; [clients] nested: a re-entered cycle's outer section goes
         * on after its inner one ends, as nested lock() ... unlock() pairs
         * do. */
        if (t->depth[lock] > 0 && (t->cycle_mixed || s->nested) && !p->cw->stopping) {
            hold(t);
            return;
        }
        if (t->depth[lock] > 0) release_one(t);
        else think(t);
        return;
    case PH_SOLO:
    case PH_UNADD:
        think(t);
        return;
    case PH_ADD: /* the permits lent (a failed call may or may not have run: none taken back) */
        if (t->cur_ok) {
            t->phase = PH_ADDED;
            cl_timer_arm(p, &t->wake, scn_dist_draw(p->cw->ctx, &s->hold, "hold"), "hold", on_wake, t);
        } else {
            think(t);
        }
        return;
    case PH_ADDED: /* and taken back */
        sim_assert(t->cycle_n > 0);
        t->phase = PH_UNADD;
        start_op(t, SCN_OP_ADDPERMITS, lock, 0, 0, 0, -t->cycle_n, 0);
        return;
    default:
        return;
    }
    /* Acquired (and re-entered): the critical section. */
    hold(t);
}

/* ---------------------------------------------------------------- steps */

static void next_step(cl_thread *t)
{
    cl_proc *p = t->p;
    cl_world *cw = p->cw;
    sim_assert(t->scripted && p->alive);
    if (t->busy || t->step_next >= t->nsteps) return;
    size_t i = t->steps[t->step_next];
    /* its own steps, in time order */
    sim_assert(i < cw->s->nsteps && cw->s->steps[i].client == p->client && cw->s->steps[i].thread == t->index);
    sim_assert(t->step_next == 0 || cw->s->steps[t->steps[t->step_next - 1]].at_us <= cw->s->steps[i].at_us);
    if (!cw->step_due[i]) return;
    t->step_next++;
    const scn_step *st = &cw->s->steps[i];
    if (st->op == SCN_OP_WRITE) {
        resource_write(t, st->lock);
        next_step(t);
        return;
    }
    int64_t wait = st->has_wait ? st->wait_us : st->op == SCN_OP_AWAIT ? -1 : cw->s->wait_us;
    int64_t lease = st->has_lease ? st->lease_us : cw->s->lease_us;
    start_op(t, st->op, st->lock, wait, lease, st->mode, st->permits, st->async);
}

static void step_kick(cl_proc *p, void *arg)
{
    (void)p;
    next_step(arg);
}

static void on_step_due(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    cl_step_event *ev = arg;
    cl_world *cw = ev->cw;
    const scn_step *st = &cw->s->steps[ev->index];
    cw->step_due[ev->index] = 1;
    cl_proc *p = cl_world_proc(cw, st->client);
    if (p == NULL) {
        /* Named by what it does, not by its file line: a scenario written
         * back (replay --print-scenario) runs the same trace. */
        sim_trace(cw->ctx, "steps", "c%d.t%d %s skipped: client %d is down", st->client, st->thread,
                  scn_op_name(st->op), st->client);
        return;
    }
    sim_assert(!scn_op_is_fault(st->op) && st->thread >= 1 && st->thread <= p->nthreads);
    /* Through the process's gate: a paused process runs it on resume. */
    cl_post(p, "step", step_kick, &p->threads[st->thread - 1]);
}

void cl_steps_schedule(cl_world *cw)
{
    const scenario *s = cw->s;
    cw->step_ev = sim_xcalloc(s->nsteps + 1, sizeof *cw->step_ev);
    for (size_t i = 0; i < s->nsteps; i++) {
        if (scn_op_is_fault(s->steps[i].op)) continue; /* faults are the runner's */
        cw->step_ev[i].cw = cw;
        cw->step_ev[i].index = i;
        sim_at(cw->ctx, s->steps[i].at_us, "step", on_step_due, &cw->step_ev[i]);
    }
}

/* ------------------------------------------------------------- lifetime */

static int cmp_steps(const scenario *s, size_t a, size_t b)
{
    if (s->steps[a].at_us != s->steps[b].at_us) return s->steps[a].at_us < s->steps[b].at_us ? -1 : 1;
    return a < b ? -1 : 1;
}

void cl_workload_start(cl_proc *p)
{
    cl_world *cw = p->cw;
    const scenario *s = cw->s;
    int64_t now = sim_now(cw->ctx);
    for (int i = 0; i < p->nthreads; i++) {
        cl_thread *t = &p->threads[i];
        /* Its steps from now on, by time (file order breaks ties). */
        for (size_t k = 0; k < s->nsteps; k++) {
            const scn_step *st = &s->steps[k];
            if (st->client != p->client || st->thread != t->index || scn_op_is_fault(st->op)) continue;
            t->scripted = 1;
            if (st->at_us < now) continue;
            t->steps = sim_xrealloc(t->steps, (t->nsteps + 1) * sizeof *t->steps);
            size_t j = t->nsteps++;
            while (j > 0 && cmp_steps(s, k, t->steps[j - 1]) < 0) {
                t->steps[j] = t->steps[j - 1];
                j--;
            }
            t->steps[j] = k;
        }
        if (t->scripted) continue;
        if (p->client > s->clients || t->index > s->threads) continue;
        t->phase = PH_THINK;
        int64_t d = scn_dist_draw(cw->ctx, &s->start, "start");
        cl_timer_arm(p, &t->wake, d, "start", on_wake, t);
    }
}

void cl_workload_stop(cl_proc *p)
{
    for (int i = 0; i < p->nthreads; i++) {
        cl_thread *t = &p->threads[i];
        sim_assert(t->phase != PH_THINK || t->scripted || t->busy || cl_timer_armed(&t->wake));
        if (t->phase == PH_THINK) {
            cl_timer_cancel(p, &t->wake);
            t->phase = PH_DONE;
        }
    }
}

void cl_workload_free(cl_proc *p)
{
    for (int i = 0; i < p->nthreads; i++) sim_xfree(p->threads[i].steps);
}
