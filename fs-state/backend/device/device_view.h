/* A read-only view of a kept kernel fs's device: its image mounted through a loop device of its own while the fs holds still, so that a checkpoint reads back what the fs wrote without unmounting it. */
#ifndef METIS_DEVICE_VIEW_H
#define METIS_DEVICE_VIEW_H

#include <stddef.h>
#include "backend/base/backend_types.h"

/*
 * The view's loop device is attached read-only over b's image for the whole run and mounted
 * only for the moment of a checkpoint, at <mount point>.view, read-only, with the options the
 * format needs for a second mount (fs_format_view_opts). Both names carry the run id,
 * so backend_sweep removes them after any exit. Errors: 0 or -1 with the message in b->err.
 */
struct device_view;

/* For b (a kernel fs, set up, its image open as image_fd): the loop device and the mount
 * point. NULL with b->err set. */
struct device_view *device_view_open(struct backend *b, int image_fd);
/* Mounts the view (b's fs settled: its image holds all it shows and nothing writes it): 0 with
 * *rootfd open at its root; 1 when it does not mount (b->err says why); -1 on failure. */
int device_view_mount(struct device_view *v, int *rootfd);
/* Closes rootfd and unmounts the view. */
int device_view_umount(struct device_view *v, int rootfd);
/* Unmounts, detaches and removes what the view made; NULL is fine. */
void device_view_close(struct device_view *v);

#endif
