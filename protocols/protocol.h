/* protocol.h — the catalogue of lock protocols: the protocol table
 * (`locksim list`, a scenario's [protocol] name, pinned releases) and the
 * bundled server scripts. Each protocol is a cl_protocol that the client
 * runtime (protocols/client) runs. */
#ifndef LOCKSIM_PROTOCOL_H
#define LOCKSIM_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "protocols/client/client.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"
#include "sim/world/world.h"

/* ----------------------------------------------------------- scripts */

/* Generated from protocols/lua by tools/embed.c (name: the file name
 * without ".lua"; sha computed by the build). */
extern const cl_script proto_script_texts[];
extern const size_t proto_script_text_count;

/* The bundled script named name, or NULL. O(number of scripts). */
const cl_script *proto_script_find(const char *name);

/* --------------------------------------------------------- protocols */

/* One protocol of the catalogue: what `locksim list` says of it and what
 * the client runtime runs (impl). */
typedef struct proto_def {
    const char *name;
    const char *summary;
    /* Its [protocol] / [clients] options, for `locksim list` (NULL: none
     * beyond the common ones). */
    const char *options;
    /* The Redisson releases "name@X.Y[.Z]" may pin (NULL: only the name
     * itself), e.g. "3.11 .. 4.7"; a release gets that version's settings
     * of the lock family (PROTOCOLS.md §0.9). */
    const char *versions;
    int min_version;    /* the oldest release it exists in (major*10000+minor*100+patch) */
    cl_protocol impl;
} proto_def;

#define PROTO_INV(i) (1u << (i))
#define PROTO_INV_LOCK                                                                         \
    (PROTO_INV(SCN_INV_MUTEX) | PROTO_INV(SCN_INV_REENTRANCY) | PROTO_INV(SCN_INV_LIVENESS) | \
     PROTO_INV(SCN_INV_DEADLOCK) | PROTO_INV(SCN_INV_FENCING))
/* The checkers that apply to p. */
unsigned proto_invariants(const proto_def *p);

/* The protocol named name (with version, e.g. "redisson.lock@2019"), or
 * NULL. */
const proto_def *proto_find(const char *name);
/* Why proto_find(name) found nothing, as one sentence in buf. */
const char *proto_unknown_reason(const char *name, char *buf, size_t cap);
/* All protocols, NULL-terminated, for `locksim list`. */
extern const proto_def *const proto_all[];

#endif /* LOCKSIM_PROTOCOL_H */
