/* Fault kinds, what a fault check finds, and which file systems get fault steps: the names config, traces and classes share. */
#include "fault_kinds.h"
#include "config.h"
#include "crash_modes.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[FAULT_NKINDS] = { "eio_write", "eio_read", "lost_write" };

int fault_kind_parse(const char *s)
{
    for (int k = 0; k < FAULT_NKINDS; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

const char *fault_kind_name(enum fault_kind k)
{
    return (unsigned)k < FAULT_NKINDS ? kind_names[k] : "?";
}

/* The test hook's loss is every write from the drawn one on, told by no flush: a device whose
 * write cache is gone, which no file system can see. */
void fault_arm_command(const struct fault_spec *s, char *out, size_t len)
{
    int lost = s->kind == FAULT_LOST_WRITE, silent = lost && s->silent;
    snprintf(out, len, "arm %s %s at=%llu%s", s->kind == FAULT_EIO_READ ? "read" : "write",
             lost ? "lost" : "eio", (unsigned long long)s->at,
             silent ? " silent" : lost ? " count=1" : "");
}

int fault_kinds_parse(const char *list, unsigned *bits, char *bad, size_t len)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list);
    *bits = 0;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = fault_kind_parse(w);
        if (k < 0) {
            snprintf(bad, len, "%s", w);
            return -1;
        }
        *bits |= 1u << k;
    }
    return 0;
}

static const struct { const char *name; unsigned kind; } found_names[] = {
    { "lost", FAULT_LOST }, { "partial", FAULT_PARTIAL }, { "fsck", FAULT_FSCK },
    { "errno", FAULT_ERRNO }, { "mount", FAULT_MOUNT }, { "stale", FAULT_STALE },
};

const char *fault_found_name(unsigned kinds)
{
    for (size_t i = 0; i < sizeof found_names / sizeof found_names[0]; i++)
        if (kinds & found_names[i].kind)
            return found_names[i].name;
    return "same";
}

void fault_found_list(unsigned kinds, char *out, size_t len)
{
    size_t used = 0;
    snprintf(out, len, "same");
    for (size_t i = 0; i < sizeof found_names / sizeof found_names[0] && used < len; i++)
        if (kinds & found_names[i].kind)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
                                     found_names[i].name);
}

static int found_one(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof found_names / sizeof found_names[0]; i++)
        if (strlen(found_names[i].name) == n && strncmp(s, found_names[i].name, n) == 0)
            return (int)found_names[i].kind;
    return -1;
}

int fault_found_parse(const char *s)
{
    int kinds = 0;
    if (strcmp(s, "same") == 0)
        return 0;
    for (;;) {
        size_t n = strcspn(s, ",");
        int k = found_one(s, n);
        if (k < 0)
            return -1;
        kinds |= k;
        if (!s[n])
            return kinds;
        s += n + 1;
    }
}

/* EIO: the device failed; EROFS: the fs stopped writing after an error (errors=remount-ro);
 * ENOSPC: a fs may give up an allocation it could not write. */
int fault_errno_allowed(int err)
{
    return err == EIO || err == EROFS || err == ENOSPC;
}

void fault_spec_hook(struct fault_spec *s, const struct metis_config *cfg, int op)
{
    const char *hook = cfg->run.fault_test_silent;
    s->silent = s->on && s->kind == FAULT_LOST_WRITE && hook[0] && op_lookup(hook) == op;
}

/* A kernel fs on a loop device, or a FUSE fs whose daemon is given an image: both can be
 * given the faulty device's file instead (backend/faultdev.h). */
static int on_device(const struct fs_config *fs)
{
    if (fs->type == FS_FUSE)
        return fs->size > 0 && strstr(fs->mount_cmd, "{img}") != NULL;
    return fs->type == FS_KERNEL && !fs_format_devless(fs->fstype);
}

int fault_applies(const struct metis_config *cfg, const struct fs_config *fs)
{
    return cfg->run.faults > 0 && fs->faults && on_device(fs);
}

static const char *run_problem(const struct metis_config *cfg)
{
    unsigned bits;
    char bad[64];
    if (fault_kinds_parse(cfg->run.fault_kinds, &bits, bad, sizeof bad) < 0 || !bits)
        return "fault_kinds: name one or more of eio_write, eio_read, lost_write";
    if (crash_mode_parse(cfg->run.crash) > CRASH_OFF)
        return "faults and crash checks are one at a time: set crash = off or faults = 0";
    for (int i = 0; i < cfg->nfs; i++)
        if (fault_applies(cfg, &cfg->fs[i]))
            return NULL;
    return "faults: no file system gets fault steps (they need a kernel fs on a device, or a FUSE "
           "fs with an {img}, without faults = 0)";
}

int fault_config_problem(const struct metis_config *cfg, int *fs, char *msg, size_t len)
{
    const char *why;
    if (cfg->run.faults <= 0)
        return 0;
    if ((why = run_problem(cfg))) {
        *fs = -1;
        snprintf(msg, len, "%s", why);
        return -1;
    }
    for (int i = 0; i < cfg->nfs; i++)
        if (fault_applies(cfg, &cfg->fs[i]) && !cfg->fs[i].remount) {
            *fs = i;
            snprintf(msg, len, "fault steps need remount = 1 (kept mounted, the fs has no "
                     "image of the state a step starts from to run the fault step on)");
            return -1;
        }
    return 0;
}
