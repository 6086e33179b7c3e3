/* fuzz_scn.c — fuzz target: the scenario parser. Any bytes are a scenario
 * file; the parser must answer with a scenario or a path:line error,
 * never crash or hang, and a scenario it accepts must survive the round
 * trip: written back (scn_write), the text parses again and writes the
 * same text; or the writer refuses it (a line it cannot fit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scn/scn.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The scenario as text, or NULL when the writer refuses it. */
static char *written(const scenario *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL) abort();
    int rc = scn_write(m, s);
    fclose(m);
    if (rc == 0) return buf;
    free(buf);
    return NULL;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    scenario s;
    scn_error err;
    if (scn_load_string("fuzz.scn", text, &s, &err) == 0) {
        char *once = written(&s);
        if (once == NULL) { /* refused: nothing to compare */
            scn_free(&s);
            free(text);
            return 0;
        }
        scenario again;
        if (scn_load_string("fuzz.scn", once, &again, &err) != 0) {
            fprintf(stderr, "round trip: the written scenario does not parse: %d: %s\n%s", err.line, err.msg, once);
            abort();
        }
        char *twice = written(&again);
        if (twice == NULL || strcmp(once, twice) != 0) {
            fprintf(stderr, "round trip: written twice, two texts:\n%s---\n%s", once, twice);
            abort();
        }
        free(once);
        free(twice);
        scn_free(&again);
        scn_free(&s);
    } else if (err.msg[0] == '\0') {
        fprintf(stderr, "an error without a message\n");
        abort();
    }
    free(text);
    return 0;
}
