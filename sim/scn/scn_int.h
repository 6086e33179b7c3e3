/* scn_int.h — value parsers shared by the files of sim/scn. */
#ifndef LOCKSIM_SCN_INT_H
#define LOCKSIM_SCN_INT_H

#include "scn.h"

/* Each returns 0, or -1 when s is not a valid value of its kind. */
int scn_parse_duration(const char *s, int64_t *out);
int scn_parse_dist(const char *s, scn_dist *out);
int scn_parse_int(const char *s, int64_t *out);
int scn_parse_prob(const char *s, int *ppm);

#endif /* LOCKSIM_SCN_INT_H */
