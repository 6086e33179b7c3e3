/* scn_int.h — value parsers shared by the files of sim/scn. */
#ifndef LOCKSIM_SCN_INT_H
#define LOCKSIM_SCN_INT_H

#include "scn.h"

/* Each returns 0, or -1 when s is not a valid value of its kind. */
int scn_parse_dist(const char *s, scn_dist *out);
int scn_parse_int(const char *s, int64_t *out);
int scn_parse_prob(const char *s, int *ppm);
/* "c3", "c3.t2" or "3". */
int scn_parse_client(const char *s, int *client, int *thread);
/* Parses the value of an "at = ..." line of section into st; lock_index
 * maps a lock name to its index (adding it). On error writes msg. */
int scn_step_parse(const char *section, const char *value, int line, scn_step *st,
                   int (*lock_index)(void *, const char *), void *ud, char *msg, size_t cap);

#endif /* LOCKSIM_SCN_INT_H */
