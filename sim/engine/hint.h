/* hint.h — a violation explained in Redisson's terms: which setting or
 * version would change the outcome where the scenario shows it (lease vs
 * watchdog, lockWatchdogTimeout, synced, the unlock latch of 3.24,
 * persistence, ...). One line, a pointer for the reader: what the rules
 * below know of Redisson, not something the run itself verified. */
#ifndef LOCKSIM_HINT_H
#define LOCKSIM_HINT_H

#include <stddef.h>

#include "sim/engine/run.h"

/* Writes the hint for violation v of r into buf (cap bytes) and returns
 * its length; 0 (buf "") when no rule speaks to it. */
size_t run_hint(const run_result *r, const check_violation *v, char *buf, size_t cap);

#endif /* LOCKSIM_HINT_H */
