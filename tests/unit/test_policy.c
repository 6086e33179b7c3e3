/* test_policy.c — lock policy files: the bundled ones load and are found
 * by name and version; bad files are refused with the file and line of
 * what is wrong (scripts that do not compile with their own line);
 * templates expand and reply patterns match as the language says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/policy.h"
#include "tests/unit/tests.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
    tdir_write(dir, name, text);
}

/* Loads NAME from the temporary folder: the policy, or NULL with *err. */
static pol_policy *load(const char *name, scn_error *err)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return pol_load(path, 0, err);
}

static void setup(void)
{
    tdir_make(dir, sizeof dir, "policy");
    write_file("del.lua", "-- compare and delete\nif redis.call('get', KEYS[1]) == ARGV[1] then\n"
                          "  return redis.call('del', KEYS[1])\nend\nreturn 0\n");
    write_file("broken.lua", "-- line 1\nlocal x = \nif then\n");
}

static void teardown(void)
{
    tdir_remove(dir);
}

#define GOOD_HEAD "[lock]\nname = t\nkey = k:{lock}\n"
#define GOOD_ACQUIRE "[acquire]\ncommand = SET {key} {owner} NX PX {lease_ms}\nacquired = OK\nheld = nil\n"
#define GOOD_RELEASE "[release]\nscript = del.lua\nkeys = {key}\nargs = {owner}\nreleased = 1\nnot-owner = 0\n"

START_TEST(bundled_policies_load_by_name_and_version)
{
    ck_assert_uint_ge(proto_policy_count(), 9);
    const proto_def *py = proto_find("redis-py");
    ck_assert_ptr_nonnull(py);
    ck_assert_ptr_eq(py, proto_find("redis-py@5.0"));
    /* A bare name is its newest version. */
    ck_assert_str_eq(proto_find("spring-lockregistry")->name, "spring-lockregistry@6.4");
    ck_assert_ptr_nonnull(proto_find("spring-lockregistry@5.5"));
    const pol_policy *rl = proto_find("node-redlock")->impl.cfg;
    ck_assert_int_eq(rl->masters, 3);
    ck_assert_int_eq(rl->drift_ppm, 10000);
    ck_assert_int_eq(rl->drift_us, SIM_MS(2));
    ck_assert_int_eq(rl->resolve_early, 1);
    ck_assert_int_eq(rl->retries, 10);
    /* redsync's commands with no connection fail at once; Redisson's way
     * (resent after the retry delay) is the default. */
    ck_assert_int_eq(((const pol_policy *)proto_find("redsync")->impl.cfg)->unsent_fail, 1);
    ck_assert_int_eq(rl->unsent_fail, 0);
    /* Every bundled policy's scripts are counted for conformance. */
    proto_script_step steps[16];
    ck_assert_uint_eq(proto_policy_script_steps(proto_find("spring-lockregistry@6.4"), steps, 16), 2);
    ck_assert_int_eq(steps[0].nkeys, 1);
    ck_assert_uint_eq(proto_policy_script_steps(proto_find("redisson.lock"), steps, 16), 0);
}
END_TEST

START_TEST(a_good_file_loads)
{
    scn_error err;
    write_file("good.lock", GOOD_HEAD GOOD_ACQUIRE "[wait]\ninterval = 50ms..150ms\n" GOOD_RELEASE);
    pol_policy *p = load("good.lock", &err);
    ck_assert_msg(p != NULL, "%s:%d: %s", err.path, err.line, err.msg);
    ck_assert_int_eq(p->acquire.nsteps, 1);
    ck_assert_int_eq(p->acquire.step[0].nwords, 6);
    ck_assert_int_eq(p->release.step[0].nkeys, 1);
    ck_assert_int_eq(p->release.step[0].nwords, 2);
    ck_assert_int_eq(p->interval.kind, SCN_DIST_UNIFORM);
    ck_assert_str_eq(p->release.step[0].script->name, "del.lua");
    ck_assert_int_eq(p->reentrant, CL_REENTRY_NO); /* claims no re-entry unless it says so */
    pol_free(p);
    static const struct {
        const char *value;
        cl_reentry want;
    } re[] = {{"redis", CL_REENTRY_REDIS}, {"local", CL_REENTRY_LOCAL}, {"no", CL_REENTRY_NO}};
    for (size_t i = 0; i < sizeof re / sizeof re[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, GOOD_HEAD "reentrant = %s\n" GOOD_ACQUIRE GOOD_RELEASE, re[i].value);
        write_file("re.lock", text);
        p = load("re.lock", &err);
        ck_assert_msg(p != NULL, "%s:%d: %s", err.path, err.line, err.msg);
        ck_assert_int_eq(p->reentrant, re[i].want);
        pol_free(p);
    }
}
END_TEST

/* A bad file: its error names the file (or script) and line. */
static const struct {
    const char *text;
    const char *file; /* the file the error names ("" the policy) */
    int line;
    const char *says;
} bad[] = {
    {GOOD_HEAD GOOD_ACQUIRE GOOD_RELEASE "colour = blue\n", "", 14, "unknown key \"colour\" in [release]"},
    {GOOD_HEAD "[acquire]\ncommand = SET {key} {onwer} NX\n", "", 5, "\"{onwer}\" is not a placeholder"},
    {GOOD_HEAD "[acquire]\ncommand = GET {key}\nacquired = maybe\n", "", 6, "\"maybe\" is not a reply pattern"},
    {GOOD_HEAD "[acquire]\nscript = missing.lua\n", "", 5, "script \"missing.lua\" not found"},
    {GOOD_HEAD "[acquire]\nscript = broken.lua\n", "broken.lua", 3, "the script does not compile"},
    {GOOD_HEAD GOOD_ACQUIRE "[release]\ncommand = GET {key}\nnext = {owner}\n", "", 9, "\"next\" after the last step"},
    {"[lock]\nkey = x\n" GOOD_ACQUIRE GOOD_RELEASE, "", 0, "[lock] name is required"},
    {GOOD_HEAD GOOD_RELEASE, "", 0, "[acquire] needs at least one step"},
    {GOOD_HEAD GOOD_ACQUIRE "[wait]\nmode = sleep\n" GOOD_RELEASE, "", 9, "mode wants none, poll, pubsub or block"},
    {GOOD_HEAD GOOD_ACQUIRE "held = 0\n" GOOD_RELEASE "[acquire]\n", "", 0, ""},
    {GOOD_HEAD GOOD_ACQUIRE "[renew]\nrenewed = 1\n" GOOD_RELEASE, "", 9, "a reply meaning before any step"},
    {GOOD_HEAD GOOD_ACQUIRE "[masters]\ncount = 3\nquorum = 4\n" GOOD_RELEASE, "", 0, "quorum 4 is more than the 3"},
    {GOOD_HEAD "[acquire]\ncommand = GET {key}\nreleased = 1\n", "", 6, "\"released\" is not a reply meaning of [acquire]"},
    {GOOD_HEAD "[sideways]\nx = 1\n", "", 5, "unknown section [sideways]"},
    {GOOD_HEAD "reentrant = yes\n" GOOD_ACQUIRE GOOD_RELEASE, "", 4, "reentrant wants redis, local or no (got \"yes\")"},
    {GOOD_HEAD "unsent = drop\n" GOOD_ACQUIRE GOOD_RELEASE, "", 4, "unsent wants resend or fail (got \"drop\")"},
};

START_TEST(bad_files_name_file_and_line)
{
    scn_error err;
    write_file("bad.lock", bad[_i].text);
    pol_policy *p = load("bad.lock", &err);
    if (bad[_i].says[0] == '\0') { /* a section given twice ends empty: fine */
        pol_free(p);
        return;
    }
    ck_assert_msg(p == NULL, "case %d loaded", _i);
    char want[256];
    snprintf(want, sizeof want, "%s/%s", dir, bad[_i].file[0] ? bad[_i].file : "bad.lock");
    ck_assert_str_eq(err.path, want);
    ck_assert_msg(err.line == bad[_i].line, "case %d: line %d, want %d (%s)", _i, err.line, bad[_i].line, err.msg);
    ck_assert_msg(strstr(err.msg, bad[_i].says) != NULL, "case %d: \"%s\" lacks \"%s\"", _i, err.msg, bad[_i].says);
}
END_TEST

START_TEST(templates_expand)
{
    scn_error err;
    write_file("t.lock", "[lock]\nname = t\nkey = registry:{lock}\n[wait]\nmode = pubsub\nchannel = {key}-ch\n"
                         GOOD_ACQUIRE GOOD_RELEASE);
    pol_policy *p = load("t.lock", &err);
    ck_assert_ptr_nonnull(p);
    pol_expand ex = {.pol = p, .lock = "orders", .owner = "tok", .lease_ms = 1500, .thread = 2, .client = 7,
                     .uuid = "u-1", .seq = 9};
    char buf[256];
    pol_expand_into(&ex, "{key}|{channel}|{owner}|{lease_ms}|{lease_s}|{thread}|{client}|{uuid}|{seq}", buf,
                    sizeof buf);
    ck_assert_str_eq(buf, "registry:orders|registry:orders-ch|tok|1500|1|2|7|u-1|9");
    /* Cut, never overrun. */
    ck_assert_uint_eq(pol_expand_into(&ex, "{key}", buf, 5), 4);
    ck_assert_str_eq(buf, "regi");
    pol_free(p);
}
END_TEST

START_TEST(patterns_match_in_order)
{
    pol_policy fake = {0};
    pol_step st = {0};
    const char *words[] = {"OK", "nil", "int>0", "0", "{owner}", "err", "any"};
    pol_outcome outs[] = {POL_ACQUIRED, POL_HELD, POL_TTL, POL_NEXT, POL_RELEASED, POL_NOT_OWNER, POL_ERROR};
    for (int i = 0; i < 7; i++) {
        st.pat[i].outcome = outs[i];
        if (!strcmp(words[i], "OK")) st.pat[i].kind = PAT_OK;
        else if (!strcmp(words[i], "nil")) st.pat[i].kind = PAT_NIL;
        else if (!strcmp(words[i], "int>0")) st.pat[i].kind = PAT_INT_GT0;
        else if (!strcmp(words[i], "0")) st.pat[i].kind = PAT_INT_EQ;
        else if (!strcmp(words[i], "err")) st.pat[i].kind = PAT_ERR;
        else if (!strcmp(words[i], "any")) st.pat[i].kind = PAT_ANY;
        else st.pat[i].kind = PAT_TEMPLATE, st.pat[i].text = (char *)"{owner}";
    }
    st.npat = 7;
    pol_expand ex = {.pol = &fake, .lock = "l", .owner = "me"};
    sim_reply *ok = sim_reply_str(SIM_REPLY_STATUS, "OK", 2), *nil = sim_reply_new(SIM_REPLY_NIL),
              *five = sim_reply_int(5), *zero = sim_reply_int(0), *me = sim_reply_str(SIM_REPLY_STR, "me", 2),
              *other = sim_reply_str(SIM_REPLY_STR, "you", 3), *err = sim_reply_err("ERR x");
    ck_assert_int_eq(pol_match(&st, ok, &ex), POL_ACQUIRED);
    ck_assert_int_eq(pol_match(&st, nil, &ex), POL_HELD);
    ck_assert_int_eq(pol_match(&st, five, &ex), POL_TTL);
    ck_assert_int_eq(pol_match(&st, zero, &ex), POL_NEXT);
    ck_assert_int_eq(pol_match(&st, me, &ex), POL_RELEASED);
    ck_assert_int_eq(pol_match(&st, err, &ex), POL_NOT_OWNER);
    ck_assert_int_eq(pol_match(&st, other, &ex), POL_ERROR);
    ck_assert_int_eq(pol_match(&st, NULL, &ex), POL_ERROR);
    sim_reply *all[] = {ok, nil, five, zero, me, other, err};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) sim_reply_free(all[i]);
}
END_TEST

Suite *policy_suite(void)
{
    Suite *s = suite_create("policy");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_add_test(core, bundled_policies_load_by_name_and_version);
    tcase_add_test(core, a_good_file_loads);
    tcase_add_test(core, templates_expand);
    tcase_add_test(core, patterns_match_in_order);
    suite_add_tcase(s, core);
    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, setup, teardown);
    tcase_add_loop_test(errors, bad_files_name_file_and_line, 0, (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, errors);
    return s;
}
