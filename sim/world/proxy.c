/* proxy.c — the replication link between two real servers, through
 * locksim (real backend). A replica is pointed (REPLICAOF) at a port
 * locksim listens on; each chunk the master sends travels to the replica
 * after the scenario's replication lag, and each chunk back (REPLCONF
 * ACK) likewise, so WAIT, replication lag and failover before replication
 * behave on real servers as the scenario says. The world's policy judges
 * each chunk as a WORLD_MSG_REPL (master -> replica) or WORLD_MSG_ACK
 * message: a drop severs the link (a byte stream cannot lose a piece and
 * go on), and the replica reconnects and resynchronises by itself. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/real/aio.h"
#include "sim/real/real.h"
#include "sim/real/servers.h"
#include "sim/world/backend.h"

#define CHUNK 65536

struct wproxy {
    world *w;
    int master, replica;       /* nodes */
    int listen_fd, port;
    int down_fd, up_fd;        /* to the replica (accepted) / to the master */
    uint64_t epoch;            /* bumps when the link is cut: late chunks are dropped */
    int64_t last_down_us, last_up_us;
    char lat_down[64], lat_up[64];
    struct chunk *pending;     /* in flight, freed with the proxy if never delivered */
};

typedef struct chunk {
    wproxy *p;
    uint64_t epoch;
    int to_replica;
    struct chunk *prev, *next;
    size_t len;
    char data[];
} chunk;

static void unlink_chunk(wproxy *p, chunk *c)
{
    if (c->prev) c->prev->next = c->next;
    else p->pending = c->next;
    if (c->next) c->next->prev = c->prev;
}

static void cut(wproxy *p)
{
    real_loop *l = wreal_loop(p->w);
    if (p->down_fd >= 0) {
        real_loop_unwatch(l, p->down_fd);
        close(p->down_fd);
    }
    if (p->up_fd >= 0) {
        real_loop_unwatch(l, p->up_fd);
        close(p->up_fd);
    }
    p->down_fd = p->up_fd = -1;
    p->epoch++;
}

static void write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; /* the other side is gone: its EOF cuts the link */
        data += n;
        len -= (size_t)n;
    }
}

static void arrive(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    chunk *c = arg;
    wproxy *p = c->p;
    unlink_chunk(p, c);
    if (c->epoch == p->epoch) {
        int fd = c->to_replica ? p->down_fd : p->up_fd;
        if (fd >= 0) write_all(fd, c->data, c->len);
    }
    sim_xfree(c);
}

/* A chunk read from one side: judged, then sent after the lag. */
static void forward(wproxy *p, int to_replica, const char *data, size_t len)
{
    world *w = p->w;
    int from = to_replica ? p->master : p->replica, to = to_replica ? p->replica : p->master;
    world_verdict v = {0, 0, 0};
    if (w->policy) w->policy(w->policy_ud, from, to, to_replica ? WORLD_MSG_REPL : WORLD_MSG_ACK, NULL, &v);
    if (v.drop) {
        sim_trace(w->ctx, "net", "replication link %s>%s cut", w->nodes[p->master].name, w->nodes[p->replica].name);
        cut(p);
        return;
    }
    int64_t *last = to_replica ? &p->last_down_us : &p->last_up_us;
    int64_t t = sim_now(w->ctx) + scn_dist_draw(w->ctx, &w->s->replication_lag, to_replica ? p->lat_down : p->lat_up) +
                v.extra_us;
    if (t < *last) t = *last; /* a byte stream keeps its order */
    *last = t;
    chunk *c = sim_xmalloc(sizeof *c + len);
    c->p = p;
    c->epoch = p->epoch;
    c->to_replica = to_replica;
    c->len = len;
    memcpy(c->data, data, len);
    c->prev = NULL;
    c->next = p->pending;
    if (p->pending) p->pending->prev = c;
    p->pending = c;
    sim_at(w->ctx, t, to_replica ? "repl chunk" : "repl ack", arrive, c);
}

static void on_readable(void *ud, int fd)
{
    wproxy *p = ud;
    char buf[CHUNK];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    wreal_catch_up(p->w);
    if (n <= 0) {
        cut(p); /* one side closed (a server died): the other side sees it */
        return;
    }
    forward(p, fd == p->up_fd, buf, (size_t)n);
}

static void on_accept(void *ud, int fd)
{
    wproxy *p = ud;
    int s = real_accept(fd);
    if (s < 0) return;
    wreal_catch_up(p->w);
    cut(p); /* a new replica connection replaces the old link */
    int up = real_tcp_connect(wreal_host(p->w, p->master), wreal_port(p->w, p->master));
    if (up < 0) {
        close(s); /* the master is down: the replica retries */
        return;
    }
    p->down_fd = s;
    p->up_fd = up;
    real_loop *l = wreal_loop(p->w);
    real_loop_watch(l, s, on_readable, p);
    real_loop_watch(l, up, on_readable, p);
}

wproxy *wproxy_new(world *w, int master, int replica)
{
    int port, fd = real_listen_loopback(4, &port);
    if (fd < 0) return NULL;
    wproxy *p = sim_xcalloc(1, sizeof *p);
    p->w = w;
    p->master = master;
    p->replica = replica;
    p->listen_fd = fd;
    p->port = port;
    p->down_fd = p->up_fd = -1;
    snprintf(p->lat_down, sizeof p->lat_down, "repl %s>%s", w->nodes[master].name, w->nodes[replica].name);
    snprintf(p->lat_up, sizeof p->lat_up, "repl %s<%s", w->nodes[master].name, w->nodes[replica].name);
    real_loop_watch(wreal_loop(w), fd, on_accept, p);
    return p;
}

int wproxy_port(const wproxy *p)
{
    return p->port;
}

/* At the world's end only: a proxy lives as long as its world, since
 * chunk events may still point at it. */
void wproxy_free(wproxy *p)
{
    if (p == NULL) return;
    cut(p);
    while (p->pending) {
        chunk *c = p->pending;
        p->pending = c->next;
        sim_xfree(c); /* its event is never run: the world is ending */
    }
    real_loop_unwatch(wreal_loop(p->w), p->listen_fd);
    close(p->listen_fd);
    sim_xfree(p);
}
