/* quorum.c — the view of a lock kept on several independent stores
 * (quorum.h): held by the owner a quorum of members names, until the
 * quorum's last member expires; else held by nobody known until the last
 * held member expires. */
#include <stdio.h>
#include <string.h>

#include "protocols/quorum.h"

void proto_quorum_view(cl_world *cw, const hist_store *m, const int *groups, int n, int need, hist_store *out)
{
    memset(out, 0, sizeof *out);
    out->expire_ms = -1;
    int64_t gone = 0;
    for (int i = 0; i < n; i++) {
        if (!m[i].held) continue;
        out->held = 1;
        int64_t at = cl_expiry_true_us(cw, groups[i], m[i].expire_ms);
        if (at > gone) gone = at;
    }
    if (!out->held) return;
    out->expire_true_us = gone;
    for (int i = 0; i < n; i++) {
        if (!m[i].held) continue;
        int same = 0;
        for (int j = 0; j < n; j++) same += m[j].held && strcmp(m[j].owner, m[i].owner) == 0;
        if (same >= need) {
            snprintf(out->owner, sizeof out->owner, "%s", m[i].owner);
            out->count = 1;
            /* The owner holds it while need of its own members live: until
             * the need-th latest of their expiries. Another's member (an
             * acquire that failed and is still releasing) says nothing of
             * the owner's lease. */
            int64_t at[64];
            int k = 0;
            for (int j = 0; j < n && k < 64; j++)
                if (m[j].held && strcmp(m[j].owner, m[i].owner) == 0) at[k++] = cl_expiry_true_us(cw, groups[j], m[j].expire_ms);
            sim_assert(k >= need && need > 0);
            for (int a = 0; a < need; a++) /* the need latest first */
                for (int b = a + 1; b < k; b++)
                    if (at[b] > at[a]) {
                        int64_t t = at[a];
                        at[a] = at[b];
                        at[b] = t;
                    }
            out->expire_true_us = at[need - 1];
            return;
        }
    }
}
