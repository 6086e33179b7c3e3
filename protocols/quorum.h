/* quorum.h — one lock kept on n independent stores (MultiLock, RedLock,
 * the multi-master lock policies), seen by the store observer as one
 * lock. Private to protocols/. */
#ifndef LOCKSIM_QUORUM_H
#define LOCKSIM_QUORUM_H

#include "protocols/client/client.h"

/* The lock as members m[0..n) (member i on node group groups[i]) hold it:
 * held by an owner when need of them name that owner, until fewer than
 * need of its own members are left (the need-th latest of their
 * expiries); held by nobody known when some member is held, until its
 * last held member expires; free when none is. */
void proto_quorum_view(cl_world *cw, const hist_store *m, const int *groups, int n, int need, hist_store *out);

#endif /* LOCKSIM_QUORUM_H */
