/* cli.h — the subcommands of the locksim front end, one function each,
 * called with argv[0] = the subcommand name. Each returns the exit status:
 * 0 success, 1 an expectation or a comparison failed, 2 bad input. */
#ifndef LOCKSIM_CLI_H
#define LOCKSIM_CLI_H

#define CLI_VERSION "0.1.0"

int cli_conform(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_check(int argc, char **argv);
/* locksim merge FILE...: the summary of JSON lines from run --json. */
int cli_merge(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_shrink(int argc, char **argv);

/* Helpers of the subcommands. */
struct scenario;
/* Loads path into *s and checks its protocol exists; on bad input prints
 * "path:line: why" and returns -1 (nothing to free). */
int cli_load(const char *path, struct scenario *s);
/* A decimal seed; -1 when v is not one. */
int cli_parse_seed(const char *v, unsigned long long *seed);

#endif /* LOCKSIM_CLI_H */
