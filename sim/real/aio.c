/* aio.c — hiredis' asynchronous API on a poll(2) loop (aio.h). hiredis
 * asks, through its event hooks, to watch a socket for reading or
 * writing; real_loop_poll waits on every watched socket and hands the
 * ready ones back to hiredis, which runs the reply callbacks.
 *
 * Lifetimes: hiredis frees its context itself after a disconnect; the
 * real_aconn stays until real_aconn_close or real_loop_free, marked dead
 * once its context is gone. */
#include "sim/real/aio.h"

#include <poll.h>
#include <string.h>

#include <async.h>
#include <hiredis.h>

#include "sim/real/real.h"

struct real_aconn {
    real_loop *loop;
    redisAsyncContext *ac;  /* NULL once hiredis freed it */
    real_reply_fn *on_reply;
    real_lost_fn *on_lost;
    void *ud;
    int want_read, want_write;
    int closing;            /* the owner closed it: call nothing back */
    int lost_told;
    real_aconn *next;
};

typedef struct watch {
    int fd;
    real_fd_fn *fn;
    void *ud;
    int gone;
} watch;

struct real_loop {
    real_aconn *conns;
    watch *watches;
    size_t nwatches, watches_cap;
    int polling;            /* inside real_loop_poll: closed conns wait */
    real_aconn *graveyard;  /* closed during a poll, freed after it */
    struct pollfd *fds;     /* poll's arrays, grown as needed */
    real_aconn **who;
    nfds_t cap;
};

/* ----------------------------------------------------- hiredis' hooks */

static void add_read(void *p) { ((real_aconn *)p)->want_read = 1; }
static void del_read(void *p) { ((real_aconn *)p)->want_read = 0; }
static void add_write(void *p) { ((real_aconn *)p)->want_write = 1; }
static void del_write(void *p) { ((real_aconn *)p)->want_write = 0; }

static void cleanup(void *p)
{
    real_aconn *c = p;
    c->want_read = c->want_write = 0;
}

static void tell_lost(real_aconn *c)
{
    if (c->closing || c->lost_told) return;
    c->lost_told = 1;
    if (c->on_lost) c->on_lost(c->ud);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    real_aconn *c = ac->data;
    if (status != REDIS_OK) {
        c->ac = NULL; /* hiredis frees it after this call */
        tell_lost(c);
    }
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    (void)status;
    real_aconn *c = ac->data;
    c->ac = NULL;
    tell_lost(c);
}

/* Every reply, and every message of a subscription. */
static void on_reply(redisAsyncContext *ac, void *reply, void *cookie)
{
    real_aconn *c = ac->data;
    if (reply == NULL) { /* dropped: the owner frees what the cookie holds */
        c->on_reply(c->ud, cookie, NULL);
        return;
    }
    if (c->closing) return;
    sim_reply *r = real_reply_convert(reply);
    c->on_reply(c->ud, cookie, r);
    sim_reply_free(r);
}

/* ------------------------------------------------------------- the API */

real_loop *real_loop_new(void)
{
    return sim_xcalloc(1, sizeof(real_loop));
}

void real_loop_free(real_loop *l)
{
    if (l == NULL) return;
    while (l->conns) {
        real_aconn *c = l->conns;
        l->conns = c->next;
        c->closing = 1;
        if (c->ac) redisAsyncFree(c->ac);
        sim_xfree(c);
    }
    sim_xfree(l->fds);
    sim_xfree(l->who);
    sim_xfree(l->watches);
    sim_xfree(l);
}

real_aconn *real_aconn_open(real_loop *l, const char *host, int port, real_reply_fn *reply_fn,
                            real_lost_fn *lost_fn, void *ud)
{
    redisAsyncContext *ac = redisAsyncConnect(host, port);
    if (ac == NULL) return NULL;
    if (ac->err) {
        redisAsyncFree(ac);
        return NULL;
    }
    real_aconn *c = sim_xcalloc(1, sizeof *c);
    c->loop = l;
    c->ac = ac;
    c->on_reply = reply_fn;
    c->on_lost = lost_fn;
    c->ud = ud;
    ac->data = c;
    ac->ev.data = c;
    ac->ev.addRead = add_read;
    ac->ev.delRead = del_read;
    ac->ev.addWrite = add_write;
    ac->ev.delWrite = del_write;
    ac->ev.cleanup = cleanup;
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    c->want_write = 1; /* the connect completes on writability */
    c->next = l->conns;
    l->conns = c;
    return c;
}

int real_aconn_send(real_aconn *c, int argc, const char *const *argv, const size_t *lens, void *cookie)
{
    if (c->ac == NULL) return -1;
    return redisAsyncCommandArgv(c->ac, on_reply, cookie, argc, (const char **)argv, lens) == REDIS_OK ? 0 : -1;
}

void real_aconn_close(real_aconn *c)
{
    if (c == NULL) return;
    real_loop *l = c->loop;
    c->closing = 1;
    if (c->ac) {
        redisAsyncContext *ac = c->ac;
        c->ac = NULL;
        redisAsyncFree(ac);
    }
    for (real_aconn **pp = &l->conns; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (l->polling) {
        c->next = l->graveyard;
        l->graveyard = c;
    } else {
        sim_xfree(c);
    }
}

void real_loop_watch(real_loop *l, int fd, real_fd_fn *fn, void *ud)
{
    if (l->nwatches == l->watches_cap) {
        l->watches_cap = l->watches_cap ? l->watches_cap * 2 : 8;
        l->watches = sim_xrealloc(l->watches, l->watches_cap * sizeof *l->watches);
    }
    l->watches[l->nwatches++] = (watch){fd, fn, ud, 0};
}

void real_loop_unwatch(real_loop *l, int fd)
{
    for (size_t i = 0; i < l->nwatches; i++)
        if (l->watches[i].fd == fd && !l->watches[i].gone) {
            l->watches[i].gone = 1;
            if (!l->polling) l->watches[i] = l->watches[--l->nwatches];
            return;
        }
}

int real_loop_poll(real_loop *l, int64_t timeout_us)
{
    nfds_t cap = l->nwatches;
    for (real_aconn *c = l->conns; c; c = c->next) cap++;
    if (cap > l->cap) {
        l->cap = cap * 2;
        l->fds = sim_xrealloc(l->fds, l->cap * sizeof *l->fds);
        l->who = sim_xrealloc(l->who, l->cap * sizeof *l->who);
    }
    struct pollfd *fds = l->fds;
    real_aconn **who = l->who;
    nfds_t n = 0;
    for (real_aconn *c = l->conns; c; c = c->next) {
        if (c->ac == NULL || (!c->want_read && !c->want_write)) continue;
        fds[n].fd = c->ac->c.fd;
        fds[n].events = (short)((c->want_read ? POLLIN : 0) | (c->want_write ? POLLOUT : 0));
        fds[n].revents = 0;
        who[n++] = c;
    }
    nfds_t nconn = n;
    size_t nwatch = l->nwatches;
    for (size_t i = 0; i < nwatch; i++) {
        fds[n].fd = l->watches[i].fd;
        fds[n].events = POLLIN;
        fds[n].revents = 0;
        n++;
    }
    int ms = timeout_us < 0 ? -1 : (int)((timeout_us + 999) / 1000);
    int ready = poll(fds, n, ms);
    if (ready <= 0) return 0;
    l->polling = 1;
    for (size_t i = 0; i < nwatch; i++) {
        watch *x = &l->watches[i];
        if (fds[nconn + i].revents && !x->gone) x->fn(x->ud, x->fd);
    }
    for (nfds_t i = 0; i < nconn; i++) {
        real_aconn *c = who[i];
        /* A callback may have closed a connection of this round. */
        if (fds[i].revents == 0 || c->closing || c->ac == NULL) continue;
        if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) redisAsyncHandleRead(c->ac);
        if (!c->closing && c->ac && (fds[i].revents & POLLOUT)) redisAsyncHandleWrite(c->ac);
    }
    l->polling = 0;
    size_t k = 0;
    for (size_t i = 0; i < l->nwatches; i++)
        if (!l->watches[i].gone) l->watches[k++] = l->watches[i];
    l->nwatches = k;
    while (l->graveyard) {
        real_aconn *c = l->graveyard;
        l->graveyard = c->next;
        sim_xfree(c);
    }
    return ready;
}
