/* fusectl: where the kernel lets a FUSE connection be aborted, and whether it is mounted. */
#ifndef METIS_FUSECTL_H
#define METIS_FUSECTL_H

/* Mounted there by systemd at boot, or by tests/prepare-host.sh (a bare container has none). */
#define FUSECTL_DIR "/sys/fs/fuse/connections"

/* 1 when fusectl is mounted on FUSECTL_DIR: a hung daemon's connection can be aborted. */
int fusectl_mounted(void);

#endif
