/* test_servers.c — managed redis-server processes: a master and a replica
 * start on free ports and replicate; SIGSTOP holds a command, SIGCONT
 * lets it through; SIGKILL loses the data, a restart comes back empty on
 * the same port; stopping the set leaves no process behind. The poll
 * loop of asynchronous hiredis connections: replies with their cookies,
 * subscription messages, and connection loss. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/kernel/host.h"
#include "sim/real/aio.h"
#include "sim/real/real.h"
#include "sim/real/servers.h"
#include "tests/unit/tests.h"

static sim_reply *cmd(int port, int timeout_ms, const char *a, const char *b, const char *c)
{
    char err[128];
    real_conn *k = real_connect("127.0.0.1", port, 500, err, sizeof err);
    if (k == NULL) return NULL;
    real_set_timeout(k, timeout_ms);
    const char *argv[] = {a, b, c};
    size_t lens[] = {strlen(a), b ? strlen(b) : 0, c ? strlen(c) : 0};
    sim_reply *r = real_command(k, c ? 3 : b ? 2 : 1, argv, lens);
    real_close(k);
    return r;
}

START_TEST(topology_faults_and_cleanup)
{
    char err[256];
    real_servers *s = real_servers_start(1, 1, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_int_eq(real_servers_count(s), 2);
    int mp = real_servers_port(s, 0), rp = real_servers_port(s, 1);
    ck_assert_int_ne(mp, rp);
    sim_reply_free(cmd(mp, 1000, "SET", "k", "v"));
    sim_reply *w = cmd(mp, 2000, "WAIT", "1", "1000");
    ck_assert_int_eq(w->integer, 1);
    sim_reply_free(w);
    /* WAIT counts the replica's acknowledgement; on a loaded machine its
     * GET has been seen to answer nil once right after: read it again for
     * up to 2 s before calling replication broken. */
    sim_reply *g = NULL;
    for (int i = 0; i < 20; i++) {
        sim_reply_free(g);
        g = cmd(rp, 1000, "GET", "k", NULL);
        if (g && g->type == SIM_REPLY_STR) break;
        nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    }
    ck_assert_ptr_nonnull(g);
    ck_assert_str_eq(g->str, "v");
    sim_reply_free(g);

    ck_assert_int_eq(real_servers_pause(s, 0), 0);
    ck_assert_ptr_eq(cmd(mp, 300, "PING", NULL, NULL), NULL); /* no answer while stopped */
    ck_assert_int_eq(real_servers_resume(s, 0), 0);
    sim_reply *p = cmd(mp, 1000, "PING", NULL, NULL);
    ck_assert_str_eq(p->str, "PONG");
    sim_reply_free(p);

    ck_assert_int_eq(real_servers_kill(s, 0), 0);
    ck_assert(!real_servers_alive(s, 0));
    ck_assert_ptr_eq(cmd(mp, 300, "PING", NULL, NULL), NULL);
    ck_assert_int_eq(real_servers_restart(s, 0, 0), 0);
    ck_assert_int_eq(real_servers_port(s, 0), mp);
    sim_reply *gone = cmd(mp, 1000, "GET", "k", NULL);
    ck_assert_int_eq(gone->type, SIM_REPLY_NIL); /* no persistence */
    sim_reply_free(gone);
    real_servers_stop(s);
    ck_assert_ptr_eq(cmd(mp, 300, "PING", NULL, NULL), NULL);
    ck_assert_ptr_eq(cmd(rp, 300, "PING", NULL, NULL), NULL);
}
END_TEST

typedef struct seen {
    int replies, messages, nulls, lost;
    char last[128];
    void *last_cookie;
} seen;

static void on_areply(void *ud, void *cookie, const sim_reply *r)
{
    seen *x = ud;
    x->last_cookie = cookie;
    if (r == NULL) {
        x->nulls++;
        return;
    }
    if (r->type == SIM_REPLY_ARRAY && r->elements == 3 && r->element[0]->str &&
        strcmp(r->element[0]->str, "message") == 0)
        x->messages++;
    else
        x->replies++;
    sim_reply_format(r, x->last, sizeof x->last);
}

static void on_alost(void *ud)
{
    ((seen *)ud)->lost++;
}

static void pump(real_loop *l, int rounds)
{
    for (int i = 0; i < rounds; i++) real_loop_poll(l, 20000);
}

START_TEST(async_replies_messages_and_loss)
{
    char err[256];
    real_servers *s = real_servers_start(1, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    int port = real_servers_port(s, 0);
    real_loop *l = real_loop_new();
    seen a = {0}, b = {0};
    real_aconn *ca = real_aconn_open(l, "127.0.0.1", port, on_areply, on_alost, &a);
    real_aconn *cb = real_aconn_open(l, "127.0.0.1", port, on_areply, on_alost, &b);
    ck_assert(ca && cb);
    const char *sub[] = {"SUBSCRIBE", "ch"};
    size_t sublen[] = {9, 2};
    ck_assert_int_eq(real_aconn_send(cb, 2, sub, sublen, &b), 0);
    const char *set[] = {"SET", "k", "v"};
    size_t setlen[] = {3, 1, 1};
    int cookie = 7;
    ck_assert_int_eq(real_aconn_send(ca, 3, set, setlen, &cookie), 0);
    pump(l, 10);
    ck_assert_int_eq(a.replies, 1);
    ck_assert_ptr_eq(a.last_cookie, &cookie);
    ck_assert_str_eq(a.last, "+\"OK\"");
    ck_assert_int_eq(b.replies, 1); /* the confirmation */
    const char *pub[] = {"PUBLISH", "ch", "hello"};
    size_t publen[] = {7, 2, 5};
    real_aconn_send(ca, 3, pub, publen, &cookie);
    pump(l, 10);
    ck_assert_int_eq(b.messages, 1);
    ck_assert_ptr_eq(b.last_cookie, &b); /* the SUBSCRIBE's cookie */
    /* The server dies: both connections are lost, once each. */
    real_servers_kill(s, 0);
    pump(l, 10);
    ck_assert_int_eq(a.lost, 1);
    ck_assert_int_eq(b.lost, 1);
    ck_assert_int_eq(real_aconn_send(ca, 3, set, setlen, &cookie), -1);
    real_aconn_close(ca);
    real_aconn_close(cb);
    /* A connection to a port nobody listens on is lost, not hung. */
    seen c = {0};
    real_aconn *cc = real_aconn_open(l, "127.0.0.1", port, on_areply, on_alost, &c);
    if (cc) {
        pump(l, 10);
        ck_assert_int_eq(c.lost, 1);
    }
    real_loop_free(l);
    real_servers_stop(s);
}
END_TEST

START_TEST(clocked_servers_move_their_wall_clock)
{
    char err[256];
    real_servers *s = real_servers_start_clocked(1, 0, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    int port = real_servers_port(s, 0);
    ck_assert_int_eq(real_servers_set_offset(s, 0, 5000000), 0);
    sim_reply *t = cmd(port, 1000, "TIME", NULL, NULL);
    long long server_s = atoll(t->element[0]->str);
    sim_reply_free(t);
    long long now_s = host_unix_us() / 1000000;
    ck_assert_int_ge(server_s - now_s, 4);
    ck_assert_int_le(server_s - now_s, 6);
    /* Expiry follows the moved clock: a key with 3 s to live is gone
     * once the clock jumps 10 s further. */
    sim_reply_free(cmd(port, 1000, "SET", "k", "v"));
    sim_reply_free(cmd(port, 1000, "PEXPIRE", "k", "3000"));
    ck_assert_int_eq(real_servers_set_offset(s, 0, 15000000), 0);
    sim_reply *g = cmd(port, 1000, "GET", "k", NULL);
    ck_assert_int_eq(g->type, SIM_REPLY_NIL);
    sim_reply_free(g);
    real_servers_stop(s);
    /* Unmanaged sets refuse. */
    real_servers *x = real_servers_external("127.0.0.1:1", err, sizeof err);
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(real_servers_set_offset(x, 0, 1), -1);
    ck_assert_int_eq(real_servers_kill(x, 0), -1);
    real_servers_stop(x);
    ck_assert_ptr_null(real_servers_external("nohost", err, sizeof err));
}
END_TEST

Suite *servers_suite(void)
{
    Suite *s = suite_create("servers");
    TCase *c = tcase_create("managed");
    tcase_set_timeout(c, 30);
    tcase_add_test(c, topology_faults_and_cleanup);
    tcase_add_test(c, async_replies_messages_and_loss);
    tcase_add_test(c, clocked_servers_move_their_wall_clock);
    suite_add_tcase(s, c);
    return s;
}
