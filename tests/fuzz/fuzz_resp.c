/* fuzz_resp.c — fuzz target: the real backend's reply path. Bytes as a
 * server would send them go through hiredis' reader (what the real
 * backend's connections use) and every reply it makes is converted
 * (real_reply_convert), formatted and compared with itself, as the
 * backend and the conformance runner do: errors, never crashes. */
#include <hiredis.h>
#include <stdlib.h>

#include "sim/kernel/sim.h"
#include "sim/real/real.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    redisReader *rd = redisReaderCreate();
    if (rd == NULL) abort();
    /* Fed in two pieces, as a socket may deliver them. */
    size_t half = size / 2;
    redisReaderFeed(rd, (const char *)data, half);
    for (int pass = 0; pass < 2; pass++) {
        void *reply;
        while (redisReaderGetReply(rd, &reply) == REDIS_OK && reply != NULL) {
            sim_reply *r = real_reply_convert(reply);
            char buf[512];
            sim_reply_format(r, buf, sizeof buf);
            if (!sim_reply_equal(r, r, 0, 0)) abort();
            sim_reply *d = sim_reply_dup(r);
            if (!sim_reply_equal(r, d, 0, SIM_REPLY_CMP_UNORDERED)) abort();
            sim_reply_free(d);
            sim_reply_free(r);
            freeReplyObject(reply);
        }
        if (pass == 0) redisReaderFeed(rd, (const char *)data + half, size - half);
    }
    redisReaderFree(rd);
    return 0;
}
