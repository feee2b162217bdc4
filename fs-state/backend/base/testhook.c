/* The backends' test hook: a target's daemon killed at its Nth read of a tree, for the tests that show a death there is a class. */
#include "backend/base/testhook.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* METIS_TEST_KILL_DAEMON=FS:STEP:N: read once, so that a run without it pays one branch. */
static struct {
    char fs[64], step[64];
    long n, seen;
} hook;
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void hook_parse(void)
{
    const char *v = getenv("METIS_TEST_KILL_DAEMON");
    if (!v || sscanf(v, "%63[^:]:%63[^:]:%ld", hook.fs, hook.step, &hook.n) != 3)
        hook.n = 0;
}

void bk_test_kill_hook(struct backend *b, const char *step)
{
    pthread_once(&hook_once, hook_parse);
    /* Each fs's reads run on its own worker: only the named fs's thread counts. */
    if (hook.n <= 0 || strcmp(b->cfg->name, hook.fs) != 0 || strcmp(step, hook.step) != 0 ||
        ++hook.seen != hook.n || !b->ops->kill_daemon)
        return;
    fprintf(stderr, "metis: test hook: killing fs %s's daemon at its %s number %ld\n",
            b->cfg->name, step, hook.n);
    b->ops->kill_daemon(b);
}
