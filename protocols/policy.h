/* policy.h — a lock defined by files, not C: a policy file (INI, `NAME.lock`)
 * that says how a lock client behaves, and the Lua scripts it names. The
 * generic client (generic.c) runs any policy on the client runtime, so a
 * lock written from a blog post, or a library's documented behaviour, gets
 * every fault, checker and report locksim has. Private to protocols/.
 *
 * The language (README "Any Redis lock" shows it end to end):
 *
 *   [lock]     name, version, summary, key (template), owner (template),
 *              permits = N (a counting semaphore of N permits: {permits};
 *              an acquire takes one, or {n} where a template names it),
 *              lease (default when the scenario gives none; none: the lock
 *              writes nothing that expires), lease-scope = acquire | key
 *              (key: one lease for every client of a key, as a library
 *              configured once per key; the hunt varies it per lock, not
 *              per acquire), reentrant =
 *              redis | local | no (default no: the lock claims no re-entry;
 *              redis: Redis counts it, every acquire and release is sent and
 *              a hold keeps its owner value and renewal until its last
 *              release; local: the client counts it, only the first acquire
 *              and the last release are sent), local-lock = yes | no,
 *              fencing = no | reply, unsent = resend | fail (a command
 *              with no connection: resent after the retry delay, as
 *              Redisson's, or failed at once, as a library with no
 *              offline queue)
 *   [acquire]  steps (below); outcomes: acquired, held, ttl (held, the
 *              integer reply is the holder's remaining ms), next, error
 *   [wait]     mode = none | poll | pubsub | block; interval (a distribution),
 *              backoff = fixed | double, max, deadline = try-after | no-sleep-past,
 *              channel (pubsub), message = one | all; block: command = a
 *              blocking command (BLPOP ...: its reply wakes the waiter,
 *              which tries again) with outcomes woken / timed-out (default:
 *              nil timed out, anything else woken), block = remaining |
 *              wait | lease | wait-or-lease | D (its {block_s} /
 *              {block_ms}: the rest of the acquire's wait, all of it, the
 *              lease, the wait if the acquire has one else the lease, or a
 *              fixed time; 0 blocks for ever); a block that timed out while
 *              the acquire has a wait leaves it one more try
 *   [renew]    every (a duration or a fraction of the lease: 1/3), steps
 *              with outcomes renewed / failed, on-failure = stop | retry,
 *              on-error = retry | stop (an error reply or no reply: tried
 *              again at the next period, or the renewer ends, as a thread
 *              an uncaught exception kills)
 *   [release]  steps; outcomes released, not-owner, error
 *   [masters]  count, quorum = majority | all | N, drift = P% + D,
 *              validity = yes | no, resolve = early | all, node-timeout,
 *              retries, retry-delay (a distribution), release-between,
 *              release-on-failure
 *   [observe]  type = string | hash | zset | set | list | counter (string:
 *              the value is the owner; hash: a field is the owner, its
 *              value the count; a semaphore's ([lock] permits): zset, set,
 *              list or hash, a member per permit held, or with members =
 *              free a member per permit free (a list of tokens); counter:
 *              an integer, the permits held, or free)
 *   [contract] survives = fault kinds of the nemesis (crash, pause,
 *              partition, ...) the lock claims to survive; source = where
 *              that claim is written (the library's documentation)
 *
 * A step is `command = WORD ...` (a plain command) or `script = FILE` with
 * `keys = ...` and `args = ...`, and in [acquire] `owner = reply` or
 * `owner = reply:N` (the hold's owner value is what the step answered, or
 * element N of its array: the token a BLPOP popped); each section has `resend = yes | no` (a
 * reply timeout resends: Redisson's transport R, or fails: NR). After a
 * step, `OUTCOME = PATTERN, ...` lines say what its reply means, tried in
 * the order written; a reply no line matches is an error. Patterns: OK,
 * nil, an integer, int, int>0, int>=0, int<0, err, array, any, or a
 * template ({owner}: the reply equals it).
 *
 * Templates: words with {lock} (the scenario's lock name), {key}, {owner},
 * {lease_ms}, {lease_s}, {wait_ms}, {now_ms}, {thread}, {client}, {uuid}
 * (the process's id), {permits} (the semaphore's permits: [protocol]
 * permits, else [lock]'s), {n} (the permits this acquire takes), {channel},
 * {random} / {random:N} (N hex characters,
 * drawn for each acquire), {block_s} / {block_ms} (a blocking wait's time,
 * [wait] block), {base64:N} (N random bytes in base64), {seq}
 * (the process's acquire counter). */
#ifndef LOCKSIM_POLICY_H
#define LOCKSIM_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "protocols/protocol.h"

#define POL_MAX_STEPS 6
#define POL_MAX_WORDS 16
#define POL_MAX_PATTERNS 8

/* What a reply means, after one step. */
typedef enum pol_outcome {
    POL_NEXT,      /* go on with the next step */
    POL_ACQUIRED,
    POL_HELD,      /* held by another: wait and try again */
    POL_TTL,       /* held; the integer reply is the holder's remaining ms */
    POL_RENEWED,
    POL_FAILED,    /* a renewal that did not renew */
    POL_RELEASED,
    POL_NOT_OWNER, /* a release of a lock that is not (any more) ours */
    POL_WOKEN,     /* a blocking wait answered: try again */
    POL_TIMED_OUT, /* a blocking wait that timed out */
    POL_ERROR
} pol_outcome;

/* A reply pattern. */
typedef enum pol_pattern_kind {
    PAT_OK, PAT_NIL, PAT_INT_EQ, PAT_INT, PAT_INT_GT0, PAT_INT_GE0, PAT_INT_LT0, PAT_ERR, PAT_ARRAY, PAT_ANY,
    PAT_TEMPLATE /* a bulk (or status) string equal to a template */
} pol_pattern_kind;

typedef struct pol_pattern {
    pol_pattern_kind kind;
    int64_t value;  /* PAT_INT_EQ */
    char *text;     /* PAT_TEMPLATE (owned) */
    pol_outcome outcome;
} pol_pattern;

/* One step: a plain command (script NULL) or a script with keys and args,
 * all templates; what its reply means. */
typedef struct pol_step {
    int line;
    const cl_script *script;
    char *words[POL_MAX_WORDS];  /* command words, or KEYS then ARGV (owned) */
    int nwords, nkeys;
    pol_pattern pat[POL_MAX_PATTERNS];
    int npat;
    int owner_from;              /* owner = reply (-1) / reply:N (N): the hold's owner from this reply; 0 none */
} pol_step;

typedef struct pol_section {
    int present, line;
    pol_step step[POL_MAX_STEPS];
    int nsteps;
    int resend;      /* CL_RESEND (1) or CL_NORESEND (0) */
} pol_section;

typedef enum pol_wait_mode { POL_WAIT_NONE, POL_WAIT_POLL, POL_WAIT_PUBSUB, POL_WAIT_BLOCK } pol_wait_mode;

/* A blocking wait's time ([wait] block). */
typedef enum pol_block_time {
    POL_BLOCK_REMAINING,     /* the rest of the acquire's wait (for ever without one) */
    POL_BLOCK_WAIT,          /* the whole of it, each time */
    POL_BLOCK_LEASE,         /* the lease */
    POL_BLOCK_WAIT_OR_LEASE, /* the wait when the acquire has one, else the lease (python-redis-lock) */
    POL_BLOCK_FIXED          /* block_us */
} pol_block_time;

/* How the store keeps the lock ([observe] type). */
typedef enum pol_observe {
    POL_OBS_STRING,  /* the value is the owner */
    POL_OBS_HASH,    /* a field is the owner, its value the count */
    POL_OBS_ZSET,    /* a semaphore: a member per permit held */
    POL_OBS_LIST,    /* a semaphore: an element per permit held */
    POL_OBS_COUNTER, /* a semaphore: an integer, the permits held */
    POL_OBS_SET      /* a semaphore: a member per permit held */
} pol_observe;

typedef struct pol_policy {
    char *name, *version, *summary, *path;
    char *dir;               /* where its scripts are found */
    int bundled;             /* its files are compiled into the binary */
    /* [lock] */
    char *key, *owner;
    int64_t lease_us;        /* the default lease */
    int no_lease;            /* lease = none: nothing the lock writes expires; a scenario's lease is not its */
    int lease_key;           /* lease-scope = key: every client of a key uses one lease (its scripts judge
                                others' holds by the caller's): the hunt draws none per acquire */
    cl_reentry reentrant;    /* who counts re-entry: Redis, the client, or none (not reentrant) */
    int local_lock;          /* a process's threads take a local lock first */
    int unsent_fail;         /* unsent = fail: a command with no connection fails at once
                                (CL_FAILFAST); resend (default): resent later, as Redisson's */
    int fencing;             /* the acquire's integer reply is a fencing token */
    int64_t permits;         /* a counting semaphore's permits (0: a lock) */
    int takes_n;             /* a template names {n}: an acquire takes n permits (else one) */
    /* [acquire] [renew] [release] [force] */
    pol_section acquire, renew, release, force;
    /* [wait] */
    pol_wait_mode wait;
    scn_dist interval;
    int backoff_double;
    int64_t backoff_max_us;
    int no_sleep_past;       /* never sleep past the deadline: give up first */
    char *channel;
    int message_all;         /* a message wakes every waiter (else one) */
    pol_section block;       /* mode = block: its one step, the blocking command */
    pol_block_time block_time;
    int64_t block_us;        /* POL_BLOCK_FIXED */
    /* [renew] */
    int64_t renew_every_us;  /* > 0: a period; else renew_num / renew_den of the lease */
    int renew_num, renew_den;
    int renew_retry;         /* a failed renewal tries again (else stops) */
    int renew_error_stop;    /* on-error = stop: an error or timeout ends the renewal (else tried again) */
    /* [masters] */
    int masters;             /* independent node groups (1: one master) */
    int quorum;              /* 0: a majority */
    int quorum_all;
    int drift_ppm;           /* drift = lease * ppm / 1e6 + drift_us */
    int64_t drift_us;
    int validity;            /* acquired only while lease - elapsed - drift > 0 */
    int resolve_early;       /* decide as soon as a quorum for or against is in */
    int node_timeout_ppm;    /* a master not answering in lease * ppm counts against (0: none) */
    int retries;             /* attempts after the first (-1: as long as the wait lasts) */
    scn_dist retry_delay;
    int release_between;     /* release every master before the next attempt */
    int release_on_failure;  /* release every master when the acquire fails */
    /* [observe] */
    pol_observe observe;
    int observe_hash;        /* observe == POL_OBS_HASH */
    int observe_free;        /* members = free: a semaphore's key holds its free permits */
    /* [contract]: what the lock claims to survive (default: a lease lock's
     * but failover, which the generic client never WAITs for, and a
     * client's clock where a template reads it: {now_ms}, validity) */
    proto_contract contract;
    int contract_line;       /* where [contract] survives was given (0: the default) */
    char *contract_source;   /* [contract] source (owned) */
    cl_script **scripts;     /* the scripts the steps name (owned) */
    size_t nscripts;
    proto_def def;           /* the protocol the runtime runs */
} pol_policy;

/* Reads the policy file at path (files of the bundle when bundled), its
 * scripts compiled as Redis would compile them. Returns the policy, or
 * NULL with err set: "FILE:LINE: what is wrong" for the file or a script.
 * The policy lives for the process (the catalogue keeps it). */
pol_policy *pol_load(const char *path, int bundled, scn_error *err);
void pol_free(pol_policy *p);

/* The outcome of reply r after step st of section sec for the operation
 * whose templates expand with ex (the owner...): st's patterns in order. */
struct pol_expand;
pol_outcome pol_match(const pol_step *st, const sim_reply *r, const struct pol_expand *ex);

/* Template expansion: the values one operation gives its templates. */
typedef struct pol_expand {
    const pol_policy *pol;
    const char *lock;        /* the scenario's lock name */
    const char *owner;       /* the owner drawn for this acquire */
    int64_t lease_ms, wait_ms, now_ms;
    int thread, client;
    const char *uuid;
    uint64_t seq;
    int64_t permits, n;      /* {permits}, {n} */
    int64_t block_ms;        /* {block_ms}, {block_s} */
    cl_proc *p;              /* draws {random} from its PRNG (NULL: none) */
} pol_expand;

/* Expands template t into buf (cap bytes); returns the length (cut at
 * cap - 1). {key} and {channel} expand their own templates first. */
size_t pol_expand_into(const pol_expand *ex, const char *t, char *buf, size_t cap);

/* generic.c: the client that runs a policy. */
extern const cl_protocol pol_generic_impl;

#endif /* LOCKSIM_POLICY_H */
