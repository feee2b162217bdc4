/* fsx: a file exerciser that drives one file with random reads, writes, truncates, fallocate modes and mapped I/O, checking every read against an in-memory copy. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum op {
    OP_READ, OP_WRITE, OP_MAPREAD, OP_MAPWRITE, OP_TRUNCATE, OP_FALLOC, OP_FALLOC_KEEP,
    OP_PUNCH, OP_ZERO, OP_ZERO_KEEP, OP_FSYNC, OP_REOPEN, OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
    "read", "write", "mapread", "mapwrite", "truncate", "falloc", "falloc_keep",
    "punch", "zero", "zero_keep", "fsync", "reopen",
};

/* Relative frequencies: data operations dominate, as in real workloads; every fallocate mode
 * still runs often enough that 10^6 operations exercise each about 50,000 times. */
static const unsigned op_weight[OP_COUNT] = { 20, 20, 8, 8, 8, 4, 4, 6, 4, 4, 2, 2 };

struct logged { uint64_t n; enum op op; uint64_t off, len, size_before; };
#define LOG_KEEP 64

static struct {
    const char *path;
    int fd;
    uint64_t ops, seed, maxlen, maxop, check_every, progress_every;
    int enabled[OP_COUNT];
    int require;            /* -r: an unsupported fallocate mode fails the run */
    uint64_t done[OP_COUNT];
    unsigned char *model, *buf;
    uint64_t size;          /* the model's file size; bytes of model past it are always 0 */
    uint64_t rng;
    struct logged log[LOG_KEEP];
    uint64_t n;             /* the operation running, from 1 */
    long page;
} fx = {
    .ops = 10000, .seed = 1, .maxlen = 256 * 1024, .maxop = 64 * 1024, .check_every = 1000,
    .fd = -1,
};

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic per seed, so a failure re-runs exactly with -S. */
    fx.rng ^= fx.rng >> 12;
    fx.rng ^= fx.rng << 25;
    fx.rng ^= fx.rng >> 27;
    return fx.rng * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static void dump_log(void)
{
    uint64_t first = fx.n > LOG_KEEP ? fx.n - LOG_KEEP + 1 : 1;
    fprintf(stderr, "fsx: the last %" PRIu64 " operations (seed %" PRIu64 "):\n",
            fx.n - first + 1, fx.seed);
    for (uint64_t i = first; i <= fx.n; i++) {
        const struct logged *l = &fx.log[i % LOG_KEEP];
        fprintf(stderr, "  %10" PRIu64 " %-11s off 0x%06" PRIx64 " len 0x%05" PRIx64
                " (size was 0x%06" PRIx64 ")\n", l->n, op_name[l->op], l->off, l->len,
                l->size_before);
    }
}

static void save_model(void)
{
    char good[4096];
    snprintf(good, sizeof good, "%s.fsxgood", fx.path);
    FILE *f = fopen(good, "w");
    if (f && fwrite(fx.model, 1, fx.size, f) == fx.size && fclose(f) == 0) {
        fprintf(stderr, "fsx: the expected contents are in %s\n", good);
        return;
    }
    if (f)
        fclose(f);
    fprintf(stderr, "fsx: could not write %s: %s\n", good, strerror(errno));
}

static void __attribute__((noreturn, format(printf, 1, 2))) failure(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fsx: op %" PRIu64 ": ", fx.n);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    dump_log();
    save_model();
    exit(1);
}

/* Each byte names the operation that wrote it and is never 0, so a hole that should hold data
 * and data that should be a hole both show. */
static void fill(unsigned char *p, uint64_t off, uint64_t len)
{
    for (uint64_t i = 0; i < len; i++)
        p[i] = (unsigned char)((fx.n * 7 + off + i) % 251 + 1);
}

static void compare(const unsigned char *got, uint64_t off, uint64_t len, const char *how)
{
    if (memcmp(got, fx.model + off, len) == 0)
        return;
    uint64_t i = 0;
    while (got[i] == fx.model[off + i])
        i++;
    uint64_t j = len;
    while (got[j - 1] == fx.model[off + j - 1])
        j--;
    failure("%s of 0x%" PRIx64 "+0x%" PRIx64 ": bytes 0x%" PRIx64 "..0x%" PRIx64
            " differ; first: file 0x%02x, expected 0x%02x", how, off, len, off + i, off + j - 1,
            got[i], fx.model[off + i]);
}

static void check_size(void)
{
    struct stat st;
    if (fstat(fx.fd, &st) != 0)
        failure("fstat: %s", strerror(errno));
    if ((uint64_t)st.st_size != fx.size)
        failure("size is 0x%" PRIx64 ", expected 0x%" PRIx64, (uint64_t)st.st_size, fx.size);
}

static void read_exact(uint64_t off, uint64_t len, const char *how)
{
    uint64_t got = 0;
    while (got < len) {
        ssize_t r = pread(fx.fd, fx.buf + got, len - got, (off_t)(off + got));
        if (r < 0)
            failure("%s: pread: %s", how, strerror(errno));
        if (r == 0)
            failure("%s of 0x%" PRIx64 "+0x%" PRIx64 ": end of file at 0x%" PRIx64, how, off,
                    len, off + got);
        got += (uint64_t)r;
    }
    compare(fx.buf, off, len, how);
}

static void check_whole_file(void)
{
    check_size();
    if (fx.size)
        read_exact(0, fx.size, "whole-file check");
}

/* Where a data operation lands: reads stay inside the file, writes anywhere below maxlen. */
static void pick_range(int inside, uint64_t *off, uint64_t *len)
{
    uint64_t limit = inside ? fx.size : fx.maxlen;
    *off = below(limit);
    *len = 1 + below(fx.maxop);
    if (*off + *len > limit)
        *len = limit - *off;
}

static void model_zero(uint64_t from, uint64_t to)
{
    if (to > from)
        memset(fx.model + from, 0, to - from);
}

static void do_write(uint64_t off, uint64_t len)
{
    fill(fx.buf, off, len);
    uint64_t put = 0;
    while (put < len) {
        ssize_t w = pwrite(fx.fd, fx.buf + put, len - put, (off_t)(off + put));
        if (w <= 0)
            failure("write of 0x%" PRIx64 "+0x%" PRIx64 ": %s", off, len,
                    w < 0 ? strerror(errno) : "wrote nothing");
        put += (uint64_t)w;
    }
    memcpy(fx.model + off, fx.buf, len);
    if (off + len > fx.size)
        fx.size = off + len;
}

static void do_truncate(uint64_t to)
{
    if (ftruncate(fx.fd, (off_t)to) != 0)
        failure("ftruncate to 0x%" PRIx64 ": %s", to, strerror(errno));
    if (to < fx.size)
        model_zero(to, fx.size);
    fx.size = to;
    check_size();
}

/* A mapping of [off, off+len): mmap needs a page-aligned offset. */
static unsigned char *map_range(uint64_t off, uint64_t len, int prot, uint64_t *skew)
{
    *skew = off % (uint64_t)fx.page;
    void *p = mmap(NULL, len + *skew, prot, MAP_SHARED, fx.fd, (off_t)(off - *skew));
    if (p == MAP_FAILED)
        failure("mmap of 0x%" PRIx64 "+0x%" PRIx64 ": %s", off, len, strerror(errno));
    return p;
}

static void do_mapread(uint64_t off, uint64_t len)
{
    uint64_t skew;
    unsigned char *p = map_range(off, len, PROT_READ, &skew);
    compare(p + skew, off, len, "mapped read");
    munmap(p, len + skew);
}

static void do_mapwrite(uint64_t off, uint64_t len)
{
    if (off + len > fx.size)
        do_truncate(off + len);   /* a mapping cannot grow the file */
    uint64_t skew;
    unsigned char *p = map_range(off, len, PROT_READ | PROT_WRITE, &skew);
    fill(p + skew, off, len);
    memcpy(fx.model + off, p + skew, len);
    if (msync(p, len + skew, MS_SYNC) != 0)
        failure("msync: %s", strerror(errno));
    munmap(p, len + skew);
}

static const int falloc_mode[OP_COUNT] = {
    [OP_FALLOC] = 0, [OP_FALLOC_KEEP] = FALLOC_FL_KEEP_SIZE,
    [OP_PUNCH] = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
    [OP_ZERO] = FALLOC_FL_ZERO_RANGE, [OP_ZERO_KEEP] = FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
};

/* Returns 0 when the mode is not supported, so the caller turns that operation off. */
static int do_fallocate(enum op op, uint64_t off, uint64_t len)
{
    int mode = falloc_mode[op];
    if (fallocate(fx.fd, mode, (off_t)off, (off_t)len) != 0) {
        if (errno == EOPNOTSUPP)
            return 0;
        failure("fallocate %s of 0x%" PRIx64 "+0x%" PRIx64 ": %s", op_name[op], off, len,
                strerror(errno));
    }
    uint64_t end = off + len;
    if (op == OP_PUNCH || op == OP_ZERO || op == OP_ZERO_KEEP)
        model_zero(off, end < fx.size ? end : fx.size);
    if (!(mode & FALLOC_FL_KEEP_SIZE) && end > fx.size)
        fx.size = end;
    check_size();
    return 1;
}

static void do_reopen(void)
{
    if (close(fx.fd) != 0)
        failure("close: %s", strerror(errno));
    fx.fd = open(fx.path, O_RDWR);
    if (fx.fd < 0)
        failure("reopen: %s", strerror(errno));
}

static enum op pick_op(void)
{
    unsigned total = 0;
    for (int i = 0; i < OP_COUNT; i++)
        total += fx.enabled[i] ? op_weight[i] : 0;
    unsigned r = (unsigned)below(total);
    for (int i = 0; i < OP_COUNT; i++) {
        unsigned w = fx.enabled[i] ? op_weight[i] : 0;
        if (r < w)
            return (enum op)i;
        r -= w;
    }
    return OP_WRITE;
}

/* Runs one operation; returns 0 if it turned out unsupported (and is now off). */
static int run_op(enum op op, uint64_t off, uint64_t len)
{
    switch (op) {
    case OP_READ:      read_exact(off, len, "read"); break;
    case OP_MAPREAD:   do_mapread(off, len); break;
    case OP_WRITE:     do_write(off, len); break;
    case OP_MAPWRITE:  do_mapwrite(off, len); break;
    case OP_TRUNCATE:  do_truncate(off); break;
    case OP_FSYNC:
        if (fsync(fx.fd) != 0)
            failure("fsync: %s", strerror(errno));
        break;
    case OP_REOPEN:    do_reopen(); break;
    default:           return do_fallocate(op, off, len);
    }
    return 1;
}

static void step(void)
{
    enum op op = pick_op();
    uint64_t off = 0, len = 0;
    int inside = op == OP_READ || op == OP_MAPREAD;
    if (inside && fx.size == 0)
        op = OP_WRITE, inside = 0;
    if (op == OP_TRUNCATE)
        off = below(fx.maxlen + 1);
    else if (op != OP_FSYNC && op != OP_REOPEN)
        pick_range(inside, &off, &len);
    fx.log[fx.n % LOG_KEEP] = (struct logged){ fx.n, op, off, len, fx.size };
    if (!run_op(op, off, len)) {
        if (fx.require)
            failure("%s is required (-r) but not supported (EOPNOTSUPP)", op_name[op]);
        fprintf(stderr, "fsx: %s is not supported here (EOPNOTSUPP): turned off\n", op_name[op]);
        fx.enabled[op] = 0;
        return;
    }
    fx.done[op]++;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: fsx [-N OPS] [-S SEED] [-l MAXLEN] [-o MAXOP] [-c EVERY] [-P EVERY]\n"
            "           [-x OP[,OP...]] [-r] FILE\n"
            "  -N  operations to run (default 10000)      -S  seed (default 1)\n"
            "  -l  largest file size (default 262144)     -o  largest operation (default 65536)\n"
            "  -c  whole-file check every EVERY ops (default 1000, 0 = only at the end)\n"
            "  -P  progress line every EVERY ops (default none)\n"
            "  -x  operations to leave out: read write mapread mapwrite truncate falloc\n"
            "      falloc_keep punch zero zero_keep fsync reopen\n"
            "  -r  require every fallocate mode left in: an unsupported one is a failure\n");
}

static int parse_count(const char *opt, const char *s, uint64_t *out, uint64_t min)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || v < min) {
        fprintf(stderr, "fsx: option -%s: '%s' is not a whole number >= %" PRIu64 "\n", opt, s,
                min);
        return -1;
    }
    *out = v;
    return 0;
}

static int leave_out(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < OP_COUNT && strcmp(op_name[i], t) != 0)
            i++;
        if (i == OP_COUNT) {
            fprintf(stderr, "fsx: option -x: no operation '%s'\n", t);
            rc = -1;
        } else {
            fx.enabled[i] = 0;
        }
    }
    free(copy);
    return rc;
}

static int parse_args(int argc, char **argv)
{
    int c;
    for (int i = 0; i < OP_COUNT; i++)
        fx.enabled[i] = 1;
    while ((c = getopt(argc, argv, "N:S:l:o:c:P:x:rh")) != -1) {
        char opt[2] = { (char)c, 0 };
        int bad = 0;
        switch (c) {
        case 'N': bad = parse_count(opt, optarg, &fx.ops, 1); break;
        case 'S': bad = parse_count(opt, optarg, &fx.seed, 0); break;
        case 'l': bad = parse_count(opt, optarg, &fx.maxlen, 1); break;
        case 'o': bad = parse_count(opt, optarg, &fx.maxop, 1); break;
        case 'c': bad = parse_count(opt, optarg, &fx.check_every, 0); break;
        case 'P': bad = parse_count(opt, optarg, &fx.progress_every, 0); break;
        case 'x': bad = leave_out(optarg); break;
        case 'r': fx.require = 1; break;
        case 'h': usage(stdout); exit(0);
        default:  usage(stderr); return -1;
        }
        if (bad)
            return -1;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fsx: expected one FILE (see -h)\n");
        return -1;
    }
    fx.path = argv[optind];
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void report(double secs)
{
    printf("fsx: %" PRIu64 " operations A-OK in %.1f s (%.0f ops/s), seed %" PRIu64 "\n", fx.ops,
           secs, secs > 0 ? (double)fx.ops / secs : 0.0, fx.seed);
    printf("fsx:");
    for (int i = 0; i < OP_COUNT; i++)
        printf(" %s %" PRIu64 "%s", op_name[i], fx.done[i], fx.enabled[i] ? "" : " (off)");
    printf("\n");
}

static int setup(void)
{
    fx.page = sysconf(_SC_PAGESIZE);
    fx.rng = fx.seed * 0x9E3779B97F4A7C15ULL + 1;
    fx.model = calloc(1, fx.maxlen + fx.maxop);
    fx.buf = malloc(fx.maxlen + fx.maxop);
    if (!fx.model || !fx.buf) {
        fprintf(stderr, "fsx: out of memory for a %" PRIu64 "-byte file\n", fx.maxlen);
        return -1;
    }
    fx.fd = open(fx.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fx.fd < 0) {
        fprintf(stderr, "fsx: %s: %s\n", fx.path, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (parse_args(argc, argv) != 0 || setup() != 0)
        return 2;
    double start = now();
    for (fx.n = 1; fx.n <= fx.ops; fx.n++) {
        step();
        if (fx.check_every && fx.n % fx.check_every == 0)
            check_whole_file();
        if (fx.progress_every && fx.n % fx.progress_every == 0)
            fprintf(stderr, "fsx: %" PRIu64 " operations, %.0f s\n", fx.n, now() - start);
    }
    fx.n = fx.ops;
    check_whole_file();
    report(now() - start);
    close(fx.fd);
    return 0;
}
