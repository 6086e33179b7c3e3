/* hunt_part.h — the partial hunt file of `locksim hunt --shard I/N`: the
 * hunt's own arguments, which shard it is, and the record of every seed of
 * the shard that failed (what a one-process hunt takes from its runs), for
 * `locksim merge` to finish the hunt (its groups, shrinks and table) as
 * one process over all the seeds would. Text, a line each:
 *
 *   # locksim hunt partial 1
 *   args<TAB>ARG<TAB>ARG...        the hunt's arguments, --shard taken out
 *   scripts<TAB>DIR                 (--scripts DIR, when given)
 *   shard I N                       1-based
 *   seed SEED RECORD                a failing seed, ascending
 *   end RUNS                        the last line: the file is whole
 */
#ifndef LOCKSIM_HUNT_PART_H
#define LOCKSIM_HUNT_PART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HUNT_PART_MAGIC "# locksim hunt partial 1"

typedef struct hunt_part_rec {
    uint64_t seed;
    char *rec; /* the seed's record, as cmd_hunt.c's run_seed writes it */
} hunt_part_rec;

typedef struct hunt_parts {
    char *args;        /* the hunt's arguments, tab-separated (all the files agree) */
    char *scripts;     /* --scripts DIR, or NULL */
    unsigned shards;   /* N */
    uint64_t runs;     /* over every shard */
    hunt_part_rec *recs; /* every shard's, by seed */
    size_t nrecs;
} hunt_parts;

/* Is path a partial hunt file (its first line the magic)? */
int hunt_part_is(const char *path);

/* Writes the head of a partial hunt: argv[0..argc) the hunt's arguments
 * (without --shard), shard index (0-based) of count. -1 when an argument
 * cannot be written on one line (a tab or a newline in it). */
int hunt_part_begin(FILE *f, int argc, char **argv, const char *scripts, unsigned index, unsigned count);
void hunt_part_seed(FILE *f, uint64_t seed, const char *rec, size_t len);
void hunt_part_end(FILE *f, uint64_t runs);

/* Reads the n partial hunts of paths into *out: every shard 1..N once,
 * each file whole, the same arguments in all. 0, or 2 after printing
 * `file:line: what is wrong` (or a one-line error). */
int hunt_parts_read(char **paths, int n, hunt_parts *out);
void hunt_parts_free(hunt_parts *p);

#endif /* LOCKSIM_HUNT_PART_H */
