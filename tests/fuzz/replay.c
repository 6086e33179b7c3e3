/* replay.c — runs a fuzz target without libFuzzer: each file named on the
 * command line (or each file in a named folder) is one input, in name
 * order. `make test` replays the seed corpora and every input a fuzzer
 * once crashed on (tests/fuzz/regressions) through the plain and the
 * sanitizer builds. Exit 0 when every input ran.
 *
 * Inputs are kept in git as text: a backslash is written "\\", a byte
 * other than printable ASCII, newline or tab as "\xNN"; this program
 * decodes them before running. `--decode SRC DST` writes the decoded
 * inputs of folder SRC into folder DST (libFuzzer's seed corpus), and
 * `--encode FILE` prints FILE in the kept form (a crash input to save as
 * a regression). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Decodes the kept form in place: returns the decoded length. */
static size_t decode(unsigned char *buf, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\\' && i + 1 < len && buf[i + 1] == '\\') {
            buf[o++] = '\\';
            i++;
        } else if (buf[i] == '\\' && i + 3 < len && buf[i + 1] == 'x') {
            char hex[3] = {(char)buf[i + 2], (char)buf[i + 3], 0};
            buf[o++] = (unsigned char)strtoul(hex, NULL, 16);
            i += 3;
        } else {
            buf[o++] = buf[i];
        }
    }
    return o;
}

static void encode(FILE *out, const unsigned char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = buf[i];
        if (c == '\\') fputs("\\\\", out);
        else if (c == '\n' || c == '\t' || (c >= 0x20 && c <= 0x7e)) fputc(c, out);
        else fprintf(out, "\\x%02x", c);
    }
}

/* The raw bytes of path (malloc'd; *len set), or NULL. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    unsigned char *buf = malloc(1);
    size_t cap = 1, n;
    unsigned char chunk[65536];
    *len = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (*len + n > cap) {
            cap = (*len + n) * 2;
            buf = realloc(buf, cap);
        }
        memcpy(buf + *len, chunk, n);
        *len += n;
    }
    fclose(f);
    return buf;
}

static int run_file(const char *path)
{
    size_t len;
    unsigned char *buf = slurp(path, &len);
    if (buf == NULL) return -1;
    len = decode(buf, len);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

/* --decode SRC DST: every input of SRC, decoded, into DST. */
static int decode_dir(const char *src, const char *dst)
{
    DIR *d = opendir(src);
    if (d == NULL) {
        perror(src);
        return 1;
    }
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char in[4096], out[4096];
        snprintf(in, sizeof in, "%s/%s", src, de->d_name);
        snprintf(out, sizeof out, "%s/%s", dst, de->d_name);
        size_t len;
        unsigned char *buf = slurp(in, &len);
        FILE *f = buf ? fopen(out, "wb") : NULL;
        if (f == NULL) {
            rc = 1;
        } else {
            len = decode(buf, len);
            if (fwrite(buf, 1, len, f) != len) rc = 1;
            if (fclose(f) != 0) rc = 1;
        }
        free(buf);
    }
    closedir(d);
    return rc;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(dir) + strlen(de->d_name) + 2);
        sprintf(names[n++], "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (n > 1) qsort(names, n, sizeof *names, cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (run_file(names[i]) != 0) rc = -1;
        (*count)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int rc = 0;
    if (argc == 4 && !strcmp(argv[1], "--decode")) return decode_dir(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "--encode")) {
        size_t len;
        unsigned char *buf = slurp(argv[2], &len);
        if (buf == NULL) return 1;
        encode(stdout, buf, len);
        free(buf);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &count) != 0) rc = 1;
        } else {
            if (run_file(argv[i]) != 0) rc = 1;
            count++;
        }
    }
    printf("%s: %zu inputs\n", argv[0], count);
    return rc;
}
