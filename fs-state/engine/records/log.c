/* Event log implementation: a large append buffer written with write(2) so a signal path can flush it. */
#include "engine/records/log.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_BUF_SIZE (1 << 20)
/* The longest record: a restore call's, whose value (an xattr's, up to 64 KiB) is in hex. */
#define LOG_LINE_MAX (192 << 10)

static int log_fd = -1;
static char *log_buf;
static size_t log_used;
static double log_last_flush;

int log_open(const char *path)
{
    log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0)
        return -1;
    log_buf = malloc(LOG_BUF_SIZE);
    log_used = 0;
    return log_buf ? 0 : -1;
}

void log_flush(void)
{
    size_t done = 0;
    while (log_fd >= 0 && done < log_used) {
        ssize_t n = write(log_fd, log_buf + done, log_used - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    log_used = 0;
}

void log_line(const char *fmt, ...)
{
    if (!log_buf)
        return;
    if (LOG_BUF_SIZE - log_used < LOG_LINE_MAX)
        log_flush();
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(log_buf + log_used, LOG_LINE_MAX - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > LOG_LINE_MAX - 2)
        n = LOG_LINE_MAX - 2;   /* a truncated line still ends the record */
    log_used += (size_t)n;
    log_buf[log_used++] = '\n';
}

void log_tick(double now)
{
    if (now - log_last_flush >= 1.0) {
        log_flush();
        log_last_flush = now;
    }
}

void log_close(void)
{
    log_flush();
    if (log_fd >= 0)
        close(log_fd);
    log_fd = -1;
    free(log_buf);
    log_buf = NULL;
}

void hex_encode(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}
