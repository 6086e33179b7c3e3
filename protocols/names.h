/* names.h — Redisson's name helpers (PROTOCOLS.md §0.2), shared by the
 * protocols of this folder: prefixName, the brace-wrapped channel names of
 * the counter objects, and the unlock latch of a request. Private to
 * protocols/. */
#ifndef LOCKSIM_NAMES_H
#define LOCKSIM_NAMES_H

#include <stddef.h>

#include "protocols/client/client.h"

/* prefixName(p, n): "p:n" when n has a '{', else "p:{n}"; cut at cap as
 * snprintf would. */
void proto_prefix_name(const char *prefix, const char *name, char *buf, size_t cap);
/* prefix + "{" + name + "}" (or prefix + name when it has a brace): the
 * semaphore's and the latch's channel names. */
void proto_brace_name(const char *prefix, const char *name, char *buf, size_t cap);
/* The unlock latch of one unlock request on lock key name:
 * "redisson_unlock_latch:{name}:<request id>", the id drawn from p's PRNG
 * (cap: at least 256). */
void proto_unlock_latch(cl_proc *p, const char *name, char *buf, size_t cap);

#endif /* LOCKSIM_NAMES_H */
