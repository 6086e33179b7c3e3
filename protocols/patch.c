/* patch.c — a user's patch of a catalogue protocol ([protocol] scripts =
 * DIR, --scripts DIR): the names of the scripts a protocol runs, and the
 * protocol run with DIR's NAME.lua in place of its bundled NAME.
 *
 * A patched protocol is a copy of the protocol whose cl_protocol carries
 * the patch (cl_script_of looks there first); it lives for the process,
 * like a resolved release (versions.c), and a folder is read once. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/policy.h"
#include "sim/fake/fake.h"

#define MAX_NAMES 32

typedef struct patched {
    char *dir, *label;
    const proto_def *base;
    proto_def def;
    cl_script *scripts; /* npatched of them (def.impl.patched) */
} patched;

static patched **table; /* every patch a process runs (a sweep or a hunt: a few) */
static size_t ntable, table_cap;

size_t proto_names_out(const char *const *names, size_t n, const char **out, size_t max)
{
    for (size_t i = 0; i < n && i < max; i++) out[i] = names[i];
    return n;
}

static const pol_policy *policy_of(const proto_def *pd)
{
    return pd->impl.proc_init == pol_generic_impl.proc_init ? pd->impl.cfg : NULL;
}

size_t proto_script_names(const proto_def *pd, const char **out, size_t max)
{
    const pol_policy *pol = policy_of(pd);
    if (pol) {
        for (size_t i = 0; i < pol->nscripts && i < max; i++) out[i] = pol->scripts[i]->name;
        return pol->nscripts;
    }
    if (pd->scripts == NULL) return 0;
    static const cl_defaults current = {.watchdog_gen = 2}; /* cl_world's when a protocol has none */
    return pd->scripts(pd->impl.cfg, pd->impl.defaults ? pd->impl.defaults : &current, out, max);
}

const char *proto_patch_dir(const proto_def *pd)
{
    for (size_t i = 0; i < ntable; i++)
        if (&table[i]->def == pd) return table[i]->dir;
    return NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.lua files of dir (no hidden ones), sorted so that errors and the
 * patch come out the same on every file system; -1 when dir cannot be
 * read. Frees with free_list. */
static int lua_files(const char *dir, char ***out, size_t *n)
{
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= 4 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *out = sim_xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = sim_xstrdup(e->d_name);
    }
    closedir(d);
    if (*n) qsort(*out, *n, sizeof **out, by_name);
    return 0;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) sim_xfree(v[i]);
    sim_xfree(v);
}

/* "a.lua b.lua ..." of names into buf. */
static void names_line(const char *const *names, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s.lua", i ? " " : "", names[i]);
}

/* File f of dir (stem: f without ".lua", one of pd's scripts) read and
 * compiled into *out; -1 with err set. */
static int load(const char *dir, const char *f, const char *stem, cl_script *out, scn_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, f);
    size_t len;
    char *text = proto_file_read(path, &len);
    if (text == NULL) {
        snprintf(err->msg, sizeof err->msg, "[protocol] scripts: cannot read %.400s", path);
        return -1;
    }
    if (proto_script_compile(path, text, len, err) != 0) {
        sim_xfree(text);
        return -1;
    }
    out->name = sim_xstrdup(stem);
    out->text = text;
    out->len = len;
    fake_sha1hex(text, len, out->sha);
    return 0;
}

/* Each file of files (n) as the script it names of pd, into p->scripts;
 * -1 with err set at the first that names none or does not compile. */
static int load_all(patched *p, const proto_def *pd, char **files, size_t n, scn_error *err)
{
    const char *names[MAX_NAMES];
    size_t nn = proto_script_names(pd, names, MAX_NAMES);
    sim_assert(nn <= MAX_NAMES);
    p->scripts = sim_xcalloc(n ? n : 1, sizeof *p->scripts);
    for (size_t i = 0; i < n; i++) {
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(files[i]) - 4), files[i]);
        int known = 0;
        for (size_t k = 0; k < nn && !known; k++) known = !strcmp(names[k], stem);
        if (!known) {
            char all[600];
            names_line(names, nn, all, sizeof all);
            const char *near = sim_closest(stem, names, nn);
            if (near)
                snprintf(err->msg, sizeof err->msg, "[protocol] scripts: %s/%s is no script of %s (did you mean %s.lua?)",
                         p->dir, files[i], pd->name, near);
            else
                snprintf(err->msg, sizeof err->msg, "[protocol] scripts: %s/%s is no script of %s (its scripts: %.300s)",
                         p->dir, files[i], pd->name, all);
            return -1;
        }
        if (load(p->dir, files[i], stem, &p->scripts[i], err) != 0) return -1;
        p->def.impl.npatched = i + 1;
    }
    return 0;
}

static void patched_free(patched *p)
{
    for (size_t i = 0; i < p->def.impl.npatched; i++) {
        sim_xfree((char *)p->scripts[i].name);
        sim_xfree((char *)p->scripts[i].text);
    }
    sim_xfree(p->scripts);
    sim_xfree(p->dir);
    sim_xfree(p->label);
    sim_xfree(p);
}

const proto_def *proto_patch(const proto_def *pd, const char *dir, const char *label, scn_error *err)
{
    for (size_t i = 0; i < ntable; i++)
        if (table[i]->base == pd && !strcmp(table[i]->dir, dir) && !strcmp(table[i]->label, label))
            return &table[i]->def;
    if (policy_of(pd)) {
        snprintf(err->msg, sizeof err->msg,
                 "[protocol] scripts: %s is a lock policy, whose scripts are files already: copy them "
                 "(locksim scripts %s DIR) and name the copy (name = DIR/FILE.lock)", pd->name, pd->name);
        return NULL;
    }
    char **files;
    size_t n;
    if (lua_files(dir, &files, &n) != 0) {
        snprintf(err->msg, sizeof err->msg, "[protocol] scripts: cannot read the folder %s", dir);
        return NULL;
    }
    patched *p = sim_xcalloc(1, sizeof *p);
    p->dir = sim_xstrdup(dir);
    p->label = sim_xstrdup(label);
    p->base = pd;
    p->def = *pd;
    p->def.name = p->label;
    int rc = load_all(p, pd, files, n, err);
    free_list(files, n);
    if (rc != 0) {
        patched_free(p);
        return NULL;
    }
    p->def.impl.patched = p->scripts;
    if (ntable == table_cap) {
        table_cap = table_cap ? table_cap * 2 : 8;
        table = sim_xrealloc(table, table_cap * sizeof *table);
    }
    table[ntable++] = p;
    return &p->def;
}

void proto_file_free(proto_file *f)
{
    sim_xfree(f->owned);
    f->owned = NULL;
}

/* A lock policy's files: its scripts (by the names its steps give them:
 * the folder's own files) and the policy file. */
static int policy_files(const pol_policy *pol, proto_file *out, size_t max, char *why, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < pol->nscripts; i++, n++) {
        const cl_script *sc = pol->scripts[i];
        if (strchr(sc->name, '/')) {
            snprintf(why, cap, "%s names the script %s outside its folder: copy it by hand", pol->path, sc->name);
            return -1;
        }
        if (n < max) out[n] = (proto_file){.text = sc->text, .len = sc->len};
        if (n < max) snprintf(out[n].name, sizeof out[n].name, "%s", sc->name);
    }
    const char *base = strrchr(pol->path, '/');
    base = base ? base + 1 : pol->path;
    proto_file f = {0};
    snprintf(f.name, sizeof f.name, "%s", base);
    for (const proto_bundle_file *b = proto_bundle; pol->bundled && b->path; b++)
        if (!strcmp(b->path, pol->path)) f.text = b->text, f.len = b->len;
    if (!pol->bundled) f.text = f.owned = proto_file_read(pol->path, &f.len);
    if (f.text == NULL) {
        snprintf(why, cap, "cannot read %s", pol->path);
        return -1;
    }
    if (n < max) out[n] = f;
    else proto_file_free(&f);
    return (int)n + 1;
}

int proto_script_files(const proto_def *pd, proto_file *out, size_t max, char *why, size_t cap)
{
    const pol_policy *pol = policy_of(pd);
    if (pol) return policy_files(pol, out, max, why, cap);
    const char *names[MAX_NAMES];
    size_t n = proto_script_names(pd, names, MAX_NAMES);
    sim_assert(n <= MAX_NAMES);
    for (size_t i = 0; i < n && i < max; i++) {
        const cl_script *sc = NULL;
        for (size_t k = 0; k < pd->impl.npatched && sc == NULL; k++)
            if (!strcmp(pd->impl.patched[k].name, names[i])) sc = &pd->impl.patched[k];
        if (sc == NULL) sc = proto_script_find(names[i]);
        sim_assert(sc != NULL);
        out[i] = (proto_file){.text = sc->text, .len = sc->len};
        snprintf(out[i].name, sizeof out[i].name, "%s.lua", names[i]);
    }
    return (int)n;
}
