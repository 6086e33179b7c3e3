/* grace.c — the resend grace every checker gives a waiter after an
 * impairment of it: how long a command it sent into the impairment may
 * stay undecided before the client sends it again. One concept, one
 * number; each checker decides itself WHEN it applies. */
#include "protocols/client/client.h"
#include "sim/checkers/checkers_int.h"

int64_t check_reply_wait_us(const check_input *in)
{
    /* cl_reply_wait_us: the reply timeout, and WAIT's where the scripts
     * are synced; the scenario's reply timeout where the caller gave none. */
    int64_t wait = in->reply_wait_us > 0 ? in->reply_wait_us : in->s ? in->s->timeout_us : 0;
    sim_assert(wait >= 0);
    return wait;
}

int64_t check_retry_delay_us(const check_input *in)
{
    /* cl_retry_delay_max_us: retryInterval, or EqualJitter's cap. */
    int64_t retry = in->retry_delay_us > 0 ? in->retry_delay_us : in->s ? cl_retry_delay_max_us(in->s) : 0;
    sim_assert(retry >= 0);
    return retry;
}

int64_t check_resend_grace(const check_input *in)
{
    return check_reply_wait_us(in) + check_retry_delay_us(in);
}

int check_reply_lost_within(const history *hi, const hist_event *e, int64_t from, int64_t to)
{
    int n = 0;
    for (const hist_event *x = e + 1; x < hi->ev + hi->n && x->t_us <= to; x++)
        n += x->op == HOP_REPLY_LOST && x->t_us >= from && x->client == e->client && x->inc == e->inc &&
             x->thread == e->thread && x->seq == e->seq;
    return n;
}

int check_impaired_in_grace(const check_impaired *im, int client, int lock, int64_t wait_from, int64_t t,
                            int64_t grace)
{
    int64_t since = t - grace > wait_from ? t - grace : wait_from;
    return check_impaired_within(im, client, lock, since, t, NULL) > 0;
}
