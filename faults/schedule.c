/* schedule.c — turns a scenario's fault lines into timed events and
 * applies them: client crash (no unlock, no watchdog: the process is
 * gone), restart (a new process with a new id), and pause (stop the world
 * for the given time, timers included). */
#include <stdio.h>

#include "fault.h"

typedef struct fault_ev {
    fault_sched *f;
    const scn_step *st;
} fault_ev;

struct fault_sched {
    sim_ctx *ctx;
    world *w;
    cl_world *cw;
    fault_ev *ev;
    size_t n;
};

static void apply(sim_ctx *ctx, void *arg)
{
    fault_ev *e = arg;
    const scn_step *st = e->st;
    fault_sched *f = e->f;
    switch (st->op) {
    case SCN_FAULT_CRASH:
        sim_trace(ctx, "fault", "crash client=c%d (line %d)", st->client, st->line);
        cl_crash(f->cw, st->client);
        break;
    case SCN_FAULT_RESTART:
        sim_trace(ctx, "fault", "restart client=c%d (line %d)", st->client, st->line);
        cl_restart(f->cw, st->client);
        break;
    case SCN_FAULT_PAUSE:
        sim_trace(ctx, "fault", "pause client=c%d for=%lldus (line %d)", st->client,
                  (long long)st->for_us, st->line);
        cl_pause(f->cw, st->client, st->for_us);
        break;
    default:
        break;
    }
}

fault_sched *fault_schedule(sim_ctx *ctx, world *w, cl_world *cw, const scenario *s)
{
    fault_sched *f = sim_xcalloc(1, sizeof *f);
    f->ctx = ctx;
    f->w = w;
    f->cw = cw;
    f->ev = sim_xcalloc(s->nsteps + 1, sizeof *f->ev);
    for (size_t i = 0; i < s->nsteps; i++) {
        const scn_step *st = &s->steps[i];
        if (st->op < SCN_FAULT_CRASH) continue;
        f->ev[f->n] = (fault_ev){f, st};
        sim_at(ctx, st->at_us, "fault", apply, &f->ev[f->n]);
        f->n++;
    }
    return f;
}

void fault_sched_free(fault_sched *f)
{
    if (f == NULL) return;
    sim_xfree(f->ev);
    sim_xfree(f);
}
