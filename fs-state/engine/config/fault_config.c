/* What fault steps need of the config: which file systems get them, the silent-write test hook, and why a config cannot have them. */
#include "engine/config/fault_config.h"
#include "engine/config/config_types.h"
#include "engine/vocab/crash_modes.h"
#include <stdio.h>
#include <string.h>

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
