/* history.c — the history of a run: events appended in true-time order
 * (the simulator only moves forward), and their readable form. */
#include <stdio.h>
#include <string.h>

#include "sim/history/history.h"
#include "sim/kernel/ut.h"

void hist_init(history *h)
{
    memset(h, 0, sizeof *h);
}

void hist_free(history *h)
{
    sim_xgrow_free(h->ev, h->cap * sizeof *h->ev);
    for (size_t i = 0; i < h->ntexts; i++) sim_xfree(h->texts[i]);
    sim_xfree(h->texts);
    memset(h, 0, sizeof *h);
}

/* An operation in progress: (client, inc, thread, op) -> its invoke. */
typedef struct open_op {
    UT_hash_handle hh;
    int key[4];
    size_t k;
} open_op;

size_t *hist_op_ends(const history *h)
{
    size_t *ends = sim_xmalloc((h->n + 1) * sizeof *ends);
    open_op *open = NULL, *o, *tmp;
    for (size_t j = 0; j < h->n; j++) {
        const hist_event *x = &h->ev[j];
        ends[j] = (size_t)-1;
        if (x->op == HOP_CRASH) { /* every operation of the process ends here */
            HASH_ITER(hh, open, o, tmp) {
                if (o->key[0] != x->client || o->key[1] != x->inc) continue;
                ends[o->k] = j;
                HASH_DEL(open, o);
                sim_xfree(o);
            }
            continue;
        }
        int key[4] = {x->client, x->inc, x->thread, (int)x->op};
        HASH_FIND(hh, open, key, sizeof key, o);
        if (x->kind == HIST_INVOKE) {
            if (o == NULL) {
                o = sim_xcalloc(1, sizeof *o);
                memcpy(o->key, key, sizeof key);
                HASH_ADD(hh, open, key, sizeof o->key, o);
            }
            o->k = j;
        } else if (o) {
            ends[o->k] = j;
            HASH_DEL(open, o);
            sim_xfree(o);
        }
    }
    HASH_ITER(hh, open, o, tmp) {
        HASH_DEL(open, o);
        sim_xfree(o);
    }
    return ends;
}

int64_t hist_text(history *h, const char *text)
{
    if (h->ntexts == h->texts_cap) {
        h->texts_cap = h->texts_cap ? h->texts_cap * 2 : 16;
        h->texts = sim_xrealloc(h->texts, h->texts_cap * sizeof *h->texts);
    }
    h->texts[h->ntexts] = sim_xstrdup(text);
    return (int64_t)h->ntexts++;
}

void hist_add(history *h, const hist_event *e)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 1024;
        h->ev = sim_xgrow(h->ev, h->cap * sizeof *h->ev, cap * sizeof *h->ev);
        h->cap = cap;
    }
    h->ev[h->n++] = *e;
}

static const char *op_name(hist_op op)
{
    static const char *const names[] = {"acquire", "release", "forceunlock", "query",       "crash",  "restart",
                                        "pause",   "resume",  "store",       "store-count", "write",  "fault",
                                        "counter", "set",     "countdown",   "await",
                                        "queued",  "dequeued", "give-up",
                                        "addpermits", "trysetpermits", "drainpermits", "permit", "permit-end",
                                        "late-listener", "resent", "trysetcount", "park", "reply-lost"};
    return (size_t)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

size_t hist_format(const history *h, const hist_event *e, const scenario *s, char *buf, size_t cap)
{
    static const char *const kinds[] = {"invoke", "ok", "fail", "info"};
    const char *lock = s && e->lock >= 0 && e->lock < s->nlocks ? s->lock_names[e->lock] : "?";
    char who[48];
    if (e->client > 0 && e->thread > 0) snprintf(who, sizeof who, "c%d.t%d", e->client, e->thread);
    else if (e->client > 0) snprintf(who, sizeof who, "c%d", e->client);
    else snprintf(who, sizeof who, "-");
    int64_t ms = e->t_us / 1000;
    int n;
    switch (e->op) {
    case HOP_STORE:
        if (e->client == 0)
            n = snprintf(buf, cap, "%lld.%03llds store: %s is free", (long long)(ms / 1000),
                         (long long)(ms % 1000), lock);
        else if (e->client < 0)
            n = snprintf(buf, cap, "%lld.%03llds store: %s held by an unknown owner",
                         (long long)(ms / 1000), (long long)(ms % 1000), lock);
        else if (e->aux == INT64_MAX)
            n = snprintf(buf, cap, "%lld.%03llds store: %s held by %s (count %lld, no expiry)",
                         (long long)(ms / 1000), (long long)(ms % 1000), lock, who, (long long)e->value);
        else
            n = snprintf(buf, cap, "%lld.%03llds store: %s held by %s (count %lld, expires %lld.%03llds)",
                         (long long)(ms / 1000), (long long)(ms % 1000), lock, who, (long long)e->value,
                         (long long)(e->aux / 1000000), (long long)(e->aux / 1000 % 1000));
        if (n > 0 && (size_t)n < cap && e->client != 0 && e->mode)
            n += snprintf(buf + n, cap - (size_t)n, " [%s mode]", e->mode == SCN_RW_READ ? "read" : "write");
        break;
    case HOP_PERMIT:
        if (e->value == INT64_MAX)
            n = snprintf(buf, cap, "%lld.%03llds %s holds permit #%lld of %s (%lld id(s), no lease)",
                         (long long)(ms / 1000), (long long)(ms % 1000), who, (long long)e->aux, lock,
                         (long long)e->n);
        else
            n = snprintf(buf, cap, "%lld.%03llds %s holds permit #%lld of %s (%lld id(s), lease %lldms)",
                         (long long)(ms / 1000), (long long)(ms % 1000), who, (long long)e->aux, lock,
                         (long long)e->n, (long long)(e->value / 1000));
        break;
    case HOP_PERMIT_END:
        n = snprintf(buf, cap, "%lld.%03llds store: %s's release of permit #%lld of %s: %s", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, (long long)e->aux, lock, e->value ? "released" : "refused");
        break;
    case HOP_GIVE_UP:
        n = snprintf(buf, cap, "%lld.%03llds %s gives up waiting for %s", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, lock);
        break;
    case HOP_RESENT:
        n = snprintf(buf, cap, "%lld.%03llds %s resends a command on %s after its reply timed out",
                     (long long)(ms / 1000), (long long)(ms % 1000), who, lock);
        break;
    case HOP_LATE_LISTENER:
        n = snprintf(buf, cap, "%lld.%03llds %s listens on %s after its message came", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, lock);
        break;
    case HOP_REPLY_LOST:
        n = snprintf(buf, cap, "%lld.%03llds %s loses the reply to a command on %s (fail-reply)",
                     (long long)(ms / 1000), (long long)(ms % 1000), who, lock);
        break;
    case HOP_PARK:
        n = snprintf(buf, cap, e->value == 1   ? "%lld.%03llds %s waits for %s with no timeout"
                               : e->value == 2 ? "%lld.%03llds %s waits for a message on %s, up to a timeout"
                                               : "%lld.%03llds %s is woken from its wait for %s",
                     (long long)(ms / 1000), (long long)(ms % 1000), who, lock);
        break;
    case HOP_CRASH:
    case HOP_RESTART:
    case HOP_RESUME:
        n = snprintf(buf, cap, "%lld.%03llds %s %s", (long long)(ms / 1000), (long long)(ms % 1000),
                     who, op_name(e->op));
        break;
    case HOP_PAUSE:
        n = snprintf(buf, cap, "%lld.%03llds %s pause for %lldms", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, (long long)(e->aux / 1000));
        break;
    case HOP_FAULT:
        n = snprintf(buf, cap, "%lld.%03llds fault: %s", (long long)(ms / 1000), (long long)(ms % 1000),
                     h && e->value >= 0 && (size_t)e->value < h->ntexts ? h->texts[e->value] : "?");
        break;
    case HOP_COUNTER:
        if (e->aux && e->n)
            n = snprintf(buf, cap, "%lld.%03llds store: %s = %lld (%lld acquired)", (long long)(ms / 1000),
                         (long long)(ms % 1000), lock, (long long)e->value, (long long)e->n);
        else if (e->aux)
            n = snprintf(buf, cap, "%lld.%03llds store: %s = %lld", (long long)(ms / 1000), (long long)(ms % 1000),
                         lock, (long long)e->value);
        else
            n = snprintf(buf, cap, "%lld.%03llds store: %s is absent", (long long)(ms / 1000),
                         (long long)(ms % 1000), lock);
        break;
    case HOP_SET:
        n = snprintf(buf, cap, "%lld.%03llds setup: trySet %s to %lld: %s", (long long)(ms / 1000),
                     (long long)(ms % 1000), lock, (long long)e->value, e->aux ? "set" : "already set");
        break;
    case HOP_QUEUED:
        n = snprintf(buf, cap, "%lld.%03llds store: %s queued for %s at position %lld", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, lock, (long long)e->value);
        break;
    case HOP_DEQUEUED:
        n = snprintf(buf, cap, "%lld.%03llds store: %s left the queue of %s%s", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, lock, e->value ? " as its holder" : " (removed)");
        break;
    case HOP_WRITE:
        n = snprintf(buf, cap, "%lld.%03llds %s write to the resource under %s with token %lld: %s",
                     (long long)(ms / 1000), (long long)(ms % 1000), who, lock, (long long)e->value,
                     e->kind == HIST_OK ? "accepted" : "rejected (stale token)");
        break;
    default:
        n = snprintf(buf, cap, "%lld.%03llds %s %s %s %s%s%s", (long long)(ms / 1000),
                     (long long)(ms % 1000), who, kinds[e->kind], op_name(e->op), lock,
                     e->err ? ": " : "", e->err ? e->err : "");
        if (n > 0 && (size_t)n < cap && (e->op == HOP_ACQUIRE || e->op == HOP_RELEASE) && e->kind != HIST_FAIL)
            n += snprintf(buf + n, cap - (size_t)n, " (depth %lld)", (long long)e->value);
        if (n > 0 && (size_t)n < cap && e->mode)
            n += snprintf(buf + n, cap - (size_t)n, " [%s]", e->mode == SCN_RW_READ ? "read" : "write");
        if (n > 0 && (size_t)n < cap && e->n > 0)
            n += snprintf(buf + n, cap - (size_t)n, " [n=%lld]", (long long)e->n);
        if (n > 0 && (size_t)n < cap && e->op == HOP_AWAIT && e->kind == HIST_OK)
            n += snprintf(buf + n, cap - (size_t)n, e->value ? " (released)" : " (timed out)");
        break;
    }
    return n < 0 ? 0 : (size_t)n;
}
