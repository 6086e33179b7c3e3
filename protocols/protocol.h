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

/* The bytes of the file at path, NUL-terminated (*len without the NUL),
 * owned by the caller (sim_xfree); NULL when it cannot be read. */
char *proto_file_read(const char *path, size_t *len);
/* Compiles text (len bytes) as Redis compiles a script, without running
 * it. Returns 0, or -1 with err set to "path:LINE: the script does not
 * compile: why" (err->path = path). */
int proto_script_compile(const char *path, const char *text, size_t len, scn_error *err);

/* A file of the bundled lock policies (protocols/locks/), named by its
 * path below protocols/ ("locks/redis-py.lock"). */
typedef struct proto_bundle_file {
    const char *path;
    const char *text;
    size_t len;
} proto_bundle_file;

/* Generated with the scripts; NULL-terminated. */
extern const proto_bundle_file proto_bundle[];

/* ---------------------------------------------------------- contracts */

/* What a protocol claims to survive: fault kinds of the nemesis's
 * vocabulary (SCN_NEM_* bits), each under the conditions every contract
 * shares (faults/contract.c judges a fault line by them):
 *  - a client pause, a delay or a window of lost replies no longer than
 *    the renewal margin (proto_margin): the longest a holder can be held
 *    up and keep its lease; a node pause or a partition no longer than
 *    the margin less the reply timeout (a command lost or held up in it is
 *    sent again only then);
 *  - a delay whose round trip stays under the client's reply timeout;
 *  - a node crash only where its data persists ([redis] persistence);
 *  - a failover only where the lock waits for its replica (WAIT) when
 *    failover_synced, else as the claim says (a policy's own word).
 * source cites where the claims were read. */
typedef struct proto_contract {
    unsigned survives;    /* SCN_NEM_* bits */
    int failover_synced;  /* failover is claimed only where the lock's scripts are WAITed for */
    const char *source;   /* the library's own documentation, cited */
} proto_contract;

/* The contract of a lease lock (Redisson's RLock and its kin): every kind
 * but a node's clock jump. */
#define PROTO_SURVIVES_LEASE_LOCK                                                                          \
    (SCN_NEM_PAUSE | SCN_NEM_CRASH | SCN_NEM_PARTITION | SCN_NEM_NODE_CRASH | SCN_NEM_NODE_PAUSE |          \
     SCN_NEM_FAILOVER | SCN_NEM_DROP_REPLY | SCN_NEM_DROP_PUBSUB | SCN_NEM_DISCONNECT | SCN_NEM_DELAY |    \
     SCN_NEM_FAIL_REPLY | SCN_NEM_CLIENT_CLOCK)

/* The catalogue's contracts other than a lease lock's (contract.c says
 * where each is read). */
extern const proto_contract proto_contract_client_time, proto_contract_semaphore, proto_contract_redlock;

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
    /* What it claims to survive (NULL: a lease lock's, proto_contract_of). */
    const proto_contract *contract;
    /* The bundled scripts it runs with settings cfg (impl.cfg or a
     * release's copy) and defaults d (never NULL): at most max names into
     * out; returns how many there are (NULL hook: none; see
     * proto_script_names). */
    size_t (*scripts)(const void *cfg, const cl_defaults *d, const char **out, size_t max);
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
/* The checkers that apply to p: what it declares, with dead-holder where
 * what it holds has a lease (proto_has_lease). */
unsigned proto_invariants(const proto_def *p);
/* 1 when p counts its permits (a semaphore; not the expirable one, whose
 * permits are ids, one each, with leases). */
int proto_counts_permits(const proto_def *p);

/* p's contract: its own, or a lease lock's (Redisson's wiki). Never NULL. */
const proto_contract *proto_contract_of(const proto_def *p);
/* The renewal margin of p on scenario s (a drawn one: its lease, hold and
 * watchdog timeout): how long a holder can be held up (paused, cut off,
 * its replies lost or late) and still hold its lease. A lease with a
 * renewal: the lease less the renewal period (the watchdog renews at a
 * third of its timeout; a policy's [renew] every); without: the lease
 * less the longest hold (each hold cut at 9/10 of its own lease with a
 * lease per acquire). INT64_MAX when nothing p holds has a lease (a
 * semaphore's permits, a latch). */
int64_t proto_margin(const proto_def *p, const scenario *s);
/* How long p's store may keep a hold from its grant or its last renewal,
 * for an acquire that asked for lease_us on scenario s: the lease asked,
 * the watchdog timeout for a watchdog hold (SCN_LEASE_WATCHDOG, or 0:
 * 3.17.1 made a lease of 0 the watchdog's, before it a key that expires at
 * once, so the longer is kept and no release is misjudged), a policy's or
 * a baseline's own lease where none is asked; INT64_MAX when what p holds
 * has no lease (a semaphore's permits, a latch, an expirable semaphore's
 * permit asked with none). */
int64_t proto_lease_in_force(const proto_def *p, const scenario *s, int64_t lease_us);
/* 1 when what p holds has a lease (with a lease of 30 s asked): the
 * dead-holder checker judges it (proto_invariants declares it). */
int proto_has_lease(const proto_def *p);
/* The names of the SCN_NEM_* kinds of survives, "crash, pause, ..." into
 * buf: what `locksim list` shows. */
size_t proto_contract_text(const proto_contract *c, char *buf, size_t cap);

/* The protocol named name (with version, e.g. "redisson.lock@2019"), or
 * NULL. */
const proto_def *proto_find(const char *name);
/* Why proto_find(name) found nothing, as one sentence in buf. */
const char *proto_unknown_reason(const char *name, char *buf, size_t cap);
/* The protocols written in C, NULL-terminated, for `locksim list`. */
extern const proto_def *const proto_all[];

/* -------------------------------------------- a user's patch (patch.c) */

/* The names of the scripts pd runs (a release's own for "name@V"; a lock
 * policy's script files; a patched protocol's base's), at most max of
 * them into out; returns how many there are. The names are static or
 * live as long as pd. */
size_t proto_script_names(const proto_def *pd, const char **out, size_t max);
/* The same for base (a protocol of proto_all with versions) at release v
 * (PROTO_V), resolved without keeping it: for `locksim list`. */
size_t proto_script_names_at(const proto_def *base, int v, const char **out, size_t max);
/* The hooks' helper: copies the n names into out (at most max); returns n. */
size_t proto_names_out(const char *const *names, size_t n, const char **out, size_t max);
/* pd with the scripts of folder dir in place of its bundled ones of the
 * same names (NAME.lua replaces NAME; the others stay), named label (e.g.
 * "redisson.lock+scripts(patch)"). Every file of dir is compiled as Redis
 * compiles it. Returns the patched protocol, which lives for the process
 * (the same dir and label give the same one back, read once), or NULL
 * with err set: a folder that cannot be read, a *.lua file that names no
 * script of pd (did you mean), a script that does not compile
 * ("DIR/FILE:LINE: ..."), or pd a lock policy (its scripts are its own
 * files: edit a copy). err->path and line are left as they are for the
 * errors of the folder (the caller's [protocol] scripts line). */
const proto_def *proto_patch(const proto_def *pd, const char *dir, const char *label, scn_error *err);
/* The folder a patched protocol's scripts came from (as proto_patch was
 * given it), or NULL when pd is not patched. */
const char *proto_patch_dir(const proto_def *pd);
/* One file `locksim scripts` writes: its name in the folder and its
 * bytes (owned: non-NULL when the caller frees text). */
typedef struct proto_file {
    char name[256];
    const char *text;
    size_t len;
    char *owned;
} proto_file;
/* The files to start a patch of pd from: NAME.lua for each script it
 * runs (its release's, patched ones as patched), or for a lock policy its
 * script files and its .lock file. At most max into out; returns how
 * many there are, or -1 with why (cap bytes) when a policy's file cannot
 * be read or names a script outside its folder. Free each with
 * proto_file_free. */
int proto_script_files(const proto_def *pd, proto_file *out, size_t max, char *why, size_t cap);
void proto_file_free(proto_file *f);

/* ------------------------------------------------------ lock policies */

/* The protocol scenario s names: a protocol of the catalogue (C or a
 * bundled or added lock policy), else a lock policy file by its path
 * (one with a '/' or ending in .lock; relative to the scenario's folder;
 * write ./NAME.lock for a file that has a catalogue name). NULL with err set ("path:line:
 * why", the scenario's or the policy file's) when there is none, or when
 * the protocol cannot run s (its refuse hook; a policy's masters). */
const proto_def *proto_resolve(const scenario *s, scn_error *err);
/* A path the scenario s gives (a policy file, a scripts folder) as the
 * process opens it: rel when absolute or when s->path has no folder
 * (a scenario read from a string: relative to the current directory),
 * else relative to s->path's folder. Into buf (cap bytes). */
void proto_scenario_path(const scenario *s, const char *rel, char *buf, size_t cap);
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
