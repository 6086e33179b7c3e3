/* outdir.h — output that is never seen half-written: a report folder
 * built under a temporary name beside DIR and renamed into place when
 * complete (replacing an earlier locksim report, never anything else),
 * and single files written to FILE.tmp-PID then renamed. Private to
 * sim/cli. */
#ifndef LOCKSIM_CLI_OUTDIR_H
#define LOCKSIM_CLI_OUTDIR_H

#include <stdio.h>

typedef struct cli_outdir {
    char *final; /* DIR as given */
    char *tmp;   /* DIR.tmp-PID: everything is written here */
} cli_outdir;

/* Checks that DIR may be written (absent, an empty folder, or an earlier
 * locksim report) and creates the temporary folder. Returns 0, or 2
 * after printing why (prefixed by who). */
int cli_outdir_begin(cli_outdir *o, const char *dir, const char *who);
/* Marks the temporary folder as a locksim report and moves it to DIR,
 * removing the earlier report. Returns 0, or 2 after printing why (the
 * temporary folder is then removed). Frees o either way. */
int cli_outdir_commit(cli_outdir *o, const char *who);
/* Removes the temporary folder and frees o. Safe on a zeroed o. */
void cli_outdir_abort(cli_outdir *o);
/* mkdir -p path (mode 0755). Returns 0 or -1 (errno). */
int cli_mkdirs(const char *path);

typedef struct cli_outfile {
    char *final, *tmp;
    FILE *f;
} cli_outfile;

/* Opens FILE.tmp-PID for writing (making FILE's folder when missing).
 * Returns 0, or 2 after printing why. */
int cli_outfile_begin(cli_outfile *o, const char *path, const char *who);
/* Closes and renames it to FILE. Returns 0, or 2 after printing why (the
 * temporary file is removed). Frees o either way. */
int cli_outfile_commit(cli_outfile *o, const char *who);
/* Closes and removes the temporary file; frees o. Safe on a zeroed o. */
void cli_outfile_abort(cli_outfile *o);

#endif /* LOCKSIM_CLI_OUTDIR_H */
