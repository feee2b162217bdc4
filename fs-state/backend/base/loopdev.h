/* Loop devices: attached over a backend's image file, detached, swept by backing-file prefix. */
#ifndef METIS_BK_LOOPDEV_H
#define METIS_BK_LOOPDEV_H

#include <stddef.h>

/* Attaches file (O_RDWR fd) to a free loop device; returns
 * its number or -1 with errno. */
int bk_loop_attach(int fd, const char *file);
/* The same with direct I/O: the loop device reads and writes fd with O_DIRECT, not through
 * the file's page cache (the kernel may still refuse it: check /sys/block/loopN/loop/dio). */
int bk_loop_attach_direct(int fd, const char *file);
/* A read-only loop device over file (direct I/O where the kernel takes it): a second view of
 * an image a mounted fs writes through another loop device, which nothing on it can write. */
int bk_loop_attach_readonly(int fd, const char *file);
/* Detaches loop device nr; when it is still busy, marks it to detach at its last close. */
int bk_loop_detach(int nr);
/* Waits until loop device nr has let go of its backing file (up to timeout seconds): 0, or -1
 * when it still holds it. */
int bk_loop_wait_detached(int nr, double timeout);
/* Detaches every loop device whose backing file name starts with prefix (one still in use is
 * marked to detach at its last close); how many. The first that could not be is said in err
 * (when err is not NULL and still ""). */
int bk_loop_sweep(const char *prefix, char *err, size_t errlen);
/* The loop number of the /sys/block entry name and its backing file (newline cut) in file, or
 * -1 when name is not an attached loop device. */
int bk_loop_backing_file(const char *name, char *file, size_t len);

#endif
