/* effects.c — what a master replicates: the effects of each write, queued
 * while a command (or a script) runs and handed to the replication hook at
 * its end. Most commands replicate as they were sent; SET and the EXPIRE
 * family queue rewritten forms themselves (absolute times), and expiry
 * turns into DEL, as in Redis 7. A replica applies them with writes
 * allowed and expiry suspended. */
#include <string.h>

#include "sim/fake/fake_int.h"

void fk_propagate(fake_node *n, int argc, const char *const *argv, const size_t *lens)
{
    if (n->repl == NULL || n->replica || n->applying) return;
    if (n->neffects == n->effects_cap) {
        n->effects_cap = n->effects_cap ? n->effects_cap * 2 : 8;
        n->effects = sim_xrealloc(n->effects, n->effects_cap * sizeof *n->effects);
    }
    fake_effect *e = &n->effects[n->neffects++];
    e->argc = argc;
    e->argv = sim_xmalloc((size_t)argc * sizeof *e->argv);
    e->lens = sim_xmalloc((size_t)argc * sizeof *e->lens);
    for (int i = 0; i < argc; i++) {
        e->argv[i] = sim_xmemdup(argv[i], lens[i]);
        e->lens[i] = lens[i];
    }
}

void fk_propagate_cmd(fcmd *c, uint64_t dirty_before)
{
    if (c->n->dirty != dirty_before) c->n->version++;
    if (c->propagated || c->n->dirty == dirty_before || c->cmd == NULL ||
        !(c->cmd->flags & FCMD_WRITE))
        return;
    fk_propagate(c->n, c->argc, c->argv, c->lens);
}

void fk_flush_effects(fake_node *n)
{
    if (n->neffects == 0) return;
    if (n->repl) n->repl(n->repl_ud, n->effects, n->neffects);
    for (size_t i = 0; i < n->neffects; i++) {
        for (int j = 0; j < n->effects[i].argc; j++) sim_xfree(n->effects[i].argv[j]);
        sim_xfree(n->effects[i].argv);
        sim_xfree(n->effects[i].lens);
    }
    n->neffects = 0;
}

void fake_node_set_replica(fake_node *n, int replica)
{
    n->version++;
    n->replica = replica;
    if (replica) fk_unblock_all(n);
}

int fake_node_is_replica(const fake_node *n)
{
    return n->replica;
}

void fake_node_apply(fake_node *n, const fake_effect *effects, size_t count)
{
    n->applying = 1;
    for (size_t i = 0; i < count; i++) {
        sim_reply *r = fake_exec(n, NULL, effects[i].argc, (const char *const *)effects[i].argv,
                                 effects[i].lens);
        sim_reply_free(r);
    }
    n->applying = 0;
}
