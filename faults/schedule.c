/* schedule.c — turns fault lines into timed events and applies them:
 *
 *   crash / restart / pause    client=N: the process dies (no unlock, no
 *                              watchdog; on=reply: armed, it dies at its
 *                              next reply) / a new one with a new id starts /
 *                              stop-the-world; node=X: SIGKILL (data lost
 *                              unless persistence) / back / SIGSTOP
 *   clock node=X               offset (the clock reads true + D), drift
 *                              (ppm from now on), jump (a step of D)
 *   partition, heal, delay,    network rules (net.c)
 *   drop, drop-reply,
 *   drop-pubsub, fiu
 *   disconnect client=N        its connections drop; it reconnects and
 *                              resubscribes
 *   fail-reply client=N        the client's next replies to one kind of
 *                              script are lost or become errors (the
 *                              client runtime spoils them: command.c)
 *   failover                   Sentinel's FAILOVER on a group now
 *
 * Every applied fault is written into the trace as its scenario line. */
#include <stdio.h>
#include <string.h>

#include "faults/fault_int.h"

typedef struct fault_ev {
    fault_sched *f;
    scn_step st;
} fault_ev;

struct fault_sched {
    sim_ctx *ctx;
    world *w;
    cl_world *cw;
    const scenario *s;
    fault_ev *ev;
    size_t n;
    fault_net net;
};

static void apply_clock(sim_ctx *ctx, sim_clock *c, const scn_step *st)
{
    switch (st->clock_what) {
    case SCN_CLOCK_OFFSET: {
        int64_t want = sim_now(ctx) + SIM_CLOCK_EPOCH_US + st->clock_value;
        sim_clock_jump(ctx, c, want - sim_clock_now_us(ctx, c));
        break;
    }
    case SCN_CLOCK_DRIFT: sim_clock_set_drift(ctx, c, st->clock_value); break;
    case SCN_CLOCK_JUMP: sim_clock_jump(ctx, c, st->clock_value); break;
    }
}

static void apply(sim_ctx *ctx, void *arg)
{
    fault_ev *e = arg;
    const scn_step *st = &e->st;
    fault_sched *f = e->f;
    char line[256];
    scn_step_format(st, f->s, line, sizeof line);
    sim_trace(ctx, "fault", "%s%s", line, st->generated ? " (nemesis)" : "");
    if (f->cw) cl_world_fault(f->cw, line);
    int node = st->node_index; /* the world numbers nodes as the scenario does */
    switch (st->op) {
    case SCN_FAULT_CRASH:
        if (node >= 0) world_node_crash(f->w, node);
        else if (f->cw && st->on_reply) cl_crash_on_reply(f->cw, st->client);
        else if (f->cw) cl_crash(f->cw, st->client);
        break;
    case SCN_FAULT_RESTART:
        if (node >= 0) world_node_restart(f->w, node);
        else if (f->cw) cl_restart(f->cw, st->client);
        break;
    case SCN_FAULT_PAUSE:
        if (node >= 0) world_node_pause(f->w, node, st->for_us);
        else if (f->cw) cl_pause(f->cw, st->client, st->for_us);
        break;
    case SCN_FAULT_CLOCK:
        if (node >= 0) {
            apply_clock(ctx, world_node_clock(f->w, node), st);
            world_node_clock_changed(f->w, node);
        }
        else if (f->cw && cl_clock(f->cw, st->client)) apply_clock(ctx, cl_clock(f->cw, st->client), st);
        break;
    case SCN_FAULT_HEAL:
        fault_net_heal(&f->net);
        break;
    case SCN_FAULT_PARTITION:
    case SCN_FAULT_DELAY:
    case SCN_FAULT_DROP:
    case SCN_FAULT_DROP_REPLY:
    case SCN_FAULT_DROP_PUBSUB:
    case SCN_FAULT_FIU:
        fault_net_add(&f->net, st, sim_now(ctx));
        break;
    case SCN_FAULT_DISCONNECT:
        if (f->cw) cl_disconnect(f->cw, st->client);
        break;
    case SCN_FAULT_FAIL_REPLY:
        if (f->cw) {
            int kind = st->reply_cmd == SCN_REPLY_ACQUIRE ? CL_KIND_ACQUIRE
                       : st->reply_cmd == SCN_REPLY_UNLOCK ? CL_KIND_UNLOCK : CL_KIND_RENEW;
            cl_fail_reply(f->cw, st->client, kind, st->reply_count ? st->reply_count : 1, st->reply_error);
        }
        break;
    case SCN_FAULT_FAILOVER: {
        int group = node >= 0 ? world_group_of(f->w, node) : st->group >= 0 ? st->group : 0;
        world_failover(f->w, group);
        break;
    }
    default:
        break;
    }
    /* What the store holds may have changed (a crash, a clock step). */
    if (f->cw) cl_world_observe_all(f->cw);
}

fault_sched *fault_schedule(sim_ctx *ctx, world *w, cl_world *cw, const scenario *s,
                            const scn_step *extra, size_t nextra)
{
    fault_sched *f = sim_xcalloc(1, sizeof *f);
    f->ctx = ctx;
    f->w = w;
    f->cw = cw;
    f->s = s;
    f->ev = sim_xcalloc(s->nsteps + nextra + 1, sizeof *f->ev);
    fault_net_begin(&f->net, ctx, w);
    for (size_t i = 0; i < s->nsteps + nextra; i++) {
        const scn_step *st = i < s->nsteps ? &s->steps[i] : &extra[i - s->nsteps];
        if (!scn_op_is_fault(st->op)) continue;
        sim_assert(st->resolved); /* by the parser or the nemesis */
        f->ev[f->n].f = f;
        f->ev[f->n].st = *st;
        sim_at(ctx, st->at_us, "fault", apply, &f->ev[f->n]);
        f->n++;
    }
    return f;
}

void fault_sched_free(fault_sched *f)
{
    if (f == NULL) return;
    fault_net_end(&f->net);
    sim_xfree(f->ev);
    sim_xfree(f);
}
