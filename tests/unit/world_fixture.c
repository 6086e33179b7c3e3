/* world_fixture.c — the deployment and recording client endpoint that the
 * world and fault tests share. */
#include <stdio.h>
#include <string.h>

#include "faults/fault.h"
#include "tests/unit/tests.h"
#include "tests/unit/world_fixture.h"

void wf_on_reply(void *ud, uint64_t id, const sim_reply *r)
{
    wf_rec *x = ud;
    if (x->replies < 64) x->ids[x->replies] = id;
    x->replies++;
    sim_reply_format(r, x->last, sizeof x->last);
}

void wf_on_push(void *ud, const sim_reply *r)
{
    wf_rec *x = ud;
    x->pushes++;
    if (r->type == SIM_REPLY_ARRAY && r->elements == 3 && r->element[0]->len == 7 &&
        memcmp(r->element[0]->str, "message", 7) == 0)
        x->messages++;
    sim_reply_format(r, x->last, sizeof x->last);
}

void wf_on_reset(void *ud)
{
    ((wf_rec *)ud)->resets++;
}

scenario wf_topo(int replicas, int persistence, const char *extra)
{
    scenario s;
    scn_error err;
    char text[2048];
    snprintf(text, sizeof text,
             "[scenario]\nduration = 60s\n[redis]\nreplicas = %d\npersistence = %s\n"
             "latency = 100us..900us\nreplication-lag = 10ms..20ms\ndown-after = 1s\ndiscovery = 100ms\n"
             "[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n%s",
             replicas, persistence ? "yes" : "no", extra);
    int rc = scn_load_string("topo.scn", text, &s, &err);
    if (rc != 0) ck_abort_msg("%s", err.msg);
    return s;
}

void wf_send(world_conn *c, uint64_t id, const char *a, const char *b, const char *cc)
{
    const char *argv[] = {a, b, cc};
    size_t lens[] = {strlen(a), b ? strlen(b) : 0, cc ? strlen(cc) : 0};
    world_send(c, cc ? 3 : b ? 2 : 1, argv, lens, 0, id);
}

world_conn *wf_connect(world *w, wf_rec *r)
{
    return world_connect(w, WORLD_CLIENT(1), 0, "c1>redis0", wf_on_reply, wf_on_push, wf_on_reset, r);
}

void wf_start(wf_run *r, int replicas, int persistence, const char *faults, uint64_t seed)
{
    char extra[1024];
    snprintf(extra, sizeof extra, "[faults]\n%s", faults);
    r->s = wf_topo(replicas, persistence, extra);
    r->ctx = sim_new(seed);
    r->w = world_new(r->ctx, &r->s);
    r->f = faults[0] ? fault_schedule(r->ctx, r->w, NULL, &r->s, NULL, 0) : NULL;
}

void wf_end(wf_run *r)
{
    fault_sched_free(r->f);
    world_free(r->w);
    sim_free(r->ctx);
    scn_free(&r->s);
}
