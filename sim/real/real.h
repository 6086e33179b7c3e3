/* real.h — talking to a real redis-server over hiredis: connections,
 * commands (one at a time or pipelined), replies converted to sim_reply,
 * and plain TCP sockets. Only this module (and reports) may touch sockets;
 * the wall clock is sim/kernel/host.h's. */
#ifndef LOCKSIM_REAL_H
#define LOCKSIM_REAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kernel/sim.h"

typedef struct real_conn real_conn;

/* Connects to host:port within timeout_ms. Returns NULL and writes the
 * reason to err (cap bytes) on failure. */
real_conn *real_connect(const char *host, int port, int timeout_ms, char *err,
                        size_t cap);
/* Closes the connection; NULL is a no-op. */
void real_close(real_conn *c);
/* Sends one command and waits for its reply (owned by the caller); NULL on
 * an I/O error, the reason in real_errstr(). */
sim_reply *real_command(real_conn *c, int argc, const char *const *argv,
                        const size_t *lens);
/* Pipelining: queue a command, then collect replies in order. */
int real_append(real_conn *c, int argc, const char *const *argv, const size_t *lens);
sim_reply *real_get_reply(real_conn *c);
/* Writes out what real_append queued, without reading a reply: 0, or -1
 * on an I/O error. */
int real_flush(real_conn *c);
const char *real_errstr(const real_conn *c);
/* A hiredis redisReply (passed as void *, so callers need not include
 * hiredis) as a sim_reply the caller owns. */
sim_reply *real_reply_convert(const void *reply);
/* Sets the send/receive timeout: a reply not there in ms is an error. */
int real_set_timeout(real_conn *c, int ms);

/* Plain TCP (sock.c). A listener on a free port of 127.0.0.1 (its port
 * in *port), a blocking connection to host:port, the accepted side of a
 * listener; the connections have TCP_NODELAY. -1 on failure. */
int real_listen_loopback(int backlog, int *port);
int real_tcp_connect(const char *host, int port);
int real_accept(int listen_fd);

#endif /* LOCKSIM_REAL_H */
