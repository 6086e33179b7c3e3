/* aio.h — asynchronous hiredis connections driven by poll(2): the event
 * loop of the real backend. Each connection calls back with every reply
 * (commands) or every message (subscriptions) as a sim_reply, and once
 * when it is lost. Nothing here knows about the simulation: the world
 * maps connections to its own. */
#ifndef LOCKSIM_REAL_AIO_H
#define LOCKSIM_REAL_AIO_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kernel/sim.h"

typedef struct real_loop real_loop;
typedef struct real_aconn real_aconn;

/* A reply to the command sent with `cookie`; reply is NULL when the
 * connection went away before it came (borrowed: copy what you keep). */
typedef void real_reply_fn(void *ud, void *cookie, const sim_reply *reply);
/* The connection is gone (the server closed it, or it never opened). */
typedef void real_lost_fn(void *ud);

real_loop *real_loop_new(void);
/* Closes every connection still open (no callbacks run). */
void real_loop_free(real_loop *l);

/* Opens a connection to host:port; the callbacks get ud. NULL when it
 * cannot even start (then nothing is called back). */
real_aconn *real_aconn_open(real_loop *l, const char *host, int port, real_reply_fn *on_reply,
                            real_lost_fn *on_lost, void *ud);
/* Sends a command; its reply comes with cookie. SUBSCRIBE-family commands
 * call back for their confirmations and, later, for each message, with
 * the cookie of the SUBSCRIBE. Returns -1 when the connection is gone. */
int real_aconn_send(real_aconn *c, int argc, const char *const *argv, const size_t *lens, void *cookie);
/* Closes the connection: pending replies are dropped (reply NULL), the
 * lost callback does not run. */
void real_aconn_close(real_aconn *c);

/* Plain sockets on the same loop (the replication proxy): fn runs when fd
 * is readable. Unwatch before closing fd. */
typedef void real_fd_fn(void *ud, int fd);
void real_loop_watch(real_loop *l, int fd, real_fd_fn *fn, void *ud);
void real_loop_unwatch(real_loop *l, int fd);

/* Waits up to timeout_us (< 0: until something happens) for I/O on the
 * loop's connections and runs the callbacks it brings. Returns how many
 * connections had I/O. */
int real_loop_poll(real_loop *l, int64_t timeout_us);

#endif /* LOCKSIM_REAL_AIO_H */
