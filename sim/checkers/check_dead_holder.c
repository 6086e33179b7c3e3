/* check_dead_holder.c — a hold whose every holder crashed, or let it go,
 * is gone within the lease its holder asked for: the store frees a dead
 * holder's lock or read hold within that lease plus a stated margin, as
 * it frees one whose live holder's last operation on it returned with
 * nothing held (a release, ok or failed; a failed acquire: the
 * application was told it holds nothing), and never keeps a hold longer
 * than was asked.
 *
 * Rules (dead-holder; it runs for protocols whose holds have a lease,
 * proto_has_lease, and reads the lease in force through
 * in->lease_in_force_us):
 *  1. A lock is held by the dead while the store's holder (HOP_STORE) is a
 *     thread whose process incarnation crashed, or that let it go (alive,
 *     holding nothing in its belief, no acquire or release of it running:
 *     from the return of that operation on, in place of the crash), and
 *     no live thread believes it holds the lock (its depth from its acquire oks and release
 *     invokes; a read/write lock's readers share, and the store names one
 *     of them). From then it must be free (the key gone, or expired: the
 *     store's aux) by D = the holder's crash + the lease in force of the
 *     thread's last acquire invoke of the lock before it died (a re-entry
 *     sets the lease of the latest acquire, as Redisson's pexpire does;
 *     a re-entry counted in the client, in->reentry_local, asks nothing;
 *     lease -1, and 0 since 3.17.1, is the watchdog: lockWatchdogTimeout)
 *     + the margin. Every other thread that believed it held the lock, or
 *     was acquiring it, when its process died pushes D to its own crash +
 *     lease + margin (dead readers besides the one the store names); when
 *     the last live holder's release leaves only the dead, D is at least
 *     that release's invoke + the margin (the release in flight).
 *  2. A lease longer than asked: at the ok of an acquire that the store
 *     names the holder of (a grant, a re-entry), and whenever the store's
 *     expiry of a held lock changes while no acquire of the lock runs (a
 *     renewal, a release), the expiry lies no further
 *     than the longest lease in force of the threads holding or acquiring
 *     the lock (a dead one's for a margin after its crash), plus the
 *     margin, ahead of now; a key that never expires breaks it. What an
 *     acquire does before its ok (SETNX then EXPIRE, MultiLock's members
 *     at 2 x the wait then expire(lease)) is judged by what it leaves: a
 *     crash before the ok is rule 1's.
 *  3. Expirable semaphore permits (HOP_PERMIT): a permit's lease, left at
 *     its grant or moved by updateLeaseTime, is no longer than the
 *     acquire asked plus the margin. The permit's deadline is fixed when
 *     it is granted, so rule 2 at its grant is what rule 1 comes to; a
 *     permit asked with no lease, a plain semaphore's permits and a
 *     latch have none, and are not judged.
 * The margin: how late a command the process sent before it died can
 * still run: the reply wait (cl_reply_wait_us) + the longest retry delay
 * (cl_retry_delay_max_us) + a round trip at the scenario's longest latency
 * + the longest delay fault + the longest node pause of its lines and its
 * nemesis's (a paused master runs what it was sent when it resumes: a
 * renewal sent before the crash lands then, with a full lease). It is
 * printed in every violation.
 *
 * Excludes no fault: a node's clock set off moves the store's expiry (a
 * finding beyond the contract, as the hunt classes it); a paused client
 * process is alive (its hold is not the dead's); a partition loses the
 * commands it cuts off (nothing lands late); while a master is down
 * (HOP_STORE client -1) or the holder is not named, nothing is judged,
 * and a failover's new master holds what its replica had, judged as
 * above. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

/* A thread of an incarnation, on one lock. */
typedef struct holder {
    int client, inc, thread, lock;
    int64_t depth;     /* what it believes it holds */
    int acquiring;     /* an acquire invoked, not yet answered */
    int64_t lease_us;  /* its last acquire's lease, as asked */
    int asked;         /* it invoked an acquire of the lock */
    int releasing;     /* a release invoked, not yet answered */
    int64_t crash_us;  /* INT64_MAX: alive */
    int64_t let_go_us; /* alive: when its last operation on the lock returned with nothing
                          held (INT64_MAX: it holds, or has not let go) */
} holder;

/* One lock as the store has it, and its stint held by the dead. */
typedef struct lock_state {
    int client, inc, thread; /* the store's holder (0: free; -1: not named) */
    int64_t expire_us;       /* the store's expiry (INT64_MAX: never) */
    int dead;                /* held by the dead now */
    int64_t due_us;          /* rule 1's D for the stint */
    int64_t since_us;        /* when the stint began */
    int64_t gone_us;         /* when its holder died or let go */
    int64_t bound_us;        /* the dead believers' D (INT64_MIN: none) */
    size_t at;               /* the history index of the store's last change */
    size_t who;              /* the stint's holder (an index of state.v) */
} lock_state;

typedef struct state {
    holder *v;
    size_t n, cap;
    lock_state l[SCN_MAX_LOCKS];
    int64_t margin_us;
    char margin_text[160];
    const check_input *in;
    check_result *r;
} state;

static holder *find(state *st, int client, int inc, int thread, int lock, int add)
{
    for (size_t i = 0; i < st->n; i++) {
        holder *x = &st->v[i];
        if (x->client == client && x->inc == inc && x->thread == thread && x->lock == lock) return x;
    }
    if (!add) return NULL;
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 16;
        st->v = sim_xrealloc(st->v, st->cap * sizeof *st->v);
    }
    holder *x = &st->v[st->n++];
    *x = (holder){.client = client, .inc = inc, .thread = thread, .lock = lock, .crash_us = INT64_MAX,
                  .let_go_us = INT64_MAX};
    return x;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The lease in force for x's last acquire (INT64_MAX: none). */
static int64_t lease_of(const state *st, const holder *x)
{
    return st->in->lease_in_force_us(st->in->lease_ud, x->lease_us);
}

/* "30s", "1.5s", "250ms" for a violation's text. */
static const char *dur(int64_t us, char *buf, size_t cap)
{
    if (us == INT64_MAX) snprintf(buf, cap, "never");
    else if (us % 1000000 == 0) snprintf(buf, cap, "%llds", (long long)(us / 1000000));
    else if (us >= 1000000) snprintf(buf, cap, "%.3fs", (double)us / 1e6);
    else snprintf(buf, cap, "%lldms", (long long)(us / 1000));
    return buf;
}

/* "12.345s" */
static const char *at(int64_t us, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%03llds", (long long)(us / 1000000), (long long)(us / 1000 % 1000));
    return buf;
}

/* The asked lease, worded: "10s", "-1 (the watchdog: 30s)". */
static const char *asked_text(const state *st, const holder *x, char *buf, size_t cap)
{
    char d[32];
    int64_t in_force = lease_of(st, x);
    if (x->lease_us == SCN_LEASE_WATCHDOG || x->lease_us <= 0)
        snprintf(buf, cap, "%lld ms (the watchdog's: %s)", (long long)(x->lease_us < 0 ? -1 : 0),
                 dur(in_force, d, sizeof d));
    else snprintf(buf, cap, "%s", dur(x->lease_us, d, sizeof d));
    return buf;
}

/* The longest delay fault (by) and node pause (for) of n lines. */
static void longest(const scn_step *v, size_t n, int64_t *delay, int64_t *pause)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].op == SCN_FAULT_DELAY && v[i].by_us > *delay) *delay = v[i].by_us;
        if (v[i].op == SCN_FAULT_PAUSE && v[i].node_index >= 0 && v[i].for_us > *pause) *pause = v[i].for_us;
    }
}

/* The margin of the run, from its settings and fault lines. */
static void margin_of(state *st)
{
    const check_input *in = st->in;
    const scenario *s = in->s;
    int64_t reply = check_reply_wait_us(in), retry = check_retry_delay_us(in);
    int64_t latency = 0, delay = 0, pause = 0;
    if (s) {
        latency = s->latency.kind == SCN_DIST_CONST ? s->latency.a_us
                  : s->latency.b_us > s->latency.a_us ? s->latency.b_us
                                                      : s->latency.a_us * 10; /* exp: ten means */
        longest(s->steps, s->nsteps, &delay, &pause);
    }
    longest(in->generated, in->ngenerated, &delay, &pause);
    st->margin_us = reply + retry + 2 * latency + delay + pause;
    char a[32], b[32], c[32], d[32], e[32], m[32];
    snprintf(st->margin_text, sizeof st->margin_text,
             "margin %s = reply wait %s + retry delay %s + round trip %s + delay %s + node pause %s",
             dur(st->margin_us, m, sizeof m), dur(reply, a, sizeof a), dur(retry, b, sizeof b),
             dur(2 * latency, c, sizeof c), dur(delay, d, sizeof d), dur(pause, e, sizeof e));
}

static int live_believers(const state *st, int lock)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].lock == lock && st->v[i].crash_us == INT64_MAX && st->v[i].depth > 0) return 1;
    return 0;
}

/* When x stopped holding: its crash, or (alive) the return of its last
 * operation on the lock that left it holding nothing; INT64_MAX: it has
 * not. */
static int64_t gone_us(const holder *x)
{
    if (x->crash_us != INT64_MAX) return x->crash_us;
    if (x->depth > 0 || x->acquiring || x->releasing) return INT64_MAX;
    return x->let_go_us;
}

/* The store's holder of lock, when it is named and dead or let it go
 * (else NULL). */
static holder *dead_holder(state *st, int lock)
{
    const lock_state *l = &st->l[lock];
    if (l->client <= 0) return NULL;
    holder *x = find(st, l->client, l->inc, l->thread, lock, 0);
    if (x == NULL || !x->asked || gone_us(x) == INT64_MAX) return NULL;
    return x;
}

/* Rule 1: the stint of lock held by the dead ends at t (k: the event that
 * ended it; -1: the end of the history). */
static void stint_end(state *st, int lock, int64_t t, size_t k, int at_end)
{
    lock_state *l = &st->l[lock];
    if (!l->dead) return;
    l->dead = 0;
    int64_t freed = l->expire_us < t ? l->expire_us : t;
    if (freed <= l->due_us) return;
    const holder *x = &st->v[l->who];
    char crash[32], due[32], asked[64], end[160], f[32], e[32], who[96];
    if (freed == t && at_end)
        snprintf(end, sizeof end, "still held at the end (%s), expiring %s", at(t, f, sizeof f),
                 l->expire_us == INT64_MAX ? "never" : at(l->expire_us, e, sizeof e));
    else snprintf(end, sizeof end, "held until %s", at(freed, f, sizeof f));
    if (l->gone_us == x->crash_us)
        snprintf(who, sizeof who, "the dead c%d.t%d (incarnation %d, crashed at %s)", x->client, x->thread, x->inc,
                 at(x->crash_us, crash, sizeof crash));
    else
        snprintf(who, sizeof who, "c%d.t%d (incarnation %d), which let it go at %s", x->client, x->thread, x->inc,
                 at(l->gone_us, crash, sizeof crash));
    check_violation *v = check_violate(st->r, SCN_INV_DEAD_HOLDER, l->due_us, at_end ? l->at : k,
                                       "%s was held by %s, %s: due free by %s, the lease asked %s + %s",
                                       st->in->names[lock], who, end, at(l->due_us, due, sizeof due),
                                       asked_text(st, x, asked, sizeof asked), st->margin_text);
    if (v) v->from_us = l->gone_us < l->since_us ? l->gone_us : l->since_us;
}

/* Re-judges whether lock is held by the dead at t; live_ended: the last
 * live holder's release is why it may be now. */
static void restate(state *st, int lock, int64_t t, size_t k, int live_ended)
{
    lock_state *l = &st->l[lock];
    const holder *x = dead_holder(st, lock);
    size_t who = x ? (size_t)(x - st->v) : 0;
    int dead = x != NULL && !live_believers(st, lock);
    if (!dead) {
        stint_end(st, lock, t, k, 0);
        return;
    }
    if (l->dead && l->who == who && l->gone_us == gone_us(x)) return;
    stint_end(st, lock, t, k, 0);
    int64_t lease = lease_of(st, x);
    if (lease == INT64_MAX) return; /* a hold with no lease: not judged */
    int64_t due = add_sat(add_sat(gone_us(x), lease), st->margin_us);
    if (l->bound_us > due) due = l->bound_us;
    if (live_ended && add_sat(t, st->margin_us) > due) due = add_sat(t, st->margin_us);
    l->dead = 1;
    l->who = who;
    l->due_us = due;
    l->since_us = t;
    l->gone_us = gone_us(x);
}

/* Rule 2: is the expiry e sets (a change of the store's expiry of a held
 * lock) further ahead than asked? Then 1, with the violation's text in
 * buf. */
static int overlong(const state *st, const hist_event *e, char *buf, size_t cap)
{
    int64_t most = INT64_MIN;
    const holder *by = NULL;
    for (size_t i = 0; i < st->n; i++) {
        const holder *x = &st->v[i];
        int is_holder = x->client == e->client && x->inc == e->inc && x->thread == e->thread;
        if (x->lock != e->lock || !x->asked || !(is_holder || x->depth > 0 || x->acquiring)) continue;
        if (x->crash_us != INT64_MAX && e->t_us > add_sat(x->crash_us, st->margin_us) && !is_holder) continue;
        int64_t lease = lease_of(st, x);
        if (lease > most) most = lease, by = x;
    }
    if (by == NULL || most == INT64_MAX) return 0; /* no one asked, or a hold with no lease */
    if (e->aux <= add_sat(e->t_us, add_sat(most, st->margin_us))) return 0;
    char now[32], exp[32], asked[64], left[32];
    snprintf(buf, cap,
             "a lease longer than asked: the store keeps %s for c%d.t%d (incarnation %d) %s from %s (expiring %s), "
             "beyond the longest lease asked by its holders and acquirers, c%d.t%d's %s, + %s",
             st->in->names[e->lock], e->client, e->thread, e->inc,
             e->aux == INT64_MAX ? "for ever" : dur(e->aux - e->t_us, left, sizeof left), at(e->t_us, now, sizeof now),
             e->aux == INT64_MAX ? "never" : at(e->aux, exp, sizeof exp), by->client, by->thread,
             asked_text(st, by, asked, sizeof asked), st->margin_text);
    return 1;
}

/* Rule 3: an expirable semaphore's permit lease at its grant or move. */
static void judge_permit(state *st, const hist_event *e, size_t k)
{
    const holder *x = find(st, e->client, e->inc, e->thread, e->lock, 0);
    if (x == NULL || !x->asked || e->value == INT64_MAX) return;
    int64_t lease = lease_of(st, x);
    if (lease == INT64_MAX || e->value <= add_sat(lease, st->margin_us)) return;
    char left[32], asked[64];
    check_violate(st->r, SCN_INV_DEAD_HOLDER, e->t_us, k,
                  "a lease longer than asked: c%d.t%d's (incarnation %d) permit #%lld of %s has %s left at its "
                  "grant, beyond the lease asked %s + %s",
                  e->client, e->thread, e->inc, (long long)e->aux, st->in->names[e->lock],
                  dur(e->value, left, sizeof left), asked_text(st, x, asked, sizeof asked), st->margin_text);
}

static void on_crash(state *st, const hist_event *e, size_t k)
{
    for (size_t i = 0; i < st->n; i++) {
        holder *x = &st->v[i];
        if (x->client != e->client || x->inc != e->inc || x->crash_us != INT64_MAX) continue;
        x->crash_us = e->t_us;
        int64_t lease = x->asked ? lease_of(st, x) : INT64_MAX;
        if ((x->depth > 0 || x->acquiring) && lease != INT64_MAX) {
            int64_t due = add_sat(add_sat(e->t_us, lease), st->margin_us);
            if (due > st->l[x->lock].bound_us) st->l[x->lock].bound_us = due;
        }
    }
    for (int lock = 0; lock < st->in->nlocks && lock < SCN_MAX_LOCKS; lock++) restate(st, lock, e->t_us, k, 0);
}

/* 1 when a thread has an acquire of lock running at t (a dead one's can
 * still land for the margin after its crash). */
static int acquire_running(const state *st, int lock, int64_t t)
{
    for (size_t i = 0; i < st->n; i++) {
        const holder *x = &st->v[i];
        if (x->lock == lock && x->acquiring && (x->crash_us == INT64_MAX || t <= add_sat(x->crash_us, st->margin_us)))
            return 1;
    }
    return 0;
}

static void on_store(state *st, const hist_event *e, size_t k)
{
    lock_state *l = &st->l[e->lock];
    int changed = e->client != l->client || e->inc != l->inc || e->thread != l->thread || e->aux != l->expire_us;
    int moved = e->client > 0 && (e->aux != l->expire_us || e->client != l->client || e->inc != l->inc ||
                                  e->thread != l->thread);
    if (!changed) return;
    /* The stint's store until now: it was freed at its expiry or now. */
    if (l->dead) {
        if (e->client != l->client || e->inc != l->inc || e->thread != l->thread) stint_end(st, e->lock, e->t_us, k, 0);
        else if (l->expire_us < e->t_us) stint_end(st, e->lock, e->t_us, k, 0); /* it expired and was taken again */
    }
    l->client = e->client;
    l->inc = e->inc;
    l->thread = e->thread;
    l->expire_us = e->aux;
    l->at = k;
    if (e->client == 0) l->bound_us = INT64_MIN; /* free: the dead believers' holds are gone */
    /* A change made while an acquire of the lock runs (SETNX then EXPIRE,
     * MultiLock's members at 2 x the wait then their expire, seen through
     * the composite's latest member expiry) is judged at the holder's ok:
     * the operation may mend it before it returns. */
    char text[512];
    if (moved && !acquire_running(st, e->lock, e->t_us) && overlong(st, e, text, sizeof text))
        check_violate(st->r, SCN_INV_DEAD_HOLDER, e->t_us, k, "%s", text);
    restate(st, e->lock, e->t_us, k, 0);
}

/* Rule 2 at the ok of x's acquire: the expiry the store keeps for x now. */
static void judge_grant(state *st, const holder *x, const hist_event *e, size_t k)
{
    const lock_state *l = &st->l[e->lock];
    if (l->client != x->client || l->inc != x->inc || l->thread != x->thread) return;
    hist_event now = {.t_us = e->t_us, .op = HOP_STORE, .client = l->client, .inc = l->inc, .thread = l->thread,
                      .lock = e->lock, .aux = l->expire_us};
    char text[512];
    if (overlong(st, &now, text, sizeof text)) check_violate(st->r, SCN_INV_DEAD_HOLDER, e->t_us, k, "%s", text);
}

static void on_client(state *st, const hist_event *e, size_t k)
{
    if (e->op == HOP_ACQUIRE) {
        holder *x = find(st, e->client, e->inc, e->thread, e->lock, 1);
        if (e->kind == HIST_INVOKE) {
            x->acquiring = 1;
            /* A re-entry counted in the client asks the store nothing: the
             * lease of the acquire that took the lock stays in force. */
            if (!(st->in->reentry_local && x->depth > 0)) x->lease_us = e->lease_us;
            x->asked = 1;
            return;
        }
        x->acquiring = 0;
        if (e->kind == HIST_OK) {
            x->depth = e->value;
            judge_grant(st, x, e, k);
        }
        if (x->depth == 0) x->let_go_us = e->t_us; /* an acquire that failed: nothing held */
        restate(st, e->lock, e->t_us, k, 0);
    } else if (e->op == HOP_QUERY && e->kind == HIST_INVOKE && e->aux == SCN_OP_UPDATELEASE) {
        holder *x = find(st, e->client, e->inc, e->thread, e->lock, 1); /* the lease it asks now */
        x->asked = 1;
        x->lease_us = e->lease_us;
    } else if ((e->op == HOP_RELEASE && e->kind == HIST_INVOKE) || (e->op == HOP_FORCE_UNLOCK && e->kind == HIST_OK)) {
        holder *x = find(st, e->client, e->inc, e->thread, e->lock, 0);
        if (x == NULL) return;
        int64_t was = x->depth;
        x->depth = e->op == HOP_RELEASE ? e->value : 0;
        x->releasing = e->op == HOP_RELEASE;
        if (e->op == HOP_FORCE_UNLOCK && x->depth == 0) x->let_go_us = e->t_us;
        if (was > 0 && x->depth == 0) restate(st, e->lock, e->t_us, k, 1);
    } else if (e->op == HOP_RELEASE && (e->kind == HIST_OK || e->kind == HIST_FAIL)) {
        /* The release returned: with nothing left, the thread has let go. */
        holder *x = find(st, e->client, e->inc, e->thread, e->lock, 0);
        if (x == NULL || !x->releasing) return;
        x->releasing = 0;
        if (x->depth == 0) x->let_go_us = e->t_us;
        restate(st, e->lock, e->t_us, k, 0);
    }
}

void check_dead_holder(const history *h, const check_holds *hs, const check_input *in, check_result *r)
{
    (void)hs;
    if (in->lease_in_force_us == NULL) return; /* unknown: no lease to judge by */
    state st;
    memset(&st, 0, sizeof st);
    st.in = in;
    st.r = r;
    for (int i = 0; i < SCN_MAX_LOCKS; i++) st.l[i] = (lock_state){.expire_us = INT64_MAX, .bound_us = INT64_MIN};
    margin_of(&st);
    r->checked[SCN_INV_DEAD_HOLDER] = 1;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op == HOP_CRASH) {
            on_crash(&st, e, k);
            continue;
        }
        if (e->lock < 0 || e->lock >= in->nlocks || e->lock >= SCN_MAX_LOCKS) continue;
        if (e->op == HOP_STORE) on_store(&st, e, k);
        else if (e->op == HOP_PERMIT) judge_permit(&st, e, k);
        else on_client(&st, e, k);
    }
    for (int lock = 0; lock < in->nlocks && lock < SCN_MAX_LOCKS; lock++) {
        stint_end(&st, lock, in->end_us, 0, 1);
    }
    if (r->verdict[SCN_INV_DEAD_HOLDER] != CHECK_VIOLATED) r->verdict[SCN_INV_DEAD_HOLDER] = CHECK_HELD;
    sim_xfree(st.v);
}
