/* protocol.h — the lock protocols: their server-side scripts (the .lua files
 * of protocols/lua, compiled into the binary) and, in time, their client
 * state machines. */
#ifndef LOCKSIM_PROTOCOL_H
#define LOCKSIM_PROTOCOL_H

#include <stddef.h>

/* One bundled script: name is its file name without ".lua". */
typedef struct proto_script_text {
    const char *name;
    const char *text;
    size_t len;
} proto_script_text;

/* Generated from protocols/lua by tools/embed.c; NULL-terminated. */
extern const proto_script_text proto_script_texts[];
extern const size_t proto_script_text_count;

/* The bundled script named name, or NULL. O(number of scripts). */
const proto_script_text *proto_script_find(const char *name);

#endif /* LOCKSIM_PROTOCOL_H */
