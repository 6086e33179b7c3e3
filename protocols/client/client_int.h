/* client_int.h — the client runtime's insides, shared by its files: the
 * process and thread records, the process's events, its connections to
 * the node groups and the client world. Private to protocols/client:
 * protocols see client.h only. */
#ifndef LOCKSIM_CLIENT_INT_H
#define LOCKSIM_CLIENT_INT_H

#include "protocols/client/client.h"
#include "sim/kernel/ut.h"

typedef struct cl_event cl_event;
typedef struct cl_node cl_node;
typedef struct cl_cmd cl_cmd;

/* An event of a process: in the sim heap (on the process's armed list) or
 * held in its pause queue. The process owns it until it runs. */
struct cl_event {
    cl_proc *p;
    cl_fn *fn;
    void *arg;
    const char *label;
    void (*free_arg)(void *); /* frees arg if the event never runs */
    cl_timer *timer;          /* armed through this timer, or NULL */
    sim_timer st;
    int queued;               /* held by a pause */
    int dead;                 /* cancelled while queued */
    cl_event *prev, *next;    /* armed list, or queue (next only) */
};

/* ------------------------------------------------------------ processes */

/* The holds of one random cycle at most: an acquire and its re-entries
 * ([clients] reentry-depth is 64 at most). */
#define CL_CYCLE_HOLDS 65

struct cl_thread {
    cl_proc *p;
    int index;          /* 1-based */
    char name[24];      /* "c3.t1" */
    char lock_name[56]; /* Redisson's lock name of the thread: "<id>:<index>" */
    int busy;           /* an operation is running */
    int depth[SCN_MAX_LOCKS]; /* hold depth the thread believes it has */
    int64_t waiting_since;    /* true time the current acquire began, or -1 */
    uint64_t op_seq;          /* the running operation's tag */
    uint64_t opcount;   /* operations started */
    scn_op cur_op;      /* the running operation */
    int cur_lock;
    int cur_mode;       /* its read/write side (SCN_RW_*; 0: none) */
    int64_t cur_n;      /* its permits (semaphore) or count (0: none) */
    int64_t cur_wait_us; /* its wait (latch await; -1: none) */
    int cur_async;      /* it uses the async API */
    int64_t cur_lease_us; /* its lease (SCN_LEASE_WATCHDOG: none) */
    /* workload */
    int scripted;       /* runs its [steps], not the random workload */
    int phase;          /* workload.c's state */
    int cycle_lock, cycle_left;
    int cycle_mode;     /* the cycle's read/write side (0: none) */
    int64_t cycle_n;    /* the cycle's permits (0: one) */
    /* The random cycle's holds, oldest first: the side of each (a release
     * names the one it ends); held_mode[held_from .. held_to) are held. */
    unsigned char held_mode[CL_CYCLE_HOLDS];
    int held_from, held_to;
    int cycle_mixed;    /* a re-entry took the other side */
    int cycle_fifo;     /* releases oldest first (1), newest first (0), not drawn yet (-1) */
    int64_t cycle_deadline_us; /* [clients] lease: the holds end before this true time */
    int64_t cycle_keep_us;     /* ... or before this one (the latest lease's end), where a
                                  re-entry adds its lease, until the cycle's first release */
    int cycle_released;        /* the cycle released a hold */
    int release_mode;   /* the side of its last release */
    int release_failed; /* its last release failed... */
    int release_retried; /* ...and was a retry ([clients] retry-unlock) */
    int cur_ok;         /* the operation that just ended succeeded */
    size_t *steps;      /* its steps (indexes into the scenario), by time */
    size_t nsteps, step_next;
    cl_timer wake;      /* think / hold timer */
    void *ext;          /* a composite protocol's running operation */
};

struct cl_proc {
    cl_world *cw;
    int client;         /* 1-based */
    int inc;            /* incarnation, 1-based */
    char id[40];        /* the Redisson connection-manager UUID */
    char name[16];      /* "c3" */
    sim_clock *clock;   /* its machine's clock (cl_world's, per client) */
    int alive, paused;
    int crash_on_reply; /* a crash on=reply is armed: the next reply kills it */
    cl_event *armed;                   /* events in the sim heap */
    cl_event *queue_head, *queue_tail; /* events held while paused */
    sim_timer pause_end;
    sim_rng *rng;
    cl_thread *threads;
    int nthreads;
    cl_node *nodes;     /* one per Redis node group */
    cl_sub *subs;       /* pub/sub entries (uthash by entry name) */
    void *watchdog;     /* watchdog.c's state, created on first use */
    struct cl_block *blocks; /* cl_alloc'd memory, freed with the process */
    void *proto;        /* the protocol's per-process state */
};

/* The event of one scripted step coming due. */
typedef struct cl_step_event {
    cl_world *cw;
    size_t index;
} cl_step_event;

/* What fail-reply faults left to spoil for one client: per kind of script
 * (CL_KIND_*), how many replies, and whether each becomes an error (else
 * it is lost). */
typedef struct cl_fail_budget {
    int count[4];
    int as_error[4];
    int64_t *spoiled_at[4]; /* when each reply it spoiled came, in order (cl_fail_reply_spoils) */
    size_t nspoiled[4], cap[4];
} cl_fail_budget;

struct cl_world {
    world *w;
    const scenario *s;
    const cl_protocol *proto;
    history *h;
    hist_observer *obs; /* the store observer */
    sim_ctx *ctx;
    cl_proc **procs;    /* current incarnation of each client, index client-1 */
    int *last_inc_of;   /* incarnation of each client's last process */
    int nprocs;
    char *step_due;     /* per scenario step: its time has come */
    cl_step_event *step_ev;
    uint64_t acquisitions, acquire_failures, op_errors;
    int stopping;       /* the duration is over: start no new operation */
    cl_settings set;    /* resolved for the version and the scenario */
    int *masters_known; /* per group: the master clients were told of */
    sim_clock *clocks;  /* per client machine */
    cl_fail_budget *fail; /* per client: replies a fail-reply fault spoils (command.c) */
    int64_t resource_max[SCN_MAX_LOCKS]; /* the fenced resource: highest token seen */
    /* The Redis keys behind lock indexes (cl_key_name). */
    const char *key_names[SCN_MAX_LOCKS];
    char *key_owned[SCN_MAX_LOCKS];
    int key_group[SCN_MAX_LOCKS];
    int nkeys;
    struct {             /* cl_script_lookup's last answers, by the name's address */
        const char *name;
        const cl_script *script;
    } script_memo[8];
    sim_freelist events; /* cl_event blocks */
    sim_freelist reqs, deliveries, cmds; /* command.c's blocks */
};

/* cl_world.c: the live process of client (1-based), or NULL. */
cl_proc *cl_world_proc(cl_world *cw, int client);

/* proc.c */
cl_proc *cl_proc_new(cl_world *cw, int client, int inc);
void cl_proc_free(cl_proc *p);
/* cl_post for an arg the event owns: fn frees it when it runs, free_arg
 * if the process dies first. */
void cl_post_owned(cl_proc *p, const char *label, cl_fn *fn, void *arg, void (*free_arg)(void *));
/* Stop-the-world for for_us of true time (a GC pause, SIGSTOP). */
void cl_proc_pause(cl_proc *p, int64_t for_us);

/* command.c */
/* The free lists of command.c's blocks in cw: set up, and drained. */
void cl_commands_world_init(cl_world *cw);
void cl_commands_world_free(cl_world *cw);
/* Sends on the pub/sub connection (SUBSCRIBE / UNSUBSCRIBE). */
void cl_ps_send(cl_proc *p, int group, int argc, const char *const *argv);
/* Drops the process's pending commands (its death). */
void cl_commands_free(cl_proc *p);
/* Opens the process's connections to every group's master. */
void cl_nodes_open(cl_proc *p);
void cl_nodes_close(cl_proc *p);
/* The process learned that group's master is node: reconnect there. */
void cl_node_switch(cl_proc *p, int group, int node);
/* Both connections to group drop; reconnection follows. */
void cl_node_drop(cl_proc *p, int group);

/* pubsub.c */
void cl_subs_free(cl_proc *p);
void cl_sub_on_push(cl_proc *p, int group, const sim_reply *msg);
/* A new pub/sub connection to group: every entry subscribes again. */
void cl_subs_resubscribe(cl_proc *p, int group);

/* workload.c */
void cl_workload_start(cl_proc *p);
void cl_workload_stop(cl_proc *p);
void cl_workload_free(cl_proc *p);
void cl_steps_schedule(cl_world *cw);

/* watchdog.c */
void cl_watchdog_free(cl_proc *p);

#endif /* LOCKSIM_CLIENT_INT_H */
