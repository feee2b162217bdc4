/* Per-search variants: which of [vary]'s options a search's seed turns on, and what they change in its config. */
#include "engine/input/vary.h"
#include "engine/input/input.h"
#include <stdio.h>

#define NAME_MAX_LEN 255
/* Keeps the variant's draws apart from the input driver's, which starts from the same seed. */
#define VARY_SALT 0x76617279u

/* As [run] compare_mtime = 1 would: RefFS, and a FUSE daemon that answers its dump ioctl, are
 * then read by walking the mount, since a dump holds no times (the config refuses [vary] mtime
 * with readback = dump). */
static void compare_mtimes(struct metis_config *cfg)
{
    cfg->run.compare_mtime = 1;
    for (int i = 0; i < cfg->nfs; i++)
        if (cfg->fs[i].type == FS_REFFS || cfg->fs[i].type == FS_FUSE)
            snprintf(cfg->fs[i].readback, sizeof cfg->fs[i].readback, "vfs");
}

void vary_apply(struct metis_config *cfg)
{
    struct vary_config *v = &cfg->vary;
    struct rng r;
    rng_seed(&r, cfg->run.seed ^ VARY_SALT);
    /* Every coin is drawn whatever the probabilities, so each option's choice for a seed
     * stays the same when another's probability changes (and when options are added, last). */
    double long_coin = rng_unit(&r), fill_coin = rng_unit(&r), inode_coin = rng_unit(&r);
    double mtime_coin = rng_unit(&r);
    int fits = (uint64_t)(cfg->pool.depth + 1) * (NAME_MAX_LEN + 1) < METIS_PATH_MAX;
    v->long_names_on = long_coin < v->long_names && fits;
    v->fill_on = fill_coin < v->fill && !v->other_kind;
    v->fill_inodes_on = inode_coin < v->fill_inodes && !v->other_kind;
    v->mtime_on = mtime_coin < v->mtime && !v->no_times;
    if (v->long_names_on)
        cfg->pool.name_len = NAME_MAX_LEN;
    if (v->mtime_on)
        compare_mtimes(cfg);
}

const char *vary_describe(const struct metis_config *cfg, char *buf, size_t len)
{
    const struct vary_config *v = &cfg->vary;
    snprintf(buf, len, "%s%s%s%s", v->long_names_on ? ", long names" : "",
             v->fill_on ? ", little free space" : "", v->fill_inodes_on ? ", few free inodes" : "",
             v->mtime_on ? ", mtimes compared" : "");
    return buf[0] ? buf + 2 : "none";
}

const char *vary_skipped(const struct metis_config *cfg, char *buf, size_t len)
{
    const struct vary_config *v = &cfg->vary;
    int fills = v->other_kind && (v->fill > 0 || v->fill_inodes > 0);
    int times = v->no_times && v->mtime > 0;
    size_t n = 0;
    buf[0] = '\0';
    if (fills)
        n += (size_t)snprintf(buf, len, "[vary] fill and fill_inodes are skipped: [fs %s] and "
                              "[fs %s] are of different kinds and would run out of space at "
                              "different points", cfg->fs[0].name, cfg->fs[v->other_kind].name);
    if (times && n < len)
        snprintf(buf + n, len - n, "%s[vary] mtime is skipped: [fs %s] may be restored "
                 "logically, which cannot set times back", fills ? "; " : "",
                 cfg->fs[v->no_times - 1].name);
    return fills || times ? buf : NULL;
}
