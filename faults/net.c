/* net.c — network faults: the rules that partitions, delays, drops, lost
 * replies and lost pub/sub messages install, the world's policy hook that
 * judges each message against them, and the libfiu side: every decision is
 * a libfiu failure point enabled with fiu_enable_external, whose callback
 * matches the message being judged against the rules and draws from the
 * simulator's PRNG (sim_choose), so runs stay deterministic.
 *
 * libfiu's registry is process-wide and its callback takes no user data:
 * this module owns it, enabling the points at the start of a run and
 * disabling them at its end; `current` is the run being judged. */
#include <stdio.h>
#include <string.h>

#define FIU_ENABLE 1
#include <fiu-control.h>
#include <fiu.h>

#include "faults/fault_int.h"

const char *const fault_fiu_points[] = {
    "net/partition", "net/drop", "net/drop-reply", "net/delay",
    "redis/pubsub/deliver", "redis/replicate", NULL,
};

static fault_net *current;

/* ----------------------------------------------------------- endpoints */

/* Does side s (resolved by the parser or the nemesis) take in world
 * endpoint e? The world's nodes are the scenario's node indexes; its
 * client i is WORLD_CLIENT(i). */
static int side_has(const scn_side *s, int e)
{
    return WORLD_IS_CLIENT(e) ? scn_side_has_client(s, e - WORLD_CLIENT_BASE) : scn_side_has_node(s, e);
}

/* --------------------------------------------------------------- rules */

void fault_net_add(fault_net *fn, const scn_step *st, int64_t now)
{
    if (fn->n == fn->cap) {
        fn->cap = fn->cap ? fn->cap * 2 : 8;
        fn->rules = sim_xrealloc(fn->rules, fn->cap * sizeof *fn->rules);
    }
    frule *r = &fn->rules[fn->n++];
    memset(r, 0, sizeof *r);
    r->op = st->op;
    r->until_us = st->for_us ? now + st->for_us : INT64_MAX;
    r->p_ppm = st->op == SCN_FAULT_PARTITION ? SCN_PPM : st->p_ppm;
    r->by_us = st->by_us;
    r->client = st->client ? WORLD_CLIENT(st->client) : 0;
    r->directed = st->directed;
    snprintf(r->point, sizeof r->point, "%s", st->point);
    r->a = st->end_a; /* empty unless a partition or a link */
    r->b = st->end_b;
}

void fault_net_heal(fault_net *fn)
{
    size_t k = 0;
    for (size_t i = 0; i < fn->n; i++)
        if (fn->rules[i].op != SCN_FAULT_PARTITION) fn->rules[k++] = fn->rules[i];
    fn->n = k;
    world_release_held(fn->w);
}

static void prune(fault_net *fn, int64_t now)
{
    size_t k = 0;
    for (size_t i = 0; i < fn->n; i++)
        if (fn->rules[i].until_us > now) fn->rules[k++] = fn->rules[i];
    fn->n = k;
}

/* Does rule r cover the message being judged? */
static int covers(const fault_net *fn, const frule *r)
{
    int from = fn->from, to = fn->to;
    switch (r->op) {
    case SCN_FAULT_PARTITION:
        return (side_has(&r->a, from) && side_has(&r->b, to)) ||
               (!r->directed && side_has(&r->b, from) && side_has(&r->a, to));
    case SCN_FAULT_DROP:
    case SCN_FAULT_DELAY:
        return (side_has(&r->a, from) && side_has(&r->b, to)) || (side_has(&r->b, from) && side_has(&r->a, to));
    case SCN_FAULT_DROP_REPLY:
        return fn->kind == WORLD_MSG_REPLY && (r->client == 0 || r->client == to);
    case SCN_FAULT_DROP_PUBSUB:
        return fn->is_message && (r->client == 0 || r->client == to);
    default:
        return 1;
    }
}

/* The rules each point consults (raw fiu rules of that name apply too). */
static scn_op point_op(const char *name)
{
    if (!strcmp(name, "net/partition")) return SCN_FAULT_PARTITION;
    if (!strcmp(name, "net/drop")) return SCN_FAULT_DROP;
    if (!strcmp(name, "net/drop-reply")) return SCN_FAULT_DROP_REPLY;
    if (!strcmp(name, "net/delay")) return SCN_FAULT_DELAY;
    if (!strcmp(name, "redis/pubsub/deliver")) return SCN_FAULT_DROP_PUBSUB;
    return SCN_OP_COUNT;
}

/* Raw points apply to the messages their name speaks of. */
static int raw_applies(const fault_net *fn, const char *point)
{
    if (!strcmp(point, "net/drop-reply")) return fn->kind == WORLD_MSG_REPLY;
    if (!strcmp(point, "redis/pubsub/deliver")) return fn->is_message;
    if (!strcmp(point, "redis/replicate")) return fn->kind == WORLD_MSG_REPL;
    return 1;
}

/* libfiu's external callback: does point `name` fail for the message
 * being judged? */
static int decide(const char *name, int *failnum, void **failinfo, unsigned int *flags)
{
    (void)failnum;
    (void)failinfo;
    (void)flags;
    fault_net *fn = current;
    if (fn == NULL) return 0;
    scn_op op = point_op(name);
    int fail = 0;
    for (size_t i = 0; i < fn->n && !fail; i++) {
        const frule *r = &fn->rules[i];
        int relevant = (r->op == op && covers(fn, r)) ||
                       (r->op == SCN_FAULT_FIU && !strcmp(r->point, name) && raw_applies(fn, name));
        if (!relevant) continue;
        if (op == SCN_FAULT_DELAY && r->op == SCN_FAULT_DELAY) {
            fn->extra_us += r->by_us; /* delays add up; the point "fails" */
            continue;
        }
        if (r->p_ppm >= SCN_PPM) {
            fail = 1;
            if (r->op == SCN_FAULT_PARTITION) fn->cut_until = r->until_us;
        } else if (r->p_ppm > 0) {
            char label[80];
            snprintf(label, sizeof label, "fiu %s", name);
            fail = sim_choose(fn->ctx, SCN_PPM, label) < (uint64_t)r->p_ppm;
        }
    }
    if (op == SCN_FAULT_DELAY && fn->extra_us > 0) fail = 1;
    return fail;
}

/* The world's policy hook: judges one message. */
static void policy(void *ud, int from, int to, world_msg_kind kind, const sim_reply *msg,
                   world_verdict *out)
{
    fault_net *fn = ud;
    if (fn->n == 0) return;
    prune(fn, sim_now(fn->ctx));
    if (fn->n == 0) return;
    fn->from = from;
    fn->to = to;
    fn->kind = kind;
    fn->is_message = kind == WORLD_MSG_PUSH && msg && msg->type == SIM_REPLY_ARRAY && msg->elements == 3 &&
                     msg->element[0]->len == 7 && memcmp(msg->element[0]->str, "message", 7) == 0;
    fn->extra_us = 0;
    fn->cut_until = 0;
    current = fn;
    if (fiu_fail("net/partition")) {
        out->drop = 1;
        out->hold_until_us = fn->cut_until; /* 0 for a raw fiu rule: lost */
        return;
    }
    if (fiu_fail("net/drop") ||
        (kind == WORLD_MSG_REPLY && fiu_fail("net/drop-reply")) ||
        (fn->is_message && fiu_fail("redis/pubsub/deliver")) ||
        (kind == WORLD_MSG_REPL && fiu_fail("redis/replicate"))) {
        out->drop = 1;
        return;
    }
    if (fiu_fail("net/delay")) out->extra_us = fn->extra_us;
}

/* ------------------------------------------------------------ lifetime */

void fault_net_begin(fault_net *fn, sim_ctx *ctx, world *w)
{
    static int initialised;
    memset(fn, 0, sizeof *fn);
    fn->ctx = ctx;
    fn->w = w;
    if (!initialised) {
        fiu_init(0);
        initialised = 1;
    }
    for (int i = 0; fault_fiu_points[i]; i++) fiu_enable_external(fault_fiu_points[i], 1, NULL, 0, decide);
    current = fn;
    world_set_policy(w, policy, fn);
}

void fault_net_end(fault_net *fn)
{
    for (int i = 0; fault_fiu_points[i]; i++) fiu_disable(fault_fiu_points[i]);
    if (current == fn) current = NULL;
    world_set_policy(fn->w, NULL, NULL);
    sim_xfree(fn->rules);
    fn->rules = NULL;
    fn->n = fn->cap = 0;
}
