/* Shared by the fuzz harnesses: the input as a file, stderr captured, the one-line-error check, and a trace's round trip. */
#include "fuzz_common.h"
#include "trace/trace.h"

#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char dir[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void remove_dir(void)
{
    nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void)
{
    if (!dir[0]) {
        /* tmpfs when there is one: a rewrite of a file on a disk-backed /tmp (ext4 flushes a
         * file truncated and written again at its close) cost most of each execution. */
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/metis-fuzz.XXXXXX", base);
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
    }
    return dir;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0)
        abort();
    return path;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

void fuzz_one_line(const char *who, const char *msg)
{
    size_t n = strlen(msg);
    if (n && msg[n - 1] == '\n')
        n--;
    if (n == 0 || memchr(msg, '\n', n)) {
        fprintf(stderr, "fuzz: %s refused an input with %s message: '%s'\n", who,
                n ? "a multi-line" : "an empty", msg);
        abort();
    }
}

/* A header every trace parser accepts: the harness's input is what follows it. */
static const char trace_head[] = "metis-trace 1\nrun seed=1 hash=md5\n";

/* t as trace_write writes it (malloc'd, *len bytes); aborts when it cannot be written. */
static char *trace_text(const struct trace *t, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        abort();
    int rc = trace_write(t, f);
    fclose(f);
    if (rc < 0) {
        fprintf(stderr, "fuzz: a trace trace_parse accepted cannot be written back\n");
        abort();
    }
    return text;
}

/* What trace_write wrote of a parsed trace parses again, and is then written the same. */
static void rewrite_same(const char *one, size_t len)
{
    static struct trace again;
    char err[1024] = "";
    size_t len2;
    if (trace_parse(one, len, "rewritten", &again, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz: a trace written back does not parse: %s\n", err);
        abort();
    }
    char *two = trace_text(&again, &len2);
    trace_free(&again);
    if (len2 != len || memcmp(one, two, len) != 0) {
        fprintf(stderr, "fuzz: a trace written back, parsed and written again changed:\n%s---\n%s",
                one, two);
        abort();
    }
    free(two);
}

int fuzz_trace_body(const uint8_t *data, size_t size)
{
    static struct trace t;
    size_t head = sizeof trace_head - 1, len;
    char *text = malloc(head + size + 1), err[1024] = "";
    if (!text)
        abort();
    memcpy(text, trace_head, head);
    memcpy(text + head, data, size);
    int rc = trace_parse(text, head + size, "fuzz.trace", &t, err, sizeof err);
    free(text);
    if (rc < 0) {
        fuzz_one_line("trace_parse", err);
        return -1;
    }
    char *one = trace_text(&t, &len);
    trace_free(&t);
    rewrite_same(one, len);
    free(one);
    return 0;
}

static int saved_fd = -1, capture_fd = -1, report_fd = -1;

void fuzz_stderr_begin(void)
{
    fflush(stderr);
    /* A parser that crashes while stderr is captured would take the sanitizer's report with
     * it into the capture: reports go to a copy of the real stderr instead. */
    if (report_fd < 0 && (report_fd = dup(2)) >= 0)
        __sanitizer_set_report_fd((void *)(intptr_t)report_fd);
    if (capture_fd < 0 && (capture_fd = memfd_create("fuzz-stderr", MFD_CLOEXEC)) < 0)
        abort();
    if (ftruncate(capture_fd, 0) < 0 || lseek(capture_fd, 0, SEEK_SET) < 0)
        abort();
    saved_fd = dup(2);
    if (saved_fd < 0 || dup2(capture_fd, 2) < 0)
        abort();
}

const char *fuzz_stderr_end(void)
{
    static char text[8192];
    fflush(stderr);
    if (dup2(saved_fd, 2) < 0)
        abort();
    close(saved_fd);
    ssize_t n = pread(capture_fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    return text;
}
