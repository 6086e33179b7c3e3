/* run.c — runs one scenario with one seed, on the fake world or on real
 * servers, and judges it. The first trace line states the seed and every derived parameter
 * (so a failing seed can be understood from its trace alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "faults/fault.h"
#include "protocols/policy.h"
#include "protocols/protocol.h"
#include "sim/engine/guard.h"
#include "sim/engine/run.h"
#include "sim/kernel/host.h"
#include "sim/real/servers.h"
#include "sim/world/world.h"

#define DRAIN_STEP_US SIM_MS(10)

static void to_file(void *ud, const char *line, size_t len)
{
    FILE *f = ud;
    fwrite(line, 1, len, f);
    fputc('\n', f);
}

static void trace_header(sim_ctx *ctx, const scenario *s, uint64_t seed)
{
    char lat[64], hold[64], think[64], proto[512];
    scn_dist_format(&s->latency, lat, sizeof lat);
    scn_dist_format(&s->hold, hold, sizeof hold);
    scn_dist_format(&s->think, think, sizeof think);
    sim_trace(ctx, "run",
              "seed=%llu scenario=%s protocol=%s nodes=%d replicas=%d latency=%s clients=%d "
              "threads=%d hold=%s think=%s lease=%lldus wait=%lldus duration=%lldus steps=%zu",
              (unsigned long long)seed, s->name, scn_protocol_label(s, proto, sizeof proto), s->nodes, s->replicas, lat, s->clients,
              s->threads, hold, think, (long long)s->lease_us, (long long)s->wait_us,
              (long long)s->duration_us, s->nsteps);
}

static int is_node_fault(const scn_step *st)
{
    return st->op == SCN_FAULT_FAILOVER ||
           (st->node_index >= 0 &&
            (st->op == SCN_FAULT_CRASH || st->op == SCN_FAULT_RESTART || st->op == SCN_FAULT_PAUSE));
}

int run_real_refusal(const scenario *s, const run_opts *o, char *buf, size_t cap)
{
    int server_faults_ok = o->redis == NULL || o->allow_server_faults;
    for (size_t i = 0; i < s->nsteps; i++) {
        const scn_step *st = &s->steps[i];
        const char *why = NULL;
        if (st->op == SCN_FAULT_CLOCK && st->node_index >= 0 && o->redis)
            why = "clocks of servers you run cannot be moved (locksim's own servers run with its clock shim)";
        else if (st->op == SCN_FAULT_FIU && !strcmp(st->point, "redis/replicate"))
            why = "redis/replicate is the fake's replication; real replicas replicate by themselves";
        else if (is_node_fault(st) && !server_faults_ok)
            why = "faults on servers you run need --allow-server-faults";
        if (why) {
            snprintf(buf, cap, "%s:%d: %s: refused on --backend redis (%s)", s->path, st->line, scn_op_name(st->op), why);
            return -1;
        }
    }
    if (s->nemesis && (s->nemesis_kinds & SCN_NEM_CLOCK) && o->redis) {
        snprintf(buf, cap, "%s: [nemesis] kind clock: refused with --redis (clocks of servers you run cannot be moved)",
                 s->path);
        return -1;
    }
    if (s->nemesis && !server_faults_ok &&
        (s->nemesis_kinds & (SCN_NEM_NODE_CRASH | SCN_NEM_NODE_PAUSE | SCN_NEM_FAILOVER))) {
        snprintf(buf, cap, "%s: [nemesis] server faults on servers you run need --allow-server-faults", s->path);
        return -1;
    }
    return 0;
}

int run_load(const char *path, const scn_override *ov, size_t n, scenario *s, scn_error *err)
{
    if (scn_load_with(path, ov, n, s, err) != 0) {
        /* The protocol's name too: a typo there explains errors elsewhere. */
        if (err->protocol[0] && proto_find(err->protocol) == NULL && strchr(err->protocol, '/') == NULL &&
            strstr(err->protocol, ".lock") == NULL) {
            char why[300];
            scn_error_add(err, err->protocol_line, "%s", proto_unknown_reason(err->protocol, why, sizeof why));
            scn_error_sort(err);
        }
        return -1;
    }
    if (proto_resolve(s, err) == NULL) {
        scn_free(s);
        return -1;
    }
    return 0;
}

int run_use_scripts(scenario *s, const char *dir, scn_error *err)
{
    char *was = s->scripts;
    int was_line = s->scripts_line;
    s->scripts = sim_xstrdup(dir);
    s->scripts_line = 0;
    if (proto_resolve(s, err) == NULL) {
        sim_xfree(s->scripts);
        s->scripts = was;
        s->scripts_line = was_line;
        return -1;
    }
    sim_xfree(was);
    return 0;
}

/* The protocol's queue wait (cl_protocol.queue_wait_us) as the checkers
 * ask for it (check_input.queue_wait_us). */
typedef struct run_queue {
    const cl_world *cw;
    int64_t (*fn)(const cl_world *cw, int64_t wait_us);
} run_queue;

static int64_t run_queue_wait(const void *ud, int64_t wait_us)
{
    const run_queue *q = ud;
    return q->fn(q->cw, wait_us);
}

/* The protocol's lease in force for an acquire's asked lease, for the
 * dead-holder checker. */
typedef struct run_lease {
    const proto_def *pd;
    const scenario *s;
} run_lease;

static int64_t run_lease_in_force(const void *ud, int64_t lease_us)
{
    const run_lease *l = ud;
    return proto_lease_in_force(l->pd, l->s, lease_us);
}

/* Frees one run's parts, the layers above first. */
static void run_free(sim_ctx *ctx, world *w, cl_world *cw, fault_sched *faults, real_servers *srv)
{
    cl_world_free(cw);
    fault_sched_free(faults);
    world_free(w);
    real_servers_stop(srv);
    sim_free(ctx);
}

/* One run of s; swarm: the values swarm testing drew for it, or NULL. */
static int run_drawn(const scenario *s, uint64_t seed, const char *swarm, const run_opts *o, run_result *out,
                     history *h, scn_error *err);

int run_scenario(const scenario *s, uint64_t seed, const run_opts *o, run_result *out,
                 history *h, scn_error *err)
{
    memset(out, 0, sizeof *out);
    scenario *drawn = NULL;
    char desc[sizeof out->swarm_desc] = "";
    if (s->swarm || (o && o->swarm)) s = drawn = fault_swarm_draw(s, seed, desc, sizeof desc);
    int rc = run_drawn(s, seed, drawn ? desc : NULL, o, out, h, err);
    if (rc != 0) {
        if (drawn) fault_swarm_free(drawn);
        return rc;
    }
    out->swarm = drawn;
    memcpy(out->swarm_desc, desc, sizeof desc);
    return 0;
}

/* Orders fail-reply lines by time, then by index (the schedule's order). */
static int cmp_line_at(const void *a, const void *b, void *lines)
{
    const scn_step *const *v = lines;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (v[i]->at_us != v[j]->at_us) return v[i]->at_us < v[j]->at_us ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* When each fault line of s and of gen acted (run_result.acted_us): its
 * time, but a fail-reply line arms a budget that acts at the client's
 * next reply of its kind, maybe long after (a renewal's, seconds on).
 * Budgets of one client and kind are spent in the order armed, so a
 * line's first spoiled reply is the one after those of the lines armed
 * before it; none: it never acted (-1). */
static int64_t *acted_times(const cl_world *cw, const scenario *s, const scn_step *gen, size_t ngen)
{
    size_t n = s->nsteps + ngen, nf = 0;
    int64_t *at = sim_xmalloc((n + 1) * sizeof *at);
    const scn_step **line = sim_xmalloc((n + 1) * sizeof *line);
    size_t *fr = sim_xmalloc((n + 1) * sizeof *fr);
    for (size_t i = 0; i < n; i++) {
        line[i] = i < s->nsteps ? &s->steps[i] : &gen[i - s->nsteps];
        at[i] = line[i]->at_us;
        if (line[i]->op == SCN_FAULT_FAIL_REPLY) fr[nf++] = i;
    }
    qsort_r(fr, nf, sizeof *fr, cmp_line_at, line);
    for (size_t a = 0; a < nf; a++) {
        const scn_step *st = line[fr[a]];
        int kind = st->reply_cmd == SCN_REPLY_ACQUIRE ? CL_KIND_ACQUIRE
                   : st->reply_cmd == SCN_REPLY_UNLOCK ? CL_KIND_UNLOCK : CL_KIND_RENEW;
        size_t before = 0; /* the replies the budgets armed before it spend first */
        for (size_t b = 0; b < a; b++) {
            const scn_step *o = line[fr[b]];
            if (o->client == st->client && o->reply_cmd == st->reply_cmd) before += o->reply_count ? (size_t)o->reply_count : 1;
        }
        const int64_t *spoiled;
        size_t k = cl_fail_reply_spoils(cw, st->client, kind, &spoiled);
        at[fr[a]] = before < k ? spoiled[before] : -1;
        sim_assert(at[fr[a]] < 0 || at[fr[a]] >= st->at_us);
    }
    sim_xfree(line);
    sim_xfree(fr);
    return at;
}

/* The one line a script that did not end gets (bad input, exit 2): which
 * script of which protocol (a policy's file and line), when, and what
 * Redis 7.0 would have done. */
static void runaway_error(const scenario *s, const proto_def *pd, const cl_world *cw, const char *sha, int wrote,
                          int64_t at_us, scn_error *err)
{
    const char *name = NULL;
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", s->path ? s->path : "-");
    if (pd->impl.proc_init == pol_generic_impl.proc_init) {
        const pol_policy *pol = pd->impl.cfg;
        const pol_section *secs[] = {&pol->acquire, &pol->renew, &pol->release, &pol->force};
        for (size_t i = 0; i < 4 && name == NULL; i++)
            for (int k = 0; k < secs[i]->nsteps && name == NULL; k++) {
                const pol_step *st = &secs[i]->step[k];
                if (st->script == NULL || strcmp(st->script->sha, sha) != 0) continue;
                name = st->script->name;
                snprintf(err->path, sizeof err->path, "%s", pol->path);
                err->line = st->line;
            }
    } else {
        const char *names[32];
        size_t n = proto_script_names(pd, names, 32);
        for (size_t i = 0; i < n && i < 32 && name == NULL; i++) {
            const cl_script *sc = cl_script_lookup(cw, names[i]);
            if (sc && !strcmp(sc->sha, sha)) name = names[i];
        }
    }
    char at[32];
    scn_duration_format(at_us, at, sizeof at);
    snprintf(err->msg, sizeof err->msg,
             "the script %s of %s did not end (it ran locksim's limit of Lua instructions, by virtual %s of %s): "
             "Redis would run it for ever and answer every other client BUSY after busy-reply-threshold; %s "
             "([redis] runaway = busy runs on so)",
             name ? name : sha, pd->name, at, s->path ? s->path : "the scenario",
             wrote ? "it had written, so only SHUTDOWN NOSAVE stops it" : "SCRIPT KILL stops it (it had not written)");
}

static int run_drawn(const scenario *s, uint64_t seed, const char *swarm, const run_opts *o, run_result *out,
                     history *h, scn_error *err)
{
    const proto_def *pd = proto_resolve(s, err);
    if (pd == NULL) return -1;
    real_servers *srv = NULL;
    if (o && o->real) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", s->path);
        if (run_real_refusal(s, o, err->msg, sizeof err->msg) != 0) return -1;
        int clocks = s->nemesis && (s->nemesis_kinds & SCN_NEM_CLOCK);
        for (size_t i = 0; i < s->nsteps; i++)
            clocks |= s->steps[i].op == SCN_FAULT_CLOCK && s->steps[i].node_index >= 0;
        srv = o->redis ? real_servers_external(o->redis, err->msg, sizeof err->msg)
              : clocks ? real_servers_start_clocked(s->nodes, s->replicas, err->msg, sizeof err->msg)
                       : real_servers_start(s->nodes, s->replicas, err->msg, sizeof err->msg);
        if (srv == NULL) return -1;
        if (real_servers_count(srv) < s->nodes * (1 + s->replicas)) {
            snprintf(err->msg, sizeof err->msg, "the scenario needs %d servers, --redis names %d",
                     s->nodes * (1 + s->replicas), real_servers_count(srv));
            real_servers_stop(srv);
            return -1;
        }
    }
    int64_t wall0 = host_mono_us();
    sim_ctx *ctx = sim_new(seed);
    if (o && o->trace) sim_set_trace_sink(ctx, to_file, o->trace);
    if (o && o->chooser) sim_set_chooser(ctx, o->chooser, o->chooser_ud);
    trace_header(ctx, s, seed);
    if (swarm) sim_trace(ctx, "swarm", "%s", swarm);
    world *w = srv ? world_new_real(ctx, s, srv) : world_new(ctx, s);
    cl_world *cw = cl_world_new(w, s, &pd->impl, h);
    scn_step *gen = NULL;
    size_t ngen = fault_nemesis(ctx, s, &gen);
    for (size_t i = 0; i < ngen; i++) {
        char line[256];
        scn_step_format(&gen[i], s, line, sizeof line);
        sim_trace(ctx, "nemesis", "%s", line);
    }
    fault_sched *faults = fault_schedule(ctx, w, cw, s, gen, ngen);
    cl_world_start(cw);

    int64_t duration = o && o->horizon_us > 0 && o->horizon_us < s->duration_us ? o->horizon_us : s->duration_us;
    run_guard guard;
    guard_begin(&guard, ctx, s, seed, o);
    sim_run(ctx, duration);
    char runaway_sha[41];
    int runaway_wrote = 0, runaway = world_runaway(w, runaway_sha, &runaway_wrote);
    cl_world_stop(cw);
    int64_t drain_end = duration + s->drain_us;
    while (!runaway && !guard.halted && sim_now(ctx) < drain_end && (cl_world_busy(cw) || cl_world_holding(cw))) {
        int64_t until = sim_now(ctx) + DRAIN_STEP_US;
        sim_run(ctx, until < drain_end ? until : drain_end);
        runaway = world_runaway(w, runaway_sha, &runaway_wrote);
    }
    guard_end(&guard, ctx);
    if (runaway && !s->runaway_busy) {
        /* Bad input: a script of the protocol that does not end. */
        runaway_error(s, pd, cw, runaway_sha, runaway_wrote, sim_now(ctx), err);
        sim_xfree(gen);
        run_free(ctx, w, cw, faults, srv);
        return -1;
    }
    int64_t end_us = sim_now(ctx);
    sim_trace(ctx, "run", "end busy=%d holding=%d", cl_world_busy(cw), cl_world_holding(cw));

    out->s = s;
    out->seed = seed;
    out->backend = srv ? "redis" : "fake";
    out->virtual_us = end_us;
    out->events = sim_events_run(ctx);
    out->evals = world_evals(w);
    out->commands = world_commands(w);
    cl_world_counts(cw, &out->acquisitions, &out->acquire_failures, &out->op_errors);
    out->trace_hash = sim_trace_hash(ctx);
    out->trace_reproducible = srv == NULL; /* real time and real servers do not replay */

    check_result_init(&out->checks);
    int lock_group[SCN_MAX_LOCKS];
    for (int l = 0; l < s->nlocks; l++) lock_group[l] = cl_lock_group(cw, l);
    check_input in = {.nlocks = s->nlocks, .names = s->lock_names, .liveness_bound_us = s->liveness_bound_us,
                      .starvation_bound = s->starvation_bound, .end_us = end_us, .s = s, .generated = gen,
                      .ngenerated = ngen, .lock_group = lock_group, .reconnect_us = cl_reconnect_us(),
                      .synced = cl_world_settings(cw)->synced,
                      .reply_wait_us = cl_reply_wait_us(cw),
                      .local_lock = pd->impl.proc_init == pol_generic_impl.proc_init &&
                                    ((const pol_policy *)pd->impl.cfg)->local_lock};
    run_queue rq = {cw, pd->impl.queue_wait_us};
    if (rq.fn) {
        in.queue_wait_us = run_queue_wait;
        in.queue_ud = &rq;
    }
    run_lease rl = {pd, s};
    in.retry_delay_us = cl_retry_delay_max_us(s);
    in.lease_in_force_us = run_lease_in_force;
    in.lease_ud = &rl;
    in.reentry_local = proto_reentry(pd) == CL_REENTRY_LOCAL;
    check_all(h, &in, proto_invariants(pd), &out->checks);
    run_latency(h, out);
    run_fairness(h, out);
    run_expectations(out);
    if (guard.halted) { /* what ran is judged, but the run is not whole */
        out->halted = guard.halted;
        out->halt_signal = guard.signal;
        snprintf(out->halt_why, sizeof out->halt_why, "%s", guard.why);
        out->expectations_met = 0;
        snprintf(out->expectation_failure, sizeof out->expectation_failure, "stopped: %.240s", guard.why);
    }

    out->generated = gen;
    out->ngenerated = ngen;
    out->acted_us = acted_times(cw, s, gen, ngen);
    run_free(ctx, w, cw, faults, srv);
    out->wall_ms = (double)(host_mono_us() - wall0) / 1000.0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) out->peak_rss_kb = ru.ru_maxrss;
    return 0;
}

void run_result_free(run_result *r)
{
    check_result_free(&r->checks);
    sim_xfree(r->generated);
    r->generated = NULL;
    sim_xfree(r->acted_us);
    r->acted_us = NULL;
    if (r->swarm) fault_swarm_free(r->swarm);
    r->swarm = NULL;
}
