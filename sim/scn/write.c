/* write.c — a parsed scenario written back as scenario text (what
 * `locksim shrink` writes). A key is written when its value, as text,
 * differs from the default's; the locks are listed in index order, so the
 * steps' lock= names get the same indices back; client operations go to
 * [steps] and faults to [faults], each in file order (the runner schedules
 * the two kinds apart, so only the order within each kind counts). */
#include <stdio.h>
#include <string.h>

#include "sim/scn/scn_int.h"

static void prob_format(int ppm, char *buf, size_t cap)
{
    if (ppm % 10000 == 0) snprintf(buf, cap, "%d%%", ppm / 10000);
    else snprintf(buf, cap, "0.%06d", ppm);
}

/* The value of key k in s as scenario text; 0 when k has none to write. */
static int value_format(const key_def *k, const scenario *s, char *buf, size_t cap)
{
    const char *base = (const char *)s;
    const void *f = base + k->off;
    buf[0] = '\0';
    switch (k->kind) {
    case K_DURATION: scn_duration_format(*(const int64_t *)f, buf, cap); return 1;
    case K_DIST: scn_dist_format(f, buf, cap); return 1;
    case K_COUNTS: {
        const scn_dist *d = f;
        if (d->kind == SCN_DIST_UNIFORM) snprintf(buf, cap, "%lld..%lld", (long long)d->a_us, (long long)d->b_us);
        else snprintf(buf, cap, "%lld", (long long)d->a_us);
        return 1;
    }
    case K_INT: snprintf(buf, cap, "%d", *(const int *)f); return 1;
    case K_INT64: snprintf(buf, cap, "%lld", (long long)*(const int64_t *)f); return 1;
    case K_PROB: prob_format(*(const int *)f, buf, cap); return 1;
    case K_STR: {
        const char *v = *(char *const *)f;
        if (v == NULL) return 0;
        snprintf(buf, cap, "%s", v);
        return 1;
    }
    case K_BOOL: snprintf(buf, cap, "%s", *(const int *)f ? "yes" : "no"); return 1;
    case K_LEASE:
        if (*(const int64_t *)f == SCN_LEASE_WATCHDOG) snprintf(buf, cap, "-1");
        else scn_duration_format(*(const int64_t *)f, buf, cap);
        return 1;
    case K_MODE: snprintf(buf, cap, "%s", s->mode == SCN_MODE_TRYLOCK ? "trylock" : "lock"); return 1;
    case K_RUNAWAY: snprintf(buf, cap, "%s", s->runaway_busy ? "busy" : "stop"); return 1;
    case K_LOCKS: {
        size_t n = 0;
        for (int i = 0; i < s->nlocks && n < cap; i++) {
            int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", s->lock_names[i]);
            if (w > 0) n += (size_t)w;
        }
        return s->nlocks > 0;
    }
    case K_SEED:
        if (!s->has_seed) return 0;
        snprintf(buf, cap, "%llu", (unsigned long long)s->seed);
        return 1;
    case K_KINDS: {
        if (s->nemesis_any) {
            snprintf(buf, cap, "any");
            return 1;
        }
        size_t n = 0;
        for (int b = 0; b < SCN_NEM_COUNT && n < cap; b++) {
            if (!(s->nemesis_kinds & (1 << b))) continue;
            int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", scn_nemesis_kind_name(1 << b));
            if (w > 0) n += (size_t)w;
        }
        return 1;
    }
    case K_CRASH_ON: snprintf(buf, cap, "%s", *(const int *)f == SCN_CRASH_ON_REPLY ? "reply" : "time"); return 1;
    }
    return 0;
}

/* The defaults as a parsed file would leave them for s (validate() derives
 * a few from the rest of the file). */
static void effective_defaults(const scenario *s, scenario *d)
{
    scn_defaults(d);
    d->liveness_bound_us = SIM_SEC(1);
    d->nemesis_stop_us = s->duration_us - s->duration_us / 5;
    d->nlocks = 0;
}

/* Names are always written: a scenario's name defaults to its file's. */
static int must_write(const key_def *k)
{
    return !strcmp(k->name, "name");
}

/* Writes one "left = right" line as the parser will read it back: when
 * that is longer than the parser reads, or right starts with ';' (after a
 * space, a comment), "left=right"; when neither form can be read back
 * (too long, or whitespace before a ';' inside right: a comment too),
 * nothing, and *bad is set (the scenario cannot be written back). */
static void put_line(FILE *out, const char *left, const char *right, int *bad)
{
    size_t len = strlen(left) + strlen(right);
    if (strstr(right, " ;") || strstr(right, "\t;")) *bad = 1;
    else if (len + 3 <= SCN_LINE_MAX && right[0] != ';') fprintf(out, "%s = %s\n", left, right);
    else if (len + 1 <= SCN_LINE_MAX) fprintf(out, "%s=%s\n", left, right);
    else *bad = 1;
}

/* The keys of section that differ from d, one "key = value" line each. */
static void write_keys(FILE *out, const scenario *s, const scenario *d, const char *section,
                       int header_always, int *bad)
{
    int header = 0;
    char v[1024], dv[1024];
    if (header_always) {
        fprintf(out, "\n[%s]\n", section);
        header = 1;
    }
    for (size_t i = 0; scn_key_at(i); i++) {
        const key_def *k = scn_key_at(i);
        if (strcmp(k->section, section) != 0) continue;
        if (!value_format(k, s, v, sizeof v)) continue;
        if (k->kind == K_LOCKS && s->nlocks == 1 && !strcmp(s->lock_names[0], "lock")) continue;
        int has_default = value_format(k, d, dv, sizeof dv);
        if (k->kind != K_LOCKS && !must_write(k) && has_default && !strcmp(v, dv)) continue;
        if (!header) {
            fprintf(out, "\n[%s]\n", section);
            header = 1;
        }
        put_line(out, k->name, v, bad);
    }
    if (!strcmp(section, "expect")) {
        static const char *const words[] = {"", "held", "violated", "any"};
        for (int i = 0; i < SCN_INV_COUNT; i++) {
            if (s->expect[i] == SCN_EXPECT_NONE) continue;
            if (!header) {
                fprintf(out, "\n[%s]\n", section);
                header = 1;
            }
            fprintf(out, "%s = %s\n", scn_invariant_name((scn_invariant)i), words[s->expect[i]]);
        }
    }
}

/* The timed lines of one kind (faults or client operations), in order. */
static void write_timed(FILE *out, const scenario *s, int faults, int *bad)
{
    int header = 0;
    char line[512];
    for (size_t i = 0; i < s->nsteps; i++) {
        if (scn_op_is_fault(s->steps[i].op) != faults) continue;
        if (!header) {
            fprintf(out, "\n[%s]\n", faults ? "faults" : "steps");
            header = 1;
        }
        scn_step_format(&s->steps[i], s, line, sizeof line);
        const char *eq = strstr(line, " = "); /* "at = T ..." */
        if (eq == NULL) put_line(out, line, "", bad);
        else put_line(out, "at", eq + 3, bad);
    }
}

int scn_write(FILE *out, const scenario *s)
{
    scenario d;
    int bad = 0;
    effective_defaults(s, &d);
    for (size_t i = 0; scn_section_at(i); i++) {
        const char *sec = scn_section_at(i);
        if (!strcmp(sec, "steps")) write_timed(out, s, 0, &bad);
        else if (!strcmp(sec, "faults")) write_timed(out, s, 1, &bad);
        else if (!strcmp(sec, "nemesis")) {
            if (s->nemesis) write_keys(out, s, &d, sec, 1, &bad);
        } else if (!strcmp(sec, "swarm")) {
            if (s->swarm_section) write_keys(out, s, &d, sec, 1, &bad);
        } else write_keys(out, s, &d, sec, !strcmp(sec, "scenario"), &bad);
    }
    return ferror(out) || bad ? -1 : 0;
}
