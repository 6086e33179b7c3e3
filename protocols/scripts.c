/* scripts.c — lookup of the bundled protocol scripts by name. */
#include <string.h>

#include "protocols/protocol.h"

const cl_script *proto_script_find(const char *name)
{
    for (size_t i = 0; i < proto_script_text_count; i++)
        if (strcmp(proto_script_texts[i].name, name) == 0) return &proto_script_texts[i];
    return NULL;
}
