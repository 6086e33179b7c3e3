/* fuzz_lua.c — fuzz target: the fake's Lua scripting host. An input is a
 * script, a NUL, then its arguments separated by NULs, the first byte of
 * the argument part giving the number of keys; it runs as EVAL on a fresh
 * fake node with a small step and memory limit (so runaway scripts are
 * stopped), then once more as EVALSHA. Whatever a script does, the answer
 * is a reply (an error reply for errors): never a crash or a hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fake/fake.h"

#define MAX_ARGS 16
#define STEP_LIMIT 200000          /* Lua instructions per script */
#define MEMORY_LIMIT (16u << 20)   /* bytes per script */

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    size_t body_len = strnlen(buf, size);
    const char *argv[3 + MAX_ARGS];
    size_t lens[3 + MAX_ARGS];
    char nk[8];
    int argc = 3;
    argv[0] = "EVAL";
    argv[1] = buf;
    lens[0] = 4;
    lens[1] = body_len;
    size_t at = body_len + 1;
    int numkeys = at < size ? (unsigned char)buf[at++] % 4 : 0;
    while (at < size && argc < 3 + MAX_ARGS) {
        size_t len = strnlen(buf + at, size - at);
        argv[argc] = buf + at;
        lens[argc++] = len;
        at += len + 1;
    }
    if (numkeys > argc - 3) numkeys = argc - 3;
    snprintf(nk, sizeof nk, "%d", numkeys);
    argv[2] = nk;
    lens[2] = strlen(nk);

    sim_ctx *ctx = sim_new(1);
    fake_node *n = fake_node_new(ctx, "redis0", NULL);
    fake_node_set_script_limits(n, STEP_LIMIT, MEMORY_LIMIT);
    fake_conn *c = fake_conn_new(n, NULL, NULL);
    sim_reply *r = fake_exec(n, c, argc, argv, lens);
    if (r == NULL) abort(); /* a script's command always has a reply */
    sim_reply_free(r);
    char sha[41];
    fake_sha1hex(buf, body_len, sha);
    argv[0] = "EVALSHA";
    lens[0] = 7;
    argv[1] = sha;
    lens[1] = 40;
    r = fake_exec(n, c, argc, argv, lens);
    if (r == NULL) abort();
    sim_reply_free(r);
    fake_conn_free(c);
    fake_node_free(n);
    sim_free(ctx);
    free(buf);
    return 0;
}
