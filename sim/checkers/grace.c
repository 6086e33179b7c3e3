/* grace.c — the resend grace every checker gives a waiter after an
 * impairment of it: how long a command it sent into the impairment may
 * stay undecided before the client sends it again. One concept, one
 * number; each checker decides itself WHEN it applies. */
#include "protocols/client/client.h"
#include "sim/checkers/checkers_int.h"

int64_t check_resend_grace(const check_input *in)
{
    /* The command's wait for its reply (cl_reply_wait_us: the reply
     * timeout, and WAIT's where the scripts are synced; the scenario's
     * reply timeout where the caller gave none), then the longest delay
     * before the resend (cl_retry_delay_max_us: retryInterval, or
     * EqualJitter's cap). */
    int64_t wait = in->reply_wait_us > 0 ? in->reply_wait_us : in->s ? in->s->timeout_us : 0;
    int64_t retry = in->s ? cl_retry_delay_max_us(in->s) : 0;
    sim_assert(wait >= 0 && retry >= 0);
    return wait + retry;
}
