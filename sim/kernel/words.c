/* words.c — "did you mean": the edit distance between two names and the
 * closest of a list of names to a word, for the messages that refuse an
 * unknown name (protocols, sections, keys, operations, fault kinds). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "sim/kernel/sim.h"

#define WORD_MAX 64

size_t sim_edit_distance(const char *a, const char *b)
{
    /* Damerau-Levenshtein, optimal string alignment, ASCII case folded:
     * a swap of two neighbours costs one, as a typo does. */
    size_t n = strlen(a), m = strlen(b);
    if (n > WORD_MAX || m > WORD_MAX) return n > m ? n : m;
    sim_assert(n <= WORD_MAX && m <= WORD_MAX);
    size_t d[WORD_MAX + 1][WORD_MAX + 1];
    for (size_t i = 0; i <= n; i++) d[i][0] = i;
    for (size_t j = 0; j <= m; j++) d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *sim_closest(const char *word, const char *const *names, size_t n)
{
    size_t len = strlen(word), best_d = (size_t)-1;
    const char *best = NULL;
    /* Close enough to be a typo: one edit for short names, a third of the
     * word's length for longer ones. */
    size_t limit = len <= 4 ? 1 : len / 3 + 1;
    sim_assert(names != NULL || n == 0);
    for (size_t i = 0; i < n; i++) {
        if (names[i] == NULL || strcmp(names[i], word) == 0) continue;
        size_t d = sim_edit_distance(word, names[i]);
        sim_assert(d > 0 || strcasecmp(word, names[i]) == 0);
        if (d <= limit && d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}
