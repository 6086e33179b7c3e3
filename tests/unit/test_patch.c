/* test_patch.c — a user's patch of a catalogue protocol ([protocol]
 * scripts = DIR): every protocol names bundled scripts at every release;
 * a folder's NAME.lua replaces NAME with its own SHA-1 and runs; a file
 * that names no script, a script that does not compile and a policy are
 * refused with where and why; the key survives a round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/protocol.h"
#include "sim/engine/run.h"
#include "sim/fake/fake.h"
#include "tests/unit/tests.h"

static char dir[64];

static void setup(void)
{
    tdir_make(dir, sizeof dir, "patch");
}

static void teardown(void)
{
    tdir_remove(dir);
}

/* A scenario (its [protocol] ends with line 5, extra) in which c2
 * unlocks c1's lock, then c3 takes it: mutual exclusion holds unless the
 * unlock skips the owner check. */
static void text_of(const char *extra, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "[scenario]\nduration = 5s\n[protocol]\nname = redisson.lock\n%s\n[steps]\nat = 0s c1 lock\n"
             "at = 1s c2 unlock\nat = 2s c3 lock\nat = 3s c1 unlock\nat = 4s c3 unlock\n",
             extra);
}

/* Its text without a patch, in buf. */
static const char *text_of_none(char *buf, size_t cap)
{
    text_of("", buf, cap);
    return buf;
}

/* That scenario as the file dir/t.scn would give it. */
static int load(const char *extra, scenario *s, scn_error *err)
{
    char path[128], text[512];
    snprintf(path, sizeof path, "%s/t.scn", dir);
    text_of(extra, text, sizeof text);
    return scn_load_string(path, text, s, err);
}

START_TEST(every_release_names_bundled_scripts)
{
    const char *names[32];
    for (size_t i = 0; proto_all[i]; i++) {
        const proto_def *pd = proto_all[i];
        size_t n = proto_script_names(pd, names, 32);
        for (size_t k = 0; k < n; k++) ck_assert_msg(proto_script_find(names[k]), "%s: %s", pd->name, names[k]);
        for (int v = pd->versions ? pd->min_version : 1; v <= PROTO_V(4, 7, 99) && pd->versions; v += 7) {
            n = proto_script_names_at(pd, v, names, 32);
            ck_assert_uint_le(n, 32);
            for (size_t k = 0; k < n; k++) ck_assert_msg(proto_script_find(names[k]), "%s@%d: %s", pd->name, v, names[k]);
        }
    }
    /* The releases' own choices (versions.c). */
    size_t n = proto_script_names(proto_find("redisson.lock@3.15"), names, 32);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(names[0], "lock2019_acquire");
    ck_assert_str_eq(names[3], "lock_renew");
    ck_assert_uint_eq(proto_script_names(proto_find("baseline.setnx"), names, 32), 0);
    ck_assert_uint_eq(proto_script_names(proto_find("redis-py"), names, 32), 1);
    ck_assert_str_eq(names[0], "cad_release.lua");
}
END_TEST

START_TEST(a_patch_replaces_its_scripts_and_runs)
{
    /* The unlock without its owner check: c2's unlock frees c1's lock. */
    tdir_write(dir, "lock_unlock.lua", "redis.call('del', KEYS[1])\nredis.call(ARGV[4], KEYS[2], ARGV[1])\nreturn 1\n");
    scenario s;
    scn_error err;
    ck_assert_int_eq(load("scripts = .", &s, &err), 0);
    const proto_def *pd = proto_resolve(&s, &err);
    ck_assert_msg(pd != NULL, "%s", err.msg);
    ck_assert_str_eq(pd->name, "redisson.lock+scripts(.)");
    char want[128];
    snprintf(want, sizeof want, "%s/.", dir);
    ck_assert_str_eq(proto_patch_dir(pd), want);
    ck_assert_ptr_eq(proto_resolve(&s, &err), pd); /* read once */
    ck_assert_uint_eq(pd->impl.npatched, 1);
    char sha[41];
    fake_sha1hex(pd->impl.patched[0].text, pd->impl.patched[0].len, sha);
    ck_assert_str_eq(pd->impl.patched[0].sha, sha);
    ck_assert_str_ne(sha, proto_script_find("lock_unlock")->sha);
    char label[256];
    ck_assert_str_eq(scn_protocol_label(&s, label, sizeof label), "redisson.lock+scripts(.)");
    scn_free(&s);
    /* Runs: the bundled lock refuses c2's unlock, the patch frees the lock
     * (a folder by its absolute path: a scenario from a string). */
    char text[512], line[128];
    text_of("", text, sizeof text);
    ck_assert_int_eq(trun_text(text).verdict[SCN_INV_MUTEX], CHECK_HELD);
    snprintf(line, sizeof line, "scripts = %s", dir);
    text_of(line, text, sizeof text);
    ck_assert_int_eq(trun_text(text).verdict[SCN_INV_MUTEX], CHECK_VIOLATED);
    /* The hunt's way: a scenario from a string (no folder in its path)
     * patched afterwards; a bad folder leaves it as it was. */
    ck_assert_int_eq(scn_load_string("hunt-redisson.lock.scn", text_of_none(text, sizeof text), &s, &err), 0);
    ck_assert_int_eq(run_use_scripts(&s, "/no/such/folder", &err), -1);
    ck_assert_ptr_null(s.scripts);
    ck_assert_int_eq(run_use_scripts(&s, dir, &err), 0);
    ck_assert_str_eq(s.scripts, dir);
    ck_assert_ptr_nonnull(strstr(proto_resolve(&s, &err)->name, "+scripts("));
    scn_free(&s);
}
END_TEST

START_TEST(the_key_is_written_back)
{
    scenario s, back;
    scn_error err;
    ck_assert_int_eq(load("scripts = my patch", &s, &err), 0);
    char *text = tscn_written(&s);
    ck_assert_ptr_nonnull(strstr(text, "scripts = my patch\n"));
    ck_assert_int_eq(scn_load_string(s.path, text, &back, &err), 0);
    ck_assert_str_eq(back.scripts, "my patch");
    free(text);
    scn_free(&back);
    scn_free(&s);
}
END_TEST

/* Bad patches: the file(s) written, what the error's path ends with,
 * its line, and a part of its message. */
static const struct {
    const char *file, *text, *scripts, *path_end;
    int line;
    const char *msg;
} bad[] = {
    {"lock_unlok.lua", "return 1\n", "scripts = .", "t.scn", 5, "lock_unlok.lua is no script of redisson.lock (did you mean lock_unlock.lua?)"},
    {"zzz.lua", "return 1\n", "scripts = .", "t.scn", 5, "its scripts: lock_acquire.lua lock_unlock.lua"},
    {"lock_acquire.lua", "-- 1\nlocal x =\nif then\n", "scripts = .", "/lock_acquire.lua", 3, "does not compile"},
    {"x.txt", "", "scripts = nowhere", "t.scn", 5, "cannot read the folder"},
    {"x.txt", "", "name = redis-py\nscripts = .", "t.scn", 6, "redis-py@5.0 is a lock policy"},
    {"x.txt", "", "scripts =", "t.scn", 5, "wants a folder"},
};

START_TEST(bad_patches_say_where_and_why)
{
    tdir_write(dir, bad[_i].file, bad[_i].text);
    scenario s;
    scn_error err;
    int rc = load(bad[_i].scripts, &s, &err); /* a second name line wins */
    if (rc == 0) {
        ck_assert_ptr_null(proto_resolve(&s, &err));
        scn_free(&s);
    }
    size_t n = strlen(err.path), e = strlen(bad[_i].path_end);
    ck_assert_msg(n >= e && !strcmp(err.path + n - e, bad[_i].path_end), "path %s", err.path);
    ck_assert_int_eq(err.line, bad[_i].line);
    ck_assert_msg(strstr(err.msg, bad[_i].msg), "%s", err.msg);
}
END_TEST

Suite *patch_suite(void)
{
    Suite *s = suite_create("patch");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_add_test(core, every_release_names_bundled_scripts);
    tcase_add_test(core, a_patch_replaces_its_scripts_and_runs);
    tcase_add_test(core, the_key_is_written_back);
    suite_add_tcase(s, core);
    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, setup, teardown);
    tcase_add_loop_test(errors, bad_patches_say_where_and_why, 0, (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, errors);
    return s;
}
