/* scn_int.h — value parsers shared by the files of sim/scn. */
#ifndef LOCKSIM_SCN_INT_H
#define LOCKSIM_SCN_INT_H

#include "sim/scn/scn.h"

/* The longest line inih reads whole: its INI_MAX_LINE (200) less the
 * newline and the NUL. */
#define SCN_LINE_MAX 198

/* The kinds of values of [section] keys (parse.c's table of keys). */
typedef enum key_kind {
    K_DURATION, /* int64 µs, >= min */
    K_DIST,     /* scn_dist */
    K_COUNTS,   /* scn_dist of plain integers >= 1: "2" or "1..3" */
    K_INT,      /* int, in [min, max] */
    K_INT64,    /* int64, in [min, max] */
    K_PROB,     /* int ppm */
    K_STR,      /* char *, owned */
    K_BOOL,     /* int 0/1 */
    K_LEASE,    /* int64 µs or -1 ("watchdog" / -1) */
    K_MODE,     /* scn_mode */
    K_RUNAWAY,  /* stop | busy: an int, 1 for busy */
    K_LOCKS,    /* comma-separated lock names */
    K_SEED,     /* uint64 + has_seed */
    K_KINDS,    /* comma list of nemesis kinds -> bits */
    K_CRASH_ON  /* int SCN_CRASH_ON_*: "time" or "reply" */
} key_kind;

typedef struct key_def {
    const char *section;
    const char *name;
    key_kind kind;
    size_t off;
    int64_t min, max;
} key_def;

/* The i-th known key of parse.c's table, in section order; NULL past the
 * end. The writer walks it to write a scenario back. */
const key_def *scn_key_at(size_t i);
/* The i-th section name, in the order a scenario is written; NULL past
 * the end. */
const char *scn_section_at(size_t i);
/* 1 when name can be a lock name: not empty, no whitespace or control
 * bytes, no ',' or ';' (the separators of a locks list and of comments). */
int scn_lock_name_ok(const char *name);
/* Fills s with the values a scenario has before its file is read. */
void scn_defaults(scenario *s);

/* Each returns 0, or -1 when s is not a valid value of its kind. */
int scn_parse_int(const char *s, int64_t *out);
int scn_parse_prob(const char *s, int *ppm);
/* "c3", "c3.t2" or "3". */
int scn_parse_client(const char *s, int *client, int *thread);
/* Parses the value of an "at = ..." line of section into st; lock_index
 * maps a lock name to its index (adding it). On error writes msg. */
int scn_step_parse(const char *section, const char *value, int line, scn_step *st,
                   int (*lock_index)(void *, const char *), void *ud, char *msg, size_t cap);

#endif /* LOCKSIM_SCN_INT_H */
