/* Fault check of one fs: the step's operation run on the faulty device with a fault armed, the fs mounted again, and what it shows held to what a fault allows. */
#include "engine/fault/fault_check.h"
#include "engine/config/fault_config.h"
#include "engine/vocab/crash_modes.h"
#include "engine/fault/fault_data.h"
#include "backend/device/image_check.h"
#include "lib/text/errnos.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

/* A saved state's digest on this fs: what "the state before" a later step is. */
struct noted_state {
    uint64_t sid;
    unsigned char digest[TREE_MAX_DIGEST];
    int dlen;
    UT_hash_handle hh;
};

struct fault_check {
    struct backend *b;
    const struct tree_opts *abs;
    const char *checker;        /* the format's checker, NULL when Metis knows none */
    struct faultdev *dev;
    struct noted_state *states;
    struct fault_files *files;  /* a failed operation's files, for fault_data.c */
    FILE *clean;                /* the clean read-back's listing while a probe is pending */
    char *fault_text, *clean_text;   /* the last listings after the fault and after the clean run */
    size_t fault_len, clean_len;
};

static int ferr(struct fault_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int ferr(struct fault_check *c, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->b->err, sizeof c->b->err, "fs %s: fault check: %s", c->b->cfg->name, msg);
    return -1;
}

static void free_text(char **text, size_t *len)
{
    free(*text);
    *text = NULL;
    *len = 0;
}

/* ---- life ---- */

struct fault_check *fault_open(const struct metis_config *cfg, int i, struct backend *b,
                               const struct tree_opts *abs, int *failed)
{
    struct fault_check *c;
    *failed = 0;
    if (!fault_applies(cfg, &cfg->fs[i]))
        return NULL;
    if (!(c = calloc(1, sizeof *c))) {
        *failed = 1;
        return NULL;
    }
    c->b = b;
    c->abs = abs;
    c->checker = crash_checker(cfg->fs[i].fstype);
    return c;
}

int fault_setup(struct fault_check *c)
{
    if (!c->b->ops->faultdev || !c->b->ops->begin_faulty)
        return ferr(c, "this backend has no faulty device");
    return (c->dev = c->b->ops->faultdev(c->b)) ? 0 : -1;
}

void fault_close(struct fault_check *c)
{
    struct noted_state *s, *tmp;
    if (!c)
        return;
    HASH_ITER(hh, c->states, s, tmp) {
        HASH_DEL(c->states, s);
        free(s);
    }
    if (c->clean)
        fclose(c->clean);
    free_text(&c->fault_text, &c->fault_len);
    free_text(&c->clean_text, &c->clean_len);
    fault_files_free(c->files);
    free(c);                    /* the device is the backend's: its teardown closes it */
}

/* ---- the states' digests ---- */

int fault_note_state(struct fault_check *c, uint64_t sid, const unsigned char *digest, int dlen)
{
    struct noted_state *s;
    HASH_FIND(hh, c->states, &sid, sizeof sid, s);
    if (!s) {
        if (!(s = calloc(1, sizeof *s)))
            return ferr(c, "out of memory for the states' digests");
        s->sid = sid;
        HASH_ADD(hh, c->states, sid, sizeof s->sid, s);
    }
    memcpy(s->digest, digest, (size_t)dlen);
    s->dlen = dlen;
    return 0;
}

void fault_forget_state(struct fault_check *c, uint64_t sid)
{
    struct noted_state *s;
    HASH_FIND(hh, c->states, &sid, sizeof sid, s);
    if (s) {
        HASH_DEL(c->states, s);
        free(s);
    }
}

int fault_state_digest(struct fault_check *c, uint64_t sid, unsigned char *out)
{
    struct noted_state *s;
    HASH_FIND(hh, c->states, &sid, sizeof sid, s);
    if (!s)
        return -1;
    memcpy(out, s->digest, (size_t)s->dlen);
    return s->dlen;
}

/* ---- the fault ---- */

/* The operation and a syncfs, the fault armed from the first request they make to the last:
 * what the syncfs answers is what an application that syncs is told. */
static int run_faulted(struct fault_check *c, const struct fault_step *s, struct fault_result *r)
{
    struct backend *b = c->b;
    char armed[200];
    fault_arm_command(s->spec, armed, sizeof armed);
    if (b->ops->begin_faulty(b) < 0)
        return -1;
    if (faultdev_arm(c->dev, armed) < 0) {
        b->ops->end(b);
        return -1;
    }
    op_exec(b->rootfd, s->a, &r->res);
    r->sync_err = syncfs(b->rootfd) < 0 ? errno : 0;
    int rc = faultdev_disarm(c->dev, &r->seen);
    /* The fault is cleared first: the unmount is no part of the operation. */
    return b->ops->end(b) < 0 || rc < 0 ? -1 : 0;
}

/* ---- what the operation answered ---- */

/* How the operation and its sync answered under the fault, held to its clean run. */
enum answer { ANSWER_AS_CLEAN, ANSWER_FAILED, ANSWER_UNEXPLAINED };

static enum answer answer_of(const struct op_result *clean, const struct fault_result *r)
{
    int as_clean = r->res.ret == clean->ret && r->res.err == clean->err;
    if (r->sync_err && !fault_errno_allowed(r->sync_err))
        return ANSWER_UNEXPLAINED;
    if (as_clean)
        return r->sync_err ? ANSWER_FAILED : ANSWER_AS_CLEAN;
    if (r->res.err)
        return fault_errno_allowed(r->res.err) ? ANSWER_FAILED : ANSWER_UNEXPLAINED;
    /* A success where the clean run failed, or a longer count, is no fault's doing; a
     * shorter count is a write that stopped at the fault. */
    return !clean->err && r->res.ret < clean->ret ? ANSWER_FAILED : ANSWER_UNEXPLAINED;
}

static int same_digest(const unsigned char *a, int alen, const unsigned char *b, int blen)
{
    return alen >= 0 && alen == blen && memcmp(a, b, (size_t)alen) == 0;
}

/* ---- the tree mounted again ---- */

static int open_listing(struct fault_check *c, FILE **f, char **text, size_t *len)
{
    if (*f)
        fclose(*f);
    free_text(text, len);
    *f = open_memstream(text, len);
    return *f ? 0 : ferr(c, "out of memory for a listing");
}

/* A failed operation whose tree is neither before nor after it: its files' bytes are kept
 * while they can be read, for fault_data.c. */
static int keep_faulted_files(struct fault_check *c, const struct fault_step *s,
                              struct fault_result *r)
{
    if (same_digest(r->digest, r->dlen, s->after, s->alen) ||
        same_digest(r->digest, r->dlen, s->before, s->blen) ||
        answer_of(&s->clean, r) != ANSWER_FAILED || !c->clean_text)
        return 0;
    if (!(c->files = fault_files_differing(c->clean_text, c->fault_text)))
        return ferr(c, "out of memory for the files' data");
    return fault_files_read(c->files, FAULT_FILES_FAULTED, c->b->rootfd) < 0
               ? ferr(c, "out of memory for the files' data") : 0;
}

/* Mounted again from the plain loop device, as after a reboot: its tree, or FAULT_MOUNT. */
static int read_remounted(struct fault_check *c, const struct fault_step *s,
                          struct fault_result *r)
{
    struct backend *b = c->b;
    FILE *f = NULL;
    if (b->ops->begin(b) < 0) {
        snprintf(r->detail, sizeof r->detail, "it does not mount again: %.600s", b->err);
        r->kinds |= FAULT_MOUNT;
        return 0;
    }
    int rc = open_listing(c, &f, &c->fault_text, &c->fault_len);
    if (rc == 0) {
        r->dlen = backend_read_back(b, c->abs, r->digest, f, NULL);
        fclose(f);
    }
    if (rc == 0 && r->dlen < 0) {
        snprintf(r->detail, sizeof r->detail, "its tree cannot be read after the remount: "
                 "%.600s", b->err);
        r->kinds |= FAULT_MOUNT;
    } else if (rc == 0) {
        rc = keep_faulted_files(c, s, r);
    }
    return b->ops->end(b) < 0 ? -1 : rc;
}

static int check_image(struct fault_check *c, struct fault_result *r)
{
    char why[sizeof r->detail];
    if (!c->checker || (r->kinds & FAULT_MOUNT))
        return 0;
    int rc = bk_image_check(c->b, c->checker, c->b->image, why, sizeof why);
    if (rc > 0) {
        r->kinds |= FAULT_FSCK;
        snprintf(r->detail, sizeof r->detail, "%s", why);
    }
    return rc < 0 ? -1 : 0;
}

/* ---- the judgement ---- */

/* The first difference between the tree the clean run left and the one after the fault. */
static void first_difference(struct fault_check *c, struct fault_result *r, const char *what)
{
    char line[sizeof r->diff.entry];
    if (!c->clean_text || !c->fault_text ||
        classify_listings(c->clean_text, c->fault_text, &r->diff) <= 0) {
        memset(&r->diff, 0, sizeof r->diff);
        snprintf(r->detail, sizeof r->detail, "%s (the listings show no difference)", what);
        return;
    }
    snprintf(line, sizeof line, "%s", r->diff.entry);
    snprintf(r->detail, sizeof r->detail, "%s; first difference from the clean run's tree: %s "
             "of %.300s: clean %s, after the fault %s", what, tree_diff_name(r->diff.attr), line,
             r->diff.ref, r->diff.other);
}

/* Reads state sid back: its listing into *text (when text is not NULL) and the kept files'
 * bytes into slot. */
static int read_state(struct fault_check *c, uint64_t sid, int slot, char **text, size_t *len)
{
    struct backend *b = c->b;
    FILE *f = NULL;
    unsigned char digest[TREE_MAX_DIGEST];
    if (b->ops->restore(b, sid) < 0 || b->ops->begin(b) < 0)
        return -1;
    int rc = text ? open_listing(c, &f, text, len) : 0;
    if (rc == 0 && text) {
        rc = backend_read_back(b, c->abs, digest, f, NULL) < 0 ? -1 : 0;
        fclose(f);
    }
    if (rc == 0)
        rc = fault_files_read(c->files, slot, b->rootfd);
    return b->ops->end(b) < 0 ? -1 : rc;
}

/* A write's bytes, which the file may hold where neither state before nor after shows them. */
static int note_written(struct fault_check *c, const struct op_args *a)
{
    int wrote = a->op == OP_write_file || (a->op == OP_open_unlink && a->flags == OU_WRITE);
    if (!wrote || a->size > METIS_WRITE_MAX)
        return 0;
    unsigned char *bytes = malloc(a->size ? a->size : 1);
    if (!bytes)
        return ferr(c, "out of memory for a write's bytes");
    op_fill_bytes(a->data_seed, bytes, a->size);
    int append = a->op == OP_write_file && (a->flags & O_APPEND);
    int rc = fault_files_wrote(c->files, a->path, a->offset, append, bytes, a->size);
    free(bytes);
    return rc < 0 ? ferr(c, "out of memory for a write's bytes") : 0;
}

/* A failed operation's tree, neither before nor after it: what fault_data.c allows of data. */
static int judge_mixture(struct fault_check *c, const struct fault_step *s,
                         struct fault_result *r)
{
    char *before = NULL, what[sizeof r->detail];
    size_t len = 0;
    if (note_written(c, s->a) < 0 || read_state(c, s->from, FAULT_FILES_BEFORE, &before, &len) < 0 ||
        read_state(c, s->back, FAULT_FILES_AFTER, NULL, NULL) < 0) {
        free(before);
        return -1;
    }
    r->kinds |= fault_files_judge(c->files, before, c->clean_text, c->fault_text, what,
                                  sizeof what);
    r->state = "mixed";
    if (r->kinds & FAULT_PARTIAL)
        first_difference(c, r, what);
    else if (r->kinds & FAULT_STALE)
        snprintf(r->detail, sizeof r->detail, "%s", what);
    free(before);
    return 0;
}

static int judge_state(struct fault_check *c, const struct fault_step *s, enum answer ans,
                       struct fault_result *r)
{
    int is_after = same_digest(r->digest, r->dlen, s->after, s->alen);
    int is_before = same_digest(r->digest, r->dlen, s->before, s->blen);
    r->state = is_after ? "after" : is_before ? "before" : "neither";
    if (is_after || (is_before && ans == ANSWER_FAILED))
        return 0;
    if (ans == ANSWER_FAILED && c->files)
        return judge_mixture(c, s, r);
    if (ans == ANSWER_FAILED)
        r->kinds |= FAULT_PARTIAL;
    else if (!s->clean.err)
        r->kinds |= FAULT_LOST;
    else
        r->kinds |= FAULT_PARTIAL;
    first_difference(c, r, ans == ANSWER_FAILED ? "failed, and left a state neither before nor "
                                                  "after it"
                           : s->clean.err ? "failed as in the clean run, and changed the state"
                           : is_before ? "acknowledged, and undone after the remount"
                                       : "acknowledged, and not there after the remount");
    return 0;
}

static int judge(struct fault_check *c, const struct fault_step *s, struct fault_result *r)
{
    if (r->kinds & FAULT_MOUNT)
        return 0;
    enum answer ans = answer_of(&s->clean, r);
    if (ans == ANSWER_UNEXPLAINED) {
        r->kinds |= FAULT_ERRNO;
        snprintf(r->detail, sizeof r->detail, "under the fault it answered ret=%ld errno=%s "
                 "(syncfs %s), clean ret=%ld errno=%s: no fault explains it", r->res.ret,
                 errno_name(r->res.err), errno_name(r->sync_err), s->clean.ret,
                 errno_name(s->clean.err));
        return 0;
    }
    char fsck[sizeof r->detail];
    snprintf(fsck, sizeof fsck, "%s", r->detail);
    r->detail[0] = '\0';
    int rc = judge_state(c, s, ans, r);
    if (!r->detail[0])
        snprintf(r->detail, sizeof r->detail, "%s", fsck);
    else if (fsck[0])           /* both: the state says more; keep the checker's too */
        snprintf(r->detail + strlen(r->detail), sizeof r->detail - strlen(r->detail),
                 "; and %.200s", fsck);
    return rc;
}

int fault_expect(struct fault_check *c)
{
    return open_listing(c, &c->clean, &c->clean_text, &c->clean_len);
}

FILE *fault_clean_listing(struct fault_check *c)
{
    return c ? c->clean : NULL;
}

int fault_check_step(struct fault_check *c, const struct fault_step *s, struct fault_result *r)
{
    memset(r, 0, sizeof *r);
    r->checked = 1;
    r->spec = *s->spec;
    r->state = "-";
    r->dlen = -1;
    if (c->clean) {
        fclose(c->clean);
        c->clean = NULL;
    }
    free_text(&c->fault_text, &c->fault_len);
    fault_files_free(c->files);
    c->files = NULL;
    int rc = c->b->ops->restore(c->b, s->from) < 0 || run_faulted(c, s, r) < 0 ||
             read_remounted(c, s, r) < 0 || check_image(c, r) < 0 || judge(c, s, r) < 0 ? -1 : 0;
    /* The search goes on from the clean run's state, whatever the fault left. */
    return c->b->ops->restore(c->b, s->back) < 0 ? -1 : rc;
}

/* ---- report ---- */

void fault_report(struct fault_check *c, const struct fault_result *r, FILE *f)
{
    char armed[200];
    fault_arm_command(&r->spec, armed, sizeof armed);
    fprintf(f, "\n## fault check of %s (%s from request %llu): %s\n", c->b->cfg->name,
            fault_kind_name(r->spec.kind), (unsigned long long)r->spec.at,
            fault_found_name(r->kinds));
    fprintf(f, "armed: %s\n", armed);
    fprintf(f, "the device saw: %llu reads, %llu writes, %llu flushes; %llu failed, %llu lost\n",
            (unsigned long long)r->seen.reads, (unsigned long long)r->seen.writes,
            (unsigned long long)r->seen.fsyncs, (unsigned long long)r->seen.failed,
            (unsigned long long)r->seen.lost);
    fprintf(f, "under the fault: ret=%ld errno=%s, then syncfs: %s\n", r->res.ret,
            errno_name(r->res.err), r->sync_err ? errno_name(r->sync_err) : "0");
    fprintf(f, "mounted again, the tree is the state %s\n", r->state);
    if (r->detail[0])
        fprintf(f, "finding: %s\n", r->detail);
    fprintf(f, "\n### tree after the fault, mounted again\n%s",
            c->fault_text ? c->fault_text : "(none)\n");
    fprintf(f, "\n### tree after the clean run\n%s", c->clean_text ? c->clean_text : "(none)\n");
}
