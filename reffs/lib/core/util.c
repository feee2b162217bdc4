/* Helpers every RefFS module uses: allocation that cannot fail, the big lock, clocks and name checks. */
#include <stdio.h>
#include "internal.h"

/* A reference file system that runs out of memory cannot give trustworthy answers: stop. */
static void *oom_check(void *p)
{
    if (!p) {
        fputs("reffs: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *xmalloc(size_t n) { return oom_check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t m) { return oom_check(calloc(n ? n : 1, m ? m : 1)); }
void *xrealloc(void *p, size_t n) { return oom_check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return oom_check(strdup(s)); }

void fs_lock(struct reffs *fs)
{
    pthread_mutex_lock(&fs->lock);
    reffs_active_mutation = fs->mutation;
}

void fs_unlock(struct reffs *fs)
{
    pthread_mutex_unlock(&fs->lock);
}

void time_now(struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
}

int is_dot_or_dotdot(const char *name)
{
    return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0));
}

/* Checks a single path component as Linux would on its last step. */
int name_check(const char *name)
{
    if (!name || !*name)
        return -ENOENT;
    size_t len = strnlen(name, REFFS_NAME_MAX + 1);
    if (len > REFFS_NAME_MAX - mutated(MUT_NAME_MAX_254))
        return -ENAMETOOLONG;
    if (memchr(name, '/', len))
        return -EINVAL;
    return 0;
}
