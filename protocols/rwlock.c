/* rwlock.c — RedissonReadWriteLock (PROTOCOLS.md §5) in the protocol table:
 * the client is rlock.c's with the rw scripts (rlock_rw); here are the
 * store observers, which read the rw hash ("mode", "<id>:<t>" read counts,
 * "<id>:<t>:write" write counts) instead of a lock hash's one field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/client/client.h"
#include "protocols/rlock.h"

/* What a walk over the rw hash gathers. */
typedef struct rw_walk {
    const char *lname;   /* count this thread's holds (NULL: none) */
    int mode;            /* SCN_RW_READ / SCN_RW_WRITE (0: no mode field) */
    int64_t count;       /* its read + write holds */
    char writer[64];     /* the write holder's "<id>:<t>" ("" none) */
    int64_t writes;
    char reader[64];     /* the first read holder ("" none) */
    int64_t reads;
} rw_walk;

static int64_t to_count(const char *v, size_t vlen)
{
    char num[32];
    snprintf(num, sizeof num, "%.*s", (int)(vlen < 31 ? vlen : 31), v);
    return strtoll(num, NULL, 10);
}

static int walk_field(void *ud, const char *f, size_t flen, const char *v, size_t vlen)
{
    rw_walk *w = ud;
    if (flen == 4 && memcmp(f, "mode", 4) == 0) {
        w->mode = vlen == 4 && memcmp(v, "read", 4) == 0 ? SCN_RW_READ : SCN_RW_WRITE;
        return 1;
    }
    int64_t n = to_count(v, vlen);
    int is_write = flen > 6 && memcmp(f + flen - 6, ":write", 6) == 0;
    size_t owner_len = is_write ? flen - 6 : flen;
    if (w->lname && strlen(w->lname) == owner_len && memcmp(w->lname, f, owner_len) == 0) w->count += n;
    if (is_write && w->writer[0] == '\0') {
        snprintf(w->writer, sizeof w->writer, "%.*s", (int)owner_len, f);
        w->writes = n;
    } else if (!is_write && w->reader[0] == '\0') {
        snprintf(w->reader, sizeof w->reader, "%.*s", (int)owner_len, f);
        w->reads = n;
    }
    return 1;
}

/* Walks lock's rw hash on group's master; 0 when the key is missing. */
static int walk(cl_world *cw, int group, int lock, rw_walk *w, hist_store *st)
{
    world_peek_result pk;
    if (!cl_store_peek(cw, group, lock, st, &pk)) return 0;
    if (pk.type == WORLD_TYPE_HASH) cl_store_peek_hash(cw, group, lock, walk_field, w);
    return 1;
}

/* The holder shown is the writer if there is one, else the first reader;
 * a hash with neither (only "mode": crashed readers' fields gone) or a
 * foreign key shows an unknown owner. */
void rwlock_observe(cl_world *cw, int group, int lock, hist_store *out)
{
    rw_walk w = {0};
    if (!walk(cw, group, lock, &w, out)) return;
    out->mode = w.mode;
    if (!w.writer[0] && w.mode == SCN_RW_WRITE && w.reader[0]) { /* before 3.2.4: one field name */
        snprintf(w.writer, sizeof w.writer, "%s", w.reader);
        w.writes = w.reads;
    }
    if (w.writer[0]) {
        snprintf(out->owner, sizeof out->owner, "%s", w.writer);
        out->count = w.writes;
    } else if (w.reader[0]) {
        snprintf(out->owner, sizeof out->owner, "%s", w.reader);
        out->count = w.reads;
    } else {
        snprintf(out->owner, sizeof out->owner, "?");
    }
}

int64_t rwlock_store_count(cl_world *cw, int group, int lock, const char *lname)
{
    rw_walk w = {.lname = lname};
    hist_store st;
    return walk(cw, group, lock, &w, &st) ? w.count : 0;
}

/* The current client's defaults (as registry.c's for redisson.lock). */
static const cl_defaults cur_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1, .readonly_retry = 1};

const proto_def proto_rwlock = {
    .name = "redisson.rwlock",
    .summary = "RedissonReadWriteLock, current (4.7.x): shared read holds with timeout keys, "
               "exclusive write, downgrade without upgrade",
    .impl = {
        .cfg = &rlock_rw,
        .defaults = &cur_defaults,
        .script = proto_script_find,
        .proc_init = rlock_proc_init,
        .proc_free = rlock_proc_free,
        .acquire = rlock_acquire,
        .release = rlock_release,
        .force_unlock = rlock_force_unlock,
        .query = rlock_query,
        .observe = rwlock_observe,
        .node_of = rlock_node_of,
        .store_count = rwlock_store_count,
        .reentry = CL_REENTRY_REDIS, /* both sides: a field per thread ("...:write" for write) */
        /* a write re-entry adds its lease to the time left (PROTOCOLS.md
         * 5.2 WRITE_ACQUIRE); a read hold keeps its own */
        .reentry_adds_lease = 1,
        .invariants = PROTO_INV(SCN_INV_RW_EXCLUSION) | PROTO_INV(SCN_INV_REENTRANCY) |
                      PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK),
    },
    .scripts = rlock_scripts,
    .steps = PROTO_ASYNC,
    .versions = "@3.0 .. @4.7 (read acquire and unlocks, write re-entry, client as redisson.lock)",
    .min_version = 30000,
    .history = "3.0.0-3.2.3: one field name for both sides and no downgrade (a writer that asks to read "
               "waits for itself); before 3.3.2 no read timeout keys, a hold left gets the thread's lease "
               "(3.3.1's shared timeout keys are not modelled: it runs 3.2.4's scripts); 3.3.2-3.4.2: a "
               "nested read unlock deletes the thread's own write hold (issue #891); before 3.5.5 a write "
               "re-entry sets the TTL to its lease (issue #1110), from 3.5.5 it adds the lease to the time "
               "left; before 3.8.2 a write unlock publishes 0, one waiter per process (issue #1542). "
               "read acquire 3.0.0-3.11.0: a reader joining a held lock sets the hash TTL to its own lease, "
               "which can shorten it under the other readers (issue #2144, changelog 3.11.1); 3.11.1+: "
               "max(ttl, lease). Unlock: no latch before 3.24 (resent from 3.10.0; a missing lock answers 1 "
               "until 3.44). Read holds' watchdog: before 3.8.1 the hash alone, the read timeout keys lapse "
               "(issue #1604); 3.8.1-3.43 per lock, the hash and every read timeout key, in the entry the "
               "read and write lock share; 3.44+ the batched read task",
    .options = "each lock/trylock/unlock takes a side: [steps] mode=read|write (none: write); the "
               "random workload draws it from [clients] read-ratio (0: all write), its re-entries the "
               "other side with [clients] switch, released oldest first with release-fifo. A thread "
               "holding write may also take read (downgrade); a reader asking for write waits (no upgrade).",
};
