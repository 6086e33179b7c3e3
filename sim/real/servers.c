/* servers.c — starting, faulting and stopping the redis-server processes
 * of a managed topology (servers.h). The pids of every live process are
 * also kept in a process-wide table that an atexit handler and the
 * SIGINT / SIGTERM / SIGHUP handlers use to kill them, so a run that ends
 * any way leaves no server behind. */
#include "sim/real/servers.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/kernel/host.h"
#include "sim/real/real.h"

extern char **environ;

typedef struct server {
    char host[64];
    int port;
    pid_t pid;      /* 0: not running */
    int paused;
} server;

struct real_servers {
    int external;   /* the user's servers: no processes of ours */
    char shim[512];     /* the clock shim to preload, or "" */
    char dir[256];
    server *v;
    int n;
    int per_group;
};

/* ------------------------------------------------ the cleanup registry */

#define MAX_PIDS 256
static volatile pid_t live[MAX_PIDS];
static int cleanup_installed;

static void kill_all_live(void)
{
    for (int i = 0; i < MAX_PIDS; i++)
        if (live[i] > 0) kill(live[i], SIGKILL);
}

static void (*volatile signal_hook)(int);

void real_servers_set_signal_hook(void (*hook)(int))
{
    signal_hook = hook;
}

static void on_signal(int sig)
{
    kill_all_live(); /* kill(2) is async-signal-safe */
    void (*hook)(int) = signal_hook;
    if (hook) { /* someone stops gracefully: let it */
        hook(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Many clients mean many sockets (two per client): take the descriptors
 * the hard limit allows. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void install_cleanup(void)
{
    if (cleanup_installed) return;
    cleanup_installed = 1;
    raise_fd_limit();
    atexit(kill_all_live);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static void track(pid_t pid)
{
    for (int i = 0; i < MAX_PIDS; i++)
        if (live[i] == 0) {
            live[i] = pid;
            return;
        }
}

static void untrack(pid_t pid)
{
    for (int i = 0; i < MAX_PIDS; i++)
        if (live[i] == pid) live[i] = 0;
}

/* ------------------------------------------------------------ helpers */

/* A port nobody listens on now (the server takes it a moment later). */
static int free_port(void)
{
    int port = -1, fd = real_listen_loopback(1, &port);
    if (fd < 0) return -1;
    close(fd);
    return port;
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Does the server on port answer `argv[0]` with a reply containing want? */
static int answers(int port, const char *cmd, const char *want)
{
    char err[128];
    real_conn *c = real_connect("127.0.0.1", port, 200, err, sizeof err);
    if (c == NULL) return 0;
    const char *argv[2] = {cmd, "replication"};
    size_t lens[2] = {strlen(cmd), 11};
    int argc = strcmp(cmd, "INFO") == 0 ? 2 : 1;
    sim_reply *r = real_command(c, argc, argv, lens);
    int ok = r && r->str && strstr(r->str, want) != NULL;
    sim_reply_free(r);
    real_close(c);
    return ok;
}

static int exited(server *sv)
{
    int status;
    if (sv->pid > 0 && waitpid(sv->pid, &status, WNOHANG) == sv->pid) {
        untrack(sv->pid);
        sv->pid = 0;
        return 1;
    }
    return 0;
}

static int spawn(real_servers *s, server *sv, int replicaof_port)
{
    char port[16], log[320], master[16];
    snprintf(port, sizeof port, "%d", sv->port);
    snprintf(log, sizeof log, "%s/redis-%d.log", s->dir, sv->port);
    snprintf(master, sizeof master, "%d", replicaof_port);
    char dbfile[32];
    snprintf(dbfile, sizeof dbfile, "dump-%d.rdb", sv->port);
    const char *argv[24] = {"redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
                            "--appendonly", "no", "--dir", s->dir, "--dbfilename", dbfile,
                            "--logfile", log, "--daemonize", "no"};
    int argc = 17;
    if (replicaof_port > 0) {
        argv[argc++] = "--replicaof";
        argv[argc++] = "127.0.0.1";
        argv[argc++] = master;
    }
    argv[argc] = NULL;
    /* The environment: ours, plus the clock shim's when the set uses it. */
    char **env = environ;
    char *extra[3] = {NULL, NULL, NULL};
    char **own = NULL;
    if (s->shim[0]) {
        char file[320];
        snprintf(file, sizeof file, "%s/clock-%d", s->dir, sv->port);
        int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int64_t zero = 0;
        if (fd < 0 || write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
            if (fd >= 0) close(fd);
            return -1;
        }
        close(fd);
        size_t n = strlen(s->shim) + 16, m = strlen(file) + 24;
        extra[0] = sim_xmalloc(n);
        snprintf(extra[0], n, "LD_PRELOAD=%s", s->shim);
        extra[1] = sim_xmalloc(m);
        snprintf(extra[1], m, "LOCKSIM_CLOCK_FILE=%s", file);
        size_t count = 0;
        while (environ[count]) count++;
        own = sim_xcalloc(count + 3, sizeof *own);
        size_t k = 0;
        for (size_t i = 0; i < count; i++)
            if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "LOCKSIM_CLOCK_FILE=", 19))
                own[k++] = environ[i];
        own[k++] = extra[0];
        own[k++] = extra[1];
        own[k] = NULL;
        env = own;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "redis-server", &fa, NULL, (char *const *)argv, env);
    posix_spawn_file_actions_destroy(&fa);
    if (own) {
        sim_xfree(extra[0]);
        sim_xfree(extra[1]);
        sim_xfree(own);
    }
    if (rc != 0) return -1;
    sv->pid = pid;
    sv->paused = 0;
    track(pid);
    return 0;
}

/* Waits up to 5 s for the server to answer PING (and, for a replica, for
 * its link to be up). 0 when ready, -1 when the process died. */
static int await_ready(server *sv, int replica)
{
    for (int i = 0; i < 250; i++) {
        if (exited(sv)) return -1;
        if (answers(sv->port, "PING", "PONG") && (!replica || answers(sv->port, "INFO", "master_link_status:up")))
            return 0;
        nap_ms(20);
    }
    return -1;
}

static int start_one(real_servers *s, server *sv, int replicaof_port, int fixed_port)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        if (!fixed_port) sv->port = free_port();
        if (sv->port <= 0 || spawn(s, sv, replicaof_port) != 0) return -1;
        if (await_ready(sv, replicaof_port > 0) == 0) return 0;
        if (sv->pid > 0) {
            kill(sv->pid, SIGKILL);
            waitpid(sv->pid, NULL, 0);
            untrack(sv->pid);
            sv->pid = 0;
        }
        if (fixed_port) nap_ms(100); /* the port may still be closing */
    }
    return -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* -------------------------------------------------------------- the set */

static real_servers *start_set(int groups, int replicas, const char *shim, char *err, size_t cap)
{
    if (!host_program_found("redis-server")) {
        snprintf(err, cap, "redis-server is not installed: the real backend starts Debian's redis-server "
                           "(apt-get install redis-server, or make deps)");
        return NULL;
    }
    install_cleanup();
    real_servers *s = sim_xcalloc(1, sizeof *s);
    snprintf(s->shim, sizeof s->shim, "%s", shim ? shim : "");
    const char *tmp = getenv("TMPDIR");
    /* mkdtemp's template: six of its placeholder letter at the end. */
    char six[7];
    memset(six, 'X', 6);
    six[6] = '\0';
    snprintf(s->dir, sizeof s->dir, "%s/locksim-redis.%s", tmp && *tmp ? tmp : "/tmp", six);
    if (mkdtemp(s->dir) == NULL) {
        snprintf(err, cap, "cannot make a directory for redis-server: %s", strerror(errno));
        sim_xfree(s);
        return NULL;
    }
    s->per_group = 1 + replicas;
    s->n = groups * s->per_group;
    s->v = sim_xcalloc((size_t)s->n, sizeof *s->v);
    for (int i = 0; i < s->n; i++) {
        int master = i - i % s->per_group;
        int replicaof = i == master ? 0 : s->v[master].port;
        if (start_one(s, &s->v[i], replicaof, 0) != 0) {
            snprintf(err, cap, "could not start redis-server (is it installed? 'make deps'; logs in %s)", s->dir);
            s->dir[0] = '\0'; /* keep the logs */
            real_servers_stop(s);
            return NULL;
        }
    }
    return s;
}

real_servers *real_servers_start(int groups, int replicas, char *err, size_t cap)
{
    return start_set(groups, replicas, NULL, err, cap);
}

/* The clock shim beside the running binary (build/libclockshim.so). */
static int find_shim(char *out, size_t cap)
{
    char exe[400];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL) return -1;
    *slash = '\0';
    snprintf(out, cap, "%s/libclockshim.so", exe);
    return access(out, R_OK);
}

real_servers *real_servers_start_clocked(int groups, int replicas, char *err, size_t cap)
{
    char shim[512];
    if (find_shim(shim, sizeof shim) != 0) {
        snprintf(err, cap, "the clock shim libclockshim.so is not beside the locksim binary (run 'make')");
        return NULL;
    }
    return start_set(groups, replicas, shim, err, cap);
}

int real_servers_set_offset(real_servers *s, int node, int64_t offset_us)
{
    if (s->external || !s->shim[0]) return -1;
    char file[320];
    snprintf(file, sizeof file, "%s/clock-%d", s->dir, s->v[node].port);
    int fd = open(file, O_WRONLY);
    if (fd < 0) return -1;
    /* One aligned 8-byte write: the server sees the old or the new value. */
    ssize_t w = pwrite(fd, &offset_us, sizeof offset_us, 0);
    close(fd);
    return w == (ssize_t)sizeof offset_us ? 0 : -1;
}

real_servers *real_servers_external(const char *spec, char *err, size_t cap)
{
    real_servers *s = sim_xcalloc(1, sizeof *s);
    s->external = 1;
    s->per_group = 1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(t, ':');
        int port = colon ? atoi(colon + 1) : 0;
        if (colon == NULL || port <= 0 || port > 65535 || colon == t || (size_t)(colon - t) >= sizeof s->v->host) {
            snprintf(err, cap, "--redis wants HOST:PORT[,HOST:PORT...] (got \"%s\")", t);
            sim_xfree(s->v);
            sim_xfree(s);
            return NULL;
        }
        s->v = sim_xrealloc(s->v, (size_t)(s->n + 1) * sizeof *s->v);
        memset(&s->v[s->n], 0, sizeof *s->v);
        snprintf(s->v[s->n].host, sizeof s->v->host, "%.*s", (int)(colon - t), t);
        s->v[s->n].port = port;
        s->n++;
    }
    if (s->n == 0) {
        snprintf(err, cap, "--redis names no server");
        sim_xfree(s);
        return NULL;
    }
    return s;
}

const char *real_servers_host(const real_servers *s, int node)
{
    return s->v[node].host[0] ? s->v[node].host : "127.0.0.1";
}

int real_servers_managed(const real_servers *s)
{
    return !s->external;
}

void real_servers_stop(real_servers *s)
{
    if (s == NULL) return;
    for (int i = 0; i < s->n; i++) {
        server *sv = &s->v[i];
        if (sv->pid <= 0) continue;
        if (sv->paused) kill(sv->pid, SIGCONT);
        kill(sv->pid, SIGTERM);
    }
    for (int i = 0; i < s->n; i++) {
        server *sv = &s->v[i];
        for (int k = 0; sv->pid > 0 && k < 100; k++) {
            if (exited(sv)) break;
            nap_ms(20);
        }
        if (sv->pid > 0) {
            kill(sv->pid, SIGKILL);
            waitpid(sv->pid, NULL, 0);
            untrack(sv->pid);
            sv->pid = 0;
        }
    }
    if (s->dir[0]) nftw(s->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    sim_xfree(s->v);
    sim_xfree(s);
}

int real_servers_count(const real_servers *s)
{
    return s->n;
}

int real_servers_port(const real_servers *s, int node)
{
    return s->v[node].port;
}

int real_servers_alive(const real_servers *s, int node)
{
    return s->external || s->v[node].pid > 0;
}

int real_servers_kill(real_servers *s, int node)
{
    if (s->external) return -1;
    server *sv = &s->v[node];
    if (sv->pid <= 0) return -1;
    kill(sv->pid, SIGKILL);
    waitpid(sv->pid, NULL, 0);
    untrack(sv->pid);
    sv->pid = 0;
    sv->paused = 0;
    return 0;
}

int real_servers_restart(real_servers *s, int node, int replicaof_port)
{
    if (s->external) return -1;
    server *sv = &s->v[node];
    if (sv->pid > 0) return -1;
    return start_one(s, sv, replicaof_port, 1);
}

int real_servers_pause(real_servers *s, int node)
{
    if (s->external) return -1;
    server *sv = &s->v[node];
    if (sv->pid <= 0 || sv->paused) return -1;
    sv->paused = 1;
    return kill(sv->pid, SIGSTOP);
}

int real_servers_resume(real_servers *s, int node)
{
    if (s->external) return -1;
    server *sv = &s->v[node];
    if (sv->pid <= 0 || !sv->paused) return -1;
    sv->paused = 0;
    return kill(sv->pid, SIGCONT);
}
