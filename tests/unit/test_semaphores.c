/* test_semaphores.c — the semaphore family's releases and wake-up rules:
 * RedissonSemaphore, RPermitExpirableSemaphore and RCountDownLatch pinned
 * to Redisson releases (settings from their timelines, refusals), and
 * small runs whose verdicts turn on a rule that changed between releases
 * (what a message wakes, what addPermits publishes, what a release past
 * the lease answers, what one message does to several async waiters). */
#include <stdlib.h>
#include <string.h>

#include "protocols/expirable.h"
#include "sim/engine/run.h"
#include "tests/unit/tests.h"

static const psem_cfg *psem(const char *name)
{
    const proto_def *p = proto_find(name);
    ck_assert_msg(p != NULL, "%s not found", name);
    return p->impl.cfg;
}

START_TEST(releases_follow_the_timelines)
{
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.23.3")->multi, 0);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.23.4")->multi, 1);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.16.8")->release_checks, 0);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.17")->release_checks, 1);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.16.3")->tr, CL_RESEND);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.36")->tr, CL_RESEND); /* S5: to 3.36 */
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.37")->tr, CL_NORESEND);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.50")->latch_n, 1);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.51")->latch_n, 0);
    ck_assert_int_eq(psem("redisson.expirable-semaphore")->latch_n, 0);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.15.5")->adds_count, 1);
    ck_assert_int_eq(psem("redisson.expirable-semaphore@3.15.6")->adds_count, 0);
    ck_assert_int_eq(proto_find("redisson.semaphore@3.20")->impl.defaults->synced, 0);
    ck_assert_int_eq(proto_find("redisson.semaphore@3.21")->impl.defaults->synced, 1);
    ck_assert_int_eq(proto_find("redisson.latch@3.47")->impl.defaults->retry_attempts, 3);
    ck_assert_ptr_eq(proto_find("redisson.semaphore@3.21"), proto_find("redisson.semaphore@3.21"));
    /* What each runs beyond the lock operations. */
    ck_assert(proto_find("redisson.semaphore")->steps & PROTO_STEP(SCN_OP_DRAINPERMITS));
    ck_assert(!(proto_find("redisson.expirable-semaphore")->steps & PROTO_STEP(SCN_OP_DRAINPERMITS)));
    ck_assert(proto_find("redisson.expirable-semaphore")->steps & PROTO_STEP(SCN_OP_UPDATELEASE));
    ck_assert(proto_find("redisson.latch@3.24")->steps & PROTO_ASYNC);
    ck_assert(proto_find("redisson.lock@3.27.2")->steps & PROTO_ASYNC);
    ck_assert(!(proto_find("redisson.spinlock")->steps & PROTO_ASYNC));
    /* Outside the range. */
    char why[256];
    ck_assert_ptr_nonnull(proto_find("redisson.semaphore@3.0"));
    ck_assert_ptr_eq(proto_find("redisson.semaphore@2.15"), NULL);
    ck_assert_ptr_eq(proto_find("redisson.expirable-semaphore@5.0"), NULL);
    ck_assert(strstr(proto_unknown_reason("redisson.latch@2.0", why, sizeof why), "not a release of redisson.latch"));
}
END_TEST

/* Scenario runs, each with the invariant its verdict turns on. */
static const struct {
    const char *protocol;
    const char *body; /* [protocol] keys after name, then the rest */
    scn_invariant inv;
    check_verdict want;
} runs[] = {
    /* addPermits publishes since 3.16.2 */
    {"redisson.semaphore@3.16.1", "permits = 0\n[steps]\nat = 0s c1 lock\nat = 2s c2 addpermits permits=1\n",
     SCN_INV_LIVENESS, CHECK_VIOLATED},
    {"redisson.semaphore@3.16.2", "permits = 0\n[steps]\nat = 0s c1 lock\nat = 2s c2 addpermits permits=1\n",
     SCN_INV_LIVENESS, CHECK_HELD},
    /* one message, two async waiters of a process: one runs */
    {"redisson.semaphore", "permits = 0\n[steps]\nat = 0s c1 lock api=async\nat = 0s c1.t2 lock api=async\n"
     "at = 2s c2 addpermits permits=2\n", SCN_INV_LIVENESS, CHECK_VIOLATED},
    {"redisson.semaphore", "permits = 0\n[steps]\nat = 0s c1 lock\nat = 0s c1.t2 lock\n"
     "at = 2s c2 addpermits permits=2\n", SCN_INV_LIVENESS, CHECK_HELD},
    /* ZERO runs every async listener since 3.24.0 (fdd2b33a6) */
    {"redisson.latch@3.23.5", "count = 1\n[steps]\nat = 0s c1 await api=async\nat = 0s c1.t2 await api=async\n"
     "at = 1s c2 countdown\n", SCN_INV_LIVENESS, CHECK_VIOLATED},
    {"redisson.latch@3.24.0", "count = 1\n[steps]\nat = 0s c1 await api=async\nat = 0s c1.t2 await api=async\n"
     "at = 1s c2 countdown\n", SCN_INV_LIVENESS, CHECK_HELD},
    /* a release past the lease answers 0 since 3.17.0 */
    {"redisson.expirable-semaphore@3.16.8", "permits = 1\n[steps]\nat = 0s c1 lock lease=1s\nat = 3s c1 unlock\n",
     SCN_INV_LEASES, CHECK_VIOLATED},
    {"redisson.expirable-semaphore@3.17", "permits = 1\n[steps]\nat = 0s c1 lock lease=1s\nat = 3s c1 unlock\n",
     SCN_INV_LEASES, CHECK_HELD},
    /* a crashed holder's permit comes back with its lease */
    {"redisson.expirable-semaphore", "permits = 1\n[steps]\nat = 0s c1 lock lease=2s\nat = 1s c2 lock\n"
     "[faults]\nat = 500ms crash client=1\n", SCN_INV_PERMITS, CHECK_HELD},
};

START_TEST(wake_up_rules_decide_the_verdicts)
{
    char text[1024];
    snprintf(text, sizeof text, "[scenario]\nduration = 12s\ndrain = 3s\n[protocol]\nname = %s\nlocks = sem\n%s",
             runs[_i].protocol, runs[_i].body);
    trun r = trun_text(text);
    ck_assert_msg(r.verdict[runs[_i].inv] == runs[_i].want, "case %d (%s): %s is %s", _i, runs[_i].protocol,
                  scn_invariant_name(runs[_i].inv), check_verdict_name(r.verdict[runs[_i].inv]));
}
END_TEST

Suite *semaphores_suite(void)
{
    Suite *s = suite_create("semaphores");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, releases_follow_the_timelines);
    tcase_add_loop_test(tc, wake_up_rules_decide_the_verdicts, 0, (int)(sizeof runs / sizeof runs[0]));
    suite_add_tcase(s, tc);
    return s;
}
