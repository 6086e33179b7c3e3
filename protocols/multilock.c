/* multilock.c — RedissonMultiLock and RedissonRedLock (PROTOCOLS.md §8,
 * §9): one lock made of n member RLocks (the current reentrant lock, with
 * its scripts, pub/sub and watchdog), each of which may live on another
 * Redis deployment. Each scenario lock `name` has members `name-1` ..
 * `name-n` ([protocol] members, default 3); member i lives on node group
 * (i - 1) mod [redis] nodes, so `nodes = 3` gives RedLock its three
 * independent masters. With `member-rotate = yes` client c lists the
 * members starting at member c mod n (two clients listing the same locks
 * in different orders).
 *
 *  redisson.multilock  all or nothing: a failed member releases what was
 *                      taken and restarts (while the wait lasts); unlock
 *                      stops at the first member that fails (3.27.2+;
 *                      before, it sends every member's unlock and then
 *                      throws the first failure).
 *  redisson.redlock    a quorum n/2 + 1; per-member wait max(remain/n, 1);
 *                      unlock releases every member, ignoring errors.
 *
 * tryLock(wait, lease) follows §8 step by step (sequential member calls,
 * remain accounted on the client's clock, EXPIRE_MULTI of the lease at the
 * end); lock(lease) repeats tryLock(w, lease) with w = n·1500 ms (or a
 * draw from the lease). The history and the checkers see the composite.
 *
 * api=async (RedissonMultiLock.tryLockAsync / lockAsync / unlockAsync,
 * 4.7.0): the members are tried in the same order, each member's
 * tryLockAsync waiting as a listener of its entry (rlock.c); unlockAsync
 * unlocks every member (unlockInnerAsync) and fails when one of them did
 * (CompletableFuture.allOf), for RedLock too, whose blocking unlock()
 * ignores the errors. */
#include <stdio.h>
#include <string.h>

#include "protocols/quorum.h"
#include "protocols/rlock.h"

#define ML_MAX 7

typedef enum ml_phase {
    ML_TRY,          /* a member's tryLock is running */
    ML_UNLOCK_ONE,   /* unlocking a member whose acquire timed out */
    ML_UNLOCK_ALL,   /* unlocking what was taken (then: fail or restart) */
    ML_EXPIRE,       /* EXPIRE_MULTI of the lease on each member */
    ML_RELEASE,      /* unlock() */
    ML_FORCE         /* forceUnlock() */
} ml_phase;

typedef struct ml_op {
    cl_op base;
    ml_phase phase;
    int lock_loop;          /* lock(): tryLock(w) until it succeeds */
    int64_t wait_ms;        /* this tryLock's wait (<= 0: none) */
    int64_t lease_ms;       /* <= 0: the watchdog */
    int64_t new_lease_ms, remain_ms, mark_ms, lock_wait_ms;
    int limit;
    int acquired[ML_MAX];
    int nacq;
    int pos;                /* the member being tried (list position) */
    int cursor;             /* unlock / expire / release progress */
    int then_restart;       /* ML_UNLOCK_ALL: restart rather than fail */
    int any_ok;             /* forceUnlock: some member was held */
    const char *err;        /* unlockAsync(): the first member error, NULL while none failed (a literal: the history keeps it) */
} ml_op;

static const rlock_cfg *cfg(const cl_proc *p)
{
    return cl_world_cfg(cl_proc_world(p));
}

/* RedLock (a quorum), not MultiLock (all members)? */
static int is_red(const cl_proc *p)
{
    return cfg(p)->quorum;
}

static int members(const cl_world *cw)
{
    return cl_world_scenario(cw)->members;
}

/* The lock index of the member at list position pos of composite lock. */
static int member_at(const cl_proc *p, int lock, int pos)
{
    int n = members(cl_proc_world(p));
    int m = cl_world_scenario(cl_proc_world(p))->member_rotate ? (pos + cl_proc_client(p)) % n : pos;
    return cl_world_scenario(cl_proc_world(p))->nlocks + lock * n + m;
}

static int failed_limit(const cl_proc *p)
{
    int n = members(cl_proc_world(p));
    return is_red(p) ? n - (n / 2 + 1) : 0;
}

static void ml_world_init(cl_world *cw)
{
    int n = members(cw);
    for (int l = 0; l < cl_world_scenario(cw)->nlocks; l++)
        for (int m = 0; m < n; m++) {
            char name[160];
            snprintf(name, sizeof name, "%s-%d", cl_world_scenario(cw)->lock_names[l], m + 1);
            sim_assert(cl_key_add(cw, name, m % cl_world_scenario(cw)->nodes) >= 0);
        }
}

/* Each lock and each of its members is a key of the client world: at
 * most SCN_MAX_LOCKS in all. */
static const char *ml_refuse(const scenario *s, char *buf, size_t cap)
{
    int keys = s->nlocks * (1 + s->members);
    if (keys <= SCN_MAX_LOCKS) return NULL;
    snprintf(buf, cap, "%s: %d lock%s of %d members make %d keys, at most %d (fewer locks or members)", s->protocol,
             s->nlocks, s->nlocks > 1 ? "s" : "", s->members, keys, SCN_MAX_LOCKS);
    return buf;
}

static int ml_node_of(const cl_world *cw, int lock)
{
    return lock < cl_world_scenario(cw)->nlocks ? -1 : cl_key_group(cw, lock);
}

static void ml_end(ml_op *op, int ok, const char *err)
{
    *cl_thread_ext(op->base.t) = NULL;
    cl_op_end(op, ok, 0, err);
}

/* unlock() or unlockAsync() unlocks every member, whatever fails: the
 * async API, RedLock, and MultiLock before 3.27.2. */
static int unlocks_all(cl_thread *t)
{
    const rlock_cfg *c = cfg(cl_thread_proc(t));
    return cl_thread_async(t) || c->quorum || c->ml_unlock_all;
}

static void try_member(ml_op *op);
static void unlock_next(ml_op *op);

static void on_member(cl_thread *t, int ok, int64_t value, const char *err)
{
    (void)value;
    ml_op *op = (*cl_thread_ext(t));
    cl_proc *p = cl_thread_proc(t);
    int n = members(cl_proc_world(p));
    switch (op->phase) {
    case ML_TRY:
        if (!ok && err && strncmp(err, "RedisResponseTimeout", 20) == 0 && !cfg(p)->ml_keeps_orphan) {
            /* The member may have been taken after all: unlock it,
             * ignoring errors, and count it as failed. */
            op->phase = ML_UNLOCK_ONE;
            rlock_release(t, member_at(p, op->base.lock, op->pos), on_member);
            return;
        }
        break;
    case ML_UNLOCK_ONE:
        op->phase = ML_TRY;
        ok = 0;
        break;
    case ML_UNLOCK_ALL:
    case ML_RELEASE:
        if (!ok && op->phase == ML_RELEASE && !unlocks_all(t)) {
            ml_end(op, 0, err); /* MultiLock stops at the first failure */
            return;
        }
        if (!ok && op->phase == ML_RELEASE && !op->err && (cl_thread_async(t) || !is_red(p))) {
            /* unlockAsync: allOf the members' futures fails; unlock()
             * before 3.27.2 throws the first failure once all are sent. */
            op->err = err ? err : "a member's unlock failed";
        }
        op->cursor++;
        unlock_next(op);
        return;
    case ML_EXPIRE:
        op->cursor++;
        try_member(op);
        return;
    case ML_FORCE:
        op->any_ok |= ok;
        if (++op->cursor < n) {
            rlock_force_unlock(t, member_at(p, op->base.lock, op->cursor), on_member);
            return;
        }
        ml_end(op, op->any_ok, NULL);
        return;
    }
    /* A member's tryLock is over (ok or not). */
    if (ok) {
        op->acquired[op->nacq++] = member_at(p, op->base.lock, op->pos);
    } else {
        if (n - op->nacq == failed_limit(p)) { /* a quorum: stop here */
            op->pos = n;
            try_member(op);
            return;
        }
        if (op->limit == 0) {
            op->phase = ML_UNLOCK_ALL;
            op->cursor = 0;
            op->then_restart = op->wait_ms > 0;
            unlock_next(op);
            return;
        }
        op->limit--;
    }
    if (op->remain_ms > 0) {
        int64_t now = cl_now_ms(p);
        op->remain_ms -= now - op->mark_ms;
        op->mark_ms = now;
        if (op->remain_ms <= 0) {
            op->phase = ML_UNLOCK_ALL;
            op->cursor = 0;
            op->then_restart = 0;
            unlock_next(op);
            return;
        }
    }
    op->pos++;
    try_member(op);
}

static void start_try(ml_op *op);
static void next_round(ml_op *op);

/* Unlocks acquired[cursor..] one by one (waited for, errors ignored), or
 * every member for unlock(). */
static void unlock_next(ml_op *op)
{
    cl_thread *t = op->base.t;
    cl_proc *p = cl_thread_proc(t);
    if (op->phase == ML_RELEASE) {
        if (op->cursor < members(cl_proc_world(p))) {
            rlock_release(t, member_at(p, op->base.lock, op->cursor), on_member);
            return;
        }
        ml_end(op, op->err == NULL, op->err);
        return;
    }
    if (op->cursor < op->nacq) {
        rlock_release(t, op->acquired[op->cursor], on_member);
        return;
    }
    op->nacq = 0;
    if (!op->then_restart) {
        if (op->lock_loop) next_round(op); /* lock(): the next tryLock */
        else ml_end(op, 0, NULL);
        return;
    }
    op->phase = ML_TRY;
    op->limit = failed_limit(p);
    op->pos = 0;
    if (op->remain_ms > 0) {
        int64_t now = cl_now_ms(p);
        op->remain_ms -= now - op->mark_ms;
        op->mark_ms = now;
        if (op->remain_ms <= 0) {
            if (op->lock_loop) next_round(op);
            else ml_end(op, 0, NULL);
            return;
        }
    }
    try_member(op);
}

static void on_expire_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    (void)r;
    (void)err;
    ml_op *op = ud;
    on_member(op->base.t, 1, 0, NULL);
}

static void try_member(ml_op *op)
{
    cl_thread *t = op->base.t;
    cl_proc *p = cl_thread_proc(t);
    int n = members(cl_proc_world(p));
    if (op->pos < n) {
        op->phase = ML_TRY;
        int m = member_at(p, op->base.lock, op->pos);
        if (op->wait_ms <= 0 && op->lease_ms <= 0) {
            rlock_acquire(t, m, 0, SCN_LEASE_WATCHDOG, on_member); /* tryLock(): one attempt */
            return;
        }
        int64_t w = op->lock_wait_ms < op->remain_ms ? op->lock_wait_ms : op->remain_ms;
        /* -1: the watchdog; anything else is passed as it is (before 3.11.1
         * it can be -2 ms, which the member's PEXPIRE takes literally). */
        int64_t lease_us = op->new_lease_ms == -1 ? SCN_LEASE_WATCHDOG : SIM_MS(op->new_lease_ms);
        rlock_acquire(t, m, w > 0 ? SIM_MS(w) : 0, lease_us, on_member);
        return;
    }
    /* Acquired: with a lease, every member gets it now (EXPIRE_MULTI). */
    if (op->lease_ms > 0 && op->phase != ML_EXPIRE) {
        op->phase = ML_EXPIRE;
        op->cursor = 0;
    }
    if (op->phase == ML_EXPIRE && op->cursor < op->nacq) {
        char ms[24];
        sim_fmt_i64(ms, op->lease_ms);
        int m = op->acquired[op->cursor];
        const char *argv[] = {"PEXPIRE", cl_key_name(cl_proc_world(p), m), ms};
        cl_command(p, cl_key_group(cl_proc_world(p), m), 3, argv, CL_RESEND, cl_thread_op(t), on_expire_reply, op);
        return;
    }
    ml_end(op, 1, NULL);
}

/* One tryLock(wait, lease) of §8. */
static void start_try(ml_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    int n = members(cl_proc_world(p));
    int64_t wait = op->wait_ms, lease = op->lease_ms;
    op->new_lease_ms = lease > 0 ? (wait > 0 ? 2 * wait : lease) : -1;
    /* Before 3.11.1 the members' lease was 2 * waitTime whenever a lease
     * was given, with no wait too: tryLock(-1, lease) gave them -2 ms. */
    if (lease > 0 && wait <= 0 && cfg(p)->ml_lease_from_wait)
        op->new_lease_ms = -2;
    op->remain_ms = wait > 0 ? wait : -1;
    op->mark_ms = cl_now_ms(p);
    if (is_red(p) && cfg(p)->ml_member_wait != 2) {
        int64_t w = op->remain_ms / n, floor = cfg(p)->ml_member_wait == 1 ? 1000 : 1;
        op->lock_wait_ms = w > floor ? w : floor;
    } else {
        op->lock_wait_ms = op->remain_ms;
    }
    op->limit = failed_limit(p);
    op->nacq = 0;
    op->pos = 0;
    op->phase = ML_TRY;
    try_member(op);
}

static ml_op *ml_new(cl_thread *t, int lock, cl_done_fn *done)
{
    ml_op *op = cl_op_new(t, sizeof *op, lock, done);
    *cl_thread_ext(t) = op;
    return op;
}

/* lock(lease)'s wait for its next tryLock(w, lease): the base n * 1500 ms
 * (5000 before 3.5.7) with no lease, else drawn within [lease/2, lease)
 * up to the base and [base, lease) past it; 2000 ms for a lease up to
 * 2000 where the version draws once (ml_lock_wait). */
static int64_t lock_wait(cl_proc *p, int64_t l)
{
    int rule = cfg(p)->ml_lock_wait;
    int64_t base = rule == 2 ? 5000 : (int64_t)members(cl_proc_world(p)) * 1500;
    if (l <= 0) return base;
    if (rule != 0 && l <= 2000) return 2000;
    if (l <= base) return l / 2 + (int64_t)cl_choose(p, (uint64_t)(l - l / 2), "multilock wait");
    return base + (int64_t)cl_choose(p, (uint64_t)(l - base), "multilock wait");
}

/* The next round of lock(): its wait is drawn again since 3.17.0 (the
 * blocking call; lockAsync draws once). */
static void next_round(ml_op *op)
{
    cl_thread *t = op->base.t;
    cl_proc *p = cl_thread_proc(t);
    if (cfg(p)->ml_lock_wait == 0 && !cl_thread_async(t)) op->wait_ms = lock_wait(p, op->lease_ms);
    start_try(op);
}

static void ml_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    ml_op *op = ml_new(t, lock, done);
    op->lease_ms = cl_lease_ms(lease_us);
    if (wait_us >= 0) {
        op->wait_ms = wait_us / 1000;
    } else {
        /* lock(lease): tryLock(w, lease) until it succeeds. */
        op->lock_loop = 1;
        op->wait_ms = lock_wait(p, op->lease_ms);
    }
    start_try(op);
}

static void ml_release(cl_thread *t, int lock, cl_done_fn *done)
{
    ml_op *op = ml_new(t, lock, done);
    op->phase = ML_RELEASE;
    unlock_next(op);
}

static void ml_force_unlock(cl_thread *t, int lock, cl_done_fn *done)
{
    ml_op *op = ml_new(t, lock, done);
    op->phase = ML_FORCE;
    rlock_force_unlock(t, member_at(cl_thread_proc(t), lock, 0), on_member);
}

static void ml_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    (void)lock;
    (void)what;
    done(t, 0, 0, "UnsupportedOperationException");
}

/* The composite as the stores have it: held by an owner when the owner
 * holds every member (MultiLock) or a quorum (RedLock); held by nobody
 * known when some member is held; free when none is. It is gone when its
 * last held member expires. */
static void ml_observe(cl_world *cw, int group, int lock, hist_store *out)
{
    (void)group;
    int n = members(cw);
    int need = ((const rlock_cfg *)cl_world_cfg(cw))->quorum ? n / 2 + 1 : n;
    hist_store m[ML_MAX];
    int groups[ML_MAX];
    for (int i = 0; i < n; i++) {
        int k = cl_world_scenario(cw)->nlocks + lock * n + i;
        groups[i] = cl_key_group(cw, k);
        if (cl_group_up(cw, groups[i])) rlock_observe(cw, groups[i], k, &m[i]);
        else m[i] = (hist_store){.held = 0, .expire_ms = -1};
    }
    proto_quorum_view(cw, m, groups, n, need, out);
}

static const cl_defaults ml_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1, .readonly_retry = 1};

#define ML_DEF(var, nm, sum, c, ct)                                                                  \
    const proto_def var = {                                                                        \
        .name = nm, .summary = sum, .contract = ct,                                                \
        .options = "[protocol] members = N (1..7, member i on group (i-1) mod [redis] nodes), "     \
                   "member-rotate = yes|no",                                                       \
        .versions = "@3.0 .. @4.7 (the members' release)", .min_version = 30000,                    \
        .history = "member lease 3.10-3.11.0: tryLock(-1, lease) passes 2*waitTime = -2 ms to each member, " \
                   "whose PEXPIRE deletes the key it just set: every caller gets the lock (changelog " \
                   "3.11.1: could be acquired by multiple threads if waitTime == -1 and leaseTime != -1); " \
                   "3.11.1+: the lease. A trylock with wait=0 is tryLock(-1, lease). MultiLock unlock() up " \
                   "to 3.27.1 sends every member's unlock, then throws the first failure; 3.27.2+ unlocks " \
                   "member by member and stops at the first failure (RedLock ignores failures); "         \
                   "unlockAsync unlocks every member and fails if one did. RedLock's wait per member: "  \
                   "all that remains up to 3.5.6, max(remain/n, 1000) to 3.6.2, max(remain/n, 1) since " \
                   "3.6.3; lock(lease)'s wait: base 5000 ms up to 3.5.6, n*1500 since, drawn once with a " \
                   "2000 ms floor up to 3.16.x (and by lockAsync), again every round since 3.17.0 (issue " \
                   "#4050); a member whose tryLock timed out is left held up to 3.8.1, unlocked since 3.8.2",  \
        .impl = {.cfg = c, .defaults = &ml_defaults, .script = proto_script_find,                  \
                 .proc_init = rlock_proc_init, .proc_free = rlock_proc_free, .acquire = ml_acquire, \
                 .release = ml_release, .force_unlock = ml_force_unlock, .query = ml_query,        \
                 .observe = ml_observe, .world_init = ml_world_init, .node_of = ml_node_of,        \
                 .refuse = ml_refuse, .reentry = CL_REENTRY_REDIS, /* each member's hash */       \
                 .invariants = PROTO_INV(SCN_INV_MUTEX) | PROTO_INV(SCN_INV_LIVENESS) |            \
                               PROTO_INV(SCN_INV_DEADLOCK)},                                       \
        .scripts = rlock_scripts, .steps = PROTO_ASYNC,                                            \
    }

ML_DEF(proto_multilock, "redisson.multilock",
       "RedissonMultiLock: all-or-nothing over n member RLocks, unlock stops at the first failure", &rlock_current,
       NULL);
ML_DEF(proto_redlock, "redisson.redlock",
       "RedissonRedLock: a quorum n/2+1 of n member RLocks on independent masters, no validity check",
       &rlock_redlock, &proto_contract_redlock);
