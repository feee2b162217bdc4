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

struct write_trace {
    char dir[256];              /* the instance */
    int pipe;                   /* its trace_pipe, non-blocking */
    size_t nblocks, bsize;
    unsigned char *dirty;       /* written since the last take */
    int lost;                   /* events lost since the last take */
    char line[512];             /* a line read in part */
    size_t have;
    int miss_hook;              /* METIS_TEST_WRITE_TRACE=miss: a trace that sees no write,
                                   for the test that the check of its images bites */
};

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

static int set_up_instance(struct write_trace *t, int loopnr)
{
    unsigned long dev;
    char filter[128];
    if (kernel_dev(loopnr, &dev) < 0)
        return -1;
    /* 'R' is in a bio's rwbs only for reads (blk_fill_rwbs): everything else may change bytes. */
    snprintf(filter, sizeof filter, "dev == %lu && !(rwbs ~ \"*R*\")", dev);
    if (write_string(t->dir, "buffer_size_kb", BUFFER_KB) < 0 ||
        write_string(t->dir, EVENT "/filter", filter) < 0 ||
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
    t->miss_hook = hook && strcmp(hook, "miss") == 0;
    snprintf(t->dir, sizeof t->dir, TRACEFS "/instances/metis-%s-loop%d", run_id, loopnr);
    if (mkdir(t->dir, 0700) < 0 || set_up_instance(t, loopnr) < 0) {
        snprintf(err, errlen, "tracing the writes to /dev/loop%d in %s: %s", loopnr, t->dir,
                 strerror(errno));
        write_trace_close(t);
        return NULL;
    }
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
        if (strstr(line, "[LOST "))
            t->lost = 1;
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
    if (rc == 0) {
        for (size_t i = 0; i < t->nblocks && !t->miss_hook; i++)
            dirty[i] |= t->dirty[i];
    } else {
        snprintf(err, errlen, "the block trace of %s lost events", t->dir);
    }
    memset(t->dirty, 0, t->nblocks);
    t->lost = 0;
    return rc;
}

void write_trace_close(struct write_trace *t)
{
    if (!t)
        return;
    if (t->pipe >= 0)
        close(t->pipe);
    write_string(t->dir, EVENT "/enable", "0");
    rmdir(t->dir);
    free(t->dirty);
    free(t);
}

int write_trace_sweep(const char *run_id)
{
    char prefix[128], path[512];
    int n = 0;
    DIR *d = opendir(TRACEFS "/instances");
    if (!d)
        return 0;
    snprintf(prefix, sizeof prefix, "metis-%s-loop", run_id);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(path, sizeof path, TRACEFS "/instances/%s", e->d_name);
        n += rmdir(path) == 0;
    }
    closedir(d);
    return n;
}
