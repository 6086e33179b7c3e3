/* pubsub.c — channels and subscribers: SUBSCRIBE UNSUBSCRIBE PUBLISH.
 * Delivery is a push to each subscribed connection, in subscription order,
 * as the RESP2 array ["message", channel, payload]; what happens to it on
 * the way (latency, loss) is the network model's business, not the node's. */
#include <string.h>

#include "sim/fake/fake_int.h"

static fchannel *find_channel(fake_node *n, const char *name, size_t len)
{
    fchannel *chn;
    HASH_FIND(hh, n->channels, name, len, chn);
    return chn;
}

static void push3(fake_conn *conn, const char *kind, const char *ch, size_t chlen,
                  const sim_reply *third)
{
    if (conn->push == NULL) return;
    sim_reply *items[3];
    items[0] = sim_reply_str(SIM_REPLY_STR, kind, strlen(kind));
    items[1] = ch ? sim_reply_str(SIM_REPLY_STR, ch, chlen) : sim_reply_new(SIM_REPLY_NIL);
    items[2] = sim_reply_dup(third);
    sim_reply *msg = sim_reply_array(3, items);
    conn->push(conn->push_ud, msg);
    sim_reply_free(msg);
}

static void push_count(fake_conn *conn, const char *kind, const char *ch, size_t chlen)
{
    sim_reply count = {.type = SIM_REPLY_INT, .integer = (int64_t)conn->nchannels};
    push3(conn, kind, ch, chlen, &count);
}

static int conn_has(const fake_conn *conn, const char *ch, size_t len)
{
    for (size_t i = 0; i < conn->nchannels; i++)
        if (conn->channels[i].len == len && memcmp(fstr_ptr(&conn->channels[i]), ch, len) == 0)
            return 1;
    return 0;
}

static void subscribe_one(fake_conn *conn, const char *name, size_t len)
{
    fake_node *n = conn->node;
    if (!conn_has(conn, name, len)) {
        fchannel *chn = find_channel(n, name, len);
        if (chn == NULL) {
            chn = sim_xcalloc(1, sizeof *chn + len + 1);
            memcpy(chn->c, name, len);
            chn->clen = len;
            HASH_ADD(hh, n->channels, c[0], len, chn);
        }
        if (chn->nsubs == chn->cap) {
            chn->cap = chn->cap ? chn->cap * 2 : 4;
            chn->subs = sim_xrealloc(chn->subs, chn->cap * sizeof *chn->subs);
        }
        chn->subs[chn->nsubs++] = conn;
        if (conn->nchannels == conn->cap) {
            conn->cap = conn->cap ? conn->cap * 2 : 4;
            conn->channels = sim_xrealloc(conn->channels, conn->cap * sizeof *conn->channels);
        }
        conn->channels[conn->nchannels] = (fstr){0};
        fstr_set(&conn->channels[conn->nchannels++], name, len);
    }
    push_count(conn, "subscribe", name, len);
}

/* Removes conn from channel ch; returns 1 if it was subscribed. */
static int unsubscribe_one(fake_conn *conn, const char *ch, size_t len, int notify)
{
    fake_node *n = conn->node;
    int was = 0;
    for (size_t i = 0; i < conn->nchannels; i++) {
        if (conn->channels[i].len != len || memcmp(fstr_ptr(&conn->channels[i]), ch, len) != 0)
            continue;
        fstr_free(&conn->channels[i]);
        memmove(&conn->channels[i], &conn->channels[i + 1],
                (conn->nchannels - i - 1) * sizeof *conn->channels);
        conn->nchannels--;
        was = 1;
        break;
    }
    if (was) {
        fchannel *chn = find_channel(n, ch, len);
        sim_assert(chn != NULL);
        for (size_t i = 0; i < chn->nsubs; i++) {
            if (chn->subs[i] != conn) continue;
            memmove(&chn->subs[i], &chn->subs[i + 1], (chn->nsubs - i - 1) * sizeof *chn->subs);
            chn->nsubs--;
            break;
        }
        if (chn->nsubs == 0) {
            HASH_DEL(n->channels, chn);
            sim_xfree(chn->subs);
            sim_xfree(chn);
        }
    }
    if (notify) push_count(conn, "unsubscribe", ch, len);
    return was;
}

void fps_unsubscribe_all(fake_conn *conn, int notify)
{
    if (conn->nchannels == 0) {
        if (notify) push_count(conn, "unsubscribe", NULL, 0);
        return;
    }
    while (conn->nchannels > 0) {
        fstr ch = {0};
        fstr_set(&ch, fstr_ptr(&conn->channels[0]), conn->channels[0].len);
        unsubscribe_one(conn, fstr_ptr(&ch), ch.len, notify);
        fstr_free(&ch);
    }
}

void fps_free_all(fake_node *n)
{
    fchannel *chn, *tmp;
    HASH_ITER(hh, n->channels, chn, tmp) {
        HASH_DEL(n->channels, chn);
        sim_xfree(chn->subs);
        sim_xfree(chn);
    }
}

void cmd_subscribe(fcmd *c)
{
    if (c->conn == NULL) {
        fr_err(c, "ERR locksim: SUBSCRIBE needs a connection");
        return;
    }
    for (int j = 1; j < c->argc; j++) subscribe_one(c->conn, c->argv[j], c->lens[j]);
}

void cmd_unsubscribe(fcmd *c)
{
    if (c->conn == NULL) {
        fr_err(c, "ERR locksim: UNSUBSCRIBE needs a connection");
        return;
    }
    if (c->argc == 1) {
        fps_unsubscribe_all(c->conn, 1);
        return;
    }
    for (int j = 1; j < c->argc; j++) unsubscribe_one(c->conn, c->argv[j], c->lens[j], 1);
}

void cmd_publish(fcmd *c)
{
    fchannel *ch = find_channel(c->n, c->argv[1], c->lens[1]);
    int64_t receivers = 0;
    if (ch) {
        /* One message for every subscriber (callbacks share it, never change
         * it); a subscriber may unsubscribe from inside its callback: walk a
         * copy of the list. */
        sim_reply *items[3] = {sim_reply_str(SIM_REPLY_STR, "message", 7),
                               sim_reply_str(SIM_REPLY_STR, c->argv[1], c->lens[1]),
                               sim_reply_str(SIM_REPLY_STR, c->argv[2], c->lens[2])};
        sim_reply *msg = sim_reply_array(3, items);
        size_t n = ch->nsubs;
        fake_conn **subs = sim_xmalloc(n * sizeof *subs);
        memcpy(subs, ch->subs, n * sizeof *subs);
        for (size_t i = 0; i < n; i++) {
            if (subs[i]->push) subs[i]->push(subs[i]->push_ud, msg);
            receivers++;
        }
        sim_xfree(subs);
        sim_reply_free(msg);
    }
    fr_int(c, receivers);
}
