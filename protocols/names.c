/* names.c — Redisson's key and channel names (PROTOCOLS.md §0.2). */
#include <stdio.h>
#include <string.h>

#include "protocols/names.h"

void proto_prefix_name(const char *prefix, const char *name, char *buf, size_t cap)
{
    int brace = strchr(name, '{') == NULL;
    size_t pl = strlen(prefix), nl = strlen(name), n = 0;
    const char *parts[] = {prefix, ":", brace ? "{" : "", name, brace ? "}" : ""};
    size_t lens[] = {pl, 1, (size_t)brace, nl, (size_t)brace};
    for (size_t i = 0; i < 5; i++) { /* as snprintf would, cut at cap */
        size_t take = lens[i] < cap - 1 - n ? lens[i] : cap - 1 - n;
        memcpy(buf + n, parts[i], take);
        n += take;
    }
    buf[n] = '\0';
}

void proto_brace_name(const char *prefix, const char *name, char *buf, size_t cap)
{
    if (strchr(name, '{')) snprintf(buf, cap, "%s%s", prefix, name);
    else snprintf(buf, cap, "%s{%s}", prefix, name);
}

void proto_unlock_latch(cl_proc *p, const char *name, char *buf, size_t cap)
{
    char request[33], base[192];
    cl_random_hex(p, request);
    proto_prefix_name("redisson_unlock_latch", name, base, sizeof base);
    sim_strjoin(buf, cap, base, ":", request, (const char *)NULL);
}
