/* node.c — a fake Redis node's life: creation, connections, and running one
 * client command (fake_exec) into a reply. */
#include <string.h>

#include "sim/fake/fake_int.h"

#define DEFAULT_SCRIPT_STEPS UINT64_C(100000000)
#define DEFAULT_SCRIPT_BYTES ((size_t)256 << 20)

fake_node *fake_node_new(sim_ctx *ctx, const char *name, sim_clock *clock)
{
    fake_node *n = sim_xcalloc(1, sizeof *n);
    n->ctx = ctx;
    n->name = sim_xstrdup(name);
    sim_clock_init(&n->own_clock);
    n->clock = clock ? clock : &n->own_clock;
    n->frozen_ms = -1;
    n->rand48 = UINT64_C(0x1234ABCD330E); /* lrand48's state before any seeding */
    n->script_steps = DEFAULT_SCRIPT_STEPS;
    n->script_bytes = DEFAULT_SCRIPT_BYTES;
    n->lua = lua_host_new(n);
    return n;
}

void fake_node_free(fake_node *n)
{
    if (n == NULL) return;
    fake_repl_fn *hook = n->repl;
    n->repl = NULL;
    fk_flush_effects(n);
    n->repl = hook;
    sim_xfree(n->effects);
    lua_host_free(n->lua);
    fk_block_free_all(n);
    fk_free_all(n);
    fps_free_all(n);
    sim_xfree(n->name);
    sim_xfree(n);
}

const char *fake_node_name(const fake_node *n)
{
    return n->name;
}

sim_clock *fake_node_clock(fake_node *n)
{
    return n->clock;
}

int64_t fake_node_time_ms(const fake_node *n)
{
    return fk_now_ms(n);
}

const fake_stats *fake_node_stats(const fake_node *n)
{
    return &n->stats;
}

void fake_node_set_repl(fake_node *n, fake_repl_fn *fn, void *ud)
{
    n->repl = fn;
    n->repl_ud = ud;
}

void fake_node_set_script_limits(fake_node *n, uint64_t steps, size_t bytes)
{
    n->script_steps = steps ? steps : DEFAULT_SCRIPT_STEPS;
    n->script_bytes = bytes ? bytes : DEFAULT_SCRIPT_BYTES;
}

void fake_node_set_runaway_keep(fake_node *n, int keep)
{
    n->runaway_keep = keep;
}

const char *fake_node_runaway(const fake_node *n, int *wrote)
{
    if (wrote) *wrote = n->runaway_wrote;
    return n->runaway_sha[0] ? n->runaway_sha : NULL;
}

void fake_node_reset(fake_node *n, int keep_data)
{
    n->version++;
    sim_assert(n->nblocked == 0); /* its connections are gone */
    fk_block_free_all(n);
    fps_free_all(n);
    lua_host_flush(n->lua);
    if (!keep_data) fk_flush(n);
}

fake_conn *fake_conn_new(fake_node *n, fake_push_fn *push, void *ud)
{
    fake_conn *c = sim_xcalloc(1, sizeof *c);
    c->node = n;
    c->id = ++n->next_conn_id;
    c->push = push;
    c->push_ud = ud;
    return c;
}

void fake_node_closing(fake_node *n)
{
    fps_free_all(n);
    n->closing = 1;
}

void fake_conn_free(fake_conn *c)
{
    if (c == NULL) return;
    if (c->node != NULL && c->node->closing) {
        for (size_t i = 0; i < c->nchannels; i++) fstr_free(&c->channels[i]);
        c->nchannels = 0;
    }
    fps_unsubscribe_all(c, 0);
    if (c->node != NULL) fk_block_conn_gone(c);
    sim_xfree(c->channels);
    sim_xfree(c);
}

void *fake_conn_ud(const fake_conn *c)
{
    return c->push_ud;
}

size_t fake_conn_subscriptions(const fake_conn *c)
{
    return c->nchannels;
}

sim_reply *fake_exec(fake_node *n, fake_conn *conn, int argc,
                     const char *const *argv, const size_t *lens)
{
    fsink sink;
    fsink_init_tree(&sink);
    fcmd c = {.n = n, .conn = conn, .argc = argc, .argv = argv, .lens = lens,
              .sink = &sink};
    if (argc < 1) return sim_reply_err("ERR empty command");
    sim_assert(conn == NULL || conn->block == NULL); /* a blocked client sends nothing */
    fake_dispatch(&c);
    if (n->nready > 0) fk_serve_blocked(n); /* keys the command made ready */
    fk_flush_effects(n);
    sim_reply *r = sink.root;
    sink.root = NULL;
    fsink_release(&sink);
    if (n->runaway_silent) { /* a script that never ends never answers */
        n->runaway_silent = 0;
        sim_reply_free(r);
        return NULL;
    }
    return r;
}

sim_reply *fake_execv(fake_node *n, fake_conn *conn, int argc, const char *const *argv)
{
    size_t lens[64] = {0};
    size_t *lp = argc <= 64 ? lens : sim_xmalloc((size_t)argc * sizeof *lp);
    for (int i = 0; i < argc; i++) lp[i] = strlen(argv[i]);
    sim_reply *r = fake_exec(n, conn, argc, argv, lp);
    if (lp != lens) sim_xfree(lp);
    return r;
}
