/* observer.c — the store observer: after each command a master runs, it
 * reads the locks of that master's group (through the protocol's
 * hist_reader) and records into the history what changed: the holder and
 * its expiry (HOP_STORE), a counter's value (HOP_COUNTER), the sending
 * thread's hold count (HOP_STORE_COUNT), and a wait queue's entries and
 * departures (HOP_QUEUED, HOP_DEQUEUED). Lock names are mapped back to the
 * processes that used them through the incarnations the runtime reports.
 *
 * Wait queues: scripts only append at the tail and remove anywhere, so the
 * new queue is the old one with members removed, then new members
 * appended: members of the new queue that match the old one in order
 * (greedily) stayed; the old members left out were removed; the rest of
 * the new queue entered. A waiter purged at the head and queued again at
 * the tail by the same script is seen as leaving and entering.
 *
 * A lock is read again only when the reading may have changed: each one
 * is kept with the world's store version, the true time before which no
 * key it saw expires (world_watch_end), and the naming of owners it was
 * mapped with; a reader reads the stores only through the world's peeks
 * and keeps no state of its own, so an unchanged reading records nothing
 * and is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/history/history.h"
#include "sim/kernel/ut.h"

/* Every incarnation ever started, to name a lock's holder from its id:
 * found by id, and by (client, incarnation mod 256) as tags carry it (the
 * newest one of that key wins, as it would in a search from the end). */
typedef struct incarnation {
    UT_hash_handle by_id, by_tag;
    char id[40];
    int client, inc;
    int tag_key[2]; /* client, inc & 0xFF */
} incarnation;

/* An owner token a client told: exact text to its thread. */
typedef struct owner_tok {
    UT_hash_handle hh;
    int client, inc, thread;
    char token[]; /* NUL-terminated */
} owner_tok;

typedef struct qlist {
    char (*v)[64]; /* lock names, head first */
    size_t n, cap;
} qlist;

/* A reading of one lock that still holds while the world's store version
 * is ver, owners are named as at `names`, and the true time is before
 * until. Kept for locks of one group. */
typedef struct reading {
    int valid, group, master;
    uint64_t ver, names;
    int64_t until;
    hist_store st; /* what the reader returned */
} reading;

/* The last hold count recorded for one sending thread's lock (the tag
 * without its operation count: client, incarnation, thread, lock). */
typedef struct last_count {
    UT_hash_handle hh;
    uint64_t key;
    uint64_t tag;  /* the command's tag that recorded it */
    int64_t value;
} last_count;

/* The last observation of one lock, to record changes only. */
typedef struct seen {
    int observed;
    int client, inc, thread, mode;
    int64_t count, expire;
    int64_t acquired; /* counters: permits acquired (expirable semaphore) */
    qlist queue;
    reading last;
} seen;

struct hist_observer {
    history *h;
    world *w;
    sim_ctx *ctx;
    hist_reader r;
    int nlocks;
    seen locks[SCN_MAX_LOCKS];
    qlist cur;               /* the queue being read */
    incarnation *ids, *tags; /* uthash */
    owner_tok *tokens;       /* uthash by token */
    last_count *counts;      /* uthash by key */
    incarnation **all;       /* every one, to free */
    size_t n, cap;
    uint64_t names;          /* changes with every incarnation or token told */
};

/* ------------------------------------------------------- incarnations */

void hist_observer_incarnation(hist_observer *o, const char *id, int client, int inc)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 16;
        o->all = sim_xrealloc(o->all, o->cap * sizeof *o->all);
    }
    incarnation *x = sim_xcalloc(1, sizeof *x), *old;
    o->all[o->n++] = x;
    o->names++;
    snprintf(x->id, sizeof x->id, "%s", id);
    x->client = client;
    x->inc = inc;
    x->tag_key[0] = client;
    x->tag_key[1] = inc & 0xFF;
    HASH_FIND(by_id, o->ids, x->id, strlen(x->id), old);
    if (old) HASH_DELETE(by_id, o->ids, old);
    HASH_ADD(by_id, o->ids, id[0], strlen(x->id), x);
    HASH_FIND(by_tag, o->tags, x->tag_key, sizeof x->tag_key, old);
    if (old) HASH_DELETE(by_tag, o->tags, old);
    HASH_ADD(by_tag, o->tags, tag_key, sizeof x->tag_key, x);
}

void hist_observer_owner(hist_observer *o, const char *token, int client, int inc, int thread)
{
    size_t n = strlen(token);
    owner_tok *x;
    o->names++;
    HASH_FIND(hh, o->tokens, token, n, x);
    if (x == NULL) {
        x = sim_xcalloc(1, sizeof *x + n + 1);
        memcpy(x->token, token, n + 1);
        HASH_ADD(hh, o->tokens, token[0], n, x);
    }
    x->client = client;
    x->inc = inc;
    x->thread = thread;
}

int hist_observer_who(const hist_observer *o, const char *lname, int *client, int *inc, int *thread)
{
    if (o->tokens) {
        owner_tok *t;
        HASH_FIND(hh, o->tokens, lname, strlen(lname), t);
        if (t) {
            *client = t->client;
            *inc = t->inc;
            *thread = t->thread;
            return 1;
        }
    }
    const char *colon = strrchr(lname, ':');
    if (colon == NULL) return 0;
    incarnation *x;
    HASH_FIND(by_id, o->ids, lname, (size_t)(colon - lname), x);
    if (x == NULL) return 0;
    *client = x->client;
    *inc = x->inc;
    *thread = atoi(colon + 1);
    return 1;
}

/* The id of incarnation inc (mod 256) of client, or NULL. */
static const char *id_of(const hist_observer *o, int client, int inc)
{
    int key[2] = {client, inc & 0xFF};
    incarnation *x;
    HASH_FIND(by_tag, o->tags, key, sizeof key, x);
    return x ? x->id : NULL;
}

uint64_t hist_tag(int client, int inc, int thread, int lock, uint64_t opcount)
{
    return ((uint64_t)client << 44) | ((uint64_t)(inc & 0xFF) << 36) | ((uint64_t)(thread & 0x3FF) << 26) |
           ((uint64_t)(lock & 0xF) << 22) | (opcount & 0x3FFFFF);
}

int hist_tag_thread(uint64_t tag)
{
    return (int)((tag >> 26) & 0x3FF);
}

int hist_tag_lock(uint64_t tag)
{
    return (int)((tag >> 22) & 0xF);
}

/* ------------------------------------------------------------- queues */

static void collect(void *ud, const char *lname, size_t len)
{
    qlist *q = ud;
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 16;
        q->v = sim_xrealloc(q->v, q->cap * sizeof *q->v);
    }
    size_t n = strnlen(lname, len < 63 ? len : 63); /* as "%.*s" would copy it */
    memcpy(q->v[q->n], lname, n);
    q->v[q->n++][n] = '\0';
}

static int same_queue(const qlist *a, const qlist *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0) return 0;
    return 1;
}

static void record_queue(hist_observer *o, int lock, const char *lname, hist_op op, int64_t value)
{
    int client, inc, thread;
    if (!hist_observer_who(o, lname, &client, &inc, &thread)) return; /* a foreign entry */
    const seen *s = &o->locks[lock];
    if (op == HOP_DEQUEUED) value = s->client == client && s->inc == inc && s->thread == thread;
    hist_event e = {.t_us = sim_now(o->ctx), .kind = HIST_INFO, .op = op, .client = client, .inc = inc,
                    .thread = thread, .lock = lock, .value = value};
    hist_add(o->h, &e);
}

/* Reads lock's wait queue on group's master and records how it changed
 * since the last look. Call after the store observation of lock, whose
 * holder it uses. */
static void observe_queue(hist_observer *o, int group, int lock)
{
    if (!world_node_up(o->w, world_master(o->w, group))) return; /* seen again once it is back */
    qlist *old = &o->locks[lock].queue, *cur = &o->cur;
    cur->n = 0;
    o->r.queue(o->r.ud, group, lock, collect, cur);
    if (same_queue(old, cur)) return;
    size_t j = 0;
    for (size_t i = 0; i < old->n; i++) {
        if (j < cur->n && strcmp(old->v[i], cur->v[j]) == 0) j++;
        else record_queue(o, lock, old->v[i], HOP_DEQUEUED, 0);
    }
    for (size_t k = j; k < cur->n; k++) record_queue(o, lock, cur->v[k], HOP_QUEUED, (int64_t)k + 1);
    qlist t = *old;
    *old = *cur;
    *cur = t;
}

/* --------------------------------------------------------------- locks */

/* A counter object's value (semaphore permits, latch count): recorded
 * when it changes; not while the master is down (nothing to read). */
static void observe_counter(hist_observer *o, int group, int lock, const hist_store *st)
{
    if (!world_node_up(o->w, world_master(o->w, group))) return;
    seen *s = &o->locks[lock];
    int64_t exists = st->held;
    if (s->observed && s->count == st->count && s->expire == exists && s->acquired == st->acquired) return;
    s->observed = 1;
    s->count = st->count;
    s->expire = exists;
    s->acquired = st->acquired;
    hist_event e = {.t_us = sim_now(o->ctx), .kind = HIST_INFO, .op = HOP_COUNTER, .lock = lock,
                    .value = st->count, .aux = exists, .n = st->acquired};
    hist_add(o->h, &e);
}

/* Records the lock as the store has it now (when it changed) from st, what
 * the protocol's reader read. */
static void record_lock(hist_observer *o, int group, int lock, hist_store st)
{
    if (st.counter) {
        observe_counter(o, group, lock, &st);
        return;
    }
    int client = 0, inc = 0, thread = 0;
    if (st.held && !hist_observer_who(o, st.owner, &client, &inc, &thread)) client = -1; /* a foreign key */
    if (o->r.node_of(o->r.ud, lock) >= 0 && !world_node_up(o->w, world_master(o->w, group))) {
        /* No master: the lock cannot be had (not free), whatever it held. */
        st.held = 1;
        st.expire_ms = -1;
        client = -1;
        inc = thread = 0;
    }
    int64_t expire = !st.held            ? INT64_MAX
                     : st.expire_true_us ? st.expire_true_us
                                         : world_true_at(o->w, world_master(o->w, group), st.expire_ms);
    int64_t count = st.held ? st.count : 0;
    seen *s = &o->locks[lock];
    if (!(s->observed && s->client == client && s->inc == inc && s->thread == thread && s->count == count &&
          s->expire == expire && s->mode == st.mode)) {
        s->mode = st.mode;
        s->observed = 1;
        s->client = client;
        s->inc = inc;
        s->thread = thread;
        s->count = count;
        s->expire = expire;
        hist_event e = {.t_us = sim_now(o->ctx), .kind = HIST_INFO, .op = HOP_STORE, .client = client,
                        .inc = inc, .thread = thread, .lock = lock, .value = count, .aux = expire,
                        .mode = st.held ? st.mode : 0};
        hist_add(o->h, &e);
    }
    if (o->r.queue) observe_queue(o, group, lock);
}

/* Reads lock on group's master and records what changed, unless nothing
 * can have changed since the last reading; raw, when not NULL, gets what
 * the protocol's reader read. */
static void observe_lock(hist_observer *o, int group, int lock, hist_store *raw)
{
    reading *r = &o->locks[lock].last;
    int master = world_master(o->w, group);
    uint64_t ver = world_store_version(o->w);
    if (r->valid && r->group == group && r->master == master && r->ver == ver && r->names == o->names &&
        sim_now(o->ctx) < r->until) {
        if (raw) *raw = r->st;
        return;
    }
    hist_store st = {0}; /* readers that predate a field leave it 0 */
    world_watch_begin(o->w);
    o->r.observe(o->r.ud, group, lock, &st);
    if (raw) *raw = st;
    record_lock(o, group, lock, st);
    int64_t until = world_watch_end(o->w);
    *r = (reading){.valid = o->r.node_of(o->r.ud, lock) >= 0, .group = group, .master = master, .ver = ver,
                   .names = o->names, .until = until, .st = st};
}

void hist_observer_forget(hist_observer *o)
{
    o->names++;
}

/* The store's count for the thread that sent the command tagged tag,
 * right after it ran (HOP_STORE_COUNT); st is what the lock's reader saw. */
static void observe_count(hist_observer *o, int group, uint64_t tag, const hist_store *st)
{
    int client = (int)(tag >> 44), inc = (int)((tag >> 36) & 0xFF);
    int thread = (int)((tag >> 26) & 0x3FF), lock = (int)((tag >> 22) & 0xF);
    if (lock >= o->nlocks || o->r.node_of(o->r.ud, lock) != group) return;
    const char *id = id_of(o, client, inc);
    if (id == NULL || st->counter) return; /* counters: no owner, no hold count */
    char lname[64];
    size_t idlen = strlen(id);
    memcpy(lname, id, idlen);
    lname[idlen] = ':';
    sim_fmt_i64(lname + idlen + 1, thread);
    int64_t count = st->held && strcmp(st->owner, lname) == 0 ? st->count : 0;
    if (o->r.store_count) count = o->r.store_count(o->r.ud, group, lock, lname);
    /* A command of the same operation that leaves the count where the
     * last one recorded for this thread's lock put it says nothing new (a
     * contended acquire's retries): the first time the count changed
     * and its last value per operation are what the checkers read. */
    uint64_t key = tag >> 22;
    last_count *lc;
    HASH_FIND(hh, o->counts, &key, sizeof key, lc);
    if (lc == NULL) {
        lc = sim_xcalloc(1, sizeof *lc);
        lc->key = key;
        HASH_ADD(hh, o->counts, key, sizeof lc->key, lc);
    } else if (lc->tag == tag && lc->value == count) {
        return;
    }
    lc->tag = tag;
    lc->value = count;
    hist_event e = {.t_us = sim_now(o->ctx), .kind = HIST_INFO, .op = HOP_STORE_COUNT, .client = client,
                    .inc = inc, .thread = thread, .lock = lock, .value = count, .seq = tag};
    hist_add(o->h, &e);
}

/* The world's exec hook: a master of group ran a command tagged tag. */
static void on_exec(void *ud, int node, uint64_t tag)
{
    hist_observer *o = ud;
    int group = world_group_of(o->w, node);
    int lock = (int)((tag >> 22) & 0xF);
    hist_store st = {0}; /* what the store holds of the sender's lock */
    for (int l = 0; l < o->nlocks; l++) {
        int g = o->r.node_of(o->r.ud, l);
        if (g == group || g < 0) observe_lock(o, group, l, l == lock ? &st : NULL); /* < 0: spans groups */
    }
    if (tag != 0) observe_count(o, group, tag, &st);
}

void hist_observe_all(hist_observer *o)
{
    for (int lock = 0; lock < o->nlocks; lock++) {
        int g = o->r.node_of(o->r.ud, lock);
        observe_lock(o, g < 0 ? 0 : g, lock, NULL);
    }
}

/* ----------------------------------------------------------- lifecycle */

hist_observer *hist_observer_new(history *h, world *w, int nlocks, const hist_reader *r)
{
    sim_assert(nlocks >= 0 && nlocks <= SCN_MAX_LOCKS);
    sim_assert(r->observe != NULL && r->node_of != NULL);
    hist_observer *o = sim_xcalloc(1, sizeof *o);
    o->h = h;
    o->w = w;
    o->ctx = world_ctx(w);
    o->r = *r;
    o->nlocks = nlocks;
    world_set_exec_hook(w, on_exec, o);
    return o;
}

void hist_observer_free(hist_observer *o)
{
    if (o == NULL) return;
    world_set_exec_hook(o->w, NULL, NULL);
    HASH_CLEAR(by_id, o->ids);
    HASH_CLEAR(by_tag, o->tags);
    owner_tok *t, *tmp;
    last_count *c, *ctmp;
    HASH_ITER(hh, o->counts, c, ctmp) {
        HASH_DEL(o->counts, c);
        sim_xfree(c);
    }
    HASH_ITER(hh, o->tokens, t, tmp) {
        HASH_DEL(o->tokens, t);
        sim_xfree(t);
    }
    for (size_t i = 0; i < o->n; i++) sim_xfree(o->all[i]);
    sim_xfree(o->all);
    for (int i = 0; i < SCN_MAX_LOCKS; i++) sim_xfree(o->locks[i].queue.v);
    sim_xfree(o->cur.v);
    sim_xfree(o);
}
