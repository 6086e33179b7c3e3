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

/* A file of the bundled lock policies (protocols/locks/), named by its
 * path below protocols/ ("locks/redis-py.lock"). */
typedef struct proto_bundle_file {
    const char *path;
    const char *text;
    size_t len;
} proto_bundle_file;

/* Generated with the scripts; NULL-terminated. */
extern const proto_bundle_file proto_bundle[];

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
    /* Which releases behave how, for `locksim list` (NULL: nothing to
     * tell): each difference between releases with its range and source. */
    const char *history;
    cl_protocol impl;
    /* A protocol with settings of its own (NULL: the lock family's,
     * versions.c): fills cfg (a copy of impl.cfg, cfg_size bytes at most
     * PROTO_CFG_MAX) and defaults (a copy of impl.defaults) for release
     * version (PROTO_V). */
    void (*at_version)(int version, void *cfg, cl_defaults *defaults);
    size_t cfg_size;
    /* The client operations of [steps] it runs beyond the lock operations
     * and its queries (PROTO_STEP bits; others are refused when a
     * scenario is loaded). */
    uint64_t steps;
} proto_def;

/* A release as proto_def.min_version and at_version take it: 3.23.4 is
 * PROTO_V(3, 23, 4) = 32304. */
#define PROTO_V(a, b, c) ((a) * 10000 + (b) * 100 + (c))
#define PROTO_CFG_MAX 256
#define PROTO_STEP(op) (UINT64_C(1) << (op))
/* The operations only some protocols run. */
#define PROTO_STEPS_SEMAPHORE                                                                        \
    (PROTO_STEP(SCN_OP_ADDPERMITS) | PROTO_STEP(SCN_OP_TRYSETPERMITS) | PROTO_STEP(SCN_OP_DRAINPERMITS) | \
     PROTO_STEP(SCN_OP_AVAILABLEPERMITS))
#define PROTO_STEPS_GUARDED (PROTO_STEPS_SEMAPHORE | PROTO_STEP(SCN_OP_UPDATELEASE) | PROTO_STEP(SCN_OP_TRYSETCOUNT))
/* In proto_def.steps: api=async is run (acquireAsync, awaitAsync). */
#define PROTO_ASYNC (UINT64_C(1) << 63)

#define PROTO_INV(i) (1u << (i))
#define PROTO_INV_LOCK                                                                         \
    (PROTO_INV(SCN_INV_MUTEX) | PROTO_INV(SCN_INV_REENTRANCY) | PROTO_INV(SCN_INV_LIVENESS) | \
     PROTO_INV(SCN_INV_DEADLOCK) | PROTO_INV(SCN_INV_FENCING))
/* The checkers that apply to p. */
unsigned proto_invariants(const proto_def *p);
/* 1 when p counts its permits (a semaphore; not the expirable one, whose
 * permits are ids, one each, with leases). */
int proto_counts_permits(const proto_def *p);

/* The protocol named name (with version, e.g. "redisson.lock@2019"), or
 * NULL. */
const proto_def *proto_find(const char *name);
/* Why proto_find(name) found nothing, as one sentence in buf. */
const char *proto_unknown_reason(const char *name, char *buf, size_t cap);
/* The protocols written in C, NULL-terminated, for `locksim list`. */
extern const proto_def *const proto_all[];

/* ------------------------------------------------------ lock policies */

/* The protocol scenario s names: a protocol of the catalogue (C or a
 * bundled or added lock policy), else a lock policy file by its path
 * (one with a '/' or ending in .lock; relative to the scenario's folder;
 * write ./NAME.lock for a file that has a catalogue name). NULL with err set ("path:line:
 * why", the scenario's or the policy file's) when there is none, or when
 * the protocol cannot run s (its refuse hook; a policy's masters). */
const proto_def *proto_resolve(const scenario *s, scn_error *err);
/* The protocol s names, found as proto_resolve finds it but without its
 * refusals (whether it can run s): NULL with err set when there is none.
 * A policy file named by its path is loaded once. */
const proto_def *proto_lookup(const scenario *s, scn_error *err);
/* Whether p claims re-entry, and who counts it (cl_protocol.reentry). */
cl_reentry proto_reentry(const proto_def *p);
/* Adds every lock policy (*.lock) of folder dir to the catalogue
 * (--protocols DIR). Returns 0, or -1 with err set. */
int proto_add_dir(const char *dir, scn_error *err);
/* The lock policies known now (bundled, then added), by index, for
 * `locksim list`; and one by name ("redis-py", "redis-py@5.0": a bare
 * name is its newest version), or NULL. */
size_t proto_policy_count(void);
/* The file a lock policy was read from when a scenario named it by path
 * or --protocols added it (absolute); NULL for the bundled ones and the
 * protocols written in C. */
const char *proto_policy_file(const proto_def *pd);
/* The script steps of policy pd (a lock policy of the catalogue): each
 * script with its KEYS then ARGV templates, for the conformance runner.
 * Fills at most max; returns how many there are (0: not a policy). */
typedef struct proto_script_step {
    const cl_script *script;
    int nkeys, nwords;
    char *const *words; /* templates: {key}, {owner}, {lease_ms}, ... */
} proto_script_step;
size_t proto_policy_script_steps(const proto_def *pd, proto_script_step *out, size_t max);
const proto_def *proto_policy_at(size_t i);
const proto_def *proto_policy_find(const char *name);

#endif /* LOCKSIM_PROTOCOL_H */
