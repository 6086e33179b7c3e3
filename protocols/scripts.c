/* scripts.c — lookup of the bundled protocol scripts by name: every eval a
 * client sends names its script, so the lookup is a probe table (FNV-1a of
 * the name, linear probing), built on first use from the constant list. */
#include <stdint.h>
#include <string.h>

#include "protocols/protocol.h"

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
