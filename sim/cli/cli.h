/* cli.h — the subcommands of the locksim front end, one function each,
 * called with argv[0] = the subcommand name. Each returns the exit status:
 * 0 success, 1 an expectation or a comparison failed, 2 bad input. */
#ifndef LOCKSIM_CLI_H
#define LOCKSIM_CLI_H

#include <stdint.h>

#define CLI_VERSION "0.1.0"

int cli_conform(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_check(int argc, char **argv);
/* locksim merge FILE...: the summary of JSON lines from run --json. */
int cli_merge(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_shrink(int argc, char **argv);
int cli_hunt(int argc, char **argv);
/* locksim merge of partial hunts (hunt --shard): the hunt finished (cmd_hunt.c). */
int cli_hunt_merge(int argc, char **argv);
int cli_new(int argc, char **argv);
/* locksim sweep SCENARIO... --KEY V1,V2,..: contention curves. */
int cli_sweep(int argc, char **argv);
/* locksim scripts PROTOCOL[@V] DIR [--force]: the scripts to patch. */
int cli_scripts(int argc, char **argv);
/* help.c: "--help" or "-h"; COMMAND's usage and options on stdout (0), or
 * an unknown command's error with did-you-mean (2); whether a command has
 * help (every command does). */
int cli_is_help_flag(const char *arg);
int cli_help_command(const char *cmd);
int cli_help_knows(const char *cmd);
/* `locksim list`'s lines of pd's scripts, indented by indent: those it
 * runs, then for a protocol with releases where they change. */
struct proto_def;
void cli_list_scripts(const struct proto_def *pd, int indent);

/* Helpers of the subcommands. */
struct scenario;
struct scn_error;
struct pool_result;
/* A run that could not start (run_scenario's err) as a sweep result of
 * status 2 whose stderr line is "path:line: why". */
void cli_result_error(struct pool_result *res, const struct scn_error *err);
/* --scripts DIR as the override [protocol] scripts = DIR (absolute) that
 * every scenario a subcommand loads takes, or NULL when not given. */
struct scn_override;
const struct scn_override *cli_scripts_override(void);
/* Loads path into *s and checks its protocol exists; on bad input prints
 * "path:line: why" and returns -1 (nothing to free). */
int cli_load(const char *path, struct scenario *s);
/* A decimal seed; -1 when v is not one. */
int cli_parse_seed(const char *v, unsigned long long *seed);
/* "N" or "A..B" (A <= B) into *a, *b; -1 when v is neither. */
int cli_parse_seeds(const char *v, uint64_t *a, uint64_t *b);
/* Bad arguments: "locksim CMD: " fmt (with v), then the usage line;
 * returns 2. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, const char *v);
/* "locksim SUBCOMMAND ARGS..." for a report's heading (argv[0] is the
 * subcommand), cut at cap. */
void cli_command_line(int argc, char **argv, char *buf, size_t cap);
/* --jobs' value: 1..POOL_JOBS_MAX; -1 after printing why (who: "locksim run"). */
int cli_parse_jobs(const char *who, const char *v, unsigned *jobs);
/* --max-events N / --max-memory SIZE into o: 0 after parsing, -1 after
 * printing what is wrong. */
struct run_opts;
int cli_parse_budget(const char *opt, const char *v, struct run_opts *o);

#endif /* LOCKSIM_CLI_H */
