/* The blocks written to a loop device, read from a tracing instance of the run's own (block_bio_queue filtered by the kernel to the device's non-read bios). */
#include "backend/device/write_trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define EVENT "events/block/block_bio_queue"
/* Per CPU. A step writes tens of bios, a line of the pipe is ~100 bytes and the trace is
 * drained at every read-back: 256 KiB holds thousands of steps' worth. */
#define BUFFER_KB "256"
/* The traces this process has open, so that a sweep of its own run (the replayer's, at a crash
 * signal) can let go of their pipes first: the kernel keeps an instance that has a reader. */
#define MAX_OPEN 16

struct write_trace {
    char dir[256];              /* the instance */
    int made;                   /* this process made it (and may remove it) */
    char filter[128];           /* what it was given, held against what it has at each take */
    int pipe;                   /* its trace_pipe, non-blocking */
    size_t nblocks, bsize;
    unsigned char *dirty;       /* written since the last take */
    int lost;                   /* events lost since the last take */
    char line[512];             /* a line read in part */
    size_t have;
    long miss_from;             /* METIS_TEST_WRITE_TRACE=miss[:N]: from its Nth take on (0:
                                   all) the trace sees no write, the test that checking its
                                   images bites; -1 without */
    long takes;
};

static struct write_trace *open_traces[MAX_OPEN];

/* Puts t where was is (NULL: a free slot); the file systems are set up in threads of their own. */
static void remember(struct write_trace *t, struct write_trace *was)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (__sync_bool_compare_and_swap(&open_traces[i], was, t))
            return;
}

static int write_string(const char *dir, const char *file, const char *text)
{
    char path[384];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The kernel's own dev_t (major << 20 | minor) of /dev/loop<nr>, as the event's filter takes it. */
static int kernel_dev(int loopnr, unsigned long *dev)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/dev/loop%d", loopnr);
    if (stat(path, &st) < 0)
        return -1;
    *dev = ((unsigned long)major(st.st_rdev) << 20) | minor(st.st_rdev);
    return 0;
}

/* 1 when the instance's file holds want (its first line, without the newline). */
static int holds(const struct write_trace *t, const char *file, const char *want)
{
    char path[384], got[160];
    snprintf(path, sizeof path, "%s/%s", t->dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, got, sizeof got - 1);
    close(fd);
    if (n <= 0)
        return 0;
    got[n] = 0;
    got[strcspn(got, "\n")] = 0;
    return strcmp(got, want) == 0;
}

/* Another root tool on a shared host may turn an instance off or change its filter (e.g. a
 * reset of every instance): no event is then lost, none is logged, and a take would look like
 * "nothing written". So every take first asks whether it still traces what it was set to. */
static int still_tracing(const struct write_trace *t)
{
    return holds(t, "tracing_on", "1") && holds(t, EVENT "/enable", "1") &&
           holds(t, EVENT "/filter", t->filter);
}

static int set_up_instance(struct write_trace *t, int loopnr)
{
    unsigned long dev;
    if (kernel_dev(loopnr, &dev) < 0)
        return -1;
    /* 'R' is in a bio's rwbs only for reads (blk_fill_rwbs): everything else may change bytes. */
    snprintf(t->filter, sizeof t->filter, "dev == %lu && !(rwbs ~ \"*R*\")", dev);
    if (write_string(t->dir, "buffer_size_kb", BUFFER_KB) < 0 ||
        write_string(t->dir, EVENT "/filter", t->filter) < 0 ||
        write_string(t->dir, EVENT "/enable", "1") < 0)
        return -1;
    char pipe[384];
    snprintf(pipe, sizeof pipe, "%s/trace_pipe", t->dir);
    t->pipe = open(pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    return t->pipe < 0 ? -1 : 0;
}

struct write_trace *write_trace_open(const char *run_id, int loopnr, size_t nblocks,
                                     size_t block_size, char *err, size_t errlen)
{
    struct write_trace *t = calloc(1, sizeof *t);
    if (t)
        t->dirty = calloc(nblocks ? nblocks : 1, 1);
    if (!t || !t->dirty) {
        snprintf(err, errlen, "out of memory");
        free(t);
        return NULL;
    }
    t->pipe = -1;
    t->nblocks = nblocks;
    t->bsize = block_size;
    const char *hook = getenv("METIS_TEST_WRITE_TRACE");
    t->miss_from = !hook || strncmp(hook, "miss", 4) != 0 ? -1
                   : hook[4] == ':' ? atol(hook + 5) : 0;
    snprintf(t->dir, sizeof t->dir, TRACEFS "/instances/metis-%s-loop%d", run_id, loopnr);
    if (hook && strcmp(hook, "off") == 0) {
        snprintf(err, errlen, "turned off (METIS_TEST_WRITE_TRACE=off)");
        write_trace_close(t);
        return NULL;
    }
    t->made = mkdir(t->dir, 0700) == 0;
    if (!t->made || set_up_instance(t, loopnr) < 0) {
        snprintf(err, errlen, "tracing the writes to /dev/loop%d in %s: %s", loopnr, t->dir,
                 strerror(errno));
        write_trace_close(t);
        return NULL;
    }
    remember(t, NULL);
    return t;
}

static void mark(struct write_trace *t, unsigned long long sector, unsigned nsect)
{
    unsigned long long first = sector * 512 / t->bsize;
    unsigned long long last = nsect ? ((sector + nsect) * 512 - 1) / t->bsize : first;
    for (unsigned long long i = first; i <= last && i < t->nblocks; i++)
        t->dirty[i] = 1;
}

/* One line of the pipe: "<task>-<pid> [cpu] flags ts: block_bio_queue: M,m RWBS S + N [comm]",
 * or the ring buffer's "CPU:<n> [LOST <k> EVENTS]". */
static void parse_line(struct write_trace *t, const char *line)
{
    unsigned maj, min, nsect;
    unsigned long long sector;
    char rwbs[16];
    const char *ev = strstr(line, "block_bio_queue: ");
    if (!ev) {
        t->lost |= line[0] != 0;    /* "CPU:n [LOST k EVENTS]", or a line not understood */
        return;
    }
    if (sscanf(ev + 17, "%u,%u %15s %llu + %u", &maj, &min, rwbs, &sector, &nsect) != 5) {
        t->lost = 1;            /* a line not understood is a write not known */
        return;
    }
    mark(t, sector, nsect);
}

static void take_lines(struct write_trace *t, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (t->have + 1 < sizeof t->line)
                t->line[t->have++] = buf[i];
            continue;
        }
        t->line[t->have] = 0;
        parse_line(t, t->line);
        t->have = 0;
    }
}

int write_trace_drain(struct write_trace *t)
{
    char buf[16384];
    for (;;) {
        ssize_t n = read(t->pipe, buf, sizeof buf);
        if (n > 0) {
            take_lines(t, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            t->lost = 1;
        return t->lost ? -1 : 0;
    }
}

int write_trace_take(struct write_trace *t, unsigned char *dirty, char *err, size_t errlen)
{
    int rc = write_trace_drain(t);
    if (t->have) {
        rc = -1;                /* a line cut short: what it said is not known */
        t->have = 0;
    }
    if (!still_tracing(t)) {
        rc = -1;
        snprintf(err, errlen, "the block trace %s was turned off or changed from outside", t->dir);
    } else if (rc < 0) {
        snprintf(err, errlen, "the block trace of %s lost events", t->dir);
    }
    if (rc == 0) {
        int missing = t->miss_from >= 0 && t->takes >= t->miss_from;
        for (size_t i = 0; i < t->nblocks && !missing; i++)
            dirty[i] |= t->dirty[i];
    }
    memset(t->dirty, 0, t->nblocks);
    t->lost = 0;
    t->takes++;
    return rc;
}

void write_trace_close(struct write_trace *t)
{
    if (!t)
        return;
    remember(NULL, t);
    if (t->pipe >= 0)
        close(t->pipe);
    if (t->made) {
        write_string(t->dir, EVENT "/enable", "0");
        rmdir(t->dir);
    }
    free(t->dirty);
    free(t);
}

/* The run id of instance name "metis-<id>-loop<digits>" into id; 0, or -1 when not one. */
static int run_of_instance(const char *name, char *id, size_t len)
{
    const char *loop = strrchr(name, '-');
    if (strncmp(name, "metis-", 6) != 0 || !loop || loop <= name + 6 ||
        strncmp(loop, "-loop", 5) != 0 || !loop[5] || strspn(loop + 5, "0123456789") !=
        strlen(loop + 5) || (size_t)(loop - name - 6) >= len)
        return -1;
    memcpy(id, name + 6, (size_t)(loop - name - 6));
    id[loop - name - 6] = 0;
    return 0;
}

void write_trace_each_run(void (*fn)(void *ctx, const char *run_id), void *ctx)
{
    char id[128];
    DIR *d = opendir(TRACEFS "/instances");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));)
        if (run_of_instance(e->d_name, id, sizeof id) == 0)
            fn(ctx, id);
    closedir(d);
}

/* This process's own readers of run_id's instances let go (close is async-signal-safe; the
 * traces stay allocated for whoever closes them). */
static void let_go_of_own(const char *run_id)
{
    char id[128];
    for (int i = 0; i < MAX_OPEN; i++) {
        struct write_trace *t = open_traces[i];
        if (!t || t->pipe < 0 || run_of_instance(strrchr(t->dir, '/') + 1, id, sizeof id) < 0 ||
            strcmp(id, run_id) != 0)
            continue;
        close(t->pipe);
        t->pipe = -1;
        t->lost = 1;
    }
}

int write_trace_sweep(const char *run_id)
{
    char id[128], path[512];
    int n = 0;
    let_go_of_own(run_id);
    DIR *d = opendir(TRACEFS "/instances");
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (run_of_instance(e->d_name, id, sizeof id) < 0 || strcmp(id, run_id) != 0)
            continue;
        snprintf(path, sizeof path, TRACEFS "/instances/%s", e->d_name);
        n += rmdir(path) == 0;
    }
    closedir(d);
    return n;
}
