/* cmd_replay.c — `locksim replay SCENARIO --seed N`: runs one seed and
 * prints its trace as a timeline, one line per trace line ("<true µs>
 * <who> <text>" becomes "   12.004017s  who  text"), fault lines marked
 * "!!" and the checkers' violations inserted at their true times as ">>";
 * lines of an endpoint whose clock a fault moved show its local time.
 * --around T (or "violation") keeps the window [T - W, T + W/4]. The
 * output is a function of (binary, scenario, seed) only: no wall time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"
#include "protocols/protocol.h"
#include "sim/cli/cli.h"
#include "sim/engine/explore.h"
#include "sim/engine/run.h"

#define DEFAULT_WINDOW_US SIM_SEC(2)

int cli_load(const char *path, scenario *s)
{
    scn_error err;
    if (run_load(path, cli_scripts_override(), cli_scripts_override() != NULL, s, &err) != 0) {
        scn_error_print(&err);
        return -1;
    }
    return 0;
}

int cli_parse_seed(const char *v, unsigned long long *seed)
{
    char *end;
    if (v == NULL || *v < '0' || *v > '9') return -1;
    errno = 0;
    *seed = strtoull(v, &end, 10);
    return *end || errno ? -1 : 0;
}

/* The trace lines of one run: run_opts.trace writes them into a memory
 * stream, split here at the newlines. */
typedef struct lines {
    char *buf;
    size_t len;
    size_t *off;
    size_t n;
} lines;

static void lines_split(lines *l)
{
    size_t cap = 1024;
    l->off = sim_xmalloc(cap * sizeof *l->off);
    for (size_t at = 0; at < l->len;) {
        char *nl = memchr(l->buf + at, '\n', l->len - at);
        if (l->n == cap) l->off = sim_xrealloc(l->off, (cap *= 2) * sizeof *l->off);
        l->off[l->n++] = at;
        if (nl == NULL) break;
        *nl = '\0';
        at = (size_t)(nl - l->buf) + 1;
    }
}

/* Seconds with six decimals; a client clock set back may read below 0. */
static void stamp(int64_t us, char *buf, size_t cap)
{
    uint64_t a = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    char sec[24];
    snprintf(sec, sizeof sec, "%s%llu", us < 0 ? "-" : "", (unsigned long long)(a / 1000000));
    snprintf(buf, cap, "%5s.%06llus", sec, (unsigned long long)(a % 1000000));
}

static void print_violation(const check_violation *v)
{
    char t[32];
    stamp(v->t_us, t, sizeof t);
    printf(">> %s  VIOLATION %s: %s\n", t, scn_invariant_name(v->inv), v->detail);
}

/* The clocks the faults moved, followed from the fault lines of the trace
 * (a machine's clock outlives its processes and a node's its restarts), so
 * lines by a moved endpoint show its local time too. */
#define MAX_SKEWED 64

typedef struct skew {
    char name[32];     /* "redis0", "redis0.r1", "c2" */
    int64_t offset_us; /* local - true, at base */
    int64_t drift_ppm;
    int64_t base_us;
} skew;

typedef struct clocks {
    skew v[MAX_SKEWED];
    int n;
} clocks;

static int64_t skew_at(const skew *k, int64_t us)
{
    return k->offset_us + (us - k->base_us) * k->drift_ppm / 1000000;
}

static skew *skew_find(clocks *c, const char *name, size_t len, int add)
{
    for (int i = 0; i < c->n; i++)
        if (strlen(c->v[i].name) == len && !strncmp(c->v[i].name, name, len)) return &c->v[i];
    if (!add || c->n == MAX_SKEWED || len >= sizeof c->v[0].name) return NULL;
    skew *k = &c->v[c->n++];
    memset(k, 0, sizeof *k);
    memcpy(k->name, name, len);
    return k;
}

/* A fault line "at = T clock node=X|client=cN jump=|offset=|drift=": moves
 * the clock it names at true time us; returns it (NULL: not a clock). */
static skew *clock_fault(clocks *c, const char *text, int64_t us)
{
    const char *who = strstr(text, " clock ");
    if (who == NULL) return NULL;
    const char *n = strstr(who, " node="), *cl = strstr(who, " client=");
    const char *name = n ? n + 6 : cl ? cl + 8 : NULL;
    if (name == NULL) return NULL;
    skew *k = skew_find(c, name, strcspn(name, " "), 1);
    const char *j = strstr(who, " jump="), *o = strstr(who, " offset="), *d = strstr(who, " drift=");
    char v[64];
    int64_t x;
    if (k == NULL) return NULL;
    k->offset_us = skew_at(k, us);
    k->base_us = us;
    if (j || o) {
        const char *val = j ? j + 6 : o + 8;
        snprintf(v, sizeof v, "%.*s", (int)strcspn(val, " "), val);
        if (scn_parse_duration(v, &x) == 0) k->offset_us = j ? k->offset_us + x : x;
    } else if (d) {
        k->drift_ppm = strtoll(d + 7, NULL, 10);
    }
    return k;
}

/* One trace line "<us> <who> <text>" as a timeline line; lines by an
 * endpoint whose clock was moved end with its local time. */
static void print_line(const char *line, int events, int show, clocks *c)
{
    char *end;
    long long us = strtoll(line, &end, 10);
    const char *who = *end == ' ' ? end + 1 : end;
    const char *sp = strchr(who, ' ');
    int wlen = sp ? (int)(sp - who) : (int)strlen(who);
    const char *text = sp ? sp + 1 : "";
    int fault = wlen == 5 && !strncmp(who, "fault", 5);
    /* A client thread "c1.t2" runs on the machine "c1"; "redis0.r1" is a node. */
    size_t mlen = who[0] == 'c' ? strcspn(who, ". ") : (size_t)wlen;
    skew *k = fault ? clock_fault(c, text, us) : skew_find(c, who, mlen, 0);
    if (!show || (!events && wlen == 2 && !strncmp(who, "ev", 2))) return;
    char t[32], local[64] = "";
    stamp(us, t, sizeof t);
    if (k && (skew_at(k, us) != 0 || k->drift_ppm != 0)) {
        char lt[32];
        stamp(us + skew_at(k, us), lt, sizeof lt);
        snprintf(local, sizeof local, "  [%s clock %s]", k->name, lt + strspn(lt, " "));
    }
    printf("%s %s  %-8.*s %s%s\n", fault ? "!!" : "  ", t, wlen, who, text, local);
}

static void print_footer(const run_result *r)
{
    static const char *const want[] = {"", "held", "violated", "any"};
    const scenario *s = r->s;
    printf("verdicts:");
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        if (r->checks.verdict[i] == CHECK_UNKNOWN && s->expect[i] == SCN_EXPECT_NONE) continue;
        printf(" %s %s", scn_invariant_name((scn_invariant)i), check_verdict_name(r->checks.verdict[i]));
        if (s->expect[i] != SCN_EXPECT_NONE) printf(" (expected %s)", want[s->expect[i]]);
        printf(";");
    }
    printf("\n%zu violation%s; expectations %s%s\n", r->checks.nv, r->checks.nv == 1 ? "" : "s",
           r->expectations_met ? "met" : "NOT met: ", r->expectations_met ? "" : r->expectation_failure);
}

typedef struct replay_args {
    const char *path;
    unsigned long long seed;
    int has_seed;
    int around_violation;
    int64_t around_us;   /* -1: the whole run */
    int64_t window_us;
    int events;
    int print_scenario;
    const char *choices;  /* a path of locksim check, or NULL */
    int64_t horizon_us;   /* > 0: the run stops there (as check ran it) */
    int swarm;            /* --swarm: the scenario the seed draws */
} replay_args;

static int usage_error(const char *fmt, const char *v)
{
    return cli_usage_error("replay", "locksim replay SCENARIO [--seed N] [--around T|violation] [--window D] "
                                     "[--choices STR] [--horizon D] [--no-events] [--print-scenario] [--swarm]", fmt, v);
}

static int parse_args(int argc, char **argv, replay_args *a)
{
    memset(a, 0, sizeof *a);
    a->around_us = -1;
    a->window_us = DEFAULT_WINDOW_US;
    a->events = 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--seed") && v) {
            if (cli_parse_seed(v, &a->seed) != 0) return usage_error("--seed wants an integer (got \"%s\")", v);
            a->has_seed = 1;
            i++;
        } else if (!strcmp(o, "--around") && v) {
            if (!strcmp(v, "violation")) a->around_violation = 1;
            else if (scn_parse_duration(v, &a->around_us) != 0 || a->around_us < 0)
                return usage_error("--around wants a time such as 46.7s, or \"violation\" (got \"%s\")", v);
            i++;
        } else if (!strcmp(o, "--window") && v) {
            if (scn_parse_duration(v, &a->window_us) != 0 || a->window_us <= 0)
                return usage_error("--window wants a duration such as 2s (got \"%s\")", v);
            i++;
        } else if (!strcmp(o, "--choices") && v) {
            explore_replay probe;
            if (explore_replay_parse(&probe, v) != 0)
                return usage_error("--choices wants values separated by '.' (got \"%s\")", v);
            explore_replay_free(&probe);
            a->choices = v;
            i++;
        } else if (!strcmp(o, "--horizon") && v) {
            if (scn_parse_duration(v, &a->horizon_us) != 0 || a->horizon_us <= 0)
                return usage_error("--horizon wants a duration such as 5s (got \"%s\")", v);
            i++;
        } else if (!strcmp(o, "--no-events")) {
            a->events = 0;
        } else if (!strcmp(o, "--swarm")) {
            a->swarm = 1;
        } else if (!strcmp(o, "--print-scenario")) {
            a->print_scenario = 1;
        } else if (o[0] == '-') {
            return usage_error("unknown or incomplete option \"%s\"", o);
        } else if (a->path) {
            return usage_error("one scenario at a time (got a second: \"%s\")", o);
        } else {
            a->path = o;
        }
    }
    if (a->path == NULL) return usage_error("no scenario given%s", NULL);
    return 0;
}

/* Prints the timeline of lines between lo and hi (true µs), violations
 * merged in at their times. */
static void print_timeline(const lines *l, const run_result *r, int64_t lo, int64_t hi, int events)
{
    size_t nv = r->checks.nv, vi = 0;
    /* Violations in time order (checkers report them per invariant). */
    const check_violation **vs = sim_xcalloc(nv + 1, sizeof *vs);
    for (size_t i = 0; i < nv; i++) {
        size_t j = i;
        while (j > 0 && vs[j - 1]->t_us > r->checks.v[i].t_us) {
            vs[j] = vs[j - 1];
            j--;
        }
        vs[j] = &r->checks.v[i];
    }
    clocks c = {.n = 0};
    for (size_t i = 0; i < l->n; i++) {
        const char *line = l->buf + l->off[i];
        int64_t us = strtoll(line, NULL, 10);
        for (; vi < nv && vs[vi]->t_us < us; vi++)
            if (vs[vi]->t_us >= lo && vs[vi]->t_us <= hi) print_violation(vs[vi]);
        print_line(line, events, us >= lo && us <= hi, &c);
    }
    for (; vi < nv; vi++)
        if (vs[vi]->t_us >= lo && vs[vi]->t_us <= hi) print_violation(vs[vi]);
    sim_xfree(vs);
}

int cli_replay(int argc, char **argv)
{
    replay_args a;
    if (parse_args(argc, argv, &a) != 0) return 2;
    scenario s;
    if (cli_load(a.path, &s) != 0) return 2;
    uint64_t seed = a.has_seed ? a.seed : s.has_seed ? s.seed : 1;
    if (a.print_scenario) {
        /* With swarm testing: the plain scenario the seed draws, with it. */
        char desc[512];
        scenario *drawn = s.swarm || a.swarm ? fault_swarm_draw(&s, seed, desc, sizeof desc) : NULL;
        if (drawn) {
            drawn->seed = seed;
            drawn->has_seed = 1;
            printf("# drawn by swarm testing from %s, seed %llu: %s\n", s.path, (unsigned long long)seed, desc);
        }
        int rc = scn_write(stdout, drawn ? drawn : &s);
        if (drawn) fault_swarm_free(drawn);
        if (rc != 0)
            fprintf(stderr, "%s: cannot be written back whole (a line longer than the parser reads)\n", a.path);
        scn_free(&s);
        return rc == 0 ? 0 : 2;
    }
    lines l = {0};
    FILE *sink = open_memstream(&l.buf, &l.len);
    sim_assert(sink != NULL);
    run_opts o = {.trace = sink, .horizon_us = a.horizon_us, .swarm = a.swarm};
    explore_replay rep = {0};
    if (a.choices) {
        explore_replay_parse(&rep, a.choices);
        o.chooser = explore_replay_choose;
        o.chooser_ud = &rep;
    }
    history h;
    run_result r;
    scn_error err;
    hist_init(&h);
    int status;
    int run_rc = run_scenario(&s, seed, &o, &r, &h, &err);
    explore_replay_free(&rep);
    if (run_rc != 0) {
        scn_error_print(&err);
        fclose(sink);
        status = 2;
    } else {
        fclose(sink);
        lines_split(&l);
        int64_t lo = 0, hi = INT64_MAX, first = -1;
        for (size_t i = 0; i < r.checks.nv; i++)
            if (first < 0 || r.checks.v[i].t_us < first) first = r.checks.v[i].t_us;
        int64_t at = a.around_violation ? first : a.around_us;
        char proto[512];
        printf("replay %s  seed %llu  %s  %zu trace lines  trace %016llx\n", s.path, (unsigned long long)seed,
               scn_protocol_label(&s, proto, sizeof proto), l.n, (unsigned long long)r.trace_hash);
        if (a.around_violation && first < 0) {
            printf("(no violation in this run: nothing around it to show)\n");
            lo = 1;
            hi = 0;
        } else if (at >= 0) {
            char t[32], w0[32], w1[32];
            lo = at > a.window_us ? at - a.window_us : 0;
            hi = at + a.window_us / 4;
            stamp(at, t, sizeof t);
            stamp(lo, w0, sizeof w0);
            stamp(hi, w1, sizeof w1);
            printf("window %s .. %s around %s%s\n", w0, w1, t, a.around_violation ? " (the first violation)" : "");
        }
        print_timeline(&l, &r, lo, hi, a.events);
        print_footer(&r);
        status = r.expectations_met ? 0 : 1;
        run_result_free(&r);
    }
    hist_free(&h);
    free(l.buf); /* open_memstream's, from malloc */
    sim_xfree(l.off);
    scn_free(&s);
    return status;
}
