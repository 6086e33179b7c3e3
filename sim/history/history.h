/* history.h — what happened in a run, on true time: the invoke / ok /
 * fail / info events of every client operation, and the observations of
 * the store (who holds each lock, counters, wait queues) that the checkers
 * and the reports read. The history only records; it never drives. */
#ifndef LOCKSIM_HISTORY_H
#define LOCKSIM_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"
#include "sim/world/world.h"

typedef enum hist_kind { HIST_INVOKE, HIST_OK, HIST_FAIL, HIST_INFO } hist_kind;

typedef enum hist_op {
    HOP_ACQUIRE,      /* invoke: aux = wait (-1 lock()); ok: value = hold depth after */
    HOP_RELEASE,      /* ok: value = hold depth after */
    HOP_FORCE_UNLOCK,
    HOP_QUERY,        /* isLocked / held / holdCount: value = answer */
    HOP_CRASH,        /* info: the process died */
    HOP_RESTART,      /* info: a new incarnation started */
    HOP_PAUSE,        /* info: stop-the-world began; aux = its length */
    HOP_RESUME,       /* info */
    HOP_STORE,        /* info: the lock as the store has it now: holder
                         (client/inc/thread, 0 = free), value = hold count,
                         aux = true time it expires (INT64_MAX: never) */
    HOP_STORE_COUNT,  /* info: the store's hold count for the acting
                         thread right after its acquire/release ran:
                         value = count, aux = the op's sequence number */
    HOP_WRITE,        /* ok / fail: a write to the fenced resource with
                         token value (0: the protocol has none); ok when
                         the resource accepted it */
    HOP_FAULT,        /* info: a fault applied; value = its text's index */
    HOP_COUNTER,      /* info: a counter object as the store has it now
                         (semaphore: available permits; latch: count):
                         value, aux = 1 when the key exists (0: absent);
                         n = permits acquired (expirable semaphore) */
    HOP_SET,          /* info: the runtime's trySetPermits / trySetCount
                         before the workload: value = what it asked for,
                         aux = the script's answer (1: set, 0: existed) */
    HOP_COUNTDOWN,    /* latch countDown(): invoke, ok / fail */
    HOP_AWAIT,        /* latch await(): invoke (aux = wait, -1: await()),
                         ok (value 1: released, 0: timed out) / fail */
    HOP_QUEUED,       /* info: the thread entered the lock's wait queue (fair
                         lock), as the master ran the script: value = its
                         position, 1 = head */
    HOP_DEQUEUED,     /* info: the thread left the wait queue: value = 1 when
                         it left as the lock's new holder, 0 when removed
                         (purged, dequeued, lost with the node's data) */
    HOP_GIVE_UP,      /* info: the thread's acquire stopped waiting (tryLock's
                         wait ran out: acquireFailed), before its fail */
    HOP_PERMITS_ADD,  /* semaphore addPermits(n): invoke, ok / fail (n: the
                         operation's n) */
    HOP_PERMITS_SET,  /* semaphore trySetPermits(n): ok value 1 when set */
    HOP_PERMITS_DRAIN,/* semaphore drainPermits(): ok value = permits taken */
    HOP_PERMIT,       /* info (expirable semaphore): the thread holds permit
                         number aux (its process's count of ids drawn) of the
                         acquire it just got, n ids; value = what is left of
                         its lease now, in µs: the script's deadline (the
                         attempt's clock + the lease) less the clock now
                         (INT64_MAX: none); recorded
                         again when updateLeaseTime moves it (value: the new
                         lease from that operation's invoke) */
    HOP_PERMIT_END,   /* info (expirable semaphore): the store answered a
                         release of permit number aux: value 1 released
                         live, 0 refused (gone, or past its lease) */
    HOP_LATE_LISTENER,/* info: the thread's async wait added its listener
                         after the message it waits for had come (a latch's
                         gate already open): no message runs it */
    HOP_RESENT,       /* info: a command of the operation seq was sent
                         again after its reply timed out (the first may
                         have run: a script not idempotent runs twice) */
    HOP_COUNT_SET,    /* latch trySetCount(n): invoke, ok value 1 when set
                         (the latch armed again with n) / fail */
    HOP_PARK,         /* info: the thread's lock() waits on its channel with
                         no timeout (value 1: the store answered a negative
                         TTL), or (value 0) a message ended that wait; a
                         latch's await waits on its gate or listener with
                         no command in flight (1: no timeout, 2: up to one),
                         or (0) it was woken */
    HOP_REPLY_LOST    /* info: a fail-reply fault lost the reply to a command
                         of the operation seq: its thread waits for the
                         reply timeout (only then is it sent again) */
} hist_op;

typedef struct hist_event {
    int64_t t_us;    /* true time */
    hist_kind kind;
    hist_op op;
    int client;      /* 1-based; 0 = none (free store) */
    int inc;         /* incarnation of the client process, 1-based */
    int thread;      /* 1-based */
    int lock;        /* index in the scenario's lock names */
    int64_t value;
    int64_t aux;
    uint64_t seq;    /* the operation this event belongs to (0: none) */
    int mode;        /* read/write lock: SCN_RW_READ / SCN_RW_WRITE (0: none) */
    int async;       /* the operation went through the async API (a listener, not a blocked thread) */
    int64_t n;       /* semaphore permits / latch count of the operation (0: none) */
    int64_t lease_us;/* an invoke: the lease the operation asked for (acquire,
                        updateLeaseTime; SCN_LEASE_WATCHDOG: none, the
                        watchdog's); only the history has it, not the trace */
    const char *err; /* static text for failures */
} hist_event;

typedef struct history {
    hist_event *ev;
    size_t n, cap;
    char **texts;      /* owned strings events refer to (HOP_FAULT) */
    size_t ntexts, texts_cap;
} history;

void hist_init(history *h);
void hist_free(history *h);
/* Appends a copy of e. */
void hist_add(history *h, const hist_event *e);
/* Where each operation ends: for every invoke event k, ends[k] is the
 * index of its ok / fail / info (same thread and op) or of its process's
 * crash, (size_t)-1 when it was still running at the end; other entries
 * are (size_t)-1. One pass, O(events); the caller frees the array. */
size_t *hist_op_ends(const history *h);
/* Keeps a copy of text; returns its index for an event's value. */
int64_t hist_text(history *h, const char *text);
/* One readable line for event e of h, e.g. "12.004s c1.t2 ok acquire lock (depth 1)". */
size_t hist_format(const history *h, const hist_event *e, const scenario *s, char *buf, size_t cap);

/* ------------------------------------------------------ the observer */

/* The store observer records into the history what the store holds after
 * each command a master runs (the world's exec hook): who holds each lock
 * (HOP_STORE), counters (HOP_COUNTER), the hold count of the thread that
 * sent the command (HOP_STORE_COUNT), and fair-lock wait queues (HOP_QUEUED,
 * HOP_DEQUEUED). It records changes only. How a lock is read from the store
 * is the protocol's (a hist_reader); who a lock name "<id>:<thread>" is, is
 * told by the client runtime as processes start. */

/* The lock as one node stores it. */
typedef struct hist_store {
    int held;
    char owner[64];         /* the holder's lock name, "<id>:<thread>" */
    int64_t count;          /* its hold count */
    int64_t expire_ms;      /* node-clock deadline, -1 none */
    int64_t expire_true_us; /* if not 0: the true time it is gone (spans groups) */
    int mode;               /* read/write lock: SCN_RW_READ / SCN_RW_WRITE (0: none) */
    int counter;            /* a counter object (semaphore, latch): no owner; count
                               is its value, held whether its key exists */
    int64_t acquired;       /* expirable semaphore: permit ids in its timeout set */
} hist_store;

/* One waiter of a lock's wait queue: its lock name (len bytes, borrowed). */
typedef void hist_queue_fn(void *ud, const char *lname, size_t len);

/* How the observer reads locks (ud is handed back to each function). */
typedef struct hist_reader {
    void *ud;
    /* lock as group's master stores it: no side effects, no state of its
     * own, reading the stores through world_peek* only (the observer
     * keeps a reading while the stores cannot have changed) */
    void (*observe)(void *ud, int group, int lock, hist_store *out);
    /* the group holding lock; -1: the lock spans groups */
    int (*node_of)(void *ud, int lock);
    /* the store's hold count for lock name lname (NULL: the observed
     * owner's count when lname owns it, else 0) */
    int64_t (*store_count)(void *ud, int group, int lock, const char *lname);
    /* each lock name of lock's wait queue, head first (NULL: no queue) */
    void (*queue)(void *ud, int group, int lock, hist_queue_fn *fn, void *qud);
} hist_reader;

typedef struct hist_observer hist_observer;

/* Observes the nlocks locks of a run on world w into h and installs the
 * world's exec hook. Borrowed: h, w, r (for the observer's life). */
hist_observer *hist_observer_new(history *h, world *w, int nlocks, const hist_reader *r);
void hist_observer_free(hist_observer *o);
/* A process started with connection-manager id `id`: lock names
 * "<id>:<t>" are client's incarnation inc from now on. */
void hist_observer_incarnation(hist_observer *o, const char *id, int client, int inc);
/* A lock's owner value `token` (any text a client stores as the owner:
 * a random token, a UUID shared by threads) is client's incarnation inc,
 * thread `thread` from now on (the newest one of a token wins). */
void hist_observer_owner(hist_observer *o, const char *token, int client, int inc, int thread);
/* An owner value to the (client, incarnation, thread) that used it: a
 * token told by hist_observer_owner, else "<uuid>:<thread>" of an
 * incarnation; 0 when no process of the run had it. O(1). */
int hist_observer_who(const hist_observer *o, const char *lname, int *client, int *inc, int *thread);
/* What the reader reads changed other than through the stores (a lock's
 * key was renamed): every reading is taken again. */
void hist_observer_forget(hist_observer *o);
/* Records the store's view of every lock now (a fault may have changed
 * it, a client learned a new master). */
void hist_observe_all(hist_observer *o);
/* The tag a command carries to name who sent it: client, incarnation,
 * thread, lock, and the thread's operation count. */
uint64_t hist_tag(int client, int inc, int thread, int lock, uint64_t opcount);
/* The thread and the lock a tag names. */
int hist_tag_thread(uint64_t tag);
int hist_tag_lock(uint64_t tag);

#endif /* LOCKSIM_HISTORY_H */
