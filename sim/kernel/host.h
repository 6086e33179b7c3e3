/* host.h — what locksim asks of the operating system outside the
 * simulation: the wall clock (Unix time, a monotonic clock) and the PATH.
 * Nothing on the deterministic path may call these (tools/layers.py bans
 * them there): the real backend, the engine's timing and the reports may. */
#ifndef LOCKSIM_HOST_H
#define LOCKSIM_HOST_H

#include <stdint.h>

/* Unix time now in µs (what Redis' clock reads). */
int64_t host_unix_us(void);
/* A monotonic clock in µs, for pacing and measuring (its origin means
 * nothing). */
int64_t host_mono_us(void);
/* 1 when an executable file named prog is in a folder of the PATH, else 0
 * (also when PATH is not set). Cost: one access() per PATH entry. */
int host_program_found(const char *prog);
/* The process's resident memory now, in KB (0 when the system does not
 * say), and the machine's physical memory in KB. */
long host_rss_kb(void);
long host_phys_kb(void);

#endif /* LOCKSIM_HOST_H */
