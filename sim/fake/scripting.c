/* scripting.c — the scripting commands (EVAL, EVALSHA, SCRIPT LOAD / EXISTS
 * / FLUSH / KILL) and WAIT: argument checks in Redis 7.0's order, then the
 * Lua host does the work. Every EVAL'd body is cached, as in Redis 7. */
#include <string.h>

#include "sim/fake/fake_int.h"

#define NOSCRIPT_ERR "NOSCRIPT No matching script. Please use EVAL."

/* Parses numkeys at argv[2]; -1 after replying an error. */
static int parse_numkeys(fcmd *c, long long *numkeys)
{
    if (fu_arg_ll(c, 2, numkeys) != 0) return -1;
    if (*numkeys > c->argc - 3) {
        fr_err(c, "ERR Number of keys can't be greater than number of args");
        return -1;
    }
    if (*numkeys < 0) {
        fr_err(c, "ERR Number of keys can't be negative");
        return -1;
    }
    return 0;
}

/* Runs the cached script sha; returns -1 (no reply written) if the cache
 * does not hold it. */
static int run_script(fcmd *c, const char *sha, long long numkeys)
{
    if (lua_host_run(c->n->lua, c, sha, (int)numkeys, 3) != 0) return -1;
    c->n->stats.scripts++;
    if (c->sink->top_is_error) c->n->stats.script_errors++;
    return 0;
}

void cmd_eval(fcmd *c)
{
    long long numkeys;
    char sha[41], *err = NULL;
    if (parse_numkeys(c, &numkeys) != 0) return;
    if (lua_host_load(c->n->lua, c->argv[1], c->lens[1], sha, &err) != 0) {
        fr_err(c, err);
        sim_xfree(err);
        return;
    }
    sim_assert(run_script(c, sha, numkeys) == 0);
}

void cmd_evalsha(fcmd *c)
{
    long long numkeys;
    char sha[41];
    if (c->lens[1] != 40) {
        fr_err(c, NOSCRIPT_ERR);
        return;
    }
    if (parse_numkeys(c, &numkeys) != 0) return;
    /* The common case is a lower-case SHA: try it as given first. */
    memcpy(sha, c->argv[1], 40);
    sha[40] = '\0';
    if (run_script(c, sha, numkeys) == 0) return;
    for (int j = 0; j < 40; j++)
        if (sha[j] >= 'A' && sha[j] <= 'Z') sha[j] = (char)(sha[j] + ('a' - 'A'));
    if (run_script(c, sha, numkeys) != 0) fr_err(c, NOSCRIPT_ERR);
}

static void script_arity_err(fcmd *c, const char *sub)
{
    fr_errf(c, "ERR wrong number of arguments for 'script|%s' command", sub);
}

static void script_help(fcmd *c)
{
    static const char *const lines[] = {
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.",
    };
    size_t n = sizeof lines / sizeof lines[0];
    fr_array(c, n);
    for (size_t i = 0; i < n; i++) fr_status(c, lines[i]);
}

void cmd_script(fcmd *c)
{
    if (fu_arg_is(c, 1, "load")) {
        if (c->argc != 3) { script_arity_err(c, "load"); return; }
        char sha[41], *err = NULL;
        if (lua_host_load(c->n->lua, c->argv[2], c->lens[2], sha, &err) != 0) {
            fr_err(c, err);
            sim_xfree(err);
            return;
        }
        fr_bulk(c, sha, 40);
    } else if (fu_arg_is(c, 1, "exists")) {
        if (c->argc < 3) { script_arity_err(c, "exists"); return; }
        fr_array(c, (size_t)(c->argc - 2));
        for (int j = 2; j < c->argc; j++) {
            char sha[41];
            int ok = c->lens[j] == 40;
            if (ok) {
                for (int k = 0; k < 40; k++) {
                    char ch = c->argv[j][k];
                    sha[k] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + ('a' - 'A')) : ch;
                }
                sha[40] = '\0';
                ok = lua_host_exists(c->n->lua, sha);
            }
            fr_int(c, ok);
        }
    } else if (fu_arg_is(c, 1, "flush")) {
        /* script|flush has arity -2: extra words reach the option check. */
        if (c->argc > 3 || (c->argc == 3 && !fu_arg_is(c, 2, "sync") && !fu_arg_is(c, 2, "async"))) {
            fr_err(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        lua_host_flush(c->n->lua);
        fr_ok(c);
    } else if (fu_arg_is(c, 1, "kill")) {
        if (c->argc != 2) { script_arity_err(c, "kill"); return; }
        if (!c->n->busy) {
            fr_err(c, "NOTBUSY No scripts in execution right now.");
        } else if (c->n->runaway_wrote) {
            fr_err(c, "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
                      "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
                      "NOSAVE command.");
        } else {
            c->n->busy = 0; /* the script that did not end is killed */
            fr_ok(c);
        }
    } else if (fu_arg_is(c, 1, "help")) {
        if (c->argc != 2) { script_arity_err(c, "help"); return; }
        script_help(c);
    } else {
        char buf[160];
        fr_errf(c, "ERR unknown subcommand '%.128s'. Try SCRIPT HELP.",
                fu_arg_cstr(c, 1, buf, sizeof buf));
    }
}

/* WAIT numreplicas timeout: a node without replicas acknowledges nothing;
 * the fake answers at once (replication, and with it a blocking WAIT, is
 * modelled by the simulator's replication layer). */
void cmd_wait(fcmd *c)
{
    long long numreplicas, timeout;
    if (fu_arg_ll(c, 1, &numreplicas) != 0) return;
    if (!fake_str2ll(c->argv[2], c->lens[2], &timeout)) {
        fr_err(c, "ERR timeout is not an integer or out of range");
        return;
    }
    if (timeout < 0) {
        fr_err(c, "ERR timeout is negative");
        return;
    }
    fr_int(c, 0);
}
