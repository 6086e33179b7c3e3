/* expirable.h — RPermitExpirableSemaphore's client (expirable.c: acquire;
 * expirable_ops.c: release, updateLeaseTime, the other steps, the store
 * observer): its version settings, the permits each thread holds, and the
 * names of its keys. Private to protocols/. */
#ifndef LOCKSIM_EXPIRABLE_H
#define LOCKSIM_EXPIRABLE_H

#include "protocols/counter.h"

/* The score of a permit with no lease (RPermitExpirableSemaphore's
 * nonExpirableTimeout). */
#define PSEM_NO_LEASE "922337203685477"

typedef struct psem_cfg {
    int multi;          /* acquire(n) puts n ids per call (3.23.4) */
    int release_checks; /* a release past the lease answers 0 (3.17.0, issue #4086) */
    int tr;             /* CL_RESEND before 3.16.4, CL_NORESEND since */
    int adds_count;     /* a message adds v latch permits (before 3.15.6) */
    int latch_n;        /* waits take n latch permits (before 3.51.0, issue #6664) */
    int recheck;        /* a new listener looks at the latch (3.28.0) */
    int msg_policy;     /* how a message runs listeners (counter_msg_policy) */
    int has_update;     /* updateLeaseTime (3.8.2, 862b689f9) */
} psem_cfg;

/* One acquire's permits, held by a thread: its number (the process's
 * count of acquires, as the history names it) and its ids (32 hex
 * characters each; Redisson sends the 16 bytes they spell). */
typedef struct psem_grant {
    int64_t no;
    int n;
    char (*ids)[33];
    struct psem_grant *next;
} psem_grant;

/* A process's permits: per thread and lock, the grants held (oldest
 * first) and the last one released (a release with nothing held sends it
 * again: a permit released twice). */
typedef struct psem_proc {
    int64_t next_no;
    psem_grant **held, **last; /* [(thread - 1) * SCN_MAX_LOCKS + lock] */
} psem_proc;

const psem_cfg *psem_cfg_of(const cl_thread *t);
psem_proc *psem_state(cl_thread *t);
/* The slot of t's grants of lock in s->held / s->last. */
size_t psem_slot(const cl_thread *t, int lock);
/* Transport flags of a release (resent in every version). */
int psem_release_flags(const cl_thread *t);
/* Transport flags of the semaphore's scripts for t's version. */
int psem_flags(const cl_thread *t);
/* The timeout set of semaphore name: suffixName(name, "timeout"),
 * "{name}:timeout"; and the same for t's lock. */
void psem_timeout_name(const char *name, char *buf, size_t cap);
void psem_timeout_key(const cl_thread *t, int lock, char *buf, size_t cap);
/* The channel "redisson_sc:{name}". */
void psem_channel(const cl_thread *t, int lock, char *buf, size_t cap);
/* Sends ids of a grant back (ROLLBACK-NOSYNC's release; no one waits). */
void psem_release_ids(cl_thread *t, int lock, char (*ids)[33], int n);

/* expirable_ops.c */
void psem_proc_init(cl_proc *p);
void psem_release(cl_thread *t, int lock, cl_done_fn *done);
void psem_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done);
void psem_observe(cl_world *cw, int group, int lock, hist_store *out);
void psem_setup(cl_world *cw);

#endif /* LOCKSIM_EXPIRABLE_H */
