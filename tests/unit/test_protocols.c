/* test_protocols.c — the protocol table: names, pinned Redisson releases
 * resolved from the version timeline (PROTOCOLS.md §0.9), the reasons a
 * name is refused, and the checkers each protocol declares. */
#include <string.h>

#include "protocols/rlock.h"
#include "tests/unit/tests.h"

static const rlock_cfg *cfg(const char *name)
{
    const proto_def *p = proto_find(name);
    ck_assert_msg(p != NULL, "%s not found", name);
    return p->impl.cfg;
}

START_TEST(versions_follow_the_timeline)
{
    ck_assert_int_eq(proto_version_parse("3.23"), 32300);
    ck_assert_int_eq(proto_version_parse("3.17.1"), 31701);
    ck_assert_int_eq(proto_version_parse("4.7.0"), 40700);
    ck_assert_int_eq(proto_version_parse("3"), -1);
    ck_assert_int_eq(proto_version_parse("3.x"), -1);
    ck_assert_int_eq(proto_version_parse("-3.2"), -1);
    ck_assert_int_eq(proto_version_parse("3.2.1x"), -1);

    const rlock_cfg *v323 = cfg("redisson.lock@3.23"), *v324 = cfg("redisson.lock@3.24");
    ck_assert_int_eq(v323->unlock_latch, 0);
    ck_assert_str_eq(v323->unlock, "lock2019_unlock");
    ck_assert_int_eq(v324->unlock_latch, 1);
    ck_assert_str_eq(v324->unlock, "lock_unlock");
    ck_assert_str_eq(cfg("redisson.lock@3.18")->acquire, "lock2019_acquire");
    ck_assert_str_eq(cfg("redisson.lock@3.19")->acquire, "lock_acquire");
    ck_assert_int_eq(cfg("redisson.lock@3.36")->unlock_tr, CL_RESEND);
    ck_assert_int_eq(cfg("redisson.lock@3.37")->unlock_tr, CL_NORESEND);
    ck_assert_int_eq(cfg("redisson.lock@3.43")->watchdog_gen, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.44")->watchdog_gen, 2);
    ck_assert_int_eq(cfg("redisson.lock@3.17.0")->lease0_is_watchdog, 0);
    ck_assert_int_eq(cfg("redisson.lock@3.17.1")->lease0_is_watchdog, 1);
    ck_assert_int_eq(cfg("redisson.lock@4.6")->try_timeout_fails, 0);
    ck_assert_int_eq(cfg("redisson.lock@4.7")->try_timeout_fails, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.27.2")->listen_recheck, 0);
    ck_assert_int_eq(cfg("redisson.fairlock@3.28.0")->listen_recheck, 1);
    ck_assert_int_eq(cfg("redisson.lock")->listen_recheck, 1);
    const proto_def *old = proto_find("redisson.lock@3.12"), *synced = proto_find("redisson.lock@3.12.5");
    ck_assert_int_eq(old->impl.defaults->synced, 0);
    ck_assert_int_eq(synced->impl.defaults->synced, 1);
    ck_assert_int_eq(synced->impl.defaults->nosync_unchecked, 1);
    ck_assert_int_eq(proto_find("redisson.lock@3.20")->impl.defaults->nosync_unchecked, 0);
    ck_assert_int_eq(proto_find("redisson.lock@3.47")->impl.defaults->retry_attempts, 3);
    ck_assert_int_eq(proto_find("redisson.lock@3.48")->impl.defaults->retry_attempts, 4);
    /* The same name resolves to the same protocol; the fenced lock keeps
     * its token script at any release it exists in. */
    ck_assert_ptr_eq(proto_find("redisson.lock@3.23"), proto_find("redisson.lock@3.23"));
    ck_assert_str_eq(cfg("redisson.fencedlock@3.20")->acquire, "fenced_acquire_token");
    ck_assert_ptr_eq(proto_find("redisson.fencedlock@3.18"), NULL);
    /* The fair lock: scripts, latch and queue wait by release. */
    const rlock_cfg *f313 = cfg("redisson.fairlock@3.13"), *f320 = cfg("redisson.fairlock@3.20"),
                    *f332 = cfg("redisson.fairlock@3.32");
    ck_assert_int_eq(f313->fair.thread_wait_ms, 5000);
    ck_assert_int_eq(f313->fair.wait_is_queue_wait, 0);
    ck_assert_int_eq(f320->fair.thread_wait_ms, 300000);
    ck_assert_str_eq(f320->unlock, "fair2019_unlock");
    ck_assert_str_eq(f320->acquire, "fair2019_acquire");
    ck_assert_str_eq(f332->acquire, "fair332_acquire");             /* no last-waiter guard (3.45.0) */
    ck_assert_str_eq(cfg("redisson.fairlock@3.31")->acquire, "fair331_acquire"); /* nil-safe purge */
    ck_assert_str_eq(cfg("redisson.fairlock@3.45")->acquire, "fair_acquire");
    ck_assert_int_eq(cfg("redisson.lock@3.12.0")->nil_cancels, 0);
    ck_assert_int_eq(proto_find("redisson.lock@3.16.6")->impl.defaults->nosync_unchecked, 1);
    ck_assert_int_eq(proto_find("redisson.lock@3.16.7")->impl.defaults->nosync_unchecked, 0);
    ck_assert_int_eq(proto_find("redisson.lock@3.17.4")->impl.defaults->nosync_all, 1);
    ck_assert_int_eq(proto_find("redisson.lock@3.17.5")->impl.defaults->nosync_all, 0);
    ck_assert_int_eq(cfg("redisson.lock@3.19.0")->nosync_no_rollback, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.20.0")->nosync_no_rollback, 0);
    ck_assert_int_eq(cfg("redisson.lock@3.12.1")->nil_cancels, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.19.1")->lease_reset, 0);
    ck_assert_int_eq(cfg("redisson.lock@3.19.2")->lease_reset, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.27.2")->lease_reset, 2);
    ck_assert_str_eq(f332->unlock, "fair_unlock");
    ck_assert_str_eq(f332->fair.dequeue, "fair_dequeue");
    /* Before 3.11.1 (issue #2099, pull request #2100; issue #2144; the
     * changelog's MultiLock fix), and the watchdog before 3.10.5. */
    const rlock_cfg *f310 = cfg("redisson.fairlock@3.10"), *f3110 = cfg("redisson.fairlock@3.11.0"),
                    *f3111 = cfg("redisson.fairlock@3.11.1");
    ck_assert_str_eq(f310->acquire, "fair2018_acquire");
    ck_assert_str_eq(f3110->fair.dequeue, "fair2017_dequeue"); /* 3.5.5 (3c63f97f2) */
    ck_assert_str_eq(cfg("redisson.fairlock@3.5.4")->fair.dequeue, "fair2018_dequeue");
    ck_assert_int_eq(cfg("redisson.fairlock@3.2.3")->fair.stays_queued, 1);
    ck_assert_int_eq(cfg("redisson.fairlock@3.2.4")->fair.stays_queued, 0);
    /* 3.0 .. 3.10 (research: Redisson's tags, tools/history-audit.md). */
    ck_assert_str_eq(cfg("redisson.lock@3.10.5")->unlock, "lock2018_unlock");
    ck_assert_str_eq(cfg("redisson.lock@3.10.6")->unlock, "lock2019_unlock");
    ck_assert_int_eq(cfg("redisson.lock@3.8.0")->unlock_error_keeps, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.8.1")->unlock_error_keeps, 0);
    ck_assert_int_eq(cfg("redisson.lock@3.7.0")->sub_msg_policy, CL_SUB_TAKERS);
    ck_assert_int_eq(cfg("redisson.lock@3.7.1")->sub_msg_policy, CL_SUB_RUN_ALL);
    ck_assert_int_eq(cfg("redisson.lock@3.7.2")->sub_msg_policy, 0);
    ck_assert_int_eq(proto_find("redisson.lock@3.9.1")->impl.defaults->written_final, 1);
    ck_assert_int_eq(proto_find("redisson.lock@3.10.0")->impl.defaults->written_final, 0);
    ck_assert_int_eq(proto_find("redisson.lock@3.2.0")->impl.defaults->sub_no_timeout, 1);
    ck_assert_int_eq(proto_find("redisson.lock@3.2.1")->impl.defaults->sub_no_timeout, 0);
    ck_assert_int_eq(cfg("redisson.rwlock@3.8.1")->rw_write_msg0, 1);
    ck_assert_int_eq(cfg("redisson.rwlock@3.8.2")->rw_write_msg0, 0);
    ck_assert_str_eq(cfg("redisson.rwlock@3.4.2")->read_unlock, "rw2017_read_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.4.3")->read_unlock, "rw2019_read_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.5.4")->acquire, "rw2016_write_acquire");
    ck_assert_str_eq(cfg("redisson.rwlock@3.5.5")->acquire, "rw_write_acquire");
    ck_assert_int_eq(cfg("redisson.redlock@3.5.6")->ml_member_wait, 2);
    ck_assert_int_eq(cfg("redisson.redlock@3.6.2")->ml_member_wait, 1);
    ck_assert_int_eq(cfg("redisson.redlock@3.6.3")->ml_member_wait, 0);
    ck_assert_int_eq(cfg("redisson.multilock@3.16.8")->ml_lock_wait, 1);
    ck_assert_int_eq(cfg("redisson.multilock@3.17.0")->ml_lock_wait, 0);
    ck_assert_int_eq(cfg("redisson.multilock@3.8.1")->ml_keeps_orphan, 1);
    ck_assert_int_eq(cfg("redisson.multilock@3.8.2")->ml_keeps_orphan, 0);
    ck_assert_int_eq(cfg("redisson.multilock@3.27.1")->ml_unlock_all, 1);
    ck_assert_int_eq(cfg("redisson.multilock@3.27.2")->ml_unlock_all, 0);
    ck_assert_str_eq(cfg("redisson.rwlock@3.2.3")->read_acquire, "rw300_read_acquire");
    ck_assert_str_eq(cfg("redisson.rwlock@3.2.3")->unlock, "rw300_write_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.2.4")->unlock, "rw2019_write_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.3.1")->read_unlock, "rw324_read_unlock");
    ck_assert_int_eq(cfg("redisson.rwlock@3.3.1")->rw_no_timeouts, 1);
    ck_assert_int_eq(cfg("redisson.rwlock@3.2.3")->rw_shared_name, 1);
    ck_assert_str_eq(cfg("redisson.fairlock@3.1.0")->force, "fair310_force_unlock");
    ck_assert_str_eq(cfg("redisson.fairlock@3.0")->force, "fair300_force_unlock");
    ck_assert_int_eq(cfg("redisson.fairlock@3.2.0")->fair.place_keys, 0);
    ck_assert_str_eq(f3111->acquire, "fair2019_acquire");
    ck_assert_str_eq(f3111->fair.dequeue, "fair_dequeue");
    ck_assert_str_eq(cfg("redisson.rwlock@3.11.0")->read_acquire, "rw2018_read_acquire");
    ck_assert_str_eq(cfg("redisson.rwlock@3.11.1")->read_acquire, "rw_read_acquire");
    ck_assert_str_eq(cfg("redisson.rwlock@3.23")->read_unlock, "rw2019_read_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.23")->unlock, "rw2019_write_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.24")->unlock, "rw2023_write_unlock"); /* 1 for a missing lock */
    ck_assert_str_eq(cfg("redisson.rwlock@3.43")->read_unlock, "rw2023_read_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.44")->unlock, "rw_write_unlock"); /* nil (1ce49b7a2) */
    ck_assert_str_eq(cfg("redisson.rwlock@3.44")->read_unlock, "rw_read_unlock");
    ck_assert_str_eq(cfg("redisson.rwlock@3.10")->acquire, "rw_write_acquire"); /* re-entry adds (3.5.5) */
    ck_assert_int_eq(cfg("redisson.rwlock@3.10")->publish_arg, 1);
    ck_assert_int_eq(cfg("redisson.lock@3.10.4")->watchdog_gen, 0);
    ck_assert_int_eq(cfg("redisson.lock@3.10.5")->watchdog_gen, 1);
    ck_assert_int_eq(proto_find("redisson.lock@3.10")->impl.defaults->watchdog_gen, 0);
    ck_assert_int_eq(cfg("redisson.multilock@3.11.0")->ml_lease_from_wait, 1);
    ck_assert_int_eq(cfg("redisson.redlock@3.11.1")->ml_lease_from_wait, 0);
    ck_assert_int_eq(cfg("redisson.redlock@3.10")->quorum, 1);
    ck_assert_ptr_nonnull(proto_find("redisson.lock@3.0"));
    ck_assert_ptr_eq(proto_find("redisson.lock@2.15"), NULL);
    ck_assert_ptr_eq(proto_find("redisson.rwlock@2.15"), NULL);
    ck_assert_ptr_eq(proto_find("redisson.lock@9.9"), NULL);
    ck_assert_ptr_eq(proto_find("baseline.cad@1.0"), NULL);
    ck_assert_ptr_eq(proto_find("redisson.lokc"), NULL);
}
END_TEST

/* The build's SHA-1 of each bundled script is the one EVALSHA names it by. */
START_TEST(scripts_carry_their_sha1)
{
    ck_assert_uint_gt(proto_script_text_count, 10);
    for (size_t i = 0; i < proto_script_text_count; i++) {
        char sha[41];
        fake_sha1hex(proto_script_texts[i].text, proto_script_texts[i].len, sha);
        ck_assert_str_eq(proto_script_texts[i].sha, sha);
    }
}
END_TEST

/* Every protocol says whether it claims re-entry: Redisson's locks count
 * it in Redis (a hash field per thread), semaphores, latches and the
 * baselines have none; the bundled policies as their libraries do. */
START_TEST(protocols_declare_reentry)
{
    static const char *const redis[] = {"redisson.lock", "redisson.lock@2019", "redisson.lock@3.12",
                                        "redisson.fencedlock", "redisson.fairlock", "redisson.fairlock@3.13.2",
                                        "redisson.spinlock", "redisson.multilock", "redisson.redlock",
                                        "redisson.rwlock"};
    static const char *const none[] = {"redisson.semaphore", "redisson.expirable-semaphore", "redisson.latch",
                                       "baseline.setnx", "baseline.cad", "redis-py", "node-redlock", "redsync",
                                       "textbook-get-del", "textbook-lease", "textbook-setnx-expire"};
    for (size_t i = 0; i < sizeof redis / sizeof redis[0]; i++) {
        ck_assert_msg(proto_find(redis[i]) != NULL, "%s", redis[i]);
        ck_assert_msg(proto_reentry(proto_find(redis[i])) == CL_REENTRY_REDIS, "%s", redis[i]);
    }
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        ck_assert_msg(proto_find(none[i]) != NULL, "%s", none[i]);
        ck_assert_msg(proto_reentry(proto_find(none[i])) == CL_REENTRY_NO, "%s", none[i]);
    }
    /* Spring: its local ReentrantLock counts */
    ck_assert_int_eq(proto_reentry(proto_find("spring-lockregistry@6.4")), CL_REENTRY_LOCAL);
    ck_assert_int_eq(proto_reentry(proto_find("spring-lockregistry@5.5")), CL_REENTRY_LOCAL);
    ck_assert_int_eq(proto_reentry(proto_find("spring-lockregistry-pubsub")), CL_REENTRY_LOCAL);
    ck_assert_str_eq(cl_reentry_name(CL_REENTRY_REDIS), "redis");
    ck_assert_str_eq(cl_reentry_name(CL_REENTRY_NO), "no");
}
END_TEST

START_TEST(refusals_say_why)
{
    char buf[256];
    ck_assert(strstr(proto_unknown_reason("redisson.lock@9.9", buf, sizeof buf), "not a release of redisson.lock"));
    ck_assert(strstr(proto_unknown_reason("baseline.cad@1.0", buf, sizeof buf), "has no versions"));
    ck_assert(strstr(proto_unknown_reason("nope", buf, sizeof buf), "unknown protocol 'nope'"));
}
END_TEST

START_TEST(protocols_declare_their_checkers)
{
    unsigned lock = proto_invariants(proto_find("redisson.lock"));
    ck_assert(lock & PROTO_INV(SCN_INV_MUTEX));
    ck_assert(lock & PROTO_INV(SCN_INV_REENTRANCY));
    unsigned red = proto_invariants(proto_find("redisson.redlock"));
    ck_assert(red & PROTO_INV(SCN_INV_MUTEX));
    ck_assert(!(red & PROTO_INV(SCN_INV_REENTRANCY))); /* the composite has no store count */
    for (size_t i = 0; proto_all[i]; i++) ck_assert(proto_all[i]->summary && proto_all[i]->impl.acquire);
}
END_TEST

Suite *protocols_suite(void)
{
    Suite *s = suite_create("protocols");
    TCase *c = tcase_create("table");
    tcase_add_test(c, versions_follow_the_timeline);
    tcase_add_test(c, refusals_say_why);
    tcase_add_test(c, scripts_carry_their_sha1);
    tcase_add_test(c, protocols_declare_their_checkers);
    tcase_add_test(c, protocols_declare_reentry);
    suite_add_tcase(s, c);
    return s;
}
