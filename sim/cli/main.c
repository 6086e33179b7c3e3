/* main.c — the locksim command line: dispatches to the subcommands. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protocols/protocol.h"
#include "sim/cli/cli.h"

static void usage(FILE *to)
{
    fputs("usage: locksim <command> [options]\n"
          "commands:\n"
          "  new [TEMPLATE FILE]              a scenario to start from (gc-pause, failover, clock-jump, ...)\n"
          "  run PATH... [--seed N | --seeds A..B] [--backend fake|redis] [--redis HOST:PORT,..]\n"
          "      [--choices STR] [--horizon D] [--json] [--trace FILE] [-v] [--swarm]\n"
          "      [--jobs N] [--shard I/N] [--stop-on-failure] [--report DIR] [--junit FILE] [--tap]\n"
          "      [--max-events N] [--max-memory SIZE]\n"
          "      [--progress | --no-progress]  run scenarios (files or folders of *.scn)\n"
          "  sweep SCENARIO... --KEY V1,V2,.. [--protocol P1,P2,..] [--seeds A..B] [--jobs N]\n"
          "      [--json] [--report DIR]      contention curves: a scenario key swept, seeds averaged\n"
          "  merge FILE... [--junit FILE] [--tap]   the summary of run --json outputs (shards)\n"
          "  merge PARTIAL.hunt... [--jobs N] [--out DIR] [--json] [--report DIR]\n"
          "                                   a hunt's shards (hunt --shard I/N) finished as one hunt\n"
          "  check SCENARIO [--depth D] [--branch B] [--faults K] [--seed N] [--max-runs N]\n"
          "        [--horizon D] [--max-seconds S] [--all]   explore every choice within the bounds\n"
          "  replay SCENARIO [--seed N] [--choices STR] [--horizon D] [--around T|violation] [--window D]\n"
          "                                   one seed's trace as a timeline, violations marked\n"
          "  shrink SCENARIO --seed N -o FILE [--swarm]   the smallest scenario failing the same way\n"
          "  hunt PROTOCOL[@V] | SCENARIO --seeds A..B [--jobs N] [--out DIR] [--want KNOWN-BUG.scn]\n"
          "       [--against REF] [--shard I/N]   swarm testing: failures grouped by signature, each shrunk\n"
          "  list                             protocols, faults, invariants\n"
          "  conform --redis HOST:PORT [--ops N] [--seed S]   fake vs real Redis\n"
          "  version                          print the version\n"
          "  scripts PROTOCOL[@V] DIR [--force]   write the Lua scripts it runs into DIR (to patch them)\n"
          "  help [COMMAND]                   this list, or a command's usage and options (or COMMAND --help)\n"
          "options of every command: --protocols DIR   add the lock policies (*.lock) of DIR\n"
          "options of run, replay, shrink, check, sweep: --scripts DIR   run the protocol with DIR's NAME.lua\n"
          "                                   in place of its script NAME ([protocol] scripts = DIR)\n",
          to);
}

/* --protocols DIR, anywhere on the line (repeatable): the lock policies
 * of DIR join the catalogue. Removes them from argv; -1 after printing
 * why on bad input. */
static int take_protocol_dirs(int *argc, char **argv)
{
    int n = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--protocols") != 0) {
            argv[n++] = argv[i];
            continue;
        }
        if (i + 1 >= *argc) {
            fprintf(stderr, "locksim: --protocols wants a folder of lock policies (*.lock)\n");
            return -1;
        }
        scn_error err;
        if (proto_add_dir(argv[++i], &err) != 0) {
            scn_error_print(&err);
            return -1;
        }
    }
    *argc = n;
    argv[n] = NULL;
    return 0;
}

/* --scripts DIR: set once by main before a subcommand runs, read by the
 * subcommands' loads (the front end's only state of the command line that
 * outlives its parsing, like --protocols' additions to the catalogue). */
static char scripts_dir[PATH_MAX];
static scn_override scripts_ov;

const scn_override *cli_scripts_override(void)
{
    return scripts_dir[0] ? &scripts_ov : NULL;
}

/* --scripts DIR, anywhere on the line, once: the commands that load
 * scenarios run their protocol with DIR's scripts. Removes it from argv;
 * -1 after printing why on bad input. */
static int take_scripts_dir(int *argc, char **argv)
{
    int n = 1;
    const char *dir = NULL;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--scripts") != 0) {
            argv[n++] = argv[i];
            continue;
        }
        if (i + 1 >= *argc || dir) {
            fprintf(stderr, "locksim: --scripts wants one folder of NAME.lua files (locksim scripts PROTOCOL DIR "
                            "writes one)\n");
            return -1;
        }
        dir = argv[++i];
    }
    *argc = n;
    argv[n] = NULL;
    if (dir == NULL) return 0;
    static const char *const takers[] = {"run", "replay", "shrink", "check", "sweep", "hunt", "merge"};
    int takes = 0;
    for (size_t i = 0; i < sizeof takers / sizeof takers[0]; i++) takes |= n > 1 && !strcmp(argv[1], takers[i]);
    if (!takes) {
        fprintf(stderr, "locksim: --scripts is an option of run, replay, shrink, check, sweep and hunt (and of the merge of "
                        "partial hunts)\n");
        return -1;
    }
    struct stat st;
    if (realpath(dir, scripts_dir) == NULL || stat(scripts_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scripts_dir[0] = '\0';
        fprintf(stderr, "locksim: --scripts %s: no such folder\n", dir);
        return -1;
    }
    scripts_ov = (scn_override){"protocol", "scripts", scripts_dir};
    return 0;
}

int main(int argc, char **argv)
{
    if (take_protocol_dirs(&argc, argv) != 0 || take_scripts_dir(&argc, argv) != 0) return 2;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (cli_is_help_flag(cmd) || (strcmp(cmd, "help") == 0 && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) return cli_help_command(cli_is_help_flag(argv[2]) ? "help" : argv[2]);
    for (int i = 2; i < argc && cli_help_knows(cmd); i++)
        if (cli_is_help_flag(argv[i])) return cli_help_command(cmd);
    if (strcmp(cmd, "conform") == 0) return cli_conform(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0) return cli_run(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0) return cli_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0) return cli_list(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0) return cli_check(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0) return cli_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "shrink") == 0) return cli_shrink(argc - 1, argv + 1);
    if (strcmp(cmd, "hunt") == 0) return cli_hunt(argc - 1, argv + 1);
    if (strcmp(cmd, "new") == 0) return cli_new(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0) return cli_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "scripts") == 0) return cli_scripts(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0) {
        printf("locksim %s (fake Redis %s)\n", CLI_VERSION, "7.0.15");
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    static const char *const cmds[] = {"conform", "run", "merge", "list", "check", "replay", "shrink", "sweep",
                                       "hunt", "new", "scripts", "version", "help"};
    const char *near = sim_closest(cmd, cmds, sizeof cmds / sizeof cmds[0]);
    if (near) fprintf(stderr, "locksim: unknown command '%s' (did you mean %s?)\n", cmd, near);
    else fprintf(stderr, "locksim: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
