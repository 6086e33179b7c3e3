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
                         value, aux = 1 when the key exists (0: absent) */
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
    HOP_GIVE_UP       /* info: the thread's acquire stopped waiting (tryLock's
                         wait ran out: acquireFailed), before its fail */
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
    int64_t n;       /* semaphore permits / latch count of the operation (0: none) */
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

#endif /* LOCKSIM_HISTORY_H */
