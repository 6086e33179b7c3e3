/* hunt.c — the base scenario of a hunt, and failure signatures (hunt.h). */
#include <stdio.h>
#include <string.h>

#include "protocols/policy.h"
#include "protocols/protocol.h"
#include "sim/engine/hunt.h"

_Static_assert(HUNT_KINDS <= 32, "a signature's kinds fit an unsigned");

/* ------------------------------------------------------------ templates */

char *hunt_template(const char *target, scn_error *err)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", target);
    const proto_def *pd = proto_find(target);
    if (pd == NULL) {
        proto_unknown_reason(target, err->msg, sizeof err->msg);
        return NULL;
    }
    unsigned inv = proto_invariants(pd);
    int nodes = 1, members = 0;
    const char *extra = "", *clients_extra = "";
    if (pd->impl.proc_init == pol_generic_impl.proc_init) {
        const pol_policy *pol = pd->impl.cfg;
        nodes = pol->masters;
    } else if (strstr(pd->name, "multilock") || strstr(pd->name, "redlock")) {
        nodes = members = 3;
    }
    /* A protocol with fencing tokens writes to the fenced resource in
     * every critical section; half the seeds' resources refuse stale
     * tokens (a refused write keeps fencing), half accept them. */
    int fenced = (inv & PROTO_INV(SCN_INV_FENCING)) && pd->impl.token != NULL;
    if (inv & PROTO_INV(SCN_INV_PERMITS)) extra = "permits = 3\n", clients_extra = "permits = 1..2\n";
    else if (inv & PROTO_INV(SCN_INV_LATCH)) extra = "count = 2\n";
    else if (inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) clients_extra = "read-ratio = 0.5\n";
    char members_line[32] = "";
    if (members) snprintf(members_line, sizeof members_line, "members = %d\n", members);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sim_assert(f != NULL);
    fprintf(f,
            "[scenario]\nname = hunt %s\nduration = 60s\n\n"
            "[redis]\nnodes = %d\nreplicas = 1\n\n"
            "[protocol]\nname = %s\n%s%s\n"
            "[clients]\ncount = 3\n%s\n"
            "[nemesis]\nkinds = any\n\n"
            /* Hold times stay under the shortest lease: a section slower
             * than its lease is a finding of its own, not a fault's. */
            "[swarm]\nclients = 2..5\nthreads = 1..2\nhold = 1ms..500ms\nthink = 1ms..1s\nlease = 2s..30s\n"
            /* Half the seeds wait by tryLock(wait), whose timeouts have
             * bugs of their own; half wait through the async API where
             * the protocol has one. */
            "trylock = 50%%\nwait = 10ms..10s\n%s"
            /* Faults a time-drawn nemesis cannot aim: a client machine's
             * clock set off, a crash between a command's reply and the
             * next command. */
            "client-clock = 30%%\ncrash-on-reply = 30%%\n%s",
            pd->name, nodes, pd->name, members_line, extra, clients_extra,
            (pd->steps & PROTO_ASYNC) ? "async = 50%\n" : "", fenced ? "reject-stale = 50%\n" : "");
    if (fenced) fprintf(f, "\n[resource]\nenabled = yes\n");
    fclose(f);
    return text;
}

/* --------------------------------------------------------------- kinds */

unsigned hunt_kind_of(const scn_step *st)
{
    int node = st->node_index >= 0;
    switch (st->op) {
    case SCN_FAULT_PAUSE: return node ? SCN_NEM_NODE_PAUSE : SCN_NEM_PAUSE;
    case SCN_FAULT_CRASH: return node ? SCN_NEM_NODE_CRASH : SCN_NEM_CRASH;
    case SCN_FAULT_CLOCK: return st->client > 0 ? SCN_NEM_CLIENT_CLOCK : SCN_NEM_CLOCK; /* a machine's or a node's */
    case SCN_FAULT_PARTITION: return SCN_NEM_PARTITION;
    case SCN_FAULT_DELAY: return SCN_NEM_DELAY;
    case SCN_FAULT_DROP: return HUNT_KIND_DROP;
    case SCN_FAULT_DROP_REPLY: return SCN_NEM_DROP_REPLY;
    case SCN_FAULT_DROP_PUBSUB: return SCN_NEM_DROP_PUBSUB;
    case SCN_FAULT_DISCONNECT: return SCN_NEM_DISCONNECT;
    case SCN_FAULT_FAILOVER: return SCN_NEM_FAILOVER;
    case SCN_FAULT_FIU: return HUNT_KIND_FIU;
    case SCN_FAULT_FAIL_REPLY:
        return st->reply_cmd == SCN_REPLY_ACQUIRE  ? HUNT_KIND_FAIL_ACQUIRE
               : st->reply_cmd == SCN_REPLY_UNLOCK ? HUNT_KIND_FAIL_UNLOCK
                                                   : HUNT_KIND_FAIL_RENEW;
    default: return 0; /* client operations; restart and heal end a fault */
    }
}

unsigned hunt_kinds(const scn_step *v, size_t n, int64_t from_us, int64_t to_us)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].at_us >= from_us && v[i].at_us <= to_us) k |= hunt_kind_of(&v[i]);
    return k;
}

/* ---------------------------------------------------------- signatures */

/* The signature bits a violation's cause adds to the fault kinds. */
static unsigned cause_kinds(unsigned cause)
{
    return (cause & CHECK_CAUSE_LEASE_RAN_OUT) ? HUNT_KIND_LEASE_EXPIRY : 0;
}

int hunt_run_sig(const run_result *r, hunt_sig *sig)
{
    shrink_failure f;
    if (!shrink_classify(r, &f)) return 0;
    sig->inv = f.inv;
    sig->invs = f.invs;
    int64_t to = f.at_us >= 0 ? f.at_us : r->virtual_us;
    int64_t from = to > HUNT_WINDOW_US ? to - HUNT_WINDOW_US : 0;
    /* A verdict judged at the end of the run (deadlock: who still waits
     * then) may come from a fault of any time, and the nemesis stops long
     * before the end: the window is the whole run. */
    if (f.at_us >= r->virtual_us) from = 0;
    sig->kinds = hunt_kinds(r->s->steps, r->s->nsteps, from, to) | hunt_kinds(r->generated, r->ngenerated, from, to) |
                 cause_kinds(f.cause);
    sig->held = 0;
    return 1;
}

void hunt_shrunk_sig(const shrink_result *k, hunt_sig *sig)
{
    sig->inv = k->last.inv;
    sig->invs = k->last.invs;
    sig->kinds = hunt_kinds(k->out.steps, k->out.nsteps, 0, INT64_MAX) | cause_kinds(k->last.cause);
    sig->held = 0;
}

int hunt_sig_covers(const hunt_sig *run, const hunt_sig *target)
{
    return (run->invs & target->invs) == target->invs && (run->kinds & target->kinds) == target->kinds &&
           (run->kinds & HUNT_KIND_LEASE_EXPIRY) == (target->kinds & HUNT_KIND_LEASE_EXPIRY);
}

int hunt_sig_matches(const hunt_sig *got, const hunt_sig *want)
{
    return (got->invs & want->invs) == want->invs && (got->invs & want->held) == 0 && got->kinds == want->kinds;
}

int hunt_sig_equal(const hunt_sig *a, const hunt_sig *b)
{
    return a->inv == b->inv && a->invs == b->invs && a->kinds == b->kinds;
}

void hunt_sig_text(const hunt_sig *s, char *buf, size_t cap)
{
    size_t n = 0;
    if (s->invs == 0) n = (size_t)snprintf(buf, cap, "an expectation");
    for (int i = 0; i < SCN_INV_COUNT && n < cap; i++) /* the first broken first */
        if (i == s->inv && (s->invs & (1u << i))) n += (size_t)snprintf(buf + n, cap - n, "%s", scn_invariant_name((scn_invariant)i));
    for (int i = 0; i < SCN_INV_COUNT && n < cap; i++)
        if (i != s->inv && (s->invs & (1u << i)))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "+" : "", scn_invariant_name((scn_invariant)i));
    if (s->kinds == 0 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (no fault)");
    if (s->kinds != 0 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " after ");
    for (int b = 0, first = 1; b < HUNT_KINDS && n < cap; b++) {
        if (!(s->kinds & (1u << b))) continue;
        static const char *const more[] = {"drop", "fiu", "lease-expiry", "fail-reply:acquire", "fail-reply:unlock",
                                           "fail-reply:renew"};
        const char *name = b < SCN_NEM_COUNT ? scn_nemesis_kind_name(1 << b) : more[b - SCN_NEM_COUNT];
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", first ? "" : "+", name);
        first = 0;
    }
    for (int i = 0, first = 1; i < SCN_INV_COUNT && n < cap; i++) { /* a wanted signature's */
        if (!(s->held & (1u << i))) continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", first ? ", with " : "+", scn_invariant_name((scn_invariant)i));
        first = 0;
    }
    if (s->held && n < cap) snprintf(buf + n, cap - n, " held");
}
