/* host.c — the operating system outside the simulation: the wall clock
 * and the PATH lookup (host.h). The one file of sim/kernel that may read
 * the wall clock (tools/layers.txt exempts it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "sim/kernel/host.h"
#include "sim/kernel/sim.h"

int64_t host_unix_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

int64_t host_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long host_rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return 0;
    long size = 0, resident = 0;
    int n = fscanf(f, "%ld %ld", &size, &resident);
    fclose(f);
    return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : 0;
}

long host_phys_kb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? pages * (size / 1024) : 0;
}

int host_program_found(const char *prog)
{
    const char *path = getenv("PATH");
    if (path == NULL) return 0;
    char *copy = sim_xstrdup(path);
    int found = 0;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", *d ? d : ".", prog);
        found = access(full, X_OK) == 0;
    }
    sim_xfree(copy);
    return found;
}
