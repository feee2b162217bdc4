/* The snapshot protocol's client side: probing a FUSE mount for the ioctls, and issuing them. */
#include "backend/kinds/snapproto.h"
#include "reffs_ioctl.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546
/* Not a state id the engine hands out (it counts up from 0). */
#define PROBE_ID (UINT64_MAX - 1)

static int key_ioctl(int fd, unsigned long cmd, uint64_t id)
{
    struct reffs_ioc_key k = { id };
    return ioctl(fd, cmd, &k);
}

/* Only a FUSE mount is asked: the same numbers may mean something else to another driver. */
int snapproto_probe(const char *mnt, int *ctlfd)
{
    struct statfs sf;
    int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstatfs(fd, &sf) == 0 && sf.f_type == FUSE_SUPER_MAGIC &&
        key_ioctl(fd, REFFS_IOC_SAVE, PROBE_ID) == 0 &&
        key_ioctl(fd, REFFS_IOC_DISCARD, PROBE_ID) == 0) {
        *ctlfd = fd;
        return 1;
    }
    close(fd);
    return 0;
}

int snapproto_save(int ctlfd, uint64_t id)
{
    return key_ioctl(ctlfd, REFFS_IOC_SAVE, id);
}

int snapproto_restore(int ctlfd, uint64_t id)
{
    return key_ioctl(ctlfd, REFFS_IOC_RESTORE, id);
}

int snapproto_discard(int ctlfd, uint64_t id)
{
    return key_ioctl(ctlfd, REFFS_IOC_DISCARD, id);
}

uint64_t snapproto_held_bytes(int ctlfd)
{
    struct reffs_ioc_stats st = { 0, 0 };
    return ioctl(ctlfd, REFFS_IOC_STATS, &st) == 0 ? st.bytes : 0;
}
