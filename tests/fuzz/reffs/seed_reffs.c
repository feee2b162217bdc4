/* Writes seed inputs for the pickle and dump harnesses from a small RefFS tree made through the library: make fuzz-seeds. */
#include "reffs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zstd.h>

static void must(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "seed_reffs: %s failed\n", what);
        exit(1);
    }
}

/* /d0 (with an xattr), /d0/f0 (data with a hole), /d0/p (a FIFO), /d1, /d1/l -> ../d0/f0, /f1 a link of f0. */
static void make_tree(struct reffs *fs)
{
    struct reffs_entry d0, d1, f0, e;
    must(reffs_mkdir(fs, REFFS_ROOT_INO, "d0", 0755, 0, 0, &d0) == 0, "mkdir d0");
    must(reffs_mkdir(fs, REFFS_ROOT_INO, "d1", 0700, 0, 0, &d1) == 0, "mkdir d1");
    must(reffs_mknod(fs, d0.st.st_ino, "f0", S_IFREG | 0644, 0, 0, 0, &f0) == 0, "mknod f0");
    must(reffs_write(fs, f0.st.st_ino, "hello", 5, 0) == 5, "write");
    must(reffs_write(fs, f0.st.st_ino, "tail", 4, 9000) == 4, "write past a hole");
    must(reffs_mknod(fs, d0.st.st_ino, "p", S_IFIFO | 0600, 0, 0, 0, &e) == 0, "mknod fifo");
    must(reffs_mknod(fs, d0.st.st_ino, "c", S_IFCHR | 0600, makedev(60, 1), 0, 0, &e) == 0, "mknod chr");
    must(reffs_symlink(fs, d1.st.st_ino, "l", "../d0/f0", 0, 0, &e) == 0, "symlink");
    must(reffs_link(fs, f0.st.st_ino, REFFS_ROOT_INO, "f1", &e) == 0, "link");
    must(reffs_setxattr(fs, d0.st.st_ino, "user.a", "v1", 2, 0) == 0, "setxattr");
}

static void write_dump(struct reffs *fs, const char *path)
{
    void *buf;
    size_t len;
    must(reffs_dump(fs, &buf, &len) == 0, "dump");
    FILE *f = fopen(path, "wb");
    must(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0, path);
    free(buf);
}

static void write_pickle(struct reffs *fs, int all, uint64_t key, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    must(fd >= 0 && reffs_pickle(fs, all, key, fd) == 0 && close(fd) == 0, path);
}

/* The pickle at path as the pickle harness's body form: the snapshot count's byte, then the
 * uncompressed body (the header's fixed part is 40 bytes, then two 32-byte sums). */
static void write_body(const char *path, const char *out)
{
    static unsigned char file[1 << 16], body[1 << 20];
    FILE *f = fopen(path, "rb");
    must(f != NULL, path);
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    must(n > 104, "a pickle's header");
    size_t raw = ZSTD_decompress(body + 1, sizeof body - 1, file + 104, n - 104);
    must(!ZSTD_isError(raw), "decompressing a pickle");
    body[0] = file[16];
    f = fopen(out, "wb");
    must(f && fwrite(body, 1, raw + 1, f) == raw + 1 && fclose(f) == 0, out);
}

int main(int argc, char **argv)
{
    char path[4096];
    must(argc == 3, "usage: seed_reffs PICKLE_DIR DUMP_DIR");
    struct reffs_limits lim = { .capacity = 1 << 20, .inodes = 256 };
    struct reffs *fs = reffs_create(&lim);
    must(fs != NULL, "reffs_create");
    snprintf(path, sizeof path, "%s/empty.dump", argv[2]);
    write_dump(fs, path);
    must(reffs_snapshot_save(fs, 1) == 0, "snapshot 1");
    make_tree(fs);
    snprintf(path, sizeof path, "%s/tree.dump", argv[2]);
    write_dump(fs, path);
    must(reffs_snapshot_save(fs, 2) == 0, "snapshot 2");
    snprintf(path, sizeof path, "%s/empty.pickle", argv[1]);
    write_pickle(fs, 0, 1, path);
    snprintf(path, sizeof path, "%s/tree.pickle", argv[1]);
    write_pickle(fs, 0, 2, path);
    snprintf(path, sizeof path, "%s/pool.pickle", argv[1]);
    write_pickle(fs, 1, 0, path);
    reffs_destroy(fs);
    static const char *const names[] = { "empty", "tree", "pool" };
    for (int i = 0; i < 3; i++) {
        char body[4096];
        snprintf(path, sizeof path, "%s/%s.pickle", argv[1], names[i]);
        snprintf(body, sizeof body, "%s/%s.body", argv[1], names[i]);
        write_body(path, body);
    }
    return 0;
}
