/* run.sh's pieces that every case of it uses: mkfs, images, tmpfs options, where RefFS is, a FUSE target's directories. */
#include "emitstep/emit.h"

#include <inttypes.h>
#include <string.h>

#include "lib/text/placeholders.h"

void emitsh_mkfs(FILE *f, const struct fs_config *c, uint64_t size)
{
    char cmd[1024];
    fs_format_mkfs_command(c->fstype, size, c->mkfs_opts, "\"$img\"", cmd, sizeof cmd);
    fprintf(f, "  need mkfs.%s 'to make the %s file system'\n", c->fstype, c->fstype);
    fprintf(f, "  %s >\"$work/mkfs.log\" 2>&1 ||\n"
            "    { cat \"$work/mkfs.log\" >&2; exit 2; }\n", cmd);
}

/* The same size the backend would pick when the config gives none. */
uint64_t emitsh_image_size(const struct fs_config *c)
{
    return c->size ? c->size : fs_format_default_size(c->fstype);
}

/* tmpfs: "mode=...,uid=...,gid=...,size=N[,nr_inodes=M]": the root the reference had after
 * set-up (root_mode, root_uid, root_gid in run.sh), the size the backend mounts it with. */
void emitsh_tmpfs_opts(FILE *f, const struct fs_config *c)
{
    fprintf(f, "mode=$root_mode,uid=$root_uid,gid=$root_gid,size=%" PRIu64, emitsh_image_size(c));
    if (c->inodes)
        fprintf(f, ",nr_inodes=%" PRIu64, c->inodes);
}

/* RefFS is looked for next to the metis-replay that wrote this script, then in PATH. */
void emitsh_find_reffs(FILE *f, const struct emit *e, const char *prog)
{
    fprintf(f, "  bin=${REFFS_BIN:-}\n  if [ -z \"$bin\" ]; then\n    for c in ");
    char next[1200];
    snprintf(next, sizeof next, "%s/%s", e->bindir, prog);
    emitsh_quote(f, next);
    fprintf(f, " \"$(command -v %s 2>/dev/null)\"; do\n"
            "      [ -n \"$c\" ] && [ -x \"$c\" ] && { bin=$c; break; }\n    done\n  fi\n", prog);
    fprintf(f, "  [ -n \"$bin\" ] || { echo \"run.sh: needs %s (%s, built by make in the Metis "
            "tree): not found at %s nor in PATH; put it in PATH or set REFFS_BIN to it\" >&2; "
            "exit 2; }\n", prog, strcmp(prog, "reffs") ? "RefFS with its planted mutations"
            : "the RefFS daemon", next);
}

/* {dir} and {dir:NAME}: a fresh directory of the work dir each, as the backend gives a fresh
 * one on its tmpfs (mode 0755 like it); their sed expressions for the mount command in sed. */
void emitsh_dirs(FILE *f, const struct fs_config *c, char *sed, size_t len)
{
    struct ph_dirs d = { 0 };
    char why[200];
    size_t used = 0;
    sed[0] = 0;
    if (ph_scan(c->mount_cmd, &d, why, sizeof why) < 0 || d.n == 0)
        return;
    fprintf(f, "  # Its data lives in directories of its own, fresh and empty like Metis's.\n");
    for (int i = 0; i < d.n; i++) {
        const char *n = d.name[i];
        fprintf(f, "  d_%s=$(mktemp -d \"$work/dir-%s.XXXXXX\") && chmod 0755 \"$d_%s\" || exit 2\n",
                n, n, n);
        used += (size_t)snprintf(sed + used, used < len ? len - used : 0, "; s|{dir:%s}|$d_%s|g%s",
                                 n, n, strcmp(n, "dir") == 0 ? "; s|{dir}|$d_dir|g" : "");
    }
}
