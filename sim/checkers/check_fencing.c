/* check_fencing.c — the fenced resource (Kleppmann 2016): a resource that
 * refuses tokens lower than the highest it has seen stays safe even when
 * two clients believe they hold the lock. It is unsafe when it accepted a
 * write out of token order (it does not check, or tokens went backwards)
 * or accepted writes from two holders under the same token (a token
 * counter that lost an increment in a failover).
 *
 * Excludes no fault: a safety property must hold whatever the network
 * did; only the waits' checkers leave out impaired periods (impaired.c). */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

typedef struct last_write {
    int64_t token;
    int client, inc, thread;
    int64_t t_us;
    int any;
} last_write;

void check_fencing(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    char *const *names = in->names;
    last_write last[SCN_MAX_LOCKS];
    memset(last, 0, sizeof last);
    int writes = 0, tokens = 0;
    r->checked[SCN_INV_FENCING] = 1;
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op != HOP_WRITE || e->lock < 0 || e->lock >= SCN_MAX_LOCKS) continue;
        writes++;
        if (e->value > 0) tokens++;
        if (e->kind != HIST_OK) continue; /* rejected: the fence did its job */
        last_write *l = &last[e->lock];
        int other = l->any && (l->client != e->client || l->inc != e->inc || l->thread != e->thread);
        if (l->any && e->value > 0 && (e->value < l->token || (e->value == l->token && other))) {
            check_violate(r, SCN_INV_FENCING, e->t_us, k,
                          "the resource accepted c%d.t%d's write with token %lld under %s after c%d.t%d's "
                          "with token %lld at %lld.%03llds",
                          e->client, e->thread, (long long)e->value, names[e->lock], l->client, l->thread,
                          (long long)l->token, (long long)(l->t_us / 1000000),
                          (long long)(l->t_us / 1000 % 1000));
        }
        if (!l->any || e->value >= l->token) {
            *l = (last_write){e->value, e->client, e->inc, e->thread, e->t_us, 1};
        }
    }
    if (r->verdict[SCN_INV_FENCING] != CHECK_VIOLATED)
        r->verdict[SCN_INV_FENCING] = writes > 0 && tokens == writes ? CHECK_HELD : CHECK_UNKNOWN;
}
