/* Confirms a race of two calls on one name outside Metis: round after round, one thread issues CALL on DIR/f while another unlinks it, and counts the answers no serial order gives. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* usage: race CALL DIR ROUNDS [fd|fd-serial]
 *   CALL  create (open O_CREAT of the existing name), chmod or truncate
 *   fd    resolve the name to an O_PATH descriptor before the two calls start and issue CALL
 *         through /proc/self/fd/N, as Metis's engine does (its calls resolve the path first)
 *   fd-serial  the same with no race: the unlink first, then CALL through the descriptor
 * Prints one line: the rounds, how many gave an answer no serial order of the two calls gives,
 * and that count's errnos; exits 1 if there was one, 0 if none, 2 on a usage or set-up error. */

enum call { CREATE, CHMOD, TRUNCATE };

static enum call call;
static int use_fd, serial;
static char path[4096];
static pthread_barrier_t start, done;
static int call_errno, unlink_errno, path_fd = -1;

static int do_call(void)
{
    char proc[64];
    const char *p = path;
    if (use_fd) {
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
        p = proc;
    }
    switch (call) {
    case CREATE: {
        int fd = open(p, O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
            return -1;
        close(fd);
        return 0;
    }
    case CHMOD:
        return chmod(p, 0640);
    case TRUNCATE:
        return truncate(p, 1);
    }
    return -1;
}

static void *caller(void *arg)
{
    long rounds = (long)arg;
    for (long i = 0; i < rounds; i++) {
        pthread_barrier_wait(&start);
        call_errno = do_call() < 0 ? errno : 0;
        pthread_barrier_wait(&done);
    }
    return NULL;
}

static void *unlinker(void *arg)
{
    long rounds = (long)arg;
    for (long i = 0; i < rounds; i++) {
        pthread_barrier_wait(&start);
        unlink_errno = unlink(path) < 0 ? errno : 0;
        pthread_barrier_wait(&done);
    }
    return NULL;
}

/* Whether some serial order of the call and the unlink gives these answers. Call first: both
 * succeed. Unlink first: a create makes a new file (success), a chmod or truncate by path
 * finds no name (ENOENT), and through a descriptor resolved before both, on the inode the
 * unlink left, it succeeds. */
static int serializable(int ce, int ue)
{
    if (ue != 0)
        return 0;               /* the unlink of an existing name must succeed in any order */
    if (ce == 0)
        return 1;
    return ce == ENOENT && call != CREATE && !use_fd;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "fd") && strcmp(argv[4], "fd-serial"))) {
        fprintf(stderr, "usage: race create|chmod|truncate DIR ROUNDS [fd|fd-serial]\n");
        return 2;
    }
    if (!strcmp(argv[1], "create"))
        call = CREATE;
    else if (!strcmp(argv[1], "chmod"))
        call = CHMOD;
    else if (!strcmp(argv[1], "truncate"))
        call = TRUNCATE;
    else {
        fprintf(stderr, "race: unknown call %s\n", argv[1]);
        return 2;
    }
    use_fd = argc == 5;
    serial = argc == 5 && !strcmp(argv[4], "fd-serial");
    long rounds = atol(argv[3]);
    if (rounds <= 0) {
        fprintf(stderr, "race: ROUNDS must be positive\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/f", argv[2]);
    pthread_barrier_init(&start, NULL, 3);
    pthread_barrier_init(&done, NULL, 3);
    pthread_t a, b;
    if (!serial) {
        pthread_create(&a, NULL, caller, (void *)rounds);
        pthread_create(&b, NULL, unlinker, (void *)rounds);
    }
    long bad = 0, by_errno[256] = {0}, unlink_failed = 0;
    for (long i = 0; i < rounds; i++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            fprintf(stderr, "race: set-up: create %s: %s\n", path, strerror(errno));
            return 2;
        }
        close(fd);
        struct stat st;
        if (stat(path, &st) < 0) {      /* the kernel now has the name's node cached */
            fprintf(stderr, "race: set-up: stat %s: %s\n", path, strerror(errno));
            return 2;
        }
        if (use_fd && (path_fd = open(path, O_PATH)) < 0) {
            fprintf(stderr, "race: set-up: O_PATH %s: %s\n", path, strerror(errno));
            return 2;
        }
        if (serial) {
            unlink_errno = unlink(path) < 0 ? errno : 0;
            call_errno = do_call() < 0 ? errno : 0;
        } else {
            pthread_barrier_wait(&start);
            pthread_barrier_wait(&done);
        }
        if (path_fd >= 0)
            close(path_fd);
        path_fd = -1;
        if (!serializable(call_errno, unlink_errno)) {
            bad++;
            if (unlink_errno)
                unlink_failed++;
            else if (call_errno > 0 && call_errno < 256)
                by_errno[call_errno]++;
        }
        unlink(path);                   /* a create that ran after the unlink made a new file */
    }
    if (!serial) {
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    }
    printf("race %s%s: %ld rounds, %ld not serializable (%.4f%%)", argv[1],
           serial ? " through an O_PATH descriptor after the unlink (no race)"
           : use_fd ? " through an O_PATH descriptor" : "", rounds, bad, 100.0 * bad / rounds);
    for (int e = 1; e < 256; e++)
        if (by_errno[e])
            printf(", %s %ld", strerrorname_np(e), by_errno[e]);
    if (unlink_failed)
        printf(", unlink failed %ld", unlink_failed);
    printf("\n");
    return bad ? 1 : 0;
}
