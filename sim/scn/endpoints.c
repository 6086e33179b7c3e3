/* endpoints.c — the names of nodes, groups and clients in fault lines,
 * resolved against the scenario's topology once: node= into a node index,
 * a partition's sides and a link's ends into scn_side sets. Runs use the
 * ids; the names stay for the lines written back (traces, files). A
 * resolved step names only endpoints its scenario has. */
#include <stdio.h>
#include <string.h>

#include "sim/scn/scn_int.h"

int scn_side_has_node(const scn_side *s, int node)
{
    if (s->all_nodes) return 1;
    return node >= 0 && node < SCN_MAX_NODES && ((s->nodes[node / 64] >> (node % 64)) & 1);
}

int scn_side_has_client(const scn_side *s, int client)
{
    if (s->all_clients) return 1;
    for (int i = 0; i < s->nclients; i++)
        if (s->clients[i] == client) return 1;
    return 0;
}

int scn_max_client(const scenario *s)
{
    int n = s->clients;
    for (size_t i = 0; i < s->nsteps; i++)
        if (!scn_op_is_fault(s->steps[i].op) && s->steps[i].client > n) n = s->steps[i].client;
    return n;
}

size_t scn_node_name(const scenario *s, int node, char *buf, size_t cap)
{
    int per = 1 + s->replicas, group = node / per, k = node % per;
    int n = k == 0 ? snprintf(buf, cap, "redis%d", group) : snprintf(buf, cap, "redis%d.r%d", group, k);
    return n > 0 ? (size_t)n : 0;
}

/* The node named name, exactly as scn_node_name writes it, or -1. */
static int node_index(const scenario *s, const char *name)
{
    char buf[32];
    for (int i = 0; i < s->nodes * (1 + s->replicas); i++) {
        scn_node_name(s, i, buf, sizeof buf);
        if (!strcmp(buf, name)) return i;
    }
    return -1;
}

/* The group named name ("group2": redis2 and its replicas), or -1. */
static int group_index(const scenario *s, const char *name)
{
    int g, n = 0;
    return sscanf(name, "group%d%n", &g, &n) == 1 && name[n] == '\0' && g >= 0 && g < s->nodes ? g : -1;
}

/* The client named name ("c3"; "c3.t1" is the same client), or 0. */
static int client_number(const char *name, int max_client)
{
    int c, t;
    return name[0] == 'c' && scn_parse_client(name, &c, &t) == 0 && c <= max_client && t == 1 ? c : 0;
}

static void add_node(scn_side *side, int node)
{
    side->nodes[node / 64] |= UINT64_C(1) << (node % 64);
}

static int add_client(scn_side *side, int client)
{
    if (scn_side_has_client(side, client)) return 0;
    if (side->nclients == SCN_SIDE_CLIENTS) return -1;
    side->clients[side->nclients++] = client;
    return 0;
}

/* One token of a side into side; -1 when it names no endpoint of s. */
static int add_endpoint(const scenario *s, const char *name, int max_client, scn_side *side)
{
    int node, group, client;
    if (!strcmp(name, "clients")) side->all_clients = 1;
    else if (!strcmp(name, "nodes")) side->all_nodes = 1;
    else if ((node = node_index(s, name)) >= 0) add_node(side, node);
    else if ((group = group_index(s, name)) >= 0)
        for (int k = 0; k <= s->replicas; k++) add_node(side, group * (1 + s->replicas) + k);
    else if ((client = client_number(name, max_client)) > 0) return add_client(side, client);
    else return -1;
    return 0;
}

/* A comma list of endpoint names into *side. */
static int side_resolve(const scenario *s, const char *text, int max_client, scn_side *side, char *msg, size_t cap)
{
    char buf[160];
    memset(side, 0, sizeof *side);
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        if (add_endpoint(s, n, max_client, side) == 0) continue;
        snprintf(msg, cap,
                 "unknown endpoint \"%s\" (nodes are redis0, redis0.r1, ...; groups group0, ...; clients c1, c2, ...)",
                 n);
        return -1;
    }
    return 0;
}

int scn_step_resolve(const scenario *s, scn_step *st, char *msg, size_t cap)
{
    int max_client = scn_max_client(s);
    st->resolved = 0;
    st->node_index = -1;
    memset(&st->end_a, 0, sizeof st->end_a);
    memset(&st->end_b, 0, sizeof st->end_b);
    if (st->node[0] && (st->node_index = node_index(s, st->node)) < 0) {
        snprintf(msg, cap, "no node \"%s\" (this topology has redis0..redis%d%s)", st->node, s->nodes - 1,
                 s->replicas ? " with replicas .r1.." : "");
        return -1;
    }
    int partition = st->op == SCN_FAULT_PARTITION;
    const char *a = partition ? st->side_a : st->link_a, *b = partition ? st->side_b : st->link_b;
    if ((partition || st->link_a[0]) && (side_resolve(s, a, max_client, &st->end_a, msg, cap) != 0 ||
                                         side_resolve(s, b, max_client, &st->end_b, msg, cap) != 0))
        return -1;
    st->resolved = 1;
    return 0;
}
