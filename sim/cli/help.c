/* help.c — `locksim COMMAND --help` / `-h` and `locksim help [COMMAND]`:
 * each command's usage and options, printed to stdout (exit 0). One table
 * of commands; main.c's usage lists them in short. */
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/kernel/sim.h"

typedef struct cmd_help {
    const char *name;
    const char *synopsis; /* "locksim NAME ..." lines */
    const char *about;    /* what it does, a paragraph */
    const char *options;  /* one option a line: "  --opt V   what" */
} cmd_help;

static const cmd_help helps[] = {
    {"new", "locksim new\n  locksim new TEMPLATE FILE",
     "Without arguments, lists the scenario templates; with them, writes TEMPLATE (gc-pause,\n"
     "failover, clock-jump, ...) to FILE, which must not exist, to start a scenario from.",
     ""},
    {"run", "locksim run PATH... [options]",
     "Runs scenarios (files, or folders searched for *.scn) and judges every invariant; exit 0 when\n"
     "every scenario met its [expect] lines, 1 when one did not, 2 on bad input.",
     "  --seed N | --seeds A..B     one seed, or a sweep of seeds (default: the file's seed, else 1)\n"
     "  --backend fake|redis        the embedded fake (default) or real Redis (--redis HOST:PORT,..)\n"
     "  --redis HOST:PORT[,..]      the real servers for --backend redis\n"
     "  --allow-server-faults       let node faults act on the real servers\n"
     "  --choices STR               replay a choice string (from check or a violation)\n"
     "  --horizon D                 stop the run at virtual time D\n"
     "  --swarm                     draw the [swarm] values from each seed\n"
     "  --json                      one JSON object per (scenario, seed) on stdout\n"
     "  --tap | --junit FILE        CI formats\n"
     "  --report DIR                summary, gnuplot plots, HTML and trace in DIR\n"
     "  --trace FILE                the trace of a single run to FILE\n"
     "  -v | --verbose              each run's violations and store timeline\n"
     "  --jobs N                    parallel worker processes\n"
     "  --shard I/N                 only the I-th of N slices of the work\n"
     "  --stop-on-failure           stop at the first run that fails its expectations\n"
     "  --max-events N              refuse a run past N events\n"
     "  --max-memory SIZE           refuse a run past SIZE of memory (e.g. 2G)\n"
     "  --progress | --no-progress  force the progress line on or off\n"
     "  --scripts DIR               run the protocol with DIR's NAME.lua in place of its scripts\n"
     "  --protocols DIR             add the lock policies (*.lock) of DIR\n"},
    {"sweep", "locksim sweep SCENARIO... --KEY V1,V2,.. [options]",
     "Contention curves: one scenario key (--clients.count, --hold, --protocol.lease, ...) swept\n"
     "over its values, seeds averaged; throughput, latency and Jain's fairness per value.",
     "  --KEY V1,V2,..              the swept key and its values (section.key or a [clients] key)\n"
     "  --protocol P1,P2,..         one series per protocol\n"
     "  --seed N | --seeds A..B     the seeds of each point\n"
     "  --jobs N                    parallel worker processes\n"
     "  --json                      one JSON object per point\n"
     "  --report DIR                gnuplot curves and HTML in DIR\n"
     "  --progress | --no-progress  force the progress line on or off\n"
     "  --scripts DIR, --protocols DIR   as for run\n"},
    {"merge", "locksim merge FILE... [--junit FILE] [--tap]\n  locksim merge PARTIAL.hunt... [options]",
     "The summary of run --json outputs (shards of a run), or a hunt's shards (hunt --shard I/N)\n"
     "replayed and shrunk as one hunt, byte for byte what one process prints.",
     "  --junit FILE | --tap        (run outputs) CI formats of the merged runs\n"
     "  --jobs N                    (partial hunts) workers for the shrinks\n"
     "  --out DIR                   (partial hunts) the shrunk files (default: the shards')\n"
     "  --json | --verbose          (partial hunts) as hunt's\n"
     "  --report DIR                (partial hunts) the hunt's HTML page\n"
     "  --scripts DIR               (partial hunts) as for run\n"},
    {"check", "locksim check SCENARIO [options]",
     "Explores every choice of the scenario within the bounds (message orders, fault draws) and\n"
     "prints a counterexample's choice string, which run --choices and replay --choices replay.",
     "  --depth D                   the choices explored per run\n"
     "  --branch B                  the alternatives tried at each choice\n"
     "  --faults K                  at most K faults in a run\n"
     "  --seed N                    the seed of the unexplored draws\n"
     "  --max-runs N                stop after N runs\n"
     "  --max-seconds S             stop after S seconds of wall time\n"
     "  --horizon D                 end each run at virtual time D\n"
     "  --all                       go on after the first counterexample\n"
     "  --scripts DIR, --protocols DIR   as for run\n"},
    {"replay", "locksim replay SCENARIO [options]",
     "Prints one seed's trace as a timeline, violations marked, or the plain scenario it runs.",
     "  --seed N                    the seed\n"
     "  --choices STR               a choice string (from check)\n"
     "  --horizon D                 end the run at virtual time D\n"
     "  --around T|violation        only the window around T or the first violation\n"
     "  --window D                  the window's width (with --around)\n"
     "  --no-events                 leave out the simulator's event lines\n"
     "  --swarm                     draw the [swarm] values from the seed\n"
     "  --print-scenario            print the plain scenario the seed draws, not the trace\n"
     "  --scripts DIR, --protocols DIR   as for run\n"},
    {"shrink", "locksim shrink SCENARIO --seed N -o FILE [--swarm]",
     "Writes the smallest scenario that fails the same way as SCENARIO at seed N: faults, clients,\n"
     "steps, distributions and duration cut while the same invariants break.",
     "  --seed N                    the failing seed\n"
     "  -o FILE | --output FILE     where the shrunk scenario goes\n"
     "  --swarm                     draw the [swarm] values from the seed first\n"
     "  --scripts DIR, --protocols DIR   as for run\n"},
    {"hunt", "locksim hunt PROTOCOL[@V] | SCENARIO --seeds A..B [options]",
     "Swarm testing: runs the protocol's base scenario (or SCENARIO) over the seeds, groups the\n"
     "failures by signature, shrinks each, and labels the signatures beyond the protocol's contract.",
     "  --seeds A..B | --seed N     the seeds\n"
     "  --jobs N                    parallel worker processes\n"
     "  --out DIR                   the shrunk scenarios (default out/hunt)\n"
     "  --want KNOWN-BUG.scn        stop at the first seed whose failure is that bug's\n"
     "  --against REF               count a failure only where REF holds the same seed (witness pairs)\n"
     "  --beyond-contract           draw the faults the contract does not claim too\n"
     "  --max-shrinks N             shrink at most N signatures (default 30)\n"
     "  --json                      one object per signature, then a summary\n"
     "  --report DIR                an HTML page of the signatures and their timelines\n"
     "  --shard I/N                 only the I-th of N slices (then locksim merge)\n"
     "  --print-base                print the base scenario and stop\n"
     "  --verbose                   each shrunk seed as it comes\n"
     "  --progress | --no-progress  force the progress line on or off\n"
     "  --scripts DIR, --protocols DIR   as for run\n"},
    {"list", "locksim list",
     "Prints the protocols (with their releases, history, scripts, contract and checkers), the fault\n"
     "kinds, the invariants and the scenario operations.",
     "  --protocols DIR             add the lock policies (*.lock) of DIR\n"},
    {"conform", "locksim conform --redis HOST:PORT [options]",
     "Runs the same commands and scripts on the fake and on a real Redis and compares the replies.",
     "  --redis HOST:PORT           the real server\n"
     "  --ops N                     random operations per round\n"
     "  --seed S                    the seed of the operations\n"
     "  --all-scripts               every bundled script, not only the protocols'\n"
     "  -v | --verbose              each command and both replies\n"},
    {"scripts", "locksim scripts PROTOCOL[@V] DIR [--force]",
     "Writes the Lua scripts the protocol runs (at release V) into DIR, to patch and run with\n"
     "--scripts DIR or [protocol] scripts = DIR.",
     "  --force                     overwrite files that exist\n"},
    {"version", "locksim version", "Prints the version of locksim and of the fake Redis.", ""},
    {"help", "locksim help [COMMAND]\n  locksim COMMAND --help | -h",
     "Prints the commands, or one command's usage and options.", ""},
};

#define NHELPS (sizeof helps / sizeof helps[0])

int cli_is_help_flag(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int cli_help_command(const char *cmd)
{
    for (size_t i = 0; i < NHELPS; i++) {
        if (strcmp(helps[i].name, cmd) != 0) continue;
        printf("usage: %s\n\n%s\n", helps[i].synopsis, helps[i].about);
        if (helps[i].options[0]) printf("\noptions:\n%s", helps[i].options);
        return 0;
    }
    const char *names[NHELPS];
    for (size_t i = 0; i < NHELPS; i++) names[i] = helps[i].name;
    const char *near = sim_closest(cmd, names, NHELPS);
    fprintf(stderr, "locksim help: unknown command '%s'%s%s%s\n", cmd, near ? " (did you mean " : "", near ? near : "",
            near ? "?)" : "");
    return 2;
}

int cli_help_knows(const char *cmd)
{
    for (size_t i = 0; i < NHELPS; i++)
        if (!strcmp(helps[i].name, cmd)) return 1;
    return 0;
}
