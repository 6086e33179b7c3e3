/* scripts.c — lookup of the bundled protocol scripts by name: every eval a
 * client sends names its script, so the lookup is a probe table (FNV-1a of
 * the name, linear probing), built on first use from the constant list;
 * and the reading and compiling of a user's script files (policies, patches). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/protocol.h"
#include "sim/fake/fake.h"

#define SLOTS 256 /* power of two, > 2 * the scripts */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* A pure function of the constant script list: built twice (never, with
 * no threads) it would write the same bytes. */
static const cl_script *const *table(void)
{
    static const cl_script *slots[SLOTS];
    static int built;
    if (!built) {
        sim_assert(proto_script_text_count * 2 < SLOTS);
        for (size_t i = 0; i < proto_script_text_count; i++) {
            uint32_t k = name_hash(proto_script_texts[i].name) & (SLOTS - 1);
            while (slots[k]) k = (k + 1) & (SLOTS - 1);
            slots[k] = &proto_script_texts[i];
        }
        built = 1;
    }
    return slots;
}

const cl_script *proto_script_find(const char *name)
{
    const cl_script *const *slots = table();
    for (uint32_t k = name_hash(name) & (SLOTS - 1);; k = (k + 1) & (SLOTS - 1)) {
        if (slots[k] == NULL) return NULL;
        if (strcmp(slots[k]->name, name) == 0) return slots[k];
    }
}

char *proto_file_read(const char *path, size_t *len)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    char chunk[4096];
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0) {
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            buf = sim_xrealloc(buf, cap);
        }
        memcpy(buf + n, chunk, got);
        n += got;
    }
    int bad = ferror(in);
    fclose(in);
    if (bad) { /* a folder opens on Linux, and reads fail */
        sim_xfree(buf);
        return NULL;
    }
    if (buf == NULL) buf = sim_xcalloc(1, 1);
    buf[n] = '\0';
    *len = n;
    return buf;
}

int proto_script_compile(const char *path, const char *text, size_t len, scn_error *err)
{
    char why[512];
    if (fake_script_compile(text, len, why, sizeof why) == 0) return 0;
    /* "user_script:3: msg" -> path:3: msg */
    const char *colon = strncmp(why, "user_script:", 12) == 0 ? why + 12 : NULL;
    const char *msg = colon ? strchr(colon, ':') : NULL;
    snprintf(err->path, sizeof err->path, "%s", path);
    err->line = colon ? atoi(colon) : 0;
    snprintf(err->msg, sizeof err->msg, "the script does not compile: %.400s", msg ? msg + 2 : why);
    return -1;
}
