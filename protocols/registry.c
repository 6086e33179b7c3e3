/* registry.c — the protocol table: what `locksim list` prints and what a
 * scenario's [protocol] name selects. */
#include <string.h>

#include "rlock.h"

extern const proto_def proto_baseline_setnx, proto_baseline_cad;

static const proto_client_defaults cur_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1};
static const proto_client_defaults v2019_defaults = {
    .watchdog_gen = 1, .retry_attempts = 3, .jitter = 0, .synced = 0};

static const proto_def rlock_cur_def = {
    .name = "redisson.lock",
    .summary = "RedissonLock, current (4.7.x): merged acquire, unlock latch, batched watchdog",
    .cfg = &rlock_current,
    .defaults = &cur_defaults,
    .proc_init = rlock_proc_init,
    .proc_free = rlock_proc_free,
    .acquire = rlock_acquire,
    .release = rlock_release,
    .force_unlock = rlock_force_unlock,
    .query = rlock_query,
    .observe = rlock_observe,
    .node_of = rlock_node_of,
};

static const proto_def rlock_2019_def = {
    .name = "redisson.lock@2019",
    .summary = "RedissonLock 3.11 (2019): two-branch acquire, no unlock latch, resent scripts",
    .cfg = &rlock_2019,
    .defaults = &v2019_defaults,
    .proc_init = rlock_proc_init,
    .proc_free = rlock_proc_free,
    .acquire = rlock_acquire,
    .release = rlock_release,
    .force_unlock = rlock_force_unlock,
    .query = rlock_query,
    .observe = rlock_observe,
    .node_of = rlock_node_of,
};

const proto_def *const proto_all[] = {
    &rlock_cur_def, &rlock_2019_def, &proto_baseline_setnx, &proto_baseline_cad, NULL,
};

const proto_def *proto_find(const char *name)
{
    for (size_t i = 0; proto_all[i]; i++)
        if (strcmp(proto_all[i]->name, name) == 0) return proto_all[i];
    return NULL;
}
