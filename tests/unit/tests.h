/* tests.h — the unit-test suites (one per module, each in test_<module>.c)
 * and small helpers shared by them. */
#ifndef LOCKSIM_TESTS_H
#define LOCKSIM_TESTS_H

#include <check.h>

#include "sim/checkers/checkers.h"
#include "sim/fake/fake.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"

Suite *sim_suite(void);
Suite *reply_suite(void);
Suite *fake_cmd_suite(void);
Suite *fake_blocking_suite(void);
Suite *fake_expiry_suite(void);
Suite *lua_host_suite(void);
Suite *scn_suite(void);
Suite *swarm_suite(void);
Suite *workload_suite(void);
Suite *check_suite(void);
Suite *check_fair_suite(void);
Suite *check_impaired_suite(void);
Suite *check_holds_suite(void);
Suite *world_suite(void);
Suite *faults_suite(void);
Suite *protocols_suite(void);
Suite *servers_suite(void);
Suite *rwlock_suite(void);
Suite *check_counters_suite(void);
Suite *check_leases_suite(void);
Suite *check_dead_suite(void);
Suite *semaphores_suite(void);
Suite *report_suite(void);
Suite *policy_suite(void);
Suite *shrink_suite(void);
Suite *patch_suite(void);
Suite *contract_suite(void);

/* A node on a fresh context, for command tests. */
typedef struct tnode {
    sim_ctx *ctx;
    fake_node *node;
    fake_conn *conn;
    char out[4096];
} tnode;

void tnode_init(tnode *t);
void tnode_done(tnode *t);
/* Runs a command given as space-separated words (no quoting) and returns
 * the reply in sim_reply_format's form, valid until the next call. */
const char *tcmd(tnode *t, const char *line);
/* The same with explicit arguments (NULL-terminated). */
const char *tcmdv(tnode *t, const char *first, ...);
/* EVAL body with numkeys and the given words as keys then args. */
const char *teval(tnode *t, const char *body, int numkeys, const char *words);

/* s written as scenario text by scn_write (malloc'd; the caller frees). */
char *tscn_written(const scenario *s);
/* What one run of scenario text with seed 1 gave: the verdicts and the
 * acquisitions (the test fails when the text or the run is refused). */
typedef struct trun {
    check_verdict verdict[SCN_INV_COUNT];
    uint64_t acquisitions;
} trun;
trun trun_text(const char *text);

/* A fresh folder /tmp/locksim-TAG.XXXXXX (its name into dir, cap bytes),
 * a file of it written with text, and the folder removed with all in it. */
void tdir_make(char *dir, size_t cap, const char *tag);
void tdir_write(const char *dir, const char *name, const char *text);
void tdir_remove(const char *dir);

#endif /* LOCKSIM_TESTS_H */
