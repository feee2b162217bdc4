/* make check's corpus replay: every file given (or in a directory given) through the harness's LLVMFuzzerTestOneInput, without libFuzzer. */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return -1;
    }
    uint8_t *data = NULL;
    size_t size = 0, cap = 0, n;
    do {
        if (size == cap && !(data = realloc(data, cap = cap ? 2 * cap : 4096)))
            abort();
        n = fread(data + size, 1, cap - size, f);
        size += n;
    } while (n > 0);
    fclose(f);
    /* An exact-size copy, so that ASan sees a read past the input's end. */
    uint8_t *exact = malloc(size ? size : 1);
    if (!exact)
        abort();
    memcpy(exact, data, size);
    free(data);
    /* Named first, so that a crash's report follows the name of its input. */
    fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file of dir, in name order; the count replayed, or -1. */
static int replay_dir(const char *dir)
{
    struct dirent **names;
    char path[4096];
    int n = scandir(dir, &names, NULL, by_name), done = 0;
    if (n < 0) {
        fprintf(stderr, "replay: %s: cannot list\n", dir);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && done >= 0)
            done = replay_file(path) < 0 ? -1 : done + 1;
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int n = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? replay_dir(argv[i])
                : replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0)
            return 2;
        total += n;
    }
    printf("%s: %d inputs replayed\n", argv[0], total);
    return 0;
}
