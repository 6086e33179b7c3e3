/* quorum.c — the view of a lock kept on several independent stores
 * (quorum.h). */
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
            return;
        }
    }
}
