/* test_report.c — what the report writers derive and print: spans of a
 * history as the checkers count holds, fault windows, the threads a
 * violation names, rows read back from JSON lines, Jain's index, escaping,
 * TAP and JUnit text, scenario keys overridden from the command line, and
 * the hunt's page (its order, its witness pairs, its refusals). */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/report.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static void ev(history *h, int64_t t_ms, hist_kind kind, hist_op op, int client, int inc, int thread, int64_t value,
               uint64_t seq)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = op, .client = client, .inc = inc, .thread = thread,
                    .value = value, .seq = seq};
    hist_add(h, &e);
}

static scenario *scenario_of(const char *text)
{
    static scenario s;
    scn_error err;
    ck_assert_msg(scn_load_string("t.scn", text, &s, &err) == 0, "%s", err.msg);
    return &s;
}

static const char *base_scn = "[scenario]\nduration = 60s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n";

static size_t count_kind(const report_series *rs, report_span_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->nspans; i++) n += rs->spans[i].kind == k;
    return n;
}

static const report_span *span_of(const report_series *rs, report_span_kind k, int client)
{
    for (size_t i = 0; i < rs->nspans; i++)
        if (rs->spans[i].kind == k && rs->spans[i].client == client) return &rs->spans[i];
    return NULL;
}

START_TEST(holds_count_reentry_once_and_end_at_crash)
{
    history h;
    hist_init(&h);
    scenario *s = scenario_of(base_scn);
    ev(&h, 0, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 1, 0, 1);
    ev(&h, 1, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 1, 1);
    ev(&h, 2, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 1, 1, 2); /* reentry */
    ev(&h, 3, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 2, 2);
    ev(&h, 4, HIST_INVOKE, HOP_RELEASE, 1, 1, 1, 1, 3); /* depth 2 -> 1: still held */
    ev(&h, 5, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 1, 0, 4);
    ev(&h, 9, HIST_INVOKE, HOP_RELEASE, 1, 1, 1, 0, 5); /* the hold ends at 9 */
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 1, 4);
    ev(&h, 20, HIST_INFO, HOP_CRASH, 2, 1, 0, 0, 0);    /* the crash ends c2's hold */
    ev(&h, 21, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 1, 0, 6);
    ev(&h, 22, HIST_FAIL, HOP_ACQUIRE, 1, 1, 1, 0, 6);
    h.ev[h.n - 1].err = "not acquired";
    report_series rs;
    report_series_build(&rs, &h, s, NULL, 0, MS(60));
    ck_assert_uint_eq(count_kind(&rs, REPORT_HOLD), 2);
    const report_span *c1 = span_of(&rs, REPORT_HOLD, 1), *c2 = span_of(&rs, REPORT_HOLD, 2);
    ck_assert_int_eq(c1->from_us, MS(1));
    ck_assert_int_eq(c1->to_us, MS(9));
    ck_assert_int_eq(c2->from_us, MS(10));
    ck_assert_int_eq(c2->to_us, MS(20));
    ck_assert_uint_eq(count_kind(&rs, REPORT_WAIT), 4);
    const report_span *last = &rs.spans[rs.nspans - 1];
    ck_assert_int_eq(last->kind, REPORT_WAIT);
    ck_assert_int_eq(last->outcome, REPORT_TIMED_OUT);
    report_series_free(&rs);
    hist_free(&h);
    scn_free(s);
}
END_TEST

START_TEST(semaphore_acquires_are_shares_of_their_own)
{
    history h;
    hist_init(&h);
    scenario *s = scenario_of(base_scn);
    hist_event e = {.t_us = MS(1), .kind = HIST_OK, .op = HOP_ACQUIRE, .client = 1, .inc = 1, .thread = 1, .n = 2};
    hist_add(&h, &e);
    e.t_us = MS(2);
    e.n = 1;
    hist_add(&h, &e);
    e = (hist_event){.t_us = MS(5), .kind = HIST_INVOKE, .op = HOP_RELEASE, .client = 1, .inc = 1, .thread = 1, .n = 1};
    hist_add(&h, &e); /* ends the share of 1 permit */
    report_series rs;
    report_series_build(&rs, &h, s, NULL, 0, MS(60));
    ck_assert_uint_eq(count_kind(&rs, REPORT_HOLD_SHARED), 2);
    for (size_t i = 0; i < rs.nspans; i++)
        ck_assert_int_eq(rs.spans[i].to_us, rs.spans[i].n == 1 ? MS(5) : MS(60));
    report_series_free(&rs);
    hist_free(&h);
    scn_free(s);
}
END_TEST

START_TEST(fault_windows_end_where_the_fault_stops)
{
    scenario *s = scenario_of("[scenario]\nduration = 60s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 3\n"
                              "[faults]\nat = 5s pause client=c1 for=10s\nat = 6s crash client=c2\n"
                              "at = 20s restart client=c2\nat = 7s partition c3|nodes\nat = 30s heal\n"
                              "at = 8s clock node=redis0 jump=+5s\nat = 9s drop-reply p=0.5\n");
    history h;
    hist_init(&h);
    report_series rs;
    report_series_build(&rs, &h, s, NULL, 0, MS(60000));
    ck_assert_uint_eq(rs.nfaults, 5); /* the restart and the heal end windows */
    static const struct { const char *kind; int64_t from_s, to_s; int client; } want[] = {
        {"pause", 5, 15, 1}, {"crash", 6, 20, 2}, {"partition", 7, 30, 3}, {"clock", 8, 8, 0}, {"network", 9, 60, 0}};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_str_eq(rs.faults[i].kind, want[i].kind);
        ck_assert_int_eq(rs.faults[i].from_us, MS(want[i].from_s * 1000));
        ck_assert_int_eq(rs.faults[i].to_us, MS(want[i].to_s * 1000));
        ck_assert_int_eq(rs.faults[i].client, want[i].client);
    }
    ck_assert_str_eq(rs.faults[0].label, "pause client=c1 for=10s");
    report_series_free(&rs);
    hist_free(&h);
    scn_free(s);
}
END_TEST

START_TEST(violation_names_its_threads)
{
    check_violation v = {0};
    snprintf(v.detail, sizeof v.detail, "c1.t1 (holding since 0.1s) and c12.t3 (acquired at 5s) both hold c1.t1x, c1.t1");
    int c[4], t[4];
    ck_assert_uint_eq(report_violation_threads(&v, c, t, 4), 2);
    ck_assert_int_eq(c[0], 1);
    ck_assert_int_eq(t[0], 1);
    ck_assert_int_eq(c[1], 12);
    ck_assert_int_eq(t[1], 3);
}
END_TEST

START_TEST(jain_index)
{
    history h;
    hist_init(&h);
    run_result r = {0};
    for (int i = 0; i < 4; i++) ev(&h, i, HIST_OK, HOP_ACQUIRE, 1 + i % 2, 1, 1, 1, 0);
    run_fairness(&h, &r);
    ck_assert_double_eq_tol(r.fairness_jain, 1.0, 1e-9);
    ev(&h, 9, HIST_INVOKE, HOP_ACQUIRE, 3, 1, 1, 0, 0); /* a third thread that never got it */
    run_fairness(&h, &r);
    ck_assert_double_eq_tol(r.fairness_jain, 16.0 / (3 * 8), 1e-9);
    hist_free(&h);
    hist_init(&h);
    run_fairness(&h, &r);
    ck_assert_double_eq_tol(r.fairness_jain, 0, 1e-9);
    hist_free(&h);
}
END_TEST

static const char *row_json =
    "{\"scenario\":\"a/b.scn\",\"name\":\"x <y>\",\"seed\":3,\"backend\":\"fake\",\"protocol\":\"redisson.lock\","
    "\"wall_ms\":2.5,\"acquisitions\":7,\"evals\":21,\"trace_hash\":\"00ff\",\"invariants\":{\"mutual-exclusion\":"
    "\"violated\",\"liveness\":\"held\"},\"violations\":[{\"invariant\":\"mutual-exclusion\",\"at_ms\":1500,"
    "\"detail\":\"c1.t1 and c2.t1 both hold lock\"}],\"expected\":{\"mutual-exclusion\":\"held\"},"
    "\"expectations_met\":false,\"expectation_failure\":\"mutual-exclusion expected held, was violated\","
    "\"duration_ms\":1000,\"fairness_jain\":0.5,\"latency_ms\":{\"p50\":1,\"p95\":2,\"p99\":3,\"max\":4}}";

START_TEST(rows_read_back_json_lines)
{
    report_row r;
    char why[256];
    ck_assert_int_eq(report_row_parse(row_json, strlen(row_json), &r, why, sizeof why), 0);
    ck_assert_str_eq(r.scenario, "a/b.scn");
    ck_assert_uint_eq(r.seed, 3);
    ck_assert_int_eq(r.met, 0);
    ck_assert_int_eq(r.verdict[SCN_INV_MUTEX], CHECK_VIOLATED);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_UNKNOWN);
    ck_assert_int_eq(r.expect[SCN_INV_MUTEX], SCN_EXPECT_HELD);
    ck_assert_str_eq(r.first_violation, "mutual-exclusion at 1.500s: c1.t1 and c2.t1 both hold lock");
    ck_assert_uint_eq(r.acquisitions, 7);
    ck_assert_double_eq_tol(r.p99_ms, 3, 1e-9);
    ck_assert_double_eq_tol(r.jain, 0.5, 1e-9);
    report_row_free(&r);
    ck_assert_int_eq(report_row_parse("{\"scenario\":\"x\"}", 16, &r, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "\"seed\" is missing"));
    ck_assert_int_eq(report_row_parse("nope", 4, &r, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not JSON"));
}
END_TEST

/* Runs fn on a memory stream and returns what it wrote (static). */
static char *captured(void (*fn)(FILE *, const report_row *), const report_row *r)
{
    static char *buf;
    size_t len;
    free(buf);
    FILE *m = open_memstream(&buf, &len);
    fn(m, r);
    fclose(m);
    return buf;
}

static void tap_one(FILE *out, const report_row *r)
{
    report_tap_line(out, 4, r, " --horizon 5s");
}

static void junit_one(FILE *out, const report_row *r)
{
    report_junit(out, r, 1, NULL);
}

START_TEST(ci_formats)
{
    report_row r;
    char why[256];
    ck_assert_int_eq(report_row_parse(row_json, strlen(row_json), &r, why, sizeof why), 0);
    const char *tap = captured(tap_one, &r);
    ck_assert_str_eq(tap, "not ok 4 - a/b.scn seed 3 (redisson.lock)\n  ---\n"
                          "  message: \"mutual-exclusion expected held, was violated\"\n"
                          "  violation: \"mutual-exclusion at 1.500s: c1.t1 and c2.t1 both hold lock\"\n"
                          "  replay: \"locksim replay a/b.scn --seed 3 --horizon 5s --around violation\"\n"
                          "  trace_hash: \"00ff\"\n  ...\n");
    const char *xml = captured(junit_one, &r);
    ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"a.b\" name=\"seed 3\" time=\"0.003\">"));
    ck_assert_ptr_nonnull(strstr(xml, "<failure type=\"expectation\" message=\"mutual-exclusion expected held"));
    ck_assert_ptr_nonnull(strstr(xml, "value=\"x &lt;y&gt;\""));
    ck_assert_ptr_nonnull(strstr(xml, "<system-out>locksim replay a/b.scn --seed 3 --around violation</system-out>"));
    report_row_free(&r);
}
END_TEST

START_TEST(escaping_and_replay_commands)
{
    char *buf;
    size_t len;
    FILE *m = open_memstream(&buf, &len);
    report_xml_text(m, "a<b>&\"c'\x01");
    fclose(m);
    ck_assert_str_eq(buf, "a&lt;b&gt;&amp;&quot;c&#39;?");
    free(buf);
    char cmd[256];
    ck_assert_str_eq(report_replay_cmd("my dir/it's.scn", 9, NULL, 0, cmd, sizeof cmd),
                     "locksim replay 'my dir/it'\\''s.scn' --seed 9");
}
END_TEST

START_TEST(scenario_keys_from_the_command_line)
{
    const char *sec, *key;
    char why[256];
    ck_assert_int_eq(scn_key_resolve("clients", &sec, &key, why, sizeof why), 0);
    ck_assert_str_eq(key, "count");
    ck_assert_int_eq(scn_key_resolve("hold", &sec, &key, why, sizeof why), 0);
    ck_assert_str_eq(sec, "clients");
    ck_assert_int_eq(scn_key_resolve("protocol.lease", &sec, &key, why, sizeof why), 0);
    ck_assert_int_eq(scn_key_resolve("count", &sec, &key, why, sizeof why), -1); /* clients and protocol */
    ck_assert_ptr_nonnull(strstr(why, "several sections"));
    ck_assert_int_eq(scn_key_resolve("steps.at", &sec, &key, why, sizeof why), -1);
    char path[] = "/tmp/locksim-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, base_scn, strlen(base_scn)), (ssize_t)strlen(base_scn));
    close(fd);
    scenario s;
    scn_error err;
    scn_override ov[] = {{"clients", "count", "16"}, {"clients", "hold", "5ms"}};
    ck_assert_int_eq(scn_load_with(path, ov, 2, &s, &err), 0);
    ck_assert_int_eq(s.clients, 16);
    ck_assert_int_eq(s.hold.a_us, 5000);
    scn_free(&s);
    scn_override bad[] = {{"clients", "count", "many"}};
    ck_assert_int_eq(scn_load_with(path, bad, 1, &s, &err), -1);
    ck_assert_int_eq(err.line, 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "clients.count = many: 'count' must be an integer"));
    unlink(path);
}
END_TEST


/* ------------------------------------------------------------ the hunt page */

/* The lost unlock reply of known bug drop-reply-unlock-3.23: pinned to
 * 3.23 it breaks reentrancy and exclusion; the same file on 3.24 (the
 * unlock latch) holds. */
#define LOST_UNLOCK(version)                                                                            \
    "# a witness pair\n[scenario]\nname = lost unlock reply\nduration = 30s\nseed = 3\n[protocol]\n"   \
    "name = redisson.lock@" version "\nlease = -1\n[steps]\nat = 0s c1 lock\nat = 50ms c1 unlock\n"    \
    "at = 100ms c1 lock\nat = 150ms c1 lock\nat = 1s c1 unlock\nat = 2s c2 lock\nat = 20s c1 unlock\n" \
    "at = 25s c2 unlock\n[faults]\nat = 900ms drop-reply client=1 p=1 for=1s\n"

static const char *pause_scn =
    "[scenario]\nname = pause outlives the lease\nduration = 60s\n[protocol]\nname = redisson.lock\nlease = -1\n"
    "[steps]\nat = 0s c1 lock\nat = 5s c1 pause for=40s\nat = 6s c2 lock\nat = 46s c1 unlock\nat = 50s c2 unlock\n";

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s is missing", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* The names in dir (sorted, space-separated) into buf. */
static const char *names_in(const char *dir, char *buf, size_t cap)
{
    struct dirent **v;
    int n = scandir(dir, &v, NULL, alphasort);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (v[i]->d_name[0] != '.') len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s ", v[i]->d_name);
        free(v[i]);
    }
    free(v);
    return buf;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static char hunt_dir[64];

static void hunt_files(void)
{
    snprintf(hunt_dir, sizeof hunt_dir, "/tmp/locksim-hunt-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(hunt_dir));
    put(hunt_dir, "bug.scn", LOST_UNLOCK("3.23"));
    put(hunt_dir, "ref.scn", LOST_UNLOCK("3.24"));
    put(hunt_dir, "pause.scn", pause_scn);
}

static const char *kleppmann = "a pause longer than the lease: no lease lock survives it (Kleppmann 2016)";

/* A beyond-contract signature given first is shown after the within ones;
 * the within one with a reference shows both timelines, the reference
 * holding; every scenario shown is copied beside its pictures. */
START_TEST(hunt_page_orders_and_pairs)
{
    hunt_files();
    char bug[128], ref[128], pause[128], out[128], err[512], names[512];
    snprintf(bug, sizeof bug, "%s/bug.scn", hunt_dir);
    snprintf(ref, sizeof ref, "%s/ref.scn", hunt_dir);
    snprintf(pause, sizeof pause, "%s/pause.scn", hunt_dir);
    snprintf(out, sizeof out, "%s/report", hunt_dir);
    report_hunt_sig sigs[] = {
        {.signature = "mutual-exclusion after pause", .beyond = 1, .reason = kleppmann, .seeds = 5, .first_seed = 2,
         .shrunk = pause},
        {.signature = "reentrancy+mutual-exclusion after drop-reply", .seeds = 7, .first_seed = 3, .shrunk = bug,
         .reference = ref},
        {.signature = "liveness after crash", .seeds = 1, .first_seed = 11},
    };
    report_hunt h = {.target = "redisson.lock@3.23", .against = "redisson.lock@3.24", .seed_a = 1, .seed_b = 100,
                     .runs = 100, .failed = 13, .sigs = sigs, .nsigs = 3};
    ck_assert_msg(report_hunt_write(out, &h, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(names_in(hunt_dir, names, sizeof names), "bug.scn pause.scn ref.scn report ");
    ck_assert_str_eq(names_in(out, names, sizeof names), "index.html render.sh sig-01 sig-01-ref sig-03 ");
    int drawn = report_gnuplot_found();
    for (size_t i = 0; i < 3; i++) {
        static const char *const want[] = {"sig-01/holders-lock", "sig-01-ref/holders-lock", "sig-03/holders-lock"};
        char gp[96], png[96];
        snprintf(gp, sizeof gp, "%s.gp", want[i]);
        snprintf(png, sizeof png, "%s.png", want[i]);
        ck_assert_msg(exists(out, gp), "%s is missing", gp);
        ck_assert_int_eq(exists(out, png), drawn);
    }
    ck_assert(exists(out, "sig-01/bug.scn") && exists(out, "sig-01-ref/ref.scn") && exists(out, "sig-03/pause.scn"));
    char *page = slurp(out, "index.html");
    const char *within = strstr(page, "<section id=\"within\">"), *beyond = strstr(page, "<section id=\"beyond\">");
    const char *s1 = strstr(page, "<section class=\"run\" id=\"sig-1\">"), *s3 = strstr(page, "id=\"sig-3\"");
    ck_assert(within && beyond && s1 && s3 && within < s1 && s1 < beyond && beyond < s3);
    ck_assert_ptr_nonnull(strstr(s1, "reentrancy+mutual-exclusion after drop-reply"));
    ck_assert_ptr_nonnull(strstr(s1, "<img src=\"sig-01/holders-lock.png\""));
    ck_assert_ptr_nonnull(strstr(s1, "<img src=\"sig-01-ref/holders-lock.png\""));
    ck_assert_ptr_nonnull(strstr(s1, "redisson.lock@3.23: violates</h4>"));
    ck_assert_ptr_nonnull(strstr(s1, "redisson.lock@3.24 (reference, <a href=\"sig-01-ref/ref.scn\">the same scenario</a>): holds"));
    ck_assert_ptr_nonnull(strstr(s1, "locksim replay"));
    const char *s2 = strstr(page, "id=\"sig-2\"");
    ck_assert(s2 && s2 < beyond && strstr(s2, "Not shrunk") && strstr(s2, "Not shrunk") < beyond);
    ck_assert_ptr_nonnull(strstr(s3, "a pause longer than the lease: no lease lock survives it (Kleppmann 2016)"));
    ck_assert_ptr_nonnull(strstr(s3, "<details><summary>"));
    ck_assert_ptr_nonnull(strstr(page, "2 within the lock&#39;s contract, 1 beyond it"));
    free(page);
    /* Written again: the earlier report is replaced whole. */
    h.nsigs = 1;
    ck_assert_msg(report_hunt_write(out, &h, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(names_in(out, names, sizeof names), "index.html render.sh sig-01 ");
    nftw(hunt_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* A folder that is not a report, or a file that does not load: -1 with the
 * reason, and nothing written. */
START_TEST(hunt_page_refuses)
{
    hunt_files();
    char mine[128], bad[128], out[128], err[512], names[512];
    snprintf(mine, sizeof mine, "%s/mine", hunt_dir);
    ck_assert_int_eq(mkdir(mine, 0755), 0);
    put(mine, "notes.txt", "keep\n");
    report_hunt_sig sig = {.signature = "x", .seeds = 1, .first_seed = 1};
    report_hunt h = {.target = "redisson.lock", .sigs = &sig, .nsigs = 1};
    ck_assert_int_eq(report_hunt_write(mine, &h, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not a locksim report"));
    ck_assert_str_eq(names_in(mine, names, sizeof names), "notes.txt ");
    snprintf(bad, sizeof bad, "%s/missing.scn", hunt_dir);
    snprintf(out, sizeof out, "%s/report", hunt_dir);
    sig.shrunk = bad;
    ck_assert_int_eq(report_hunt_write(out, &h, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "missing.scn"));
    ck_assert_ptr_null(strchr(err, '\n'));
    put(hunt_dir, "broken.scn", "[protocol]\nname = redisson.nosuch\n");
    snprintf(bad, sizeof bad, "%s/broken.scn", hunt_dir);
    ck_assert_int_eq(report_hunt_write(out, &h, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "broken.scn:"));
    ck_assert_str_eq(names_in(hunt_dir, names, sizeof names), "broken.scn bug.scn mine pause.scn ref.scn ");
    nftw(hunt_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *core = tcase_create("core");
    tcase_add_test(core, holds_count_reentry_once_and_end_at_crash);
    tcase_add_test(core, semaphore_acquires_are_shares_of_their_own);
    tcase_add_test(core, fault_windows_end_where_the_fault_stops);
    tcase_add_test(core, violation_names_its_threads);
    tcase_add_test(core, jain_index);
    tcase_add_test(core, rows_read_back_json_lines);
    tcase_add_test(core, ci_formats);
    tcase_add_test(core, hunt_page_orders_and_pairs);
    tcase_set_timeout(core, 60); /* the hunt page runs three scenarios and gnuplot */
    suite_add_tcase(s, core);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, escaping_and_replay_commands);
    tcase_add_test(errors, scenario_keys_from_the_command_line);
    tcase_add_test(errors, hunt_page_refuses);
    suite_add_tcase(s, errors);
    return s;
}
