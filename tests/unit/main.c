/* main.c — runs every unit-test suite (Check). CK_FORK=no is set by the
 * Makefile under SAN=1 so sanitizers see the tests in one process. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "sim/engine/run.h"
#include "tests/unit/tests.h"

void tdir_make(char *dir, size_t cap, const char *tag)
{
    snprintf(dir, cap, "/tmp/locksim-%s.XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

void tdir_write(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

void tdir_remove(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

trun trun_text(const char *text)
{
    scenario s;
    scn_error err;
    ck_assert_msg(scn_load_string("t.scn", text, &s, &err) == 0, "%s", err.msg);
    history h;
    hist_init(&h);
    run_result r;
    run_opts o = {0};
    ck_assert_msg(run_scenario(&s, 1, &o, &r, &h, &err) == 0, "%s", err.msg);
    trun out = {.acquisitions = r.acquisitions};
    memcpy(out.verdict, r.checks.verdict, sizeof out.verdict);
    run_result_free(&r);
    hist_free(&h);
    scn_free(&s);
    return out;
}

void tnode_init(tnode *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = sim_new(1);
    t->node = fake_node_new(t->ctx, "redis0", NULL);
    t->conn = fake_conn_new(t->node, NULL, NULL);
}

char *tscn_written(const scenario *s)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    ck_assert_int_eq(scn_write(f, s), 0);
    fclose(f);
    return text;
}

void tnode_done(tnode *t)
{
    fake_conn_free(t->conn);
    fake_node_free(t->node);
    sim_free(t->ctx);
}

static const char *run_words(tnode *t, int argc, const char **argv)
{
    sim_reply *r = fake_execv(t->node, t->conn, argc, argv);
    if (r == NULL) snprintf(t->out, sizeof t->out, "(push)");
    else sim_reply_format(r, t->out, sizeof t->out);
    sim_reply_free(r);
    return t->out;
}

const char *tcmd(tnode *t, const char *line)
{
    char buf[1024];
    const char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *tok = strtok(buf, " "); tok && argc < 64; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    return run_words(t, argc, argv);
}

const char *tcmdv(tnode *t, const char *first, ...)
{
    const char *argv[64];
    int argc = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 64; a = va_arg(ap, const char *)) argv[argc++] = a;
    va_end(ap);
    return run_words(t, argc, argv);
}

const char *teval(tnode *t, const char *body, int numkeys, const char *words)
{
    char buf[1024], nk[16];
    const char *argv[64];
    int argc = 0;
    snprintf(nk, sizeof nk, "%d", numkeys);
    argv[argc++] = "EVAL";
    argv[argc++] = body;
    argv[argc++] = nk;
    snprintf(buf, sizeof buf, "%s", words ? words : "");
    for (char *tok = strtok(buf, " "); tok && argc < 64; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    return run_words(t, argc, argv);
}

int main(void)
{
    SRunner *sr = srunner_create(sim_suite());
    srunner_add_suite(sr, reply_suite());
    srunner_add_suite(sr, fake_cmd_suite());
    srunner_add_suite(sr, fake_blocking_suite());
    srunner_add_suite(sr, fake_expiry_suite());
    srunner_add_suite(sr, lua_host_suite());
    srunner_add_suite(sr, scn_suite());
    srunner_add_suite(sr, swarm_suite());
    srunner_add_suite(sr, workload_suite());
    srunner_add_suite(sr, check_suite());
    srunner_add_suite(sr, check_holds_suite());
    srunner_add_suite(sr, check_fair_suite());
    srunner_add_suite(sr, check_impaired_suite());
    srunner_add_suite(sr, world_suite());
    srunner_add_suite(sr, faults_suite());
    srunner_add_suite(sr, protocols_suite());
    srunner_add_suite(sr, servers_suite());
    srunner_add_suite(sr, rwlock_suite());
    srunner_add_suite(sr, check_counters_suite());
    srunner_add_suite(sr, check_leases_suite());
    srunner_add_suite(sr, check_dead_suite());
    srunner_add_suite(sr, semaphores_suite());
    srunner_add_suite(sr, report_suite());
    srunner_add_suite(sr, policy_suite());
    srunner_add_suite(sr, shrink_suite());
    srunner_add_suite(sr, patch_suite());
    srunner_add_suite(sr, contract_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
