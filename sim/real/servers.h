/* servers.h — redis-server processes that locksim starts and owns: a
 * topology of groups (a master and its replicas) on free ports of
 * 127.0.0.1, each in a private temporary directory with no persistence
 * (--save '' --appendonly no), started with --replicaof for replicas. Every
 * process started is stopped when the set is stopped, at exit, and on
 * SIGINT / SIGTERM / SIGHUP (then the signal is re-raised). Server faults
 * act on the processes: SIGKILL, a restart on the same port, SIGSTOP and
 * SIGCONT. */
#ifndef LOCKSIM_REAL_SERVERS_H
#define LOCKSIM_REAL_SERVERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct real_servers real_servers;

/* Starts groups x (1 + replicas) servers and waits until each answers
 * PING (and each replica reports its link up). Node i is group
 * i / (1 + replicas), the group's master when i % (1 + replicas) == 0.
 * NULL with the reason in err when something could not start (whatever
 * did start is stopped). */
real_servers *real_servers_start(int groups, int replicas, char *err, size_t cap);
/* The same with each server's wall clock movable: the clock shim
 * (tools/clockshim.c, built beside the locksim binary) is preloaded and
 * reads its offset from a file per server; the monotonic clock stays
 * true. */
real_servers *real_servers_start_clocked(int groups, int replicas, char *err, size_t cap);
/* Sets node's wall clock to true time + offset_us (clocked sets only). */
int real_servers_set_offset(real_servers *s, int node, int64_t offset_us);
/* Servers the user runs: spec is "HOST:PORT[,HOST:PORT...]", node i the
 * i-th. Faults on them are refused (-1). NULL with the reason in err. */
real_servers *real_servers_external(const char *spec, char *err, size_t cap);
const char *real_servers_host(const real_servers *s, int node);
int real_servers_managed(const real_servers *s);

/* On SIGINT / SIGTERM / SIGHUP the servers are killed, then, when hook is
 * set, hook(sig) runs (it must be async-signal-safe) and the process goes
 * on; otherwise the signal is re-raised. NULL: re-raise (the default). */
void real_servers_set_signal_hook(void (*hook)(int));

/* Stops every process of the set (SIGTERM, then SIGKILL after 2 s) and
 * removes the directories. NULL is a no-op. */
void real_servers_stop(real_servers *s);

int real_servers_count(const real_servers *s);
int real_servers_port(const real_servers *s, int node);
/* 1 while the node's process runs (it may be stopped by SIGSTOP). */
int real_servers_alive(const real_servers *s, int node);

/* SIGKILL: the process dies with its data. */
int real_servers_kill(real_servers *s, int node);
/* Starts a killed node again on its port, empty; replicaof_port > 0 makes
 * it a replica of that port. Returns 0 when it answers PING. */
int real_servers_restart(real_servers *s, int node, int replicaof_port);
/* SIGSTOP / SIGCONT. */
int real_servers_pause(real_servers *s, int node);
int real_servers_resume(real_servers *s, int node);

#endif /* LOCKSIM_REAL_SERVERS_H */
