/* What differs in one file system's outcome from the reference's: the DIFF_* bits the step sets and classes, hints, the log, traces and reports read. */
#ifndef METIS_DIFFERS_H
#define METIS_DIFFERS_H

/* What differs from the reference, in one file system's outcome. */
enum { DIFF_RET = 1, DIFF_ERRNO = 2, DIFF_STATE = 4 };
/* A crash check's findings on one fs (crash.h; the reference can have them too): the copy lost
 * what the sync promised, did not mount, or its checker found damage. */
enum { DIFF_CRASH = 8, DIFF_CRASH_MOUNT = 16, DIFF_CRASH_FSCK = 32 };
#define DIFF_CRASH_ANY (DIFF_CRASH | DIFF_CRASH_MOUNT | DIFF_CRASH_FSCK)
/* A target that failed a step instead of answering it (step.h's enum target_failure): its daemon
 * died, it hung, a saved state could not be brought back, its tree could not be read, or its
 * mount could not be unmounted. Each is a class of its own per fs. */
enum { DIFF_DAEMON_DIED = 64, DIFF_HANG = 128, DIFF_RESTORE_UNREACHABLE = 256, DIFF_UNREADABLE = 512,
       DIFF_UNMOUNT_FAILED = 1024 };
#define DIFF_TARGET (DIFF_DAEMON_DIED | DIFF_HANG | DIFF_RESTORE_UNREACHABLE | DIFF_UNREADABLE | \
                     DIFF_UNMOUNT_FAILED)
/* A fault check's findings on one fs (fault_kinds.h's FAULT_*; the reference can have them
 * too): a change acknowledged and gone, a failure that left a state neither before nor after,
 * a damaged image, an answer no fault explains, an image that does not mount again, bytes no
 * one wrote. */
enum { DIFF_FAULT_LOST = 2048, DIFF_FAULT_PARTIAL = 4096, DIFF_FAULT_FSCK = 8192,
       DIFF_FAULT_ERRNO = 16384, DIFF_FAULT_MOUNT = 32768, DIFF_FAULT_STALE = 65536 };
#define DIFF_FAULT_ANY (DIFF_FAULT_LOST | DIFF_FAULT_PARTIAL | DIFF_FAULT_FSCK | DIFF_FAULT_ERRNO | \
                        DIFF_FAULT_MOUNT | DIFF_FAULT_STALE)
#define DIFF_OF_FAULT(kinds) ((unsigned)(kinds) << 11)    /* FAULT_* to DIFF_FAULT* */
#define FAULT_OF_DIFF(differs) (((unsigned)(differs) >> 11) & 63u)
/* A kernel fs kept mounted (remount = 0) whose checkpoint read another tree after a remount
 * than before it: what the device holds is not what the mount showed (the reference can have
 * it too). A class of its own per fs and attribute, whatever the operation. */
enum { DIFF_REMOUNT = 131072 };
/* A finding of the fs against its own promise (crash, fault or remount), not against the
 * reference. */
#define DIFF_OWN_PROMISE (DIFF_CRASH_ANY | DIFF_FAULT_ANY | DIFF_REMOUNT)
/* A concurrent step ([run] together) whose outcome on this fs no serial order of its calls
 * on the reference gives (concurrent.h); past the fault and remount bits. */
enum { DIFF_SERIAL = 262144 };
/* What set-up adapted to on a target before any operation (setup_notes.h: a root attribute
 * kept or refused, directory links not counted): a class of its own, with DIFF_STATE. */
enum { DIFF_SETUP = 524288 };
#define DIFF_OF_CRASH(kinds) ((unsigned)(kinds) << 3)     /* CRASH_* to DIFF_CRASH* */
#define CRASH_OF_DIFF(differs) (((unsigned)(differs) >> 3) & 7u)

#endif
