/* Fault steps' vocabulary: the kinds of fault a step arms and what a fault check finds (which file systems get them: config/fault_config.h); a leaf table like crash_modes.c. */
#ifndef METIS_FAULT_KINDS_H
#define METIS_FAULT_KINDS_H

#include <stddef.h>
#include <stdint.h>

/* What the faulty device does from the drawn request of the step's operation on. */
enum fault_kind {
    FAULT_EIO_WRITE,    /* every write from the request on fails with EIO */
    FAULT_EIO_READ,     /* every read from the request on fails with EIO */
    FAULT_LOST_WRITE,   /* that write is acknowledged and dropped; the next flush fails (EIO) */
    FAULT_NKINDS,
};

/* A fault step's plan: one kind, armed at the at-th request of its direction (0, 1, ...). */
struct fault_spec {
    int on;
    enum fault_kind kind;
    uint64_t at;
    int silent;         /* [run] fault_test_silent, a test hook: every write from the at-th on
                           is lost, and no flush reports it */
};

/* The faulty device's arm command of s (faultdev/faultdev_proto.h): an EIO fault fails every
 * request of its direction from the at-th on, a lost write is that one write alone (the test
 * hook's: every write from there on, silently). */
void fault_arm_command(const struct fault_spec *s, char *out, size_t len);
/* "eio_write", "eio_read", "lost_write"; -1 / "?" for anything else. */
int fault_kind_parse(const char *s);
const char *fault_kind_name(enum fault_kind k);
/* A comma-separated list of kind names as bits (1 << kind); -1 with the bad word in bad. */
int fault_kinds_parse(const char *list, unsigned *bits, char *bad, size_t len);

/* What a fault check found on one fs (the step's DIFF_FAULT* bits are built from these). */
enum {
    FAULT_LOST = 1,     /* the operation succeeded, but its change is gone after the remount */
    FAULT_PARTIAL = 2,  /* it failed, and left a state neither before nor after it */
    FAULT_FSCK = 4,     /* the format's checker finds the image damaged */
    FAULT_ERRNO = 8,    /* it answered what neither its clean run nor a failed one (EIO, EROFS,
                           ENOSPC) answers */
    FAULT_MOUNT = 16,   /* the image did not mount again, or its tree could not be read */
    FAULT_STALE = 32,   /* a file holds bytes no one wrote to it (fault_data.h) */
};
/* "lost", "partial", "fsck", "errno", "mount", "stale" (the first kind set), "same" for 0. */
const char *fault_found_name(unsigned kinds);
/* Every kind set, comma-separated ("lost,fsck"), "same" for 0. */
void fault_found_list(unsigned kinds, char *out, size_t len);
/* The kinds of a name or list fault_found_name and fault_found_list give; 0 for "same", -1 if
 * a name is unknown. */
int fault_found_parse(const char *s);
/* The errnos a failed operation may answer under a fault, beside its clean run's. */
int fault_errno_allowed(int err);

#endif
