/* clockshim.c — a preload library that moves a redis-server's wall clock
 * (real backend: server clock faults). It interposes clock_gettime,
 * gettimeofday and time: CLOCK_REALTIME readings get an offset in µs that
 * locksim writes, as one int64, at the start of the file named by
 * LOCKSIM_CLOCK_FILE (mapped shared, so a change is seen at the next
 * reading); monotonic clocks are left alone, as an NTP step leaves them.
 *
 * Why not libfaketime: Debian's redis-server allocates with jemalloc,
 * whose initialisation reads the clock before libfaketime can resolve its
 * symbols, and the server does not start (libfaketime issue #130, open
 * upstream). This shim needs neither dlsym nor malloc: the real time comes
 * from the clock_gettime system call. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const volatile int64_t *offset_us;
static volatile int mapped;

static int64_t offset(void)
{
    if (!mapped) {
        mapped = 1;
        const char *path = getenv("LOCKSIM_CLOCK_FILE");
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            void *m = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED) offset_us = m;
            close(fd);
        }
    }
    return offset_us ? *offset_us : 0;
}

static void shift(struct timespec *ts, int64_t us)
{
    int64_t ns = (int64_t)ts->tv_nsec + (us % 1000000) * 1000;
    ts->tv_sec += (time_t)(us / 1000000);
    if (ns < 0) {
        ns += 1000000000;
        ts->tv_sec--;
    } else if (ns >= 1000000000) {
        ns -= 1000000000;
        ts->tv_sec++;
    }
    ts->tv_nsec = (long)ns;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    int r = (int)syscall(SYS_clock_gettime, id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts, offset());
    return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
