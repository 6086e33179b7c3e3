/* policy_registry.c — lock policies in the catalogue: the bundled ones
 * (protocols/locks/, compiled into the binary), those of a folder given
 * with --protocols DIR, and a policy file a scenario names by its path
 * (`[protocol] name = mylock.lock`, relative to the scenario). Each is
 * loaded once and lives for the process. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/policy.h"

#define MAX_POLICIES 256

static pol_policy *loaded[MAX_POLICIES];
static int nloaded, bundled_done;

/* The invariants a policy's lock is judged by. */
static unsigned invariants(const pol_policy *p)
{
    /* A semaphore's permits expire with their lease: the leases checker
     * (a crashed holder's permits come back with it). */
    if (p->permits > 0)
        return PROTO_INV(SCN_INV_PERMITS) | PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK) |
               (p->no_lease ? 0 : PROTO_INV(SCN_INV_LEASES)); /* without one, a dead holder's permits are lost */
    unsigned inv = PROTO_INV(SCN_INV_MUTEX) | PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK);
    if (p->fencing) inv |= PROTO_INV(SCN_INV_FENCING);
    if (p->observe_hash && p->reentrant != CL_REENTRY_LOCAL) inv |= PROTO_INV(SCN_INV_REENTRANCY);
    return inv;
}

/* Fills p->def: its name (name@version), what `locksim list` says, and the
 * generic client with p as its settings. */
static void make_def(pol_policy *p, char *name_buf, size_t cap)
{
    if (p->version) snprintf(name_buf, cap, "%s@%s", p->name, p->version);
    else snprintf(name_buf, cap, "%s", p->name);
    proto_def *d = &p->def;
    d->name = name_buf;
    d->summary = p->summary ? p->summary : "a lock policy file";
    d->impl = pol_generic_impl;
    d->impl.cfg = p;
    d->impl.invariants = invariants(p);
    d->contract = &p->contract;
    d->impl.reentry = p->reentrant;
    if (!p->fencing) d->impl.token = NULL;
}

static const proto_def *add(pol_policy *p)
{
    sim_assert(nloaded < MAX_POLICIES);
    char *name = sim_xcalloc(1, 160);
    make_def(p, name, 160);
    loaded[nloaded++] = p;
    return &p->def;
}

/* The bundled policies, loaded on first use. A bundled policy that does not
 * load is a build error: said at once. */
static void load_bundled(void)
{
    if (bundled_done) return;
    bundled_done = 1;
    for (const proto_bundle_file *f = proto_bundle; f->path; f++) {
        size_t n = strlen(f->path);
        if (n < 5 || strcmp(f->path + n - 5, ".lock") != 0) continue;
        scn_error err;
        pol_policy *p = pol_load(f->path, 1, &err);
        if (p == NULL) {
            fprintf(stderr, "locksim: the bundled lock policy %s does not load: %s:%d: %s\n", f->path, err.path,
                    err.line, err.msg);
            abort();
        }
        add(p);
    }
}

static int version_newer(const pol_policy *a, const pol_policy *b)
{
    if (b == NULL) return 1;
    return strverscmp(a->version ? a->version : "", b->version ? b->version : "") > 0;
}

const proto_def *proto_policy_find(const char *name)
{
    load_bundled();
    const pol_policy *best = NULL;
    for (int i = 0; i < nloaded; i++) {
        if (!strcmp(loaded[i]->def.name, name)) return &loaded[i]->def;
        if (!strcmp(loaded[i]->name, name) && version_newer(loaded[i], best)) best = loaded[i];
    }
    return best ? &best->def : NULL;
}

size_t proto_policy_count(void)
{
    load_bundled();
    return (size_t)nloaded;
}

const proto_def *proto_policy_at(size_t i)
{
    load_bundled();
    return i < (size_t)nloaded ? &loaded[i]->def : NULL;
}

const char *proto_policy_file(const proto_def *pd)
{
    if (pd->impl.proc_init != pol_generic_impl.proc_init) return NULL;
    const pol_policy *p = pd->impl.cfg;
    return p->bundled ? NULL : p->path;
}

size_t proto_policy_script_steps(const proto_def *pd, proto_script_step *out, size_t max)
{
    if (pd->impl.proc_init != pol_generic_impl.proc_init) return 0;
    const pol_policy *p = pd->impl.cfg;
    const pol_section *secs[] = {&p->acquire, &p->renew, &p->release, &p->force};
    size_t n = 0;
    for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++)
        for (int i = 0; i < secs[s]->nsteps; i++) {
            const pol_step *st = &secs[s]->step[i];
            if (st->script == NULL) continue;
            if (n < max) out[n] = (proto_script_step){st->script, st->nkeys, st->nwords, st->words};
            n++;
        }
    return n;
}

/* A policy file by its path (loaded once). */
static const proto_def *by_path(const char *path, scn_error *err)
{
    char real[4096];
    if (realpath(path, real) == NULL) snprintf(real, sizeof real, "%s", path);
    for (int i = 0; i < nloaded; i++)
        if (!loaded[i]->bundled && !strcmp(loaded[i]->path, real)) return &loaded[i]->def;
    pol_policy *p = pol_load(real, 0, err);
    if (p == NULL) {
        if (strcmp(err->path, real) == 0) snprintf(err->path, sizeof err->path, "%s", path);
        return NULL;
    }
    return add(p);
}

int proto_add_dir(const char *dir, scn_error *err)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", dir);
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(err->msg, sizeof err->msg, "cannot open the folder of lock policies");
        return -1;
    }
    struct dirent *de;
    int rc = 0, found = 0;
    char **names = NULL;
    size_t n = 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".lock") != 0) continue;
        names = sim_xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = sim_xstrdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, (int (*)(const void *, const void *))strcmp);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (rc == 0 && by_path(path, err) == NULL) rc = -1;
        found++;
        sim_xfree(names[i]);
    }
    sim_xfree(names);
    if (rc == 0 && found == 0) {
        snprintf(err->msg, sizeof err->msg, "no lock policy (*.lock) in this folder");
        rc = -1;
    }
    return rc;
}

/* Does the scenario's protocol name a policy file (a path)? */
static int is_path(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') != NULL || (n > 5 && !strcmp(name + n - 5, ".lock"));
}

/* A re-entry on the other side ([clients] or [swarm] switch) needs a
 * read/write lock: 1 with the key's line and why in err, else 0. */
static int refuse_switch(const proto_def *pd, const scenario *s, scn_error *err)
{
    if (proto_invariants(pd) & PROTO_INV(SCN_INV_RW_EXCLUSION)) return 0;
    int clients = s->switch_ppm > 0, swarm = s->swarm && s->swarm_switch_ppm > 0;
    if (!clients && !swarm) return 0;
    err->line = clients ? s->switch_line : s->swarm_switch_line;
    snprintf(err->msg, sizeof err->msg, "[%s] switch: %s has no read and write sides (a read/write lock has)",
             clients ? "clients" : "swarm", pd->name);
    return 1;
}

/* [clients] reentry re-enters the lock: 1 with the key's line and why in
 * err when the protocol does not claim re-entry (a thread that asks again
 * would wait on itself: the lock's documented behaviour, not a finding).
 * [swarm] reentry is not refused: the swarm draws no re-entry for such a
 * protocol (swarm.c). */
static int refuse_reentry(const proto_def *pd, const scenario *s, scn_error *err)
{
    if (s->reentry_ppm == 0 || pd->impl.reentry != CL_REENTRY_NO) return 0;
    err->line = s->reentry_line;
    snprintf(err->msg, sizeof err->msg, "%s does not claim re-entry (reentrant = no)", pd->name);
    return 1;
}

/* A workload key of [clients] (clients_ppm) or [swarm] (swarm_ppm) that
 * runs operation op: 1 with the key's line and why in err when the
 * protocol has no such operation (api: its name; owner: who has it). */
static int refuse_op_key(const proto_def *pd, const scenario *s, scn_error *err, int clients_ppm, int swarm_ppm,
                         int line, scn_op op, const char *key, const char *api, const char *owner)
{
    int clients = clients_ppm > 0, swarm = s->swarm && swarm_ppm > 0;
    if ((!clients && !swarm) || (pd->steps & PROTO_STEP(op))) return 0;
    err->line = line;
    snprintf(err->msg, sizeof err->msg, "[%s] %s: %s has no %s (%s has)", clients ? "clients" : "swarm", key,
             pd->name, api, owner);
    return 1;
}

/* [clients] or [swarm] addpermits lends permits by addPermits. */
static int refuse_addpermits(const proto_def *pd, const scenario *s, scn_error *err)
{
    return refuse_op_key(pd, s, err, s->addpermits_ppm, s->swarm_addpermits_ppm, s->addpermits_line,
                         SCN_OP_ADDPERMITS, "addpermits", "addPermits", "a semaphore");
}

/* [clients] lend is the count an addpermits cycle lends: 1 with its line
 * and why in err when nothing lends (no addpermits share); where the
 * protocol has no addPermits, refuse_addpermits has told. */
static int refuse_lend(const scenario *s, scn_error *err)
{
    if (s->lend_permits.a_us == 0 || s->addpermits_ppm > 0 || (s->swarm && s->swarm_addpermits_ppm > 0)) return 0;
    err->line = s->lend_line;
    snprintf(err->msg, sizeof err->msg, "[clients] lend: nothing lends without [clients] addpermits (the share of "
             "cycles that lend)");
    return 1;
}

/* [clients] permits draws how many permits an acquire takes: a policy
 * semaphore whose templates name no {n} takes one. */
static int refuse_permits_n(const pol_policy *pol, const scenario *s, scn_error *err)
{
    if (pol && s->init_permits_line) {
        err->line = s->init_permits_line;
        if (pol->permits > 0)
            snprintf(err->msg, sizeof err->msg, "[protocol] permits: %s has the permits of its policy file "
                     "([lock] permits = %lld)", pol->name, (long long)pol->permits);
        else
            snprintf(err->msg, sizeof err->msg, "[protocol] permits: %s is a lock, not a semaphore (a policy's "
                     "[lock] permits makes one)", pol->name);
        return 1;
    }
    if (pol == NULL || pol->permits == 0 || pol->takes_n || s->acquire_permits.b_us <= 1) return 0;
    err->line = s->permits_line;
    snprintf(err->msg, sizeof err->msg, "[clients] permits: %s takes one permit an acquire (no template of its "
             "policy names {n})", pol->name);
    return 1;
}

/* [swarm] single acquires one permit a cycle: 1 with its line and why in
 * err for a protocol without permit counts (a semaphore has them). */
static int refuse_single(const proto_def *pd, const scenario *s, scn_error *err)
{
    if (!s->swarm || s->swarm_single_ppm == 0 || (pd->steps & PROTO_STEP(SCN_OP_ADDPERMITS))) return 0;
    err->line = s->swarm_single_line;
    snprintf(err->msg, sizeof err->msg, "[swarm] single: %s takes no permit counts (a semaphore does)", pd->name);
    return 1;
}

/* [clients] or [swarm] rearm arms a latch again by trySetCount. */
static int refuse_rearm(const proto_def *pd, const scenario *s, scn_error *err)
{
    return refuse_op_key(pd, s, err, s->rearm_ppm, s->swarm_rearm_ppm, s->rearm_line, SCN_OP_TRYSETCOUNT, "rearm",
                         "trySetCount", "a count-down latch");
}

/* [swarm] thread-wait-time draws a fair lock's queue wait, and [swarm]
 * reject-stale whether the resource refuses stale fencing tokens: 1 with
 * the key's line and why in err for a protocol with no wait queue, or no
 * tokens (the drawn value would change nothing but the seed's draws). */
static int refuse_swarm_settings(const proto_def *pd, const scenario *s, scn_error *err)
{
    if (!s->swarm) return 0;
    if (s->swarm_thread_wait.a_us > 0 && pd->impl.queue == NULL) {
        err->line = s->swarm_thread_wait_line;
        snprintf(err->msg, sizeof err->msg, "[swarm] thread-wait-time: %s has no wait queue (a fair lock has)",
                 pd->name);
        return 1;
    }
    if (s->swarm_reject_stale_ppm > 0 && pd->impl.token == NULL) {
        err->line = s->swarm_reject_stale_line;
        snprintf(err->msg, sizeof err->msg, "[swarm] reject-stale: %s has no fencing tokens (a fenced lock has)",
                 pd->name);
        return 1;
    }
    return 0;
}

/* [swarm] huge counts a semaphore's permits near Java's int limit: 1 with
 * its line and why in err for a protocol without permits, or whose
 * permits are ids, one each (the expirable semaphore: leases). */
static int refuse_huge(const proto_def *pd, const scenario *s, scn_error *err)
{
    if (!s->swarm || s->swarm_huge_ppm == 0 || proto_counts_permits(pd)) return 0;
    err->line = s->swarm_huge_line;
    snprintf(err->msg, sizeof err->msg, "[swarm] huge: %s %s (a semaphore's are counted)", pd->name,
             (proto_invariants(pd) & PROTO_INV(SCN_INV_PERMITS)) ? "has a permit per id" : "has no permits");
    return 1;
}

/* ", which X, Y and Z have": the catalogue's protocols with an async API. */
static void async_ones(char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, " (the async API is in");
    const char *sep = " ";
    for (size_t i = 0; proto_all[i] && n < cap; i++) {
        if (!(proto_all[i]->steps & PROTO_ASYNC) || strchr(proto_all[i]->name, '@')) continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, proto_all[i]->name);
        sep = ", ";
    }
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* A [steps] line the protocol cannot run: its line and why, in err. */
static const proto_def *refuse_steps(const proto_def *pd, const scenario *s, scn_error *err)
{
    for (size_t i = 0; i < s->nsteps; i++) {
        const scn_step *st = &s->steps[i];
        if (scn_op_is_fault(st->op)) continue;
        const char *why = NULL;
        if ((PROTO_STEPS_GUARDED & PROTO_STEP(st->op)) && !(pd->steps & PROTO_STEP(st->op)))
            why = "is not an operation of";
        else if (st->async && !(pd->steps & PROTO_ASYNC))
            why = "has no async API (api=async) in";
        if (why == NULL) continue;
        char which[256] = "";
        if (st->async && !(pd->steps & PROTO_ASYNC)) async_ones(which, sizeof which);
        err->line = st->line;
        snprintf(err->msg, sizeof err->msg, "'%.32s' %.40s %.100s%.255s", scn_op_name(st->op), why, pd->name, which);
        return NULL;
    }
    char which[256];
    async_ones(which, sizeof which);
    if (s->async && !(pd->steps & PROTO_ASYNC)) {
        err->line = 0;
        snprintf(err->msg, sizeof err->msg, "[clients] async = yes: %.100s has no async API%.255s", pd->name, which);
        return NULL;
    }
    if (s->swarm && s->swarm_async_ppm > 0 && !(pd->steps & PROTO_ASYNC)) {
        err->line = 0;
        snprintf(err->msg, sizeof err->msg, "[swarm] async: %.100s has no async API%.255s", pd->name, which);
        return NULL;
    }
    return pd;
}

/* pd with the scripts of s's [protocol] scripts folder (relative to the
 * scenario's folder, as a policy file's path is), or NULL with err set. */
static const proto_def *patch(const proto_def *pd, const scenario *s, scn_error *err)
{
    char dir[4096], label[512];
    proto_scenario_path(s, s->scripts, dir, sizeof dir);
    snprintf(err->path, sizeof err->path, "%s", s->path);
    err->line = s->scripts_line;
    return proto_patch(pd, dir, scn_protocol_label(s, label, sizeof label), err);
}

void proto_scenario_path(const scenario *s, const char *rel, char *buf, size_t cap)
{
    const char *slash = strrchr(s->path, '/');
    if (rel[0] == '/' || slash == NULL) snprintf(buf, cap, "%s", rel);
    else snprintf(buf, cap, "%.*s/%s", (int)(slash - s->path), s->path, rel);
}

const proto_def *proto_lookup(const scenario *s, scn_error *err)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", s->path);
    err->line = s->protocol_line;
    const proto_def *pd = proto_find(s->protocol); /* "redisson.lock" is a name, ./x.lock a file */
    if (pd == NULL && is_path(s->protocol)) {
        char path[4096];
        proto_scenario_path(s, s->protocol, path, sizeof path);
        pd = by_path(path, err);
    } else if (pd == NULL) {
        proto_unknown_reason(s->protocol, err->msg, sizeof err->msg);
    }
    return pd;
}

const proto_def *proto_resolve(const scenario *s, scn_error *err)
{
    const proto_def *pd = proto_lookup(s, err);
    if (pd == NULL) return NULL;
    memset(err, 0, sizeof *err); /* a policy file loaded may have left its own path: refusals name s */
    snprintf(err->path, sizeof err->path, "%s", s->path);
    err->line = s->protocol_line;
    if (pd->impl.refuse && pd->impl.refuse(s, err->msg, sizeof err->msg)) {
        snprintf(err->path, sizeof err->path, "%s", s->path);
        err->line = s->protocol_line;
        return NULL;
    }
    const pol_policy *pol = pd->impl.proc_init == pol_generic_impl.proc_init ? pd->impl.cfg : NULL;
    if (pol && pol->masters > s->nodes) {
        snprintf(err->path, sizeof err->path, "%s", s->path);
        err->line = s->protocol_line;
        snprintf(err->msg, sizeof err->msg, "%s takes %d independent masters: give [redis] nodes = %d (it is %d)",
                 pd->name, pol->masters, pol->masters, s->nodes);
        return NULL;
    }
    if (refuse_reentry(pd, s, err) || refuse_switch(pd, s, err) || refuse_addpermits(pd, s, err) ||
        refuse_lend(s, err) || refuse_huge(pd, s, err) || refuse_single(pd, s, err) || refuse_rearm(pd, s, err) ||
        refuse_swarm_settings(pd, s, err) || refuse_permits_n(pol, s, err))
        return NULL;
    if (refuse_steps(pd, s, err) == NULL) return NULL;
    return s->scripts ? patch(pd, s, err) : pd;
}
