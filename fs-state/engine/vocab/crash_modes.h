/* Crash-check modes and what each on-disk format supports of them: the facts config, the step core and the backends share. */
#ifndef METIS_CRASHINFO_H
#define METIS_CRASHINFO_H

#include <stddef.h>
#include <stdint.h>

/* What a crash check syncs before it copies the device, and what it then requires. */
enum crash_mode {
    CRASH_OFF,      /* no crash check */
    CRASH_FSYNC,    /* fsync what the operation touched; those objects must survive */
    CRASH_SYNCFS,   /* syncfs; the whole tree must survive */
    CRASH_ANY,      /* no sync; the copy must mount and the format's checker find it clean */
};

/* "off", "fsync", "syncfs", "any"; -1 for anything else. */
int crash_mode_parse(const char *s);
const char *crash_mode_name(enum crash_mode m);

/* Which crash states a check makes of a step. */
enum crash_states {
    CRASH_STATES_COPY,      /* one: the device copied after the sync */
    CRASH_STATES_FLUSHES,   /* from the recorded block stream: the state at every flush */
    CRASH_STATES_STREAM,    /* ... and each unflushed write dropped, and prefixes */
};
/* "copy", "flushes", "stream"; -1 for anything else. */
int crash_states_parse(const char *s);
const char *crash_states_name(enum crash_states s);

/* The recording device's "record on" command for the test hook crash_test_lie: "on" (0, an
 * honest device), "on lie" (1: a flush does not cover the writes since the one before), "on
 * early" (2: a flush does not order, the write after it is logged ahead of the ones before). */
const char *crash_lie_record(int lie);

/* 1 for an operation (by name) whose bytes may reach the device in any order before a sync:
 * a crash in flight can leave its file's size and contents between before and after, so the
 * oracle holds its changed entries only to a type (crash_oracle.h). */
int crash_data_op(const char *op);

/* Kinds of crash discrepancy (the step's DIFF_CRASH* bits are built from these). */
enum {
    CRASH_LOST = 1,     /* the recovered copy differs in what the sync promised */
    CRASH_MOUNT = 2,    /* the copy did not mount, or its tree could not be read */
    CRASH_FSCK = 4,     /* the format's checker found the recovered copy damaged */
};
/* "differs", "mount", "fsck" (the first kind set), "same" for 0. */
const char *crash_kind_name(unsigned kinds);
/* The kind of a name crash_kind_name gives; 0 for "same", -1 if unknown. */
int crash_kind_parse(const char *s);

/* The checker command that exits 0 on a clean image FILE (no change made to it), or NULL
 * when Metis knows none for fstype. */
const char *crash_checker(const char *fstype);
/* 1 when a fs of this format and size has a journal (or is copy-on-write) at its mkfs
 * defaults; ext2 never, ext3/ext4 from 2 MiB. */
int crash_format_journals(const char *fstype, uint64_t size);
/* Smallest ext4 that mkfs.ext4 gives a journal. */
#define CRASH_EXT4_JOURNAL_MIN (2ULL << 20)

#endif
