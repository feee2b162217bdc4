/* rename OLD NEW, then fsync each directory DIR given, in order: the calls of a crash-state step, no Metis in them. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rename_fsync OLD NEW [DIR...]\n");
        return 2;
    }
    if (rename(argv[1], argv[2]) < 0) {
        fprintf(stderr, "rename %s %s: %s\n", argv[1], argv[2], strerror(errno));
        return 1;
    }
    for (int k = 3; k < argc; k++) {
        int fd = open(argv[k], O_RDONLY | O_DIRECTORY);
        if (fd < 0 || fsync(fd) < 0) {
            fprintf(stderr, "fsync %s: %s\n", argv[k], strerror(errno));
            return 1;
        }
        close(fd);
    }
    return 0;
}
