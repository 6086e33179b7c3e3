/* cmd_hunt.c — `locksim hunt TARGET --seeds A..B`: swarm testing of one
 * protocol (or of a scenario file), the failing seeds grouped by the
 * signature of their run (the invariant, the fault kinds shortly before
 * it), the first seed of each group shrunk, and the groups merged by the
 * signature of the shrunk scenario (the faults no run can do without).
 * One shrunk scenario per signature is written to --out. With --want
 * FILE (a known bug), the hunt stops at the first seed that shrinks to
 * FILE's signature, and says after how many seeds. Seeds and shrinks run
 * in the worker pool (--jobs), their results taken in list order: the
 * output does not depend on --jobs. Exit 0 when nothing
 * failed (or, with --want, the signature was found), 1 otherwise, 2 on
 * bad input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protocols/protocol.h"
#include "reports/report.h"
#include "sim/cli/cli.h"
#include "sim/cli/hunt_part.h"
#include "sim/engine/hunt.h"
#include "sim/engine/pool.h"
#include "faults/fault.h"
#include "reports/report.h"

/* The seeds run between two looks at the failures: 64 first, twice as
 * many each time after, up to 512. A slow protocol (the fair lock runs
 * a few seeds a second on a core) has its first candidates shrunk within
 * a minute; the later chunks keep the cores busy between two barriers.
 * The bounds depend on the seeds alone, never on --jobs. */
#define HUNT_CHUNK_FIRST 64
#define HUNT_CHUNK 512

typedef struct hunt_args {
    const char *target, *want_path, *out_dir;
    const char *against;  /* --against REF: count only what REF holds on the same seed */
    const char *report_dir; /* --report DIR: the page of the signatures */
    const char *shard;    /* --shard I/N: run a slice of the seeds into a partial hunt (hunt_part.h) */
    uint64_t seed_a, seed_b;
    unsigned jobs, max_shrinks;
    int progress, print_base, verbose;
    int beyond;           /* --beyond-contract: draw every fault, label those beyond */
    int json;             /* --json: one object per signature, then a summary */
} hunt_args;

/* A failing seed as its run saw it. */
typedef struct failure {
    uint64_t seed;
    hunt_sig sig;
    unsigned held; /* --against --want: the wanted invariants the target broke and the reference held */
} failure;

/* The record of a seed: "inv invs kinds beyond ref held", ref 1 when the
 * reference held an invariant the target broke (2: no reference), held
 * the wanted invariants it held (--want). */
#define REC_FMT "%d %u %u %d %d %u"
#define REF_NONE 2

/* One signature found: its shrunk scenario, and the seeds behind it. */
/* found.shrunk of a shrink that stopped early: its failure needs a fault
 * kind the hunt does not want (shrink_stats.abandoned). */
#define SHRUNK_STOPPED 2

typedef struct found {
    hunt_sig run;        /* the run signature of its first seed */
    hunt_sig final;      /* after shrinking (valid when shrunk) */
    int shrunk;          /* 1, or SHRUNK_STOPPED */
    uint64_t first_seed, seeds;
    int clients, threads;
    size_t faults, steps;
    int64_t duration_us;
    uint64_t events;     /* of a run of the shrunk scenario */
    char file[512];
    /* --against: the reference on the shrunk file (the witness pair) */
    unsigned ref_keep;   /* --want: the invariants the reference must go on holding */
    unsigned ref_broke;  /* the invariants it broke there (of those the target broke) */
    char ref_file[560];
} found;

typedef struct hunt {
    const hunt_args *a;
    scenario base;
    const hunt_sig *want; /* --want: the signature hunted (its fault kinds kept by every shrink) */
    uint64_t chunk0;     /* the first seed of the chunk running */
    uint64_t step;       /* between two seeds of it: 1, or a shard's N */
    unsigned shard_i, shard_n; /* a shard of a hunt (--shard, or the environment): its partial hunt */
    int sharded;
    FILE *part;
    const hunt_parts *merged; /* locksim merge: the shards' records stand for the runs */
    size_t next_rec;     /* the first of merged's records not taken */
    failure *fails;
    size_t nfails, cap;
    uint64_t runs;
    uint64_t unrun;      /* --want: seeds not run, as their draw lacks a wanted kind */
    uint64_t both;       /* --against: seeds where the reference broke it too (not counted) */
    char against[600];   /* the reference as the base names it (a policy file: its path) */
} hunt;

/* The record of a seed not run: its draw lacks a kind --want needs. */
#define UNRUN "-"

static int usage(const char *fmt, const char *v)
{
    return cli_usage_error("hunt", "locksim hunt PROTOCOL[@VERSION] | LOCK-FILE | SCENARIO --seeds A..B "
                                   "[--against REF] [--beyond-contract] [--json] [--jobs N] [--out DIR] "
                                   "[--max-shrinks K] [--want KNOWN-BUG.scn] [--report DIR] [--shard I/N] [--verbose] "
                                   "[--print-base]",
                           fmt, v);
}

static int parse_args(int argc, char **argv, hunt_args *a)
{
    a->jobs = 1;
    a->max_shrinks = 30;
    a->out_dir = "out/hunt";
    a->seed_a = 1;
    a->seed_b = 1000;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((!strcmp(o, "--seeds") || !strcmp(o, "--seed")) && v) {
            if (cli_parse_seeds(v, &a->seed_a, &a->seed_b) != 0) return usage("--seeds wants A..B (got \"%s\")", v);
            i++;
        } else if (!strcmp(o, "--jobs") && v) {
            if (cli_parse_jobs("locksim hunt", v, &a->jobs) != 0) return 2;
            i++;
        } else if (!strcmp(o, "--out") && v) {
            a->out_dir = v;
            i++;
        } else if (!strcmp(o, "--report") && v) {
            a->report_dir = v;
            i++;
        } else if (!strcmp(o, "--want") && v) {
            a->want_path = v;
            i++;
        } else if (!strcmp(o, "--max-shrinks") && v) {
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || n > 100000) return usage("--max-shrinks wants a count (got \"%s\")", v);
            a->max_shrinks = (unsigned)n;
            i++;
        } else if (!strcmp(o, "--against") && v) {
            a->against = v;
            i++;
        } else if (!strcmp(o, "--shard") && v) {
            a->shard = v;
            i++;
        } else if (!strcmp(o, "--beyond-contract")) {
            a->beyond = 1;
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--print-base")) {
            a->print_base = 1;
        } else if (!strcmp(o, "--verbose")) {
            a->verbose = 1;
        } else if (!strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            a->progress = !strcmp(o, "--progress") ? 1 : -1;
        } else if (o[0] == '-') {
            return usage("unknown or incomplete option \"%s\"", o);
        } else if (a->target) {
            return usage("one target at a time (got a second: \"%s\")", o);
        } else {
            a->target = o;
        }
    }
    if (a->target == NULL) return usage("no protocol or scenario given%s", NULL);
    if (a->report_dir && a->want_path) return usage("--report is for a hunt without --want%s", NULL);
    return 0;
}

/* Is arg a lock policy file (a path ending in .lock that is no name of
 * the catalogue: "redisson.lock" is one)? */
static int is_policy_file(const char *arg)
{
    size_t n = strlen(arg);
    return n > 5 && !strcmp(arg + n - 5, ".lock") && (strchr(arg, '/') || proto_find(arg) == NULL);
}

/* A protocol named on the command line as the base names it: a lock
 * policy file by its absolute path (the shrunk files are elsewhere),
 * else the name. 0, or 2 with a one-line error. */
static int protocol_name(const char *arg, char *buf, size_t cap)
{
    if (!is_policy_file(arg)) {
        snprintf(buf, cap, "%s", arg);
        return 0;
    }
    char *abs = realpath(arg, NULL);
    if (abs == NULL) {
        fprintf(stderr, "locksim hunt: %s: %s\n", arg, strerror(errno));
        return 2;
    }
    snprintf(buf, cap, "%s", abs);
    free(abs);
    return 0;
}

/* The base scenario: the file TARGET, or the protocol's template (a lock
 * policy file's too). */
static int load_base(const hunt_args *a, hunt *h, scenario *s)
{
    struct stat st;
    scn_error err;
    const char *target = a->target;
    int policy_file = is_policy_file(target);
    if (a->against && protocol_name(a->against, h->against, sizeof h->against) != 0) return 2;
    if (a->against && hunt_find(h->against, &err) == NULL) {
        if (err.line > 0) scn_error_print(&err); /* the policy file's own error */
        else fprintf(stderr, "locksim hunt: --against: %s\n", proto_unknown_reason(a->against, err.msg, sizeof err.msg));
        return 2;
    }
    if (!policy_file && (strchr(target, '/') || (stat(target, &st) == 0 && S_ISREG(st.st_mode)))) {
        if (cli_load(target, s) != 0) return 2;
        if (a->against) { /* the reference runs the same file, drawn within both contracts */
            char why[300];
            const proto_def *pa = proto_resolve(s, &err);
            if (pa && !hunt_comparable(pa, hunt_find(h->against, NULL), why, sizeof why)) {
                fprintf(stderr, "locksim hunt: %s\n", why);
                scn_free(s);
                return 2;
            }
            sim_xfree(s->swarm_reference);
            s->swarm_reference = sim_xstrdup(h->against);
        }
        return 0;
    }
    char name[600];
    if (protocol_name(target, name, sizeof name) != 0) return 2;
    hunt_base_opts bo = {.beyond = a->beyond || a->want_path != NULL, .against = a->against ? h->against : NULL};
    char *text = hunt_template(name, &bo, &err);
    if (text == NULL) {
        if (err.line > 0) scn_error_print(&err); /* a policy file's own error */
        else fprintf(stderr, "locksim hunt: %s\n", err.msg);
        return 2;
    }
    char path[256];
    snprintf(path, sizeof path, "hunt-%s.scn", target);
    int rc = scn_load_string(path, text, s, &err);
    free(text); /* open_memstream's */
    if (rc != 0) {
        scn_error_print(&err);
        return 2;
    }
    /* --scripts DIR: the target runs the user's patch of its scripts (the
     * reference of --against its own). */
    const scn_override *patch = cli_scripts_override();
    if (patch && run_use_scripts(s, patch->value, &err) != 0) {
        scn_error_print(&err);
        scn_free(s);
        return 2;
    }
    if (proto_resolve(s, &err) == NULL) {
        scn_error_print(&err);
        scn_free(s);
        return 2;
    }
    return 0;
}

/* ----------------------------------------------------------- the runs */

/* The scenario s with the reference as its protocol: the same faults and
 * workload (its draws within the same two contracts). Shallow: borrows
 * s's strings but for two names of its own, which the caller frees. */
static scenario with_reference(const hunt *h, const scenario *s)
{
    scenario r = *s;
    r.protocol = sim_xstrdup(h->against);
    r.scripts = NULL; /* a patch is the target's, never the reference's */
    r.scripts_line = 0;
    r.swarm_reference = s->swarm_reference ? sim_xstrdup(s->protocol) : NULL;
    return r;
}

/* The invariants of invs that the reference breaks on scenario s with
 * seed (swarm: s draws): a bit for each. -1 when it cannot run. */
static int reference_breaks(const hunt *h, const scenario *s, uint64_t seed, int swarm, unsigned invs, unsigned *broke)
{
    scenario r = with_reference(h, s);
    history hist;
    run_result rr;
    scn_error err;
    run_opts o = {.swarm = swarm};
    hist_init(&hist);
    int rc = run_scenario(&r, seed, &o, &rr, &hist, &err);
    *broke = 0;
    if (rc == 0) {
        for (int i = 0; i < SCN_INV_COUNT; i++)
            if ((invs & (1u << i)) && rr.checks.verdict[i] == CHECK_VIOLATED) *broke |= 1u << i;
        run_result_free(&rr);
    }
    hist_free(&hist);
    sim_xfree(r.protocol);
    sim_xfree(r.swarm_reference);
    return rc;
}

/* Narrows a run signature to the invariants keep (not 0): the first of
 * them broken in r becomes its first. */
static void only_invariants(hunt_sig *sig, const run_result *r, unsigned keep)
{
    sim_assert(keep != 0 && (sig->invs & keep) == keep);
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < r->checks.nv; i++) {
        const check_violation *v = &r->checks.v[i];
        if ((keep & (1u << v->inv)) && v->t_us < first) first = v->t_us, sig->inv = (int)v->inv;
    }
    if (first == INT64_MAX) /* past the recorded violations: the lowest */
        for (int i = SCN_INV_COUNT - 1; i >= 0; i--)
            if (keep & (1u << i)) sig->inv = i;
    sig->invs = keep;
}

/* The seed of item k of the range running (a shard's: every N-th). */
static uint64_t seed_of(const hunt *h, size_t k)
{
    return h->chunk0 + (uint64_t)k * h->step;
}

static void run_seed(void *arg, size_t k, pool_result *res)
{
    hunt *h = arg;
    uint64_t seed = seed_of(h, k);
    history hist;
    run_result r;
    scn_error err;
    run_opts o = {.swarm = 1};
    /* A run can only have the kinds its draw has (fault kinds, the async
     * API, siblings: hunt_run_sig asserts it): without one that the
     * wanted signature needs, the seed is no candidate, whatever it does. */
    unsigned need = h->want ? h->want->kinds & HUNT_DRAWN_KINDS : 0;
    if (need && (need & ~hunt_seed_kinds(&h->base, seed))) {
        res->rec = sim_xmemdup(UNRUN, strlen(UNRUN));
        res->rec_len = strlen(UNRUN);
        return;
    }
    hist_init(&hist);
    if (run_scenario(&h->base, seed, &o, &r, &hist, &err) != 0) {
        cli_result_error(res, &err);
        hist_free(&hist);
        return;
    }
    hunt_sig sig;
    if (hunt_run_sig(&r, &sig)) {
        /* A differential hunt counts a failure only where the reference,
         * on the same seed, holds an invariant the target broke: the
         * signature is what the target broke and the reference held. */
        int ref = REF_NONE;
        unsigned broke = 0, held = 0;
        if (h->a->against) {
            ref = reference_breaks(h, &h->base, seed, 1, sig.invs, &broke) == 0 && (sig.invs & ~broke) != 0;
            /* Hunting a known bug, the signature stays whole (the fixed
             * version may break a part of it too): the wanted invariants
             * the reference held are what it must go on holding. */
            if (h->want) ref = ref && (held = sig.invs & h->want->invs & ~broke) != 0;
            /* An earlier violation the reference shares (not the wanted
             * one) would set the run's window and kinds elsewhere. */
            if (h->want && ref && (sig.inv < 0 || !((1u << sig.inv) & held))) hunt_run_sig_among(&r, held, &sig);
            else if (ref) only_invariants(&sig, &r, sig.invs & ~broke);
        }
        char rec[80];
        int n = snprintf(rec, sizeof rec, REC_FMT, sig.inv, sig.invs, sig.kinds, sig.beyond, ref, held);
        res->rec = sim_xmemdup(rec, (size_t)n);
        res->rec_len = (size_t)n;
        res->status = 1;
    }
    run_result_free(&r);
    hist_free(&hist);
}

static void label_seed(void *arg, size_t k, char *buf, size_t cap)
{
    const hunt *h = arg;
    snprintf(buf, cap, "%s seed %llu", h->base.path, (unsigned long long)seed_of(h, k));
}

/* The result of seed's run, taken in seed order: from the pool, or with
 * locksim merge from a shard's record of it. */
static void take(hunt *h, uint64_t seed, const pool_result *res)
{
    if (res->status == 0 && res->rec_len == strlen(UNRUN) && !memcmp(res->rec, UNRUN, res->rec_len)) {
        h->unrun++;
        return;
    }
    h->runs++;
    if (res->status != 1 || res->rec == NULL) return;
    if (h->part) hunt_part_seed(h->part, seed, res->rec, res->rec_len); /* the merge takes it as here */
    failure f = {.seed = seed};
    int ref;
    if (sscanf(res->rec, REC_FMT, &f.sig.inv, &f.sig.invs, &f.sig.kinds, &f.sig.beyond, &ref, &f.held) != 6) return;
    if (ref == 0) { /* the reference broke it too: no difference */
        h->both++;
        return;
    }
    if (h->nfails == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->fails = sim_xrealloc(h->fails, h->cap * sizeof *h->fails);
    }
    h->fails[h->nfails++] = f;
}

static void on_result(void *arg, size_t k, const pool_result *res)
{
    hunt *h = arg;
    take(h, seed_of(h, k), res);
}

/* locksim merge: seeds [a, b] as the shards ran them. A seed the draw
 * skips (--want) is skipped here too (a draw, no run); every other seed
 * ran in some shard, which recorded it if it failed. */
static void replay_range(hunt *h, uint64_t a, uint64_t b)
{
    const hunt_parts *p = h->merged;
    unsigned need = h->want ? h->want->kinds & HUNT_DRAWN_KINDS : 0;
    for (uint64_t seed = a;; seed++) {
        pool_result res = {0};
        while (h->next_rec < p->nrecs && p->recs[h->next_rec].seed < seed) h->next_rec++;
        if (need && (need & ~hunt_seed_kinds(&h->base, seed))) {
            res.rec = (char *)UNRUN;
            res.rec_len = strlen(UNRUN);
        } else if (h->next_rec < p->nrecs && p->recs[h->next_rec].seed == seed) {
            res.status = 1;
            res.rec = p->recs[h->next_rec].rec;
            res.rec_len = strlen(res.rec);
        }
        take(h, seed, &res);
        if (seed == b) break;
    }
}

/* Runs seeds [a, b] in the pool (a shard: its own of them); the failures
 * join h->fails. Returns 0, 2 when a run could not run, 130 when
 * interrupted. */
static int run_range(hunt *h, uint64_t a, uint64_t b)
{
    if (h->merged) {
        replay_range(h, a, b);
        return 0;
    }
    pool_opts po = {.jobs = h->a->jobs, .progress = pool_progress_wanted(h->a->progress), .on_result = on_result,
                    .on_result_arg = h};
    uint64_t runs = 0, failed = 0, n = b - a + 1;
    h->chunk0 = a;
    h->step = 1;
    if (h->sharded) { /* seeds a + i, a + i + N, ...: a shard of every part of the range */
        uint64_t off = (h->shard_i + h->shard_n - (a - h->a->seed_a) % h->shard_n) % h->shard_n;
        h->chunk0 = a + off;
        h->step = h->shard_n;
        n = off >= n ? 0 : (n - 1 - off) / h->shard_n + 1;
    }
    int status = n ? pool_run(&po, (size_t)n, run_seed, label_seed, h, &runs, &failed) : 0;
    if (pool_interrupted()) return 130;
    return status == 2 ? 2 : 0;
}

/* -------------------------------------------------------- shrinking */

/* mkdir -p dir (what cannot be made shows when the file is written). */
static void make_dirs(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    mkdir(path, 0777);
}

/* A batch of shrinks through the pool, one item per failing seed: a
 * worker shrinks its seed, writes the result as DIR/TARGET--seedN.part
 * and sends back the signature and sizes; this process takes the results
 * in list order, names each file by its signature, and with --want stops
 * at the first item (in list order) that shrinks to the wanted one. */
typedef struct batch {
    hunt *h;
    found *v;             /* the items (run, first_seed, seeds set); filled as results come */
    size_t n;
    unsigned keep_invs;   /* the invariants every shrink keeps broken (0: all its run breaks) */
    size_t done;          /* results taken, in list order */
    size_t match;         /* --want: the item that matched (NONE) */
} batch;

#define NONE ((size_t)-1)

/* DIR/TARGET: what the files of a hunt's shrinks start with. */
static void file_stem(const hunt *h, char *buf, size_t cap)
{
    char name[160];
    const char *t = h->a->target, *slash = strrchr(t, '/');
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : t);
    char *dot = strstr(name, ".scn");
    if (dot) *dot = '\0';
    snprintf(buf, cap, "%s/%s", h->a->out_dir, name);
}

/* The file a worker writes item f to: DIR/TARGET--seedN.part. */
static void part_file(const hunt *h, const found *f, char *buf, size_t cap)
{
    char stem[400]; /* room for the seed in a file name */
    file_stem(h, stem, sizeof stem);
    snprintf(buf, cap, "%s--seed%llu.part", stem, (unsigned long long)f->first_seed);
}

/* Writes k's shrunk scenario to path: 0, or -1 (errno). */
static int write_shrunk(const hunt *h, const found *f, const shrink_result *k, const char *path)
{
    char sig[256];
    FILE *out = fopen(path, "w");
    if (out == NULL) return -1;
    hunt_sig_text(&f->final, sig, sizeof sig);
    fprintf(out, "# locksim hunt %s: seed %llu shrunk; %s\n", h->a->target, (unsigned long long)f->first_seed, sig);
    int bad = scn_write(out, &k->out);
    if (fclose(out) != 0 || bad) return -1;
    return 0;
}

/* Item k (in a worker, or here with --jobs 1): shrinks its seed keeping
 * the batch's invariants and, hunting for h->want, a fault line of each of
 * its kinds; writes the result to its part file and runs it once (its
 * events). The record: "shrunk inv invs kinds clients threads faults
 * steps duration events"; status 1 when it is the signature wanted, 2
 * when the file cannot be written. */
/* A differential hunt's shrink keeps the reference holding: a candidate
 * counts only where the reference, on it with the same seed, breaks none
 * of the invariants the target breaks there. */
typedef struct witness {
    const hunt *h;
    uint64_t seed;
    unsigned keep; /* the invariants the target breaks and the reference holds */
} witness;

static int reference_holds(const scenario *cand, const shrink_failure *got, void *arg)
{
    const witness *w = arg;
    if (w->h->want && !hunt_keeps_kinds(cand, got, (void *)&w->h->want->kinds)) return 0;
    if (got == NULL) return 1; /* it must run first */
    unsigned broke;
    return reference_breaks(w->h, cand, w->seed, 0, w->keep, &broke) == 0 && broke == 0;
}

/* hunt_unwanted_line for a differential --want (its argument the witness). */
static int unwanted_kind(const scn_step *line, void *arg)
{
    const witness *w = arg;
    return hunt_unwanted_line(line, (void *)&w->h->want->kinds);
}

/* The reference's file of the witness pair: the shrunk scenario with the
 * reference as its protocol, beside its part file (f->file) as
 * PART.ref until it is named; with what the reference broke there of the
 * invariants the target broke. 0, or -1 (errno). */
static int write_reference(const hunt *h, found *f, const shrink_result *k)
{
    snprintf(f->ref_file, sizeof f->ref_file, "%s.ref", f->file);
    scenario r = with_reference(h, &k->out);
    FILE *out = fopen(f->ref_file, "w");
    int bad = out == NULL;
    if (out) {
        fprintf(out, "# locksim hunt %s --against %s: the reference on the shrunk scenario of seed %llu\n",
                h->a->target, h->a->against, (unsigned long long)f->first_seed);
        bad = scn_write(out, &r) != 0;
        bad |= fclose(out) != 0;
    }
    if (!bad && reference_breaks(h, &k->out, k->out.seed, 0, f->final.invs, &f->ref_broke) != 0) f->ref_broke = 0;
    sim_xfree(r.protocol);
    sim_xfree(r.swarm_reference);
    return bad ? -1 : 0;
}

static void shrink_item(void *arg, size_t k, pool_result *res)
{
    const batch *b = arg;
    const hunt *h = b->h;
    found f = b->v[k];
    shrink_result sk;
    scn_error err;
    shrink_opts so = {.flags = SHRINK_SWARM | SHRINK_SAME_INVARIANTS, .keep = b->keep_invs};
    witness w = {.h = h, .seed = f.first_seed, .keep = h->want ? f.ref_keep : f.run.invs};
    if (h->a->against && !h->want) so.keep = f.run.invs; /* what the reference held, kept broken */
    if (h->want) so.admit = hunt_keeps_kinds, so.unwanted = hunt_unwanted_line, so.admit_arg = (void *)&h->want->kinds;
    if (h->a->against) so.admit = reference_holds, so.admit_arg = &w, so.unwanted = h->want ? unwanted_kind : NULL;
    /* Not 1: it ran differently here (not expected); the item is not shrunk. */
    if (shrink_scenario(&h->base, f.first_seed, &so, &sk, &err) == 1) {
        f.shrunk = sk.stats.abandoned ? SHRUNK_STOPPED : 1;
        hunt_shrunk_sig(&sk, &f.final);
        if (h->a->against && !h->want && (f.final.invs & w.keep)) { /* the difference: what the reference held */
            unsigned keep = f.final.invs & w.keep;
            if (!(keep & (1u << f.final.inv)))
                for (int i = SCN_INV_COUNT - 1; i >= 0; i--)
                    if (keep & (1u << i)) f.final.inv = i;
            f.final.invs = keep;
        }
        if (h->want && hunt_sig_matches(&f.final, h->want))
            f.final.kinds &= ~hunt_spare_kinds(&sk.out, sk.out.seed, &sk.last, h->want->kinds);
        char path[sizeof f.file];
        part_file(h, &f, path, sizeof path);
        if (write_shrunk(h, &f, &sk, path) != 0 ||
            (h->a->against && (snprintf(f.file, sizeof f.file, "%s", path), write_reference(h, &f, &sk)) != 0)) {
            char msg[700];
            snprintf(msg, sizeof msg, "locksim hunt: cannot write %s: %s\n", path, strerror(errno));
            pool_result_fail(res, msg);
            shrink_result_free(&sk);
            return;
        }
        history hist;
        run_result r;
        run_opts o = {0};
        hist_init(&hist);
        if (run_scenario(&sk.out, sk.out.seed, &o, &r, &hist, &err) == 0) {
            f.events = r.events;
            run_result_free(&r);
        }
        hist_free(&hist);
        f.clients = shrink_clients_of(&sk.out);
        f.threads = sk.out.threads;
        f.faults = shrink_fault_lines(&sk.out);
        f.steps = shrink_step_lines(&sk.out);
        f.duration_us = sk.out.duration_us;
        res->status = h->want && hunt_sig_matches(&f.final, h->want);
    }
    shrink_result_free(&sk);
    char rec[240];
    int n = snprintf(rec, sizeof rec, "%d %d %u %u %d %d %zu %zu %lld %llu %d %u", f.shrunk, f.final.inv,
                     f.final.invs, f.final.kinds, f.clients, f.threads, f.faults, f.steps, (long long)f.duration_us,
                     (unsigned long long)f.events, f.final.beyond, f.ref_broke);
    res->rec = sim_xmemdup(rec, (size_t)n);
    res->rec_len = (size_t)n;
}

static void label_item(void *arg, size_t k, char *buf, size_t cap)
{
    const batch *b = arg;
    snprintf(buf, cap, "the shrink of %s seed %llu", b->h->base.path, (unsigned long long)b->v[k].first_seed);
}

/* --verbose: what one candidate's shrink gave, as it comes. */
static void print_shrunk(const hunt *h, const found *f)
{
    if (!h->a->verbose) return;
    char run[256], fin[256] = "not shrunk";
    hunt_sig_text(&f->run, run, sizeof run);
    if (f->shrunk == SHRUNK_STOPPED) snprintf(fin, sizeof fin, "not without a fault of another kind (shrink stopped before the duration)");
    else if (f->shrunk) hunt_sig_text(&f->final, fin, sizeof fin);
    printf("  seed %llu: %s -> %s%s\n", (unsigned long long)f->first_seed, run, fin,
           h->want && f->shrunk && hunt_sig_matches(&f->final, h->want) ? " (wanted)" : "");
    fflush(stdout);
}

/* The reference's file beside the shrunk one: NAME.scn -> NAME.ref.scn. */
static void ref_name(const char *file, char *buf, size_t cap)
{
    size_t n = strlen(file);
    if (n > 4 && !strcmp(file + n - 4, ".scn")) n -= 4;
    snprintf(buf, cap, "%.*s.ref.scn", (int)n, file);
}

/* Item k's result, in list order: its part file renamed
 * DIR/TARGET--SIGNATURE--seedN.scn (keep() gives it its final name), or
 * removed with --want unless it is the match. */
static void on_item(void *arg, size_t k, const pool_result *res)
{
    batch *b = arg;
    found *f = &b->v[k];
    long long dur;
    unsigned long long events;
    b->done = k + 1;
    char part[sizeof f->file], stem[sizeof f->file], sig[256];
    part_file(b->h, f, part, sizeof part);
    if (res->status == 2 || res->rec == NULL ||
        sscanf(res->rec, "%d %d %u %u %d %d %zu %zu %lld %llu %d %u", &f->shrunk, &f->final.inv, &f->final.invs,
               &f->final.kinds, &f->clients, &f->threads, &f->faults, &f->steps, &dur, &events, &f->final.beyond,
               &f->ref_broke) != 12 ||
        !f->shrunk) {
        f->shrunk = 0;
        remove(part); /* a file half written */
        char ref_part[sizeof part + 8];
        snprintf(ref_part, sizeof ref_part, "%s.ref", part);
        remove(ref_part);
        print_shrunk(b->h, f);
        return;
    }
    f->duration_us = dur;
    f->events = events;
    file_stem(b->h, stem, sizeof stem);
    hunt_sig_text(&f->final, sig, sizeof sig);
    for (char *c = sig; *c; c++)
        if (strchr(" ()+/:,", *c)) *c = '-';
    /* A signature beyond the contract is another finding than the same
     * one within it: its own file. */
    int len = snprintf(f->file, sizeof f->file, "%s--%s%s--seed%llu.scn", stem, sig,
                       f->final.beyond ? "--beyond-contract" : "", (unsigned long long)f->first_seed);
    if (len >= (int)sizeof f->file || rename(part, f->file) != 0) snprintf(f->file, sizeof f->file, "%s", part);
    if (b->h->a->against) {
        char ref_part[sizeof part + 8];
        snprintf(ref_part, sizeof ref_part, "%s.ref", part);
        ref_name(f->file, f->ref_file, sizeof f->ref_file);
        if (rename(ref_part, f->ref_file) != 0) snprintf(f->ref_file, sizeof f->ref_file, "%s", ref_part);
    }
    print_shrunk(b->h, f);
    if (res->status == 1 && b->match == NONE) b->match = k;
    else if (b->h->want) remove(f->file), f->file[0] = '\0';
}

/* Removes a found item's files (merged into another signature). */
static void drop_files(found *f)
{
    if (f->file[0]) remove(f->file);
    if (f->ref_file[0]) remove(f->ref_file);
}

/* Shrinks the n items of v through the pool (--jobs workers), each
 * keeping keep_invs; with --want it stops at the first that matches
 * (*match, else NONE). *done: how many results were taken (in order).
 * Returns 0, 2 when a file could not be written, 130 when a stop signal
 * came (a shrink cut short proves nothing: it is not taken). */
static int shrink_batch(hunt *h, found *v, size_t n, unsigned keep_invs, size_t *done, size_t *match)
{
    batch b = {.h = h, .v = v, .n = n, .keep_invs = keep_invs, .match = NONE};
    pool_opts po = {.jobs = h->a->jobs, .stop_on_failure = h->want != NULL, .on_result = on_item, .on_result_arg = &b};
    uint64_t runs = 0, matched = 0;
    make_dirs(h->a->out_dir);
    int status = n ? pool_run(&po, n, shrink_item, label_item, &b, &runs, &matched) : 0;
    for (size_t k = b.done; k < n; k++) { /* items not taken (stopped, or after the match): their files go */
        char part[sizeof v[k].file];
        part_file(h, &v[k], part, sizeof part);
        remove(part);
        char ref_part[sizeof part + 8];
        snprintf(ref_part, sizeof ref_part, "%s.ref", part);
        remove(ref_part);
    }
    *done = b.done;
    *match = b.match;
    if (pool_interrupted()) return 130;
    return status == 2 ? 2 : 0;
}

/* The shrunk file of a signature kept: DIR/TARGET--SIGNATURE.scn. */
static void keep(found *f)
{
    char *cut = strstr(f->file, "--seed");
    if (cut == NULL) return;
    char named[sizeof f->file];
    snprintf(named, sizeof named, "%.*s.scn", (int)(cut - f->file), f->file);
    if (rename(f->file, named) == 0) snprintf(f->file, sizeof f->file, "%s", named);
    if (f->ref_file[0]) {
        char ref[sizeof f->ref_file];
        ref_name(f->file, ref, sizeof ref);
        if (rename(f->ref_file, ref) == 0) snprintf(f->ref_file, sizeof f->ref_file, "%s", ref);
    }
}

/* What the reference broke of invs on the shrunk file: "holds" or
 * "breaks liveness+...". */
static void ref_text(unsigned broke, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "%s", broke ? "breaks " : "holds");
    for (int i = 0; i < SCN_INV_COUNT && n < cap; i++)
        if (broke & (1u << i))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n > 7 ? "+" : "", scn_invariant_name((scn_invariant)i));
}

static void print_found(const hunt *h, const found *f)
{
    char sig[256], dur[32];
    hunt_sig_text(f->shrunk ? &f->final : &f->run, sig, sizeof sig);
    printf("  %-44s %6llu seed%s (first %llu)", sig, (unsigned long long)f->seeds, f->seeds == 1 ? " " : "s",
           (unsigned long long)f->first_seed);
    if (f->shrunk) {
        scn_duration_format(f->duration_us, dur, sizeof dur);
        printf("  shrunk: %d client%s, %zu fault%s, %zu step%s, %s, %llu events  %s\n", f->clients,
               f->clients == 1 ? "" : "s", f->faults, f->faults == 1 ? "" : "s", f->steps, f->steps == 1 ? "" : "s",
               dur, (unsigned long long)f->events, f->file);
    } else {
        printf("  (not shrunk: --max-shrinks)\n");
    }
    const hunt_sig *sg = f->shrunk ? &f->final : &f->run;
    if (sg->beyond) {
        char why[400];
        fault_beyond_text(sg->beyond, why, sizeof why);
        printf("      beyond the contract: %s\n", why);
    }
    if (h->a->against && f->shrunk) {
        char rt[200];
        ref_text(f->ref_broke, rt, sizeof rt);
        printf("      %s on the same file: %s  %s\n", h->a->against, rt, f->ref_file);
    }
}

/* The failing seeds whose run signature is within the contract. */
static size_t failed_within(const hunt *h)
{
    size_t n = 0;
    for (size_t i = 0; i < h->nfails; i++) n += h->fails[i].sig.beyond == 0;
    return n;
}

/* The first line of a hunt's table. */
static void print_head(const hunt *h, size_t nsigs)
{
    const hunt_args *a = h->a;
    char label[600]; /* the target, and its patch of scripts (--scripts) */
    if (h->base.scripts) scn_protocol_label(&h->base, label, sizeof label);
    else snprintf(label, sizeof label, "%s", a->target);
    printf("hunt %s%s%s: seeds %llu..%llu, %llu runs, %zu failed (%.1f%%)", label, a->against ? " against " : "",
           a->against ? a->against : "", (unsigned long long)a->seed_a, (unsigned long long)a->seed_b,
           (unsigned long long)h->runs, h->nfails, h->runs ? 100.0 * (double)h->nfails / (double)h->runs : 0.0);
    if (a->against) printf(" where %s held, %llu where it failed too", a->against, (unsigned long long)h->both);
    printf(", %zu within the contract", failed_within(h));
    printf(", %zu run signature%s, %s\n", nsigs, nsigs == 1 ? "" : "s",
           a->beyond ? "every fault drawn (--beyond-contract)" : "faults within the contract");
}

/* A JSON array of the names of the bits of invs. */
static void json_invariants(unsigned invs)
{
    putchar('[');
    for (int i = 0, first = 1; i < SCN_INV_COUNT; i++)
        if (invs & (1u << i)) {
            printf("%s\"%s\"", first ? "" : ",", scn_invariant_name((scn_invariant)i));
            first = 0;
        }
    putchar(']');
}

/* The fault kinds of a signature, as its text names them after "after". */
static void json_faults(const hunt_sig *sg)
{
    char text[256];
    hunt_sig_text(sg, text, sizeof text);
    const char *after = strstr(text, " after ");
    putchar('[');
    if (after) {
        char *words = sim_xstrdup(after + 7), *save = NULL;
        int first = 1;
        for (char *w = strtok_r(words, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
            char *comma = strchr(w, ',');
            if (comma) *comma = '\0'; /* ", with ... held" */
            printf("%s", first ? "" : ",");
            report_json_str(stdout, w);
            first = 0;
        }
        sim_xfree(words);
    }
    putchar(']');
}

/* --json: one object per signature. */
static void print_found_json(const hunt *h, const found *f)
{
    const hunt_sig *sg = f->shrunk ? &f->final : &f->run;
    char text[256], why[400];
    hunt_sig_text(sg, text, sizeof text);
    printf("{\"signature\":");
    report_json_str(stdout, text);
    printf(",\"invariants\":");
    json_invariants(sg->invs);
    printf(",\"faults\":");
    json_faults(sg);
    printf(",\"class\":\"%s\"", sg->beyond ? "beyond-contract" : "within-contract");
    if (sg->beyond) {
        fault_beyond_text(sg->beyond, why, sizeof why);
        printf(",\"reason\":");
        report_json_str(stdout, why);
    }
    printf(",\"seeds\":%llu,\"first_seed\":%llu,\"shrunk\":", (unsigned long long)f->seeds,
           (unsigned long long)f->first_seed);
    if (f->shrunk) report_json_str(stdout, f->file);
    else printf("null");
    if (f->shrunk)
        printf(",\"shrunk_size\":{\"clients\":%d,\"faults\":%zu,\"steps\":%zu,\"duration_us\":%lld,"
               "\"events\":%llu}",
               f->clients, f->faults, f->steps, (long long)f->duration_us, (unsigned long long)f->events);
    if (h->a->against) {
        printf(",\"reference\":{\"protocol\":");
        report_json_str(stdout, h->a->against);
        /* Counted only where the reference held on the same seed. */
        printf(",\"seeds_held\":%llu", (unsigned long long)f->seeds);
        if (f->shrunk) {
            printf(",\"shrunk\":");
            report_json_str(stdout, f->ref_file);
            printf(",\"on_shrunk\":\"%s\",\"broke\":", f->ref_broke ? "violated" : "held");
            json_invariants(f->ref_broke);
        }
        putchar('}');
    }
    printf("}\n");
}

/* --json: the last object. */
static void print_summary_json(const hunt *h, size_t run_sigs, size_t unshrunk, uint64_t unshrunk_seeds, int stopped)
{
    const hunt_args *a = h->a;
    printf("{\"summary\":true,\"target\":");
    report_json_str(stdout, a->target);
    if (a->against) {
        printf(",\"against\":");
        report_json_str(stdout, a->against);
        printf(",\"reference_failed_too\":%llu", (unsigned long long)h->both);
    }
    printf(",\"seeds\":[%llu,%llu],\"runs\":%llu,\"failed\":%zu,\"failed_within\":%zu,\"run_signatures\":%zu,"
           "\"not_shrunk\":%zu,\"not_shrunk_seeds\":%llu,\"contract\":\"%s\",\"interrupted\":%s}\n",
           (unsigned long long)a->seed_a, (unsigned long long)a->seed_b, (unsigned long long)h->runs, h->nfails,
           failed_within(h), run_sigs, unshrunk, (unsigned long long)unshrunk_seeds, a->beyond ? "beyond" : "within",
           stopped ? "true" : "false");
}

/* ---------------------------------------------------------- the modes */

static const char *ordinal(uint64_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13) return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

static int by_size(const void *x, const void *y)
{
    const found *a = x, *b = y;
    if ((a->run.beyond != 0) != (b->run.beyond != 0)) return a->run.beyond != 0 ? 1 : -1;
    if (a->seeds != b->seeds) return a->seeds > b->seeds ? -1 : 1;
    return a->first_seed < b->first_seed ? -1 : a->first_seed > b->first_seed;
}

/* --report DIR: the page of the m signatures of v that were shrunk,
 * those within the lock's contract first, each beyond it with its reason,
 * and with --against the reference's file of each witness pair. 0, or 2
 * (printed). */
static int write_report(const hunt *h, const found *v, size_t m)
{
    report_hunt_sig *sigs = sim_xcalloc(m + 1, sizeof *sigs);
    char (*text)[256] = sim_xcalloc(m + 1, sizeof *text);
    char (*why)[400] = sim_xcalloc(m + 1, sizeof *why);
    size_t n = 0;
    for (int beyond = 0; beyond < 2; beyond++)
        for (size_t j = 0; j < m; j++) {
            if (!v[j].shrunk || (v[j].final.beyond != 0) != beyond) continue;
            hunt_sig_text(&v[j].final, text[n], sizeof text[n]);
            if (beyond) fault_beyond_text(v[j].final.beyond, why[n], sizeof why[n]);
            sigs[n] = (report_hunt_sig){.signature = text[n], .beyond = beyond, .reason = beyond ? why[n] : NULL,
                                        .seeds = v[j].seeds, .first_seed = v[j].first_seed, .shrunk = v[j].file,
                                        .reference = v[j].ref_file[0] ? v[j].ref_file : NULL};
            n++;
        }
    report_hunt rh = {.target = h->a->target, .against = h->a->against, .seed_a = h->a->seed_a,
                      .seed_b = h->a->seed_b, .runs = h->runs, .failed = h->nfails, .sigs = sigs, .nsigs = n};
    char err[1024];
    int rc = report_hunt_write(h->a->report_dir, &rh, err, sizeof err);
    if (rc == 0) fprintf(h->a->json ? stderr : stdout, "report: %s/index.html\n", h->a->report_dir);
    else fprintf(stderr, "locksim hunt: cannot write the report %s: %s\n", h->a->report_dir, err);
    sim_xfree(why);
    sim_xfree(text);
    sim_xfree(sigs);
    return rc == 0 ? 0 : 2;
}

/* The k-th (0-based) failing seed whose run signature is run: 1, or 0
 * when the group has no more. */
static int nth_seed(const hunt *h, const hunt_sig *run, size_t k, uint64_t *seed)
{
    for (size_t i = 0; i < h->nfails; i++)
        if (hunt_sig_equal(&h->fails[i].sig, run) && k-- == 0) {
            *seed = h->fails[i].seed;
            return 1;
        }
    return 0;
}

/* How many more seeds of one group a hunt shrinks, at most. */
#define HUNT_REPICKS 2

/* Is item f a within-contract group's shrink that says nothing of the
 * group's other seeds? Its run was within the contract and it shrank
 * beyond it: the faults it needs were outside the run's window, and the
 * group's other seeds, which ran alike, may fail by the lock's own fault. */
static int unexplained(const found *f)
{
    return f->shrunk == 1 && f->run.beyond == 0 && f->final.beyond != 0;
}

/* More seeds of the within-contract groups v[0..nv) whose shrunk seed
 * is unexplained, one each a round (HUNT_REPICKS rounds), while *budget
 * lasts: each is an item of its own (1 seed, taken from its group) in
 * *out, shrunk here. Returns how many; *status as shrink_batch's. */
static size_t repick(hunt *h, found *v, size_t nv, found **out, size_t *budget, size_t *shrinks, int *status)
{
    found *x = NULL;
    size_t nx = 0, *owner = NULL, *picked = sim_xcalloc(nv + 1, sizeof *picked);
    unsigned char *open = sim_xcalloc(nv + 1, 1);
    for (size_t j = 0; j < nv; j++) open[j] = unexplained(&v[j]), picked[j] = 1;
    for (int round = 0; round < HUNT_REPICKS && *budget > 0 && *status == 0; round++) {
        size_t start = nx;
        for (size_t j = 0; j < nv && *budget > 0; j++) {
            uint64_t seed;
            if (!open[j] || !nth_seed(h, &v[j].run, picked[j], &seed)) continue;
            picked[j]++;
            x = sim_xrealloc(x, (nx + 1) * sizeof *x);
            owner = sim_xrealloc(owner, (nx + 1) * sizeof *owner);
            memset(&x[nx], 0, sizeof x[nx]);
            x[nx].run = v[j].run;
            x[nx].first_seed = seed;
            x[nx].seeds = 1;
            owner[nx++] = j;
            v[j].seeds--;
            (*budget)--;
        }
        if (nx == start) break;
        size_t done, none;
        *status = shrink_batch(h, x + start, nx - start, 0, &done, &none);
        *shrinks += done;
        for (size_t k = start; k < nx; k++) open[owner[k]] = unexplained(&x[k]);
    }
    /* An item not shrunk (a stop signal) goes back to its group. */
    size_t kept = 0;
    for (size_t k = 0; k < nx; k++) {
        if (x[k].shrunk) x[kept++] = x[k];
        else v[owner[k]].seeds++;
    }
    sim_xfree(open);
    sim_xfree(picked);
    sim_xfree(owner);
    *out = x;
    return kept;
}

/* Without --want: every seed, then one shrink per run signature (within
 * the contract first; then, of a within-contract group whose shrink went
 * beyond the contract, its next seeds: repick), the groups merged by
 * their shrunk signature. */
static int hunt_all(hunt *h)
{
    const hunt_args *a = h->a;
    int status = run_range(h, a->seed_a, a->seed_b);
    if (status != 0 && status != 130) return status;
    if (h->merged && h->runs != h->merged->runs) { /* another build, or other arguments, drew the shards' seeds */
        fprintf(stderr, "locksim merge: the shards ran %llu seeds where this hunt runs %llu: partial hunts of another "
                        "locksim build?\n", (unsigned long long)h->merged->runs, (unsigned long long)h->runs);
        return 2;
    }
    found *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < h->nfails; i++) {
        size_t j = 0;
        while (j < n && !hunt_sig_equal(&v[j].run, &h->fails[i].sig)) j++;
        if (j == n) {
            v = sim_xrealloc(v, (n + 1) * sizeof *v);
            memset(&v[n], 0, sizeof v[n]);
            v[n].run = h->fails[i].sig;
            v[n++].first_seed = h->fails[i].seed;
        }
        v[j].seeds++;
    }
    if (!a->json) print_head(h, n);
    /* Within the contract first (what a user must act on gets shrunk
     * under --max-shrinks), then the biggest groups: the commonest
     * failures get shrunk. */
    if (n > 1) qsort(v, n, sizeof *v, by_size);
    size_t within = 0, budget = a->max_shrinks, shrinks = 0, done, none, nx = 0;
    while (within < n && v[within].run.beyond == 0) within++;
    size_t first = within < budget ? within : budget;
    if (status == 0) status = shrink_batch(h, v, first, 0, &shrinks, &none);
    budget -= first;
    found *x = NULL;
    if (status == 0) nx = repick(h, v, first, &x, &budget, &shrinks, &status);
    size_t rest = n - within < budget ? n - within : budget;
    if (status == 0 && rest) {
        status = shrink_batch(h, v + within, rest, 0, &done, &none);
        shrinks += done;
    }
    if (nx) { /* the within groups, their seeds shrunk again, the groups beyond */
        v = sim_xrealloc(v, (n + nx) * sizeof *v);
        memmove(v + within + nx, v + within, (n - within) * sizeof *v);
        memcpy(v + within, x, nx * sizeof *v);
        n += nx;
    }
    sim_xfree(x);
    /* Groups that shrank to the same signature are one bug. */
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        size_t t = 0;
        while (t < m && !(v[t].shrunk && v[j].shrunk && hunt_sig_equal(&v[t].final, &v[j].final))) t++;
        if (t < m) {
            v[t].seeds += v[j].seeds;
            if (v[j].first_seed < v[t].first_seed) v[t].first_seed = v[j].first_seed;
            drop_files(&v[j]);
        } else {
            v[m++] = v[j];
        }
    }
    size_t shown = 0;
    uint64_t rest_seeds = 0;
    for (size_t j = 0; j < m; j++) shown += v[j].shrunk;
    if (!a->json && nx)
        printf("%zu signature%s from %zu shrunk run signature%s and %zu more seed%s of within-contract groups whose "
               "first shrank beyond the contract:\n",
               shown, shown == 1 ? "" : "s", shrinks - nx, shrinks - nx == 1 ? "" : "s", nx, nx == 1 ? "" : "s");
    else if (!a->json)
        printf("%zu signature%s from %zu shrunk run signature%s:\n", shown, shown == 1 ? "" : "s", shrinks,
               shrinks == 1 ? "" : "s");
    /* Within the contract first: what the lock claims and does not keep. */
    for (int beyond = 0; beyond < 2; beyond++) {
        int header = 0;
        for (size_t j = 0; j < m; j++) {
            const hunt_sig *sg = v[j].shrunk ? &v[j].final : &v[j].run;
            if ((sg->beyond != 0) != beyond) continue;
            if (!v[j].shrunk) {
                rest_seeds += beyond ? 0 : v[j].seeds;
                continue;
            }
            keep(&v[j]);
            if (a->json) {
                print_found_json(h, &v[j]);
                continue;
            }
            if (beyond && !header++) printf("beyond %s's contract:\n", a->target);
            print_found(h, &v[j]);
        }
    }
    for (size_t j = 0; j < m; j++)
        if (!v[j].shrunk && (v[j].run.beyond != 0)) rest_seeds += v[j].seeds;
    if (a->json) {
        print_summary_json(h, n - nx, m - shown, rest_seeds, status == 130);
    } else {
        if (m > shown)
            printf("  and %zu run signature%s of %llu seed%s not shrunk (raise --max-shrinks)\n", m - shown,
                   m - shown == 1 ? "" : "s", (unsigned long long)rest_seeds, rest_seeds == 1 ? "" : "s");
        if (status == 130) printf("(interrupted: %llu runs)\n", (unsigned long long)h->runs);
    }
    if (a->report_dir && status == 0 && write_report(h, v, m) != 0) status = 2;
    sim_xfree(v);
    return status ? status : h->nfails ? 1 : 0;
}

/* ", N seeds skipped: drawn without a wanted kind", or "". */
static const char *unrun_text(const hunt *h, char *buf, size_t cap)
{
    if (h->unrun == 0) return "";
    snprintf(buf, cap, ", %llu seed%s skipped: drawn without a wanted kind", (unsigned long long)h->unrun,
             h->unrun == 1 ? "" : "s");
    return buf;
}

/* --want FILE: the signature hunted, FILE's shrunk (into *target, which
 * h->want then points to), judged by FILE's own bounds; said in a line
 * unless quiet. 0, or 2 (printed). */
static int want_setup(hunt *h, hunt_sig *target, int quiet)
{
    const hunt_args *a = h->a;
    scenario want;
    if (cli_load(a->want_path, &want) != 0) return 2;
    shrink_result k;
    scn_error err;
    uint64_t wseed = want.has_seed ? want.seed : 1;
    shrink_opts so = {.flags = SHRINK_SAME_INVARIANTS};
    int rc = shrink_scenario(&want, wseed, &so, &k, &err);
    if (rc != 1) {
        if (rc < 0) scn_error_print(&err);
        else fprintf(stderr, "locksim hunt: %s does not fail with seed %llu: no signature to hunt for\n",
                     a->want_path, (unsigned long long)wseed);
        shrink_result_free(&k);
        scn_free(&want);
        return 2;
    }
    hunt_shrunk_sig(&k, target);
    /* The same signature is judged the same way: by the known bug's own
     * bounds, and a run that breaks what the known bug holds fails some
     * other way. */
    for (int i = 0; i < SCN_INV_COUNT; i++)
        if (want.expect[i] == SCN_EXPECT_HELD) target->held |= 1u << i;
    h->base.liveness_bound_us = want.liveness_bound_us;
    h->base.starvation_bound = want.starvation_bound;
    h->want = target;
    char sig[256];
    hunt_sig_text(target, sig, sizeof sig);
    if (!quiet)
        printf("hunt %s for %s: %s (it shrinks to %zu fault%s)\n", a->target, a->want_path, sig,
               shrink_fault_lines(&k.out), shrink_fault_lines(&k.out) == 1 ? "" : "s");
    shrink_result_free(&k);
    scn_free(&want);
    return 0;
}

/* With --want FILE: the signature of FILE shrunk; seeds in chunks until
 * a failure shrinks to it. */
static int hunt_want(hunt *h)
{
    const hunt_args *a = h->a;
    hunt_sig target;
    if (want_setup(h, &target, 0) != 0) return 2;
    /* Each chunk's candidates are shrunk in two passes: first the runs
     * that break nothing the known bug holds, then the others (their
     * other faults may shrink away); --max-shrinks caps each pass of each
     * chunk (a cap over the whole hunt would stop it looking after its
     * first candidates, however many seeds it runs). One batch per chunk,
     * the first pass's candidates first, each in seed order: the first
     * that matches in that order is the one found. */
    size_t next = 0, shrunk[2] = {0, 0}, candidates = 0;
    char unrun[96];
    found *v = sim_xcalloc(2 * (size_t)a->max_shrinks + 1, sizeof *v);
    int status = 0;
    uint64_t chunk = HUNT_CHUNK_FIRST;
    for (uint64_t c0 = a->seed_a; c0 <= a->seed_b && status == 0; c0 += chunk, chunk = chunk < HUNT_CHUNK ? chunk * 2 : chunk) {
        uint64_t c1 = a->seed_b - c0 < chunk - 1 ? a->seed_b : c0 + chunk - 1;
        status = run_range(h, c0, c1);
        size_t n = 0, first_pass = 0;
        for (int pass = 0; pass < 2 && status == 0; pass++) {
            for (size_t i = next; i < h->nfails; i++) {
                const failure *f = &h->fails[i];
                if (!hunt_sig_covers(&f->sig, &target) || ((f->sig.invs & target.held) != 0) != pass) continue;
                candidates++;
                if ((pass ? n - first_pass : n) == a->max_shrinks) continue;
                v[n++] = (found){.run = f->sig, .first_seed = f->seed, .seeds = 1, .ref_keep = f->held};
            }
            if (pass == 0) first_pass = n;
        }
        next = h->nfails;
        size_t done = 0, match = NONE;
        if (status == 0) status = shrink_batch(h, v, n, target.invs, &done, &match);
        shrunk[0] += done < first_pass ? done : first_pass;
        shrunk[1] += done > first_pass ? done - first_pass : 0;
        if (status == 0 && match != NONE) {
            found *fd = &v[match];
            keep(fd);
            size_t shrinks = shrunk[0] + shrunk[1];
            printf("found at seed %llu, the %llu%s hunted (%zu candidate%s shrunk; %llu runs so far%s, %zu failed)\n",
                   (unsigned long long)fd->first_seed, (unsigned long long)(fd->first_seed - a->seed_a + 1),
                   ordinal(fd->first_seed - a->seed_a + 1), shrinks, shrinks == 1 ? "" : "s",
                   (unsigned long long)h->runs, unrun_text(h, unrun, sizeof unrun), h->nfails);
            print_found(h, fd);
            sim_xfree(v);
            return 0;
        }
    }
    sim_xfree(v);
    size_t shrinks = shrunk[0] + shrunk[1];
    if (status == 2) return 2;
    printf("not found in %s %llu..%llu: %llu runs%s, %zu failed, %zu with room for it, %zu shrunk%s%s\n",
           status == 130 ? "the seeds run of" : "seeds", (unsigned long long)a->seed_a, (unsigned long long)a->seed_b,
           (unsigned long long)h->runs, unrun_text(h, unrun, sizeof unrun), h->nfails, candidates, shrinks,
           candidates > shrinks && status != 130 ? " (--max-shrinks)" : "",
           status == 130 ? " (interrupted)" : "");
    return status == 130 ? 130 : 1;
}

/* --shard I/N (or the environment): the shard's seeds run, their failing
 * records written to the partial hunt DIR/TARGET--shard-I-of-N.hunt
 * (hunt_part.h) for locksim merge; no shrinks. argv: the hunt's
 * arguments, which the file keeps (--shard taken out). 0, 2 or 130. */
static int hunt_shard(hunt *h, int argc, char **argv)
{
    const hunt_args *a = h->a;
    hunt_sig target;
    if (a->want_path && want_setup(h, &target, 1) != 0) return 2;
    char stem[400], path[512], tmp[520];
    file_stem(h, stem, sizeof stem);
    snprintf(path, sizeof path, "%s--shard-%u-of-%u.hunt", stem, h->shard_i + 1, h->shard_n);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    make_dirs(a->out_dir);
    char **args = sim_xcalloc((size_t)argc + 1, sizeof *args);
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shard")) i++;
        else args[n++] = argv[i];
    }
    const scn_override *patch = cli_scripts_override();
    h->part = fopen(tmp, "w");
    int status = 0;
    if (h->part == NULL) {
        fprintf(stderr, "locksim hunt: cannot write %s: %s\n", tmp, strerror(errno));
        status = 2;
    } else if (hunt_part_begin(h->part, n, args, patch ? patch->value : NULL, h->shard_i, h->shard_n) != 0) {
        fprintf(stderr, "locksim hunt: --shard: an argument with a tab or a newline cannot go in a partial hunt\n");
        status = 2;
    }
    sim_xfree(args);
    if (status == 0) status = run_range(h, a->seed_a, a->seed_b);
    if (h->part) {
        if (status == 0) hunt_part_end(h->part, h->runs);
        if (fclose(h->part) != 0 && status == 0) {
            fprintf(stderr, "locksim hunt: cannot write %s: %s\n", tmp, strerror(errno));
            status = 2;
        }
        h->part = NULL;
        /* Whole or not at all: a shard stopped leaves no partial hunt. */
        if (status == 0 && rename(tmp, path) != 0) {
            fprintf(stderr, "locksim hunt: cannot write %s: %s\n", path, strerror(errno));
            status = 2;
        }
        if (status != 0) remove(tmp);
    }
    if (status == 0 && a->json) {
        printf("{\"partial\":");
        report_json_str(stdout, path);
        printf(",\"shard\":%u,\"shards\":%u,\"runs\":%llu,\"failed\":%zu}\n", h->shard_i + 1, h->shard_n,
               (unsigned long long)h->runs, h->nfails);
    } else if (status == 0) {
        printf("hunt %s: shard %u/%u of seeds %llu..%llu: %llu runs, %zu failed; partial hunt %s (locksim merge "
               "every shard's to finish the hunt)\n",
               a->target, h->shard_i + 1, h->shard_n, (unsigned long long)a->seed_a, (unsigned long long)a->seed_b,
               (unsigned long long)h->runs, h->nfails, path);
    }
    return status;
}

/* Loads h's base and runs the hunt its arguments ask for: a shard's
 * runs, a --want hunt, or the whole hunt (who names the command in
 * messages). */
static int hunt_run(hunt *h, const char *who, int argc, char **argv)
{
    const hunt_args *a = h->a;
    if (load_base(a, h, &h->base) != 0) return 2;
    int status = 0;
    report_outdir probe; /* a --report folder we may not write is refused before the hunt */
    if (a->report_dir && report_outdir_begin(&probe, a->report_dir, who) != 0) status = 2;
    else if (a->report_dir) report_outdir_abort(&probe);
    if (status == 0 && a->print_base) { /* the scenario every seed draws from, to edit and hunt with */
        status = scn_write(stdout, &h->base) == 0 ? 0 : 2;
    } else if (status == 0) {
        pool_hold_stops(1); /* a signal while shrinking stops the hunt, which says what it ran */
        status = h->sharded ? hunt_shard(h, argc, argv) : a->want_path ? hunt_want(h) : hunt_all(h);
        pool_hold_stops(0);
    }
    sim_xfree(h->fails);
    scn_free(&h->base);
    return status;
}

int cli_hunt(int argc, char **argv)
{
    hunt_args a = {0};
    if (parse_args(argc, argv, &a) != 0) return 2;
    hunt h = {.a = &a};
    const char *from = NULL;
    char why[200];
    if (pool_shard(a.shard, &h.shard_i, &h.shard_n, &from, why, sizeof why) != 0) {
        fprintf(stderr, "locksim hunt: %s\n", why);
        return 2;
    }
    h.sharded = a.shard != NULL || h.shard_n > 1;
    if (h.sharded && a.report_dir) return usage("--report is for the merge of the shards' partial hunts%s", NULL);
    return hunt_run(&h, "locksim hunt", argc, argv);
}

/* The shards' arguments (tab-separated, hunt_part.h) as an argv after
 * "hunt", empty ones kept; line is cut up in place. */
static char **split_args(char *line, int *argc)
{
    char **v = sim_xcalloc(strlen(line) + 3, sizeof *v);
    int n = 0;
    v[n++] = (char *)"hunt";
    for (char *t = line; *line != '\0' && t != NULL;) {
        char *tab = strchr(t, '\t');
        v[n++] = t;
        if (tab) *tab = '\0';
        t = tab ? tab + 1 : NULL;
    }
    *argc = n;
    return v;
}

/* locksim merge PARTIAL-HUNT...: the hunt of the shards' arguments,
 * finished here: their records stand for the runs, the groups, shrinks
 * (in --jobs workers) and table are what one process over all the seeds
 * makes. The merge's --jobs, --out, --report, --json, --verbose and
 * --progress are its own (--out and --json default to the shards'). */
int cli_hunt_merge(int argc, char **argv)
{
    hunt_args own = {0}; /* the merge's options: jobs 0, out_dir NULL, ... where not given */
    int nfiles = 0, status = 0;
    char **files = sim_xcalloc((size_t)argc + 1, sizeof *files);
    for (int i = 1; i < argc && status == 0; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--jobs") && v) {
            status = cli_parse_jobs("locksim merge", v, &own.jobs) != 0 ? 2 : 0;
            i++;
        } else if (!strcmp(o, "--out") && v) {
            own.out_dir = v, i++;
        } else if (!strcmp(o, "--report") && v) {
            own.report_dir = v, i++;
        } else if (!strcmp(o, "--json")) {
            own.json = 1;
        } else if (!strcmp(o, "--verbose")) {
            own.verbose = 1;
        } else if (!strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            own.progress = !strcmp(o, "--progress") ? 1 : -1;
        } else if (o[0] == '-' && o[1] != '\0') {
            fprintf(stderr, "locksim merge: unknown or incomplete option \"%s\" for partial hunts (--jobs N, --out DIR, "
                            "--report DIR, --json, --verbose)\n", o);
            status = 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    hunt_parts parts;
    if (status == 0 && hunt_parts_read(files, nfiles, &parts) != 0) status = 2;
    sim_xfree(files);
    if (status != 0) return status;
    const scn_override *patch = cli_scripts_override();
    if ((parts.scripts != NULL) != (patch != NULL) || (patch && strcmp(parts.scripts, patch->value) != 0)) {
        fprintf(stderr, "locksim merge: the shards ran %s%s: give merge the same --scripts\n",
                parts.scripts ? "with --scripts " : "without --scripts", parts.scripts ? parts.scripts : "");
        hunt_parts_free(&parts);
        return 2;
    }
    char *line = sim_xstrdup(parts.args);
    int hargc;
    char **hargv = split_args(line, &hargc);
    hunt_args a = {0};
    if (parse_args(hargc, hargv, &a) != 0) status = 2;
    if (own.jobs) a.jobs = own.jobs;
    if (own.out_dir) a.out_dir = own.out_dir;
    if (own.report_dir) a.report_dir = own.report_dir;
    a.json |= own.json;
    a.verbose |= own.verbose;
    if (own.progress) a.progress = own.progress;
    if (status == 0 && a.report_dir && a.want_path) status = usage("--report is for a hunt without --want%s", NULL);
    hunt h = {.a = &a, .merged = &parts};
    if (status == 0) status = hunt_run(&h, "locksim merge", hargc, hargv);
    sim_xfree(hargv);
    sim_xfree(line);
    hunt_parts_free(&parts);
    return status;
}
