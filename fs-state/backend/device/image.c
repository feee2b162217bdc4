/* Backing images of image-backed backends: made in /dev/shm, formatted, saved and restored through the image store. */
#include "backend/base/backend_types.h"
#include "backend/base/common.h"
#include "backend/device/image.h"
#include "backend/device/imgstore.h"
#include "engine/vocab/fsinfo.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096

/* ---- images ---- */

int bimage_create(struct backend *b, struct backend_image *im, uint64_t size)
{
    char dir[sizeof b->image];
    snprintf(dir, sizeof dir, BK_SHM_DIR "/metis-%s", b->run_id);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return bk_err(b, "setup", "cannot make %s: %s", dir, strerror(errno));
    im->fd = open(b->image, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (im->fd < 0)
        return bk_err(b, "setup", "cannot create image %s: %s%s", b->image, strerror(errno),
                      errno == EEXIST ? " (left by a crashed run with this run id? sweep it)" : "");
    im->size = size;
    if (ftruncate(im->fd, (off_t)size) < 0)
        return bk_err(b, "setup", "cannot size image %s to %llu bytes: %s", b->image,
                      (unsigned long long)size, strerror(errno));
    im->store = imgstore_new(size, BLOCK);
    if (!im->store)
        return bk_err(b, "setup", "out of memory for the image store");
    return 0;
}

int bimage_mkfs(struct backend *b, const char *fstype, uint64_t size)
{
    char cmd[2048], out[512];
    fs_format_mkfs_command(fstype, size, b->cfg->mkfs_opts, b->image, cmd, sizeof cmd);
    int rc = run_cmd(bk_setup_timeout(b), out, sizeof out, "%s", cmd);
    if (rc == 0)
        return 0;
    char *nl = strchr(out, '\n');
    if (nl && nl[1])
        *nl = ';';     /* keep the message on one line; the first two lines say the most */
    if ((nl = strchr(out, '\n')))
        *nl = 0;
    return bk_err(b, "mkfs", "'%s' %s %d%s%s", cmd, rc == SPAWN_TIMED_OUT ? "timed out after" : "exited with",
                  rc == SPAWN_TIMED_OUT ? (int)bk_setup_timeout(b) : rc, *out ? ": " : "", out);
}

int bimage_save(struct backend *b, struct backend_image *im, uint64_t id)
{
    if (imgstore_save(im->store, id, im->fd) < 0)
        return bk_err(b, "save", "state %llu from %s: %s", (unsigned long long)id, b->image,
                      strerror(errno));
    return 0;
}

int bimage_restore(struct backend *b, struct backend_image *im, uint64_t id)
{
    if (imgstore_restore(im->store, id, im->fd) < 0)
        return bk_err(b, "restore", "state %llu: %s", (unsigned long long)id,
                      errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
    return 0;
}

int bimage_export(struct backend *b, struct backend_image *im, uint64_t id, const char *dir,
                  char *out, size_t outlen)
{
    if (snprintf(out, outlen, "%s/%s-%llu.img", dir, b->cfg->name, (unsigned long long)id) >=
        (int)outlen)
        return bk_err(b, "export", "path too long under %s", dir);
    if (imgstore_write_file(im->store, id, out) < 0)
        return bk_err(b, "export", "state %llu to %s: %s", (unsigned long long)id, out,
                      errno == ENOENT ? "never saved (or discarded)" : strerror(errno));
    return 0;
}

void bimage_destroy(struct backend *b, struct backend_image *im)
{
    if (im->fd >= 0) {
        close(im->fd);
        im->fd = -1;
        unlink(b->image);
    }
    imgstore_free(im->store);
    im->store = NULL;
}
