/* cmd_conform.c — `locksim conform`: option parsing for the conformance
 * run (the run itself is sim/conform). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/engine/conform.h"

int cli_conform(int argc, char **argv)
{
    conform_opts o = {.host = NULL, .port = 0, .ops = 20000, .seed = 1, .verbose = 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--redis") == 0 && v) {
            static char host[256];
            const char *colon = strrchr(v, ':');
            if (!colon || colon == v || (size_t)(colon - v) >= sizeof host) {
                fprintf(stderr, "locksim conform: --redis wants HOST:PORT (got \"%s\")\n", v);
                return 2;
            }
            memcpy(host, v, (size_t)(colon - v));
            host[colon - v] = '\0';
            char *end;
            long port = strtol(colon + 1, &end, 10);
            if (*end || port <= 0 || port > 65535) {
                fprintf(stderr, "locksim conform: bad port in --redis (got \"%s\")\n", v);
                return 2;
            }
            o.host = host;
            o.port = (int)port;
            i++;
        } else if (strcmp(a, "--ops") == 0 && v) {
            char *end;
            long long n = strtoll(v, &end, 10);
            if (*end || n <= 0) {
                fprintf(stderr, "locksim conform: --ops wants a positive count (got \"%s\")\n", v);
                return 2;
            }
            o.ops = (uint64_t)n;
            i++;
        } else if (strcmp(a, "--seed") == 0 && v) {
            char *end;
            unsigned long long s = strtoull(v, &end, 10);
            if (*end || !*v) {
                fprintf(stderr, "locksim conform: --seed wants an integer (got \"%s\")\n", v);
                return 2;
            }
            o.seed = s;
            i++;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o.verbose = 1;
        } else if (strcmp(a, "--all-scripts") == 0) {
            o.all_scripts = 1;
        } else {
            fprintf(stderr, "locksim conform: unknown or incomplete option \"%s\"\n", a);
            return 2;
        }
    }
    if (o.host == NULL) {
        fprintf(stderr, "locksim conform: --redis HOST:PORT is required\n");
        return 2;
    }
    return conform_run(&o);
}
