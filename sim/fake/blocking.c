/* blocking.c — the blocking commands BLPOP BRPOP BLMOVE BRPOPLPUSH BZPOPMIN
 * BZPOPMAX, as Redis 7.0.15's blocked.c, t_list.c and t_zset.c run them.
 *
 * A client whose keys hold nothing blocks: its connection waits (fake_exec
 * returns NULL) on each of its keys, in one list per key in the order the
 * clients blocked. A key created as a list or a sorted set while clients
 * wait on it is ready; after the command that made it ready (a script as a
 * whole) the ready keys are served in the order they became ready, each
 * key's clients first blocked first served while it has elements (a list
 * client of a key that holds a sorted set, or the reverse, is skipped and
 * keeps its place). A BLMOVE that pushes to
 * a key others wait on makes that key ready in turn. Each pop is
 * replicated as the plain command Redis propagates (LPOP, RPOP, LMOVE,
 * RPOPLPUSH, ZPOPMIN, ZPOPMAX) in the batch of the command that served it.
 *
 * A blocked client is answered by its pop, by its timeout (the node's
 * clock past its deadline: a null array, fake_node_block_timeouts), or by
 * the node becoming a replica (an UNBLOCKED error, then its connection
 * closes). Answers queue on the node in the order they were given, for the
 * owner to deliver (fake_node_unblocked). Inside a script a blocking
 * command never blocks: it answers as its timeout would, at once.
 *
 * Invariants (asserted): a client is blocked on a connection at most once,
 * on at least one key, and is in the list of exactly each of its keys;
 * n->nblocked counts the blocked clients. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/fake/fake_int.h"

typedef enum fblock_kind { FB_LPOP, FB_RPOP, FB_LMOVE, FB_RPOPLPUSH, FB_ZPOPMIN, FB_ZPOPMAX } fblock_kind;

struct fblock {
    fake_conn *conn;
    fblock_kind kind;
    fstr *keys;
    int nkeys;
    fstr dst;               /* LMOVE / RPOPLPUSH: the destination */
    int left_from, left_to; /* LMOVE: the ends */
    int64_t deadline_ms;    /* the node's clock past it times out; -1: never */
};

/* Redis 7.0 times clients out in the order of its timeout table, by
 * deadline and then by client (its address there: here the connection's
 * number, the order the connections were made). */
static int before(const fblock *a, const fblock *b)
{
    if (a->deadline_ms != b->deadline_ms) return a->deadline_ms < b->deadline_ms;
    return a->conn->id < b->conn->id;
}

/* The clients blocked on one key, in the order they blocked. */
struct fbkey {
    UT_hash_handle hh;
    fblock **clients;
    size_t n, cap;
    size_t klen;
    char k[];
};

/* An answer to a blocked client, waiting for its owner. */
struct fanswer {
    fake_conn *conn;
    sim_reply *reply;
    int close;
    struct fanswer *next;
};

#define UNBLOCKED_TEXT "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

static int is_list_kind(fblock_kind k)
{
    return k == FB_LPOP || k == FB_RPOP || k == FB_LMOVE || k == FB_RPOPLPUSH;
}

/* ---------------------------------------------------------- bookkeeping */

static fbkey *bkey_find(fake_node *n, const char *k, size_t klen)
{
    fbkey *b;
    HASH_FIND(hh, n->blocking, k, klen, b);
    return b;
}

static void bkey_add(fake_node *n, const char *k, size_t klen, fblock *x)
{
    fbkey *b = bkey_find(n, k, klen);
    if (b == NULL) {
        b = sim_xcalloc(1, sizeof *b + klen + 1);
        memcpy(b->k, k, klen);
        b->klen = klen;
        HASH_ADD(hh, n->blocking, k[0], klen, b);
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4;
        b->clients = sim_xrealloc(b->clients, b->cap * sizeof *b->clients);
    }
    b->clients[b->n++] = x;
}

static void bkey_remove(fake_node *n, const fstr *key, fblock *x)
{
    fbkey *b = bkey_find(n, fstr_ptr(key), key->len);
    sim_assert(b != NULL);
    size_t i = 0;
    while (i < b->n && b->clients[i] != x) i++;
    sim_assert(i < b->n); /* in the list of each of its keys */
    memmove(&b->clients[i], &b->clients[i + 1], (b->n - i - 1) * sizeof *b->clients);
    if (--b->n > 0) return;
    HASH_DEL(n->blocking, b);
    sim_xfree(b->clients);
    sim_xfree(b);
}

static void block_free(fblock *x)
{
    for (int i = 0; i < x->nkeys; i++) fstr_free(&x->keys[i]);
    sim_xfree(x->keys);
    fstr_free(&x->dst);
    sim_xfree(x);
}

/* Takes x's client off every key it waits on; its connection runs again. */
static void unblock(fake_node *n, fblock *x)
{
    sim_assert(x->conn->block == x && n->nblocked > 0);
    for (int i = 0; i < x->nkeys; i++) bkey_remove(n, &x->keys[i], x);
    x->conn->block = NULL;
    n->nblocked--;
    block_free(x);
}

static void answer(fake_node *n, fake_conn *conn, sim_reply *r, int close)
{
    struct fanswer *a = sim_xcalloc(1, sizeof *a);
    a->conn = conn;
    a->reply = r;
    a->close = close;
    if (n->answered_tail) n->answered_tail->next = a;
    else n->answered_head = a;
    n->answered_tail = a;
}

/* Blocks c's client on keys[0..nkeys) (repeats counted once). */
static fblock *block_on(fcmd *c, fblock_kind kind, int first_key, int nkeys, int64_t deadline_ms)
{
    fake_node *n = c->n;
    sim_assert(c->conn != NULL && c->conn->block == NULL && nkeys > 0);
    fblock *x = sim_xcalloc(1, sizeof *x);
    x->conn = c->conn;
    x->kind = kind;
    x->deadline_ms = deadline_ms;
    x->keys = sim_xcalloc((size_t)nkeys, sizeof *x->keys);
    for (int j = 0; j < nkeys; j++) {
        const char *k = c->argv[first_key + j];
        size_t klen = c->lens[first_key + j];
        int seen = 0;
        for (int i = 0; i < x->nkeys && !seen; i++)
            seen = x->keys[i].len == klen && memcmp(fstr_ptr(&x->keys[i]), k, klen) == 0;
        if (seen) continue;
        fstr_set(&x->keys[x->nkeys++], k, klen);
        bkey_add(n, k, klen, x);
    }
    c->conn->block = x;
    n->nblocked++;
    return x;
}

/* --------------------------------------------------------- the timeout */

/* Redis' getTimeoutFromObjectOrReply in seconds: strtold of the whole
 * word (string2ld: no leading space, no overflow or underflow), times 1000 truncated to a long long (which on x86-64 turns
 * infinities and values past 2^63 ms into LLONG_MIN: "negative"), 0 for no
 * timeout; the deadline in node ms (-1: none) into *deadline_ms, or -1
 * after the error reply. */
static int parse_timeout(fcmd *c, int i, int64_t *deadline_ms)
{
    char buf[128];
    char *end;
    if (c->lens[i] == 0 || c->lens[i] >= sizeof buf) goto bad;
    memcpy(buf, c->argv[i], c->lens[i]);
    buf[c->lens[i]] = '\0';
    errno = 0;
    long double v = strtold(buf, &end);
    if (buf[0] == ' ' || (buf[0] >= '\t' && buf[0] <= '\r') || *end != '\0' || isnan(v) ||
        (errno == ERANGE && (isinf(v) || v == 0)))
        goto bad;
    long double ms = v * 1000.0L;
    long long t = isinf(ms) || ms >= 9223372036854775808.0L || ms <= -9223372036854775808.0L ? LLONG_MIN : (long long)ms;
    if (t < 0) {
        fr_err(c, "ERR timeout is negative");
        return -1;
    }
    int64_t now = fk_now_ms(c->n);
    if (t > LLONG_MAX - now) {
        fr_err(c, "ERR timeout is out of range");
        return -1;
    }
    *deadline_ms = t > 0 ? now + t : -1;
    return 0;
bad:
    fr_err(c, "ERR timeout is not a float or out of range");
    return -1;
}

/* ------------------------------------------------------------- commands */

/* BLPOP / BRPOP key [key ...] timeout. */
static void blocking_pop(fcmd *c, int left)
{
    int64_t deadline;
    if (parse_timeout(c, c->argc - 1, &deadline) != 0) return;
    for (int j = 1; j < c->argc - 1; j++) {
        int wrong;
        fkey *e = fk_lookup_type(c, j, FOBJ_LIST, &wrong);
        if (wrong) return;
        if (e == NULL) continue;
        /* Replicated as LPOP / RPOP of the key. */
        const char *argv[2] = {left ? "LPOP" : "RPOP", c->argv[j]};
        size_t lens[2] = {4, c->lens[j]};
        fk_propagate(c->n, 2, argv, lens);
        c->propagated = 1;
        fl_pop_reply(c, e, left, 1, c->argv[j], c->lens[j]);
        return;
    }
    if (c->from_script) { /* scripts never block: as a timeout, at once */
        fr_nilarray(c);
        return;
    }
    block_on(c, left ? FB_LPOP : FB_RPOP, 1, c->argc - 2, deadline);
}

void cmd_blpop(fcmd *c)
{
    blocking_pop(c, 1);
}

void cmd_brpop(fcmd *c)
{
    blocking_pop(c, 0);
}

/* BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout, BRPOPLPUSH
 * source destination timeout: a source with elements moves now, as LMOVE
 * (and is replicated so). */
static void blocking_move(fcmd *c, int left_from, int left_to, int brpoplpush)
{
    int64_t deadline;
    if (parse_timeout(c, c->argc - 1, &deadline) != 0) return;
    int wrong;
    fkey *src = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (src != NULL) {
        fkey *dst = fk_lookup_type(c, 2, FOBJ_LIST, &wrong);
        if (wrong) return;
        const char *argv[5] = {brpoplpush ? "RPOPLPUSH" : "LMOVE", c->argv[1], c->argv[2], left_from ? "LEFT" : "RIGHT",
                               left_to ? "LEFT" : "RIGHT"};
        size_t lens[5] = {strlen(argv[0]), c->lens[1], c->lens[2], strlen(argv[3]), strlen(argv[4])};
        fk_propagate(c->n, brpoplpush ? 3 : 5, argv, lens);
        c->propagated = 1;
        fl_move(c, src, c->argv[2], c->lens[2], dst, left_from, left_to);
        return;
    }
    if (c->from_script) {
        fr_nil(c);
        return;
    }
    fblock *x = block_on(c, brpoplpush ? FB_RPOPLPUSH : FB_LMOVE, 1, 1, deadline);
    fstr_set(&x->dst, c->argv[2], c->lens[2]);
    x->left_from = left_from;
    x->left_to = left_to;
}

void cmd_blmove(fcmd *c)
{
    int from = fl_position(c, 3);
    if (from < 0) return;
    int to = fl_position(c, 4);
    if (to < 0) return;
    blocking_move(c, from, to, 0);
}

void cmd_brpoplpush(fcmd *c)
{
    blocking_move(c, 0, 1, 1);
}

/* BZPOPMIN / BZPOPMAX key [key ...] timeout: [key, member, score]. */
static void blocking_zpop(fcmd *c, int max)
{
    int64_t deadline;
    if (parse_timeout(c, c->argc - 1, &deadline) != 0) return;
    for (int j = 1; j < c->argc - 1; j++) {
        int wrong;
        fkey *e = fk_lookup_type(c, j, FOBJ_ZSET, &wrong);
        if (wrong) return;
        if (e == NULL) continue;
        /* Replicated as ZPOPMIN / ZPOPMAX key 1. */
        const char *argv[3] = {max ? "ZPOPMAX" : "ZPOPMIN", c->argv[j], "1"};
        size_t lens[3] = {7, c->lens[j], 1};
        fk_propagate(c->n, 3, argv, lens);
        c->propagated = 1;
        fz_pop_reply(c, e, max, -1, 1, c->argv[j], c->lens[j]);
        return;
    }
    if (c->from_script) {
        fr_nilarray(c);
        return;
    }
    block_on(c, max ? FB_ZPOPMAX : FB_ZPOPMIN, 1, c->argc - 2, deadline);
}

void cmd_bzpopmin(fcmd *c)
{
    blocking_zpop(c, 0);
}

void cmd_bzpopmax(fcmd *c)
{
    blocking_zpop(c, 1);
}

/* -------------------------------------------------------------- serving */

void fk_signal_ready(fake_node *n, const char *k, size_t klen)
{
    if (bkey_find(n, k, klen) == NULL) return;
    for (size_t i = 0; i < n->nready; i++)
        if (n->ready[i].len == klen && memcmp(fstr_ptr(&n->ready[i]), k, klen) == 0) return;
    if (n->nready == n->ready_cap) {
        n->ready_cap = n->ready_cap ? 2 * n->ready_cap : 4;
        n->ready = sim_xrealloc(n->ready, n->ready_cap * sizeof *n->ready);
    }
    n->ready[n->nready] = (fstr){0};
    fstr_set(&n->ready[n->nready++], k, klen);
}

/* Serves x from key (a list of e), as serveClientBlockedOnList: its reply
 * answers it and it is unblocked (a BLMOVE whose destination holds another
 * type is answered WRONGTYPE and moves nothing). Returns 1 when the key
 * went with its last element. */
static int serve_list(fake_node *n, fblock *x, fkey *e, const fstr *key)
{
    fsink sink;
    fsink_init_tree(&sink);
    fcmd rc = {.n = n, .conn = x->conn, .sink = &sink};
    const char *k = fstr_ptr(key);
    int deleted = 0;
    if (x->kind == FB_LPOP || x->kind == FB_RPOP) {
        int left = x->kind == FB_LPOP;
        const char *argv[2] = {left ? "LPOP" : "RPOP", k};
        size_t lens[2] = {4, key->len};
        fk_propagate(n, 2, argv, lens);
        deleted = e->v.list->len == 1;
        fl_pop_reply(&rc, e, left, 1, k, key->len);
    } else {
        fkey *dst = fk_lookup(n, fstr_ptr(&x->dst), x->dst.len);
        if (dst && dst->type != FOBJ_LIST) {
            fr_err(&rc, FERR_WRONGTYPE);
        } else {
            int brpoplpush = x->kind == FB_RPOPLPUSH;
            const char *argv[5] = {brpoplpush ? "RPOPLPUSH" : "LMOVE", k, fstr_ptr(&x->dst),
                                   x->left_from ? "LEFT" : "RIGHT", x->left_to ? "LEFT" : "RIGHT"};
            size_t lens[5] = {strlen(argv[0]), key->len, x->dst.len, strlen(argv[3]), strlen(argv[4])};
            fk_propagate(n, brpoplpush ? 3 : 5, argv, lens);
            deleted = e->v.list->len == 1 && dst != e;
            fl_move(&rc, e, fstr_ptr(&x->dst), x->dst.len, dst, x->left_from, x->left_to);
        }
    }
    fake_conn *conn = x->conn;
    unblock(n, x);
    answer(n, conn, sink.root, 0);
    sink.root = NULL;
    fsink_release(&sink);
    return deleted;
}

static int serve_zset(fake_node *n, fblock *x, fkey *e, const fstr *key)
{
    fsink sink;
    fsink_init_tree(&sink);
    fcmd rc = {.n = n, .conn = x->conn, .sink = &sink};
    int max = x->kind == FB_ZPOPMAX;
    const char *argv[2] = {max ? "ZPOPMAX" : "ZPOPMIN", fstr_ptr(key)};
    size_t lens[2] = {7, key->len};
    fk_propagate(n, 2, argv, lens);
    int deleted = e->v.zset->len == 1;
    fz_pop_reply(&rc, e, max, -1, 1, fstr_ptr(key), key->len);
    fake_conn *conn = x->conn;
    unblock(n, x);
    answer(n, conn, sink.root, 0);
    sink.root = NULL;
    fsink_release(&sink);
    return deleted;
}

/* One ready key: its clients of the key's type, first blocked first, as
 * serveClientsBlockedOnListKey / ...SortedSetKey (7.0.15) serve them; the
 * others are skipped and keep their place. */
static void serve_key(fake_node *n, const fstr *key)
{
    fkey *e = fk_lookup(n, fstr_ptr(key), key->len);
    fbkey *b = bkey_find(n, fstr_ptr(key), key->len);
    if (e == NULL || b == NULL || (e->type != FOBJ_LIST && e->type != FOBJ_ZSET)) return;
    int list = e->type == FOBJ_LIST;
    for (size_t i = 0; i < b->n;) {
        fblock *x = b->clients[i];
        if (is_list_kind(x->kind) != list) {
            i++;
            continue;
        }
        int last = b->n == 1;
        /* x leaves b (b goes with its last client); stop once the key went */
        if ((list ? serve_list(n, x, e, key) : serve_zset(n, x, e, key)) || last) return;
    }
}

void fk_serve_blocked(fake_node *n)
{
    while (n->nready > 0) {
        fstr *keys = n->ready;
        size_t nkeys = n->nready;
        n->ready = NULL;
        n->nready = n->ready_cap = 0;
        for (size_t i = 0; i < nkeys; i++) {
            serve_key(n, &keys[i]);
            fstr_free(&keys[i]);
        }
        sim_xfree(keys);
    }
    n->version++;
}

/* ------------------------------------------------------ outside events */

/* The first blocked client by before() among those due (due_before >= 0:
 * a deadline below it), or NULL. */
static fblock *first_blocked(const fake_node *n, int64_t due_before)
{
    fblock *best = NULL;
    fbkey *b, *tmp;
    HASH_ITER(hh, n->blocking, b, tmp) {
        for (size_t i = 0; i < b->n; i++) {
            fblock *x = b->clients[i];
            if (due_before >= 0 && (x->deadline_ms < 0 || x->deadline_ms >= due_before)) continue;
            if (best == NULL || (due_before >= 0 ? before(x, best) : x->conn->id < best->conn->id)) best = x;
        }
    }
    return best;
}

int64_t fake_node_block_deadline(const fake_node *n)
{
    fblock *x = first_blocked(n, INT64_MAX);
    return x ? x->deadline_ms : -1;
}

void fake_node_block_timeouts(fake_node *n)
{
    int64_t now = fk_now_ms(n);
    fblock *x;
    while ((x = first_blocked(n, now)) != NULL) {
        fake_conn *conn = x->conn;
        unblock(n, x);
        answer(n, conn, sim_reply_new(SIM_REPLY_NILARRAY), 0);
    }
}

/* The node became a replica: disconnectAllBlockedClients, in the order of
 * its client list (the connections'). */
void fk_unblock_all(fake_node *n)
{
    fblock *x;
    while ((x = first_blocked(n, -1)) != NULL) {
        fake_conn *conn = x->conn;
        unblock(n, x);
        answer(n, conn, sim_reply_err(UNBLOCKED_TEXT), 1);
    }
    sim_assert(n->nblocked == 0);
}

int fake_node_unblocked(fake_node *n, fake_conn **conn, sim_reply **r, int *close)
{
    struct fanswer *a = n->answered_head;
    if (a == NULL) return 0;
    n->answered_head = a->next;
    if (n->answered_head == NULL) n->answered_tail = NULL;
    *conn = a->conn;
    *r = a->reply;
    if (close) *close = a->close;
    sim_xfree(a);
    return 1;
}

int fake_conn_blocked(const fake_conn *c)
{
    return c->block != NULL;
}

void fk_block_conn_gone(fake_conn *c)
{
    fake_node *n = c->node;
    if (c->block) unblock(n, c->block);
    for (struct fanswer **pp = &n->answered_head; *pp;) {
        struct fanswer *a = *pp;
        if (a->conn != c) {
            pp = &a->next;
            continue;
        }
        *pp = a->next;
        sim_reply_free(a->reply);
        sim_xfree(a);
    }
    n->answered_tail = NULL;
    for (struct fanswer *a = n->answered_head; a; a = a->next) n->answered_tail = a;
}

void fk_block_free_all(fake_node *n)
{
    sim_assert(n->nblocked == 0 || n->closing);
    while (n->blocking) unblock(n, n->blocking->clients[0]);
    struct fanswer *a = n->answered_head;
    while (a) {
        struct fanswer *next = a->next;
        sim_reply_free(a->reply);
        sim_xfree(a);
        a = next;
    }
    n->answered_head = n->answered_tail = NULL;
    for (size_t i = 0; i < n->nready; i++) fstr_free(&n->ready[i]);
    sim_xfree(n->ready);
    n->ready = NULL;
    n->nready = n->ready_cap = 0;
}
