/* The parsed configuration's types: every section's struct and the key table's entry (the types config.c's loader and config_keys.c's table share). */
#ifndef METIS_CONFIG_TYPES_H
#define METIS_CONFIG_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "engine/vocab/fsinfo.h"
#include "engine/vocab/bounds.h"
#include "engine/vocab/opnames.h"

#define METIS_MAX_FS 8
#define METIS_MAX_PARTS 64      /* partition 0 is the value 0, partition k>0 is [2^(k-1), 2^k) */
#define METIS_MAX_BITS 32
#define METIS_MAX_POOL_PATHS 4096 /* directory + file names the pool may hold */
#define METIS_MAX_CHOICES 16    /* items of one choice ([bits] falloc_mode, mknod_type) */

struct fs_config {
    char name[64];              /* from [fs NAME] */
    int line;                   /* line of the section header, for messages */
    enum fs_type type;
    char fstype[32];            /* kernel: ext2, ext4, xfs, btrfs, f2fs, ... */
    uint64_t size;              /* device / image / capacity bytes; 0 = smallest the fstype accepts */
    char mkfs_opts[256];
    char mount_opts[256];
    char mount_cmd[1024];       /* fuse: {mnt}, {img}, {bin}, {dir}, {dir:NAME} are substituted */
    char unmount_cmd[1024];     /* fuse: default "fusermount3 -u {mnt}" */
    int dir_backed;             /* fuse: its commands name {dir} or {dir:NAME}, so its data is
                                   kept on a run-owned tmpfs of size bytes (no image) */
    char reffs_opts[256];       /* reffs: extra -o options (e.g. mutation=NAME) */
    char exclude[512];          /* comma-separated entries at the root left out of the abstraction */
    char ignore[256];           /* comma-separated attributes left out: dir_nlink, xattrs, mode, ... */
    int remount;                /* 1 (default): unmount/remount around every operation */
    int remount_every;          /* image-backed fuse with remount 0: a remount check every Nth step */
    char readback[8];           /* reffs: "dump" (RefFS hands its tree over), "vfs" (walk the
                                   mount) or "auto" (default: dump, but vfs for a mutant) */
    int readback_check;         /* reffs with dump: every Nth read-back also walks the mount; 0 never */
    int crash;                  /* 1 (default): crash-check this fs when [run] crash is on */
    int faults;                 /* 1 (default): fault steps on this fs when [run] faults is on */
    char restore[12];           /* fuse without size: "auto" (default), "snapshot", "logical" or
                                   "replay" (fs-state/backend/README.md) */
    uint64_t inodes;            /* tmpfs, overlay: nr_inodes of the tmpfs (0: the kernel's default) */
    int populate_lower;         /* overlay: the initial state's entries made in the lower layer */
    char populate_dir[32];      /* fuse: the {dir:NAME} the initial state's entries are made in */
    double op_timeout;          /* seconds one step may take on this fs before it is infrastructure failure */
    char errno_equiv[256];      /* "EEXIST:ENOTEMPTY,...": this fs's errno counts as the reference's */
    char unsupported[256];      /* "collapse,insert,...": operations and variants this fs refuses */
    uint64_t unsup_ops;         /* parsed: bit op_id */
    uint64_t unsup_variants;    /* parsed: bit variant id (opnames.h) */
    int track_opens;            /* reffs: count open files (no noopen): set when open_unlink is
                                   drawn, which holds a descriptor past the name's removal */
    int nequiv;
    int equiv[16][2];           /* parsed errno_equiv: {this fs's errno, the reference's} */
    int fstype_line, size_line; /* lines of those keys (0 = not given), for config_validate */
    char lacks[512];            /* "fallocate:punch_hole,xattrs,...": what this fs lacks by design */
    uint64_t lacks_words;       /* parsed: bit word id (features.h) */
    unsigned lacks_ignore;      /* TREE_IGNORE_* every fs's lacks take out of the state: the
                                   same on every fs of the run, beside its own ignore */
    int replay_logical;         /* not a key: set by metis-replay, a fuse fs that would restore
                                   logically restores by replay on a fresh mount instead, so
                                   that it does nothing a trace does not hold */
};

/* Weighted partitions of a size/offset argument. */
enum part_mode { PART_RANGE, PART_BOUNDARY, PART_BOUNDARY_PM1 };
struct partitions {
    double weight[METIS_MAX_PARTS];
    int nparts;                 /* partitions in use: 0 .. nparts-1 */
    enum part_mode mode;
};

/* Per-bit probabilities of a bitmap argument. */
struct bitmap {
    int nbits;
    unsigned value[METIS_MAX_BITS];  /* the bit (e.g. O_TRUNC or S_ISUID) */
    const char *name[METIS_MAX_BITS];
    double prob[METIS_MAX_BITS];
};

/* Argument draws the input driver makes; one entry per kind of argument. */
enum arg_kind {
    ARG_WRITE_SIZE, ARG_WRITE_OFFSET, ARG_TRUNC_SIZE, ARG_FALLOC_OFFSET, ARG_FALLOC_LEN,
    ARG_XATTR_SIZE, ARG_COPY_OFFSET, ARG_COPY_LEN, ARG_NKINDS
};
enum bitmap_kind { BM_OPEN_FLAGS, BM_MODE, BM_NKINDS };

/* One value drawn among named items by weight: fallocate modes and mknod types, whose items
 * are the variants of that operation (opnames.h). */
enum choice_kind { CH_FALLOC_MODE, CH_MKNOD_TYPE, CH_NKINDS };
struct choice {
    int n;
    int variant[METIS_MAX_CHOICES];     /* the variant id of each item */
    double weight[METIS_MAX_CHOICES];
};

struct pool_config {
    int dirs;                   /* directory names per level */
    int files;                  /* file names per directory */
    int depth;                  /* directory nesting below the root */
    int name_len;               /* every name is padded to this many characters */
    int xattr_names;            /* user.x0 .. */
    int nuids, ngids;
    uint32_t uids[8], gids[8];
    double prepopulate;         /* fraction of the pool created before the search starts */
    double existing;            /* share of path draws taken from the reference's tree */
};

/* Per-search variants: each search's input seed decides which it gets (vary.c). */
struct vary_config {
    double long_names;          /* probability that the pool's names are NAME_MAX long */
    double fill;                /* probability that every fs starts with little free space */
    uint64_t bytes_left;        /* ... the free bytes it leaves */
    double fill_inodes;         /* probability that every fs starts with few free inodes */
    uint64_t inodes_left;       /* ... the free inodes it leaves */
    double mtime;               /* probability that a search compares mtimes (compare_mtime) */
    int fill_line;              /* line of fill or fill_inodes (0 = neither) */
    int other_kind;             /* the first fs of another kind than fs 0 (0: all of one kind):
                                   then no search fills, whatever fill and fill_inodes say */
    int no_times;               /* 1 + the first fs that may be restored logically (0: none):
                                   a logical restore cannot set times back, so no search
                                   compares mtimes, whatever mtime says */
    /* What the search's seed chose (set by vary_apply, never by the file). */
    int long_names_on, fill_on, fill_inodes_on, mtime_on;
};

struct run_config {
    uint64_t seed;
    long max_depth;             /* SPIN -m */
    uint64_t ops;               /* stop after this many operations (0 = no limit) */
    double seconds;             /* stop after this long (0 = no limit) */
    char hash[32];              /* OpenSSL digest name, default md5 */
    int keep_going;
    double shrink_seconds;      /* keep_going: time to shrink each run's new classes; 0 = off */
    double shrink_max_seconds;  /* ... at most, when each class gets its floor (triage.c) */
    int compare_mtime;          /* mtimes in the abstract state (tree/line.c says how) */
    char out[1024];             /* output directory; empty = runs/<time>-<config> */
    int ring;                   /* concrete states kept for the replayer (default 10) */
    int hashtable_log2;         /* SPIN -w */
    long max_searches;          /* searches a run may make (after complete ones); 0 = no limit */
    uint64_t equalize_limit;    /* free bytes equalization fills at most on one fs (default 1 GiB) */
    uint64_t max_memory;        /* resident bytes at which the run ends; 0 = half the machine's */
    int out_line;               /* line of the out key (0 = not given), for config_validate */
    char crash[16];             /* crash check: off, fsync, syncfs or any (crash_modes.h) */
    char crash_test_skip[32];   /* test hook: an operation whose fsync crash=fsync leaves out */
    char crash_states[16];      /* the crash states: copy (one per step), flushes or stream
                                   (from the recorded block stream; crash_modes.h) */
    long crash_states_max;      /* crash states checked per step and fs at most */
    int crash_test_lie;         /* test hook: the recording device lies about its flushes (1: late, 2: early) */
    uint64_t remount_test_lose; /* test hook: a write_file of at least this many bytes never
                                   reaches the device of a kernel fs kept mounted (0: off) */
    double faults;              /* share of steps that are fault steps (fault_kinds.h); 0 = off */
    char fault_kinds[64];       /* the kinds a fault step draws from: eio_write,eio_read,lost_write */
    char fault_test_silent[32]; /* test hook: the one operation with fault steps, each losing a
                                   write silently (no flush tells) */
    char search[16];            /* the search kind: "dfs" (SPIN), "random" (the measuring stick)
                                   or "bounded" (every transition from every state within
                                   max_depth operations) */
    int search_line;            /* line of the search key (0 = not given), for messages */
    char symmetry[16];          /* search = bounded: "off", or "names" (states matched up to
                                   renaming pool names of one kind, tree/canon.h) */
    int symmetry_line;          /* line of the symmetry key (0 = not given), for messages */
    long walk_max;              /* search = random: a walk's operations are at most this many */
    long dive;                  /* search = dfs: a dive's operations at most (0: no dives) */
    int revisits;               /* search = dfs: times a state reached again is expanded again */
    uint64_t search_ops;        /* a search ends after this many operations and the next one
                                   starts (0: only when SPIN has explored everything) */
    double together;            /* share of steps that issue several operations at once */
    int together_max;           /* ... at most this many (2 .. TOGETHER_MAX, together.h) */
    int together_tries;         /* ... each issued this many times from the state before it */
    int together_line;          /* line of the together key (0 = not given), for messages */
};

struct metis_config {
    char path[1024];
    char name[128];             /* config file's base name without .ini */
    struct run_config run;
    int nfs;
    struct fs_config fs[METIS_MAX_FS];   /* fs[0] is the reference */
    struct pool_config pool;
    int op_weight[OP_COUNT];    /* branches per operation in the model; 0 leaves it out */
    struct partitions part[ARG_NKINDS];
    double end_boundary[ARG_NKINDS];   /* *_OFFSET kinds: share of draws ending on a 4 KiB boundary */
    struct bitmap bits[BM_NKINDS];
    struct vary_config vary;
    struct choice choice[CH_NKINDS];
    uint64_t falloc_align;      /* [sizes] falloc_align UNIT:PROB: the unit ... */
    double falloc_align_prob;   /* ... and how often a new mode's range is aligned to it */
    /* What the run's lacks declarations ([fs] lacks, every fs together) take out of it. */
    unsigned lacked_ignore;     /* TREE_IGNORE_* */
    uint64_t lacked_ops;        /* bit op_id: never drawn (their [ops] weight made 0) */
    uint64_t lacked_variants;   /* bit variant id: never drawn */
};

/* What a key's value is, and so how the parser reads it. */
enum config_kind {
    CK_INT, CK_LONG, CK_U64, CK_DOUBLE, CK_BOOL, CK_STR, CK_SIZE,   /* one value */
    CK_IDS,                     /* [pool] uids, gids: 1 to 8 ids, each min .. max */
    CK_FS_TYPE,                 /* [fs] type: kernel, reffs or fuse */
    CK_WEIGHT,                  /* [ops]: the weight of operation `which` */
    CK_PARTS,                   /* [sizes]: partitions of arg_kind `which`; max: the largest lower bound */
    CK_PART_MODE,               /* [sizes] KIND_mode: how a value is taken from its partition */
    CK_ALIGN,                   /* [sizes] falloc_align UNIT:PROBABILITY; min .. max: the unit's */
    CK_BITS,                    /* [bits]: bitmap_kind `which`, NAME:PROBABILITY items */
    CK_CHOICE,                  /* [bits]: choice_kind `which`, NAME:WEIGHT items */
};

/* One key of the file, written once in config_keys.c's key table: the parser, config_defaults,
 * `metis config-keys` and tests/integration/project/man_config_keys.sh (which holds configs/README.md
 * and man/metis.ini.5 to it) all read it from there. */
struct config_key {
    const char *section;        /* "run", "fs", "pool", "ops", "sizes", "bits" or "vary" */
    const char *name;
    enum config_kind kind;
    size_t off, len;            /* the value's place in its section's struct (len: a string's room) */
    double min, max;            /* inclusive range of a number; min > max: none */
    unsigned types;             /* [fs]: bit (1 << fs_type) of each type the key applies to */
    int which;                  /* the op_id, arg_kind, bitmap_kind or choice_kind it sets */
    const char *dflt;           /* the default, as the file would give it; NULL when the key has
                                   none of its own (required, or set from other keys) */
    bool default_by_type;       /* [fs]: the default applies only to the types in `types` */
};
/* The search kinds of [run] search. */
enum search_kind { SEARCH_DFS, SEARCH_RANDOM, SEARCH_BOUNDED };

#endif
