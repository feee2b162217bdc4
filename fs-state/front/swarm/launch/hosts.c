/* Swarm hosts: the sshloginfile, and a probe of each host for metis, its tools and room. */
#include "hosts.h"
#include "front/swarm/shared/swarm_util.h"
#include "engine/config/config.h"
#include "lib/system/spawner.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VT_MEM_KIB (256L * 1024)
#define VT_SHM_EXTRA_KIB (32L * 1024)
#define DEFAULT_IMAGE_KIB (16L * 1024)

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int parse_line(struct swarm_host *h, char *l, const char *path, int lineno)
{
    char *p = l;
    h->slots = 0;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '/' && p > l) {
        h->slots = atoi(l);
        p++;
    } else {
        p = l;
    }
    if (*l == '@' || strchr(l, ',')) {
        fprintf(stderr, "metis swarm: %s:%d: host groups and comma-separated logins are not "
                "supported: write one sshlogin per line\n", path, lineno);
        return -1;
    }
    if (h->slots < 0 || (p > l && p[-1] == '/' && h->slots == 0) || !*p) {
        fprintf(stderr, "metis swarm: %s:%d: expected [N/]sshlogin with N >= 1\n", path, lineno);
        return -1;
    }
    snprintf(h->line, sizeof h->line, "%s", l);
    snprintf(h->login, sizeof h->login, "%s", p);
    return 0;
}

static int duplicate_login(const struct swarm *s, const char *login)
{
    for (int i = 0; i < s->nhosts; i++)
        if (!strcmp(s->host[i].login, login))
            return 1;
    return 0;
}

int swarm_hosts_load(struct swarm *s, const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[1024];
    int lineno = 0, rc = 0;
    if (!f) {
        fprintf(stderr, "metis swarm: %s: cannot read the hosts file: %s\n", path, strerror(errno));
        return -1;
    }
    s->nhosts = 0;
    while (rc == 0 && fgets(buf, sizeof buf, f)) {
        char *l = trim(buf);
        lineno++;
        if (!*l || *l == '#')
            continue;
        struct swarm_host *h = &s->host[s->nhosts];
        if (s->nhosts == SWARM_MAX_HOSTS) {
            fprintf(stderr, "metis swarm: %s:%d: more than %d hosts\n", path, lineno, SWARM_MAX_HOSTS);
            rc = -1;
        } else if (parse_line(h, l, path, lineno) < 0) {
            rc = -1;
        } else if (duplicate_login(s, h->login)) {
            fprintf(stderr, "metis swarm: %s:%d: repeated sshlogin '%s' (give one line N/%s)\n",
                    path, lineno, h->login, h->login);
            rc = -1;
        } else {
            s->nhosts++;
        }
    }
    fclose(f);
    if (rc == 0 && s->nhosts == 0) {
        fprintf(stderr, "metis swarm: %s: no hosts (expected lines like 2/user@host or 1/:)\n", path);
        rc = -1;
    }
    return rc;
}

static void add_tool(struct swarm *s, const char *t)
{
    for (int i = 0; i < s->ntools; i++)
        if (!strcmp(s->tools[i], t))
            return;
    if (s->ntools < SWARM_TOOLS)
        snprintf(s->tools[s->ntools++], sizeof s->tools[0], "%s", t);
}

/* What a VT of this config runs on its host besides metis. */
void swarm_tools_for(struct swarm *s)
{
    char t[64];
    s->ntools = 0;
    add_tool(s, "spin");
    add_tool(s, "cc");
    add_tool(s, "tar");
    add_tool(s, "rsync");
    for (int i = 0; s->cfg && i < s->cfg->nfs; i++) {
        const struct fs_config *fs = &s->cfg->fs[i];
        if (fs->type == FS_KERNEL && fs_format_devless(fs->fstype)) {
            continue;           /* tmpfs, overlay: mount(2) alone */
        } else if (fs->type == FS_KERNEL) {
            snprintf(t, sizeof t, "mkfs.%.50s", fs->fstype);
            add_tool(s, t);
            s->need_loop = 1;
        } else {
            add_tool(s, "fusermount3");
            s->need_fuse = 1;
        }
    }
}

static void probe_script(const struct swarm *s, char *out, size_t len)
{
    char qm[PATH_MAX + 64], tools[SWARM_TOOLS * 66] = "";
    swarm_shell_quote(s->metis, qm, sizeof qm);
    for (int i = 0; i < s->ntools; i++) {
        strcat(tools, " ");
        strcat(tools, s->tools[i]);
    }
    snprintf(out, len,
             "PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin; "
             "echo hostname=$(hostname); "
             "echo cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN); "
             "echo mem_kib=$(awk '/^MemAvailable:/{print $2}' /proc/meminfo); "
             "echo shm_kib=$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2{print $4}'); "
             "m=%s; [ -x \"$m\" ] || m=$(command -v metis) || m=; "
             "[ -n \"$m\" ] && \"$m\" swarm --ping >/dev/null 2>&1 && echo metis=$m || echo metis=; "
             "for t in%s; do command -v $t >/dev/null && echo tool=$t=1 || echo tool=$t=0; done; "
             "[ -w /dev/loop-control ] && echo loop=1 || echo loop=0; "
             "[ -w /dev/fuse ] && echo fuse=1 || echo fuse=0; "
             "echo end=1",
             qm, tools);
}

static struct swarm_host *host_by_login(struct swarm *s, const char *login)
{
    for (int i = 0; i < s->nhosts; i++)
        if (!strcmp(s->host[i].login, login))
            return &s->host[i];
    return NULL;
}

static void append_word(char *buf, size_t len, const char *w)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s%s", n ? " " : "", w);
}

static void probe_value(struct swarm_host *h, const char *kv)
{
    char tool[80];
    int have;
    if (!strncmp(kv, "hostname=", 9))
        snprintf(h->hostname, sizeof h->hostname, "%s", kv + 9);
    else if (!strncmp(kv, "cores=", 6))
        h->cores = atoi(kv + 6);
    else if (!strncmp(kv, "mem_kib=", 8))
        h->mem_kib = atol(kv + 8);
    else if (!strncmp(kv, "shm_kib=", 8))
        h->shm_kib = atol(kv + 8);
    else if (!strncmp(kv, "metis=", 6))
        snprintf(h->metis, sizeof h->metis, "%s", kv + 6);
    else if (sscanf(kv, "tool=%79[^=]=%d", tool, &have) == 2 && !have)
        append_word(h->missing, sizeof h->missing, tool);
    else if (!strcmp(kv, "loop=0"))
        append_word(h->missing, sizeof h->missing, "/dev/loop-control");
    else if (!strcmp(kv, "fuse=0"))
        append_word(h->missing, sizeof h->missing, "/dev/fuse");
    else if (!strcmp(kv, "end=1"))
        h->answered = 1;
}

/* Reads "login<TAB>text" lines of parallel --tag; out=1 for stdout, 0 for stderr. */
static void parse_tagged(struct swarm *s, const char *path, int out)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';   /* ssh ends its messages with \r\n */
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        struct swarm_host *h = host_by_login(s, line);
        if (h && out)
            probe_value(h, tab + 1);
        else if (h && *trim(tab + 1) && strlen(h->error) + strlen(tab + 1) + 3 < sizeof h->error)
            append_word(h->error, sizeof h->error, trim(tab + 1));
    }
    if (f)
        fclose(f);
}

static long vt_shm_need_kib(const struct swarm *s)
{
    long kib = VT_SHM_EXTRA_KIB;
    for (int i = 0; s->cfg && i < s->cfg->nfs; i++) {
        long img = s->cfg->fs[i].size ? (long)(s->cfg->fs[i].size >> 10) : DEFAULT_IMAGE_KIB;
        kib += 3 * img;
    }
    return kib;
}

static void judge_room(const struct swarm *s, struct swarm_host *h)
{
    int slots = h->slots ? h->slots : h->cores;
    char w[96];
    h->room[0] = '\0';
    if (h->cores > 0 && slots > h->cores) {
        snprintf(w, sizeof w, "%d VTs on %d cores;", slots, h->cores);
        append_word(h->room, sizeof h->room, w);
    }
    if (h->mem_kib < slots * VT_MEM_KIB) {
        snprintf(w, sizeof w, "memory %ld MiB < %ld MiB;", h->mem_kib >> 10,
                 (slots * VT_MEM_KIB) >> 10);
        append_word(h->room, sizeof h->room, w);
    }
    if (h->shm_kib < slots * vt_shm_need_kib(s)) {
        snprintf(w, sizeof w, "/dev/shm %ld MiB free < %ld MiB;", h->shm_kib >> 10,
                 (slots * vt_shm_need_kib(s)) >> 10);
        append_word(h->room, sizeof h->room, w);
    }
}

static void judge(const struct swarm *s, struct swarm_host *h)
{
    if (!h->answered)
        return;
    if (!h->metis[0])
        append_word(h->missing, sizeof h->missing, "metis");
    if (!s->need_loop) {
        char *p = strstr(h->missing, "/dev/loop-control");
        if (p)
            memmove(p, p + 17, strlen(p + 17) + 1);
    }
    if (!s->need_fuse) {
        char *p = strstr(h->missing, "/dev/fuse");
        if (p)
            memmove(p, p + 9, strlen(p + 9) + 1);
    }
    snprintf(h->missing, sizeof h->missing, "%s", trim(h->missing));
    h->ready = !h->missing[0];
    judge_room(s, h);
}

/* Probes every host at once; results in s->host[]. Files probe.out/probe.err go into dir. */
int swarm_probe(struct swarm *s, const char *dir)
{
    char script[8192], out[PATH_MAX + 16], err[PATH_MAX + 16], timeout[16];
    char hosts[PATH_MAX + 16];
    probe_script(s, script, sizeof script);
    snprintf(out, sizeof out, "%s/probe.out", dir);
    snprintf(err, sizeof err, "%s/probe.err", dir);
    snprintf(hosts, sizeof hosts, "%s/hosts.all", dir);
    snprintf(timeout, sizeof timeout, "%d", SWARM_PROBE_TIMEOUT);
    unlink(err);
    if (swarm_write_hosts(s, hosts) < 0)
        return -1;
    char *argv[] = {"parallel", "--nonall", "--tag", "--sshloginfile", hosts, "--timeout", timeout,
                    script, NULL};
    pid_t pid = swarm_spawn(argv, "/dev/null", out, err, 1);
    int rc = pid < 0 ? -1 : spawn_wait(pid);
    if (rc == SPAWN_CANNOT_RUN || rc < 0) {
        fprintf(stderr, "metis swarm: cannot run GNU parallel (install Debian's 'parallel')\n");
        return -1;
    }
    parse_tagged(s, out, 1);
    parse_tagged(s, err, 0);
    for (int i = 0; i < s->nhosts; i++)
        judge(s, &s->host[i]);
    return 0;
}

/* Every host line, or only the ready ones when called after the probe for the run. */
int swarm_write_hosts(const struct swarm *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "metis swarm: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < s->nhosts; i++)
        fprintf(f, "%s\n", s->host[i].line);
    return fclose(f);
}

static void check_line(const struct swarm *s, const struct swarm_host *h, FILE *f)
{
    int slots = h->slots ? h->slots : h->cores;
    if (!h->answered) {
        fprintf(f, "%-24s unreachable%s%s\n", h->login, h->error[0] ? ": " : "", h->error);
        return;
    }
    fprintf(f, "%-24s %-9s %s (%s), %d cores, %d VT slots, %ld MiB memory free, "
            "%ld MiB free in /dev/shm\n", h->login, h->ready ? "ready" : "NOT READY",
            h->metis[0] ? h->metis : "no metis", h->hostname, h->cores, slots,
            h->mem_kib >> 10, h->shm_kib >> 10);
    if (h->missing[0])
        fprintf(f, "%-24s   missing: %s\n", "", h->missing);
    if (h->room[0])
        fprintf(f, "%-24s   short of room: %s\n", "", h->room);
    (void)s;
}

void swarm_check_print(const struct swarm *s, FILE *f)
{
    fprintf(f, "host                     state\n");
    for (int i = 0; i < s->nhosts; i++)
        check_line(s, &s->host[i], f);
    fprintf(f, "tools checked: metis");
    for (int i = 0; i < s->ntools; i++)
        fprintf(f, " %s", s->tools[i]);
    fprintf(f, "%s%s\n", s->need_loop ? " /dev/loop-control" : "", s->need_fuse ? " /dev/fuse" : "");
}
