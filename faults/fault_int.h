/* fault_int.h — the network-fault rules shared by the files of faults/. */
#ifndef LOCKSIM_FAULT_INT_H
#define LOCKSIM_FAULT_INT_H

#include <stdlib.h>

#include "faults/fault.h"

/* One active network rule. */
typedef struct frule {
    scn_op op;
    int64_t until_us;   /* INT64_MAX: until healed */
    scn_side a, b;      /* partition sides, or the two ends of a link */
    int directed;
    int client;         /* drop-reply / drop-pubsub: this client's only (0: any) */
    int p_ppm;
    int64_t by_us;
    char point[64];     /* raw fiu rule */
} frule;

typedef struct fault_net {
    sim_ctx *ctx;
    world *w;
    frule *rules;
    size_t n, cap;
    /* the message being judged, for the libfiu callback */
    int from, to;
    world_msg_kind kind;
    int is_message;
    int64_t extra_us;
    int64_t cut_until;  /* a partition cuts it off: when that partition ends */
} fault_net;

void fault_net_begin(fault_net *fn, sim_ctx *ctx, world *w);
void fault_net_end(fault_net *fn);
/* Installs the rule of fault line st (at true time now). */
void fault_net_add(fault_net *fn, const scn_step *st, int64_t now);
/* Ends every partition (what they held goes out again). */
void fault_net_heal(fault_net *fn);

#endif /* LOCKSIM_FAULT_INT_H */
