/* Unit tests of the block-deduplicated image store (fs-state/backend/imgstore.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/device/imgstore.h"

#define BS 4096
#define NB 200                 /* blocks: more than three chunks, so chunk sharing is exercised */
#define SIZE ((size_t)NB * BS - 100)   /* an odd tail block */

static int imgst_fd = -1;
static unsigned char imgst_buf[SIZE], imgst_back[SIZE];

static void imgst_setup(void)
{
    char path[] = "/tmp/metis-imgstore-test-XXXXXX";
    imgst_fd = mkstemp(path);
    cr_assert(imgst_fd >= 0);
    unlink(path);
    memset(imgst_buf, 0, SIZE);
    cr_assert(pwrite(imgst_fd, imgst_buf, SIZE, 0) == (ssize_t)SIZE);
}

static void imgst_teardown(void)
{
    close(imgst_fd);
}

static void imgst_put(size_t off, const char *text)
{
    memcpy(imgst_buf + off, text, strlen(text));
    cr_assert(pwrite(imgst_fd, text, strlen(text), (off_t)off) == (ssize_t)strlen(text));
}

static void imgst_expect(const unsigned char *want)
{
    cr_assert(pread(imgst_fd, imgst_back, SIZE, 0) == (ssize_t)SIZE);
    cr_assert(memcmp(imgst_back, want, SIZE) == 0, "file differs from the saved image");
}

/* Writes text at off, keeps a copy of the whole image in copy and saves it as id. */
static void imgst_save_after(struct imgstore *s, uint64_t id, size_t off, const char *text,
                             unsigned char *copy)
{
    imgst_put(off, text);
    memcpy(copy, imgst_buf, SIZE);
    cr_assert_eq(imgstore_save(s, id, imgst_fd), 0);
}

TestSuite(metis_imgstore, .init = imgst_setup, .fini = imgst_teardown);

Test(metis_imgstore, round_trip)
{
    static unsigned char s1[SIZE], s2[SIZE];
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_put(10, "state one");
    imgst_put(SIZE - 5, "tail");
    memcpy(s1, imgst_buf, SIZE);
    cr_assert_eq(imgstore_save(s, 1, imgst_fd), 0);
    imgst_put(10, "STATE TWO");
    imgst_put(150 * BS, "far away");
    memcpy(s2, imgst_buf, SIZE);
    cr_assert_eq(imgstore_save(s, 2, imgst_fd), 0);
    cr_assert_eq(imgstore_restore(s, 1, imgst_fd), 0);
    imgst_expect(s1);
    cr_assert_eq(imgstore_restore(s, 2, imgst_fd), 0);
    imgst_expect(s2);
    cr_assert_eq(imgstore_restore(s, 3, imgst_fd), -1);
    cr_assert(imgstore_has(s, 1) && imgstore_has(s, 2) && !imgstore_has(s, 3));
    cr_assert_eq(imgstore_count(s), 2);
    imgstore_free(s);
}

Test(metis_imgstore, restore_after_change_behind_its_back)
{
    static unsigned char s1[SIZE];
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_save_after(s, 1, 5 * BS, "original", s1);
    imgst_put(5 * BS, "scribble");        /* what a mount does between save and restore */
    imgst_put(99 * BS, "more");
    imgstore_file_changed(s);
    cr_assert_eq(imgstore_restore(s, 1, imgst_fd), 0);
    imgst_expect(s1);
    imgstore_free(s);
}

Test(metis_imgstore, dedup_counts)
{
    struct imgstore *s = imgstore_new(SIZE, BS);
    cr_assert_eq(imgstore_save(s, 1, imgst_fd), 0);
    /* all zero: the full blocks are one block, the short tail block another */
    cr_assert_eq(imgstore_bytes(s), 2 * BS);
    imgst_put(3 * BS, "x");
    cr_assert_eq(imgstore_save(s, 2, imgst_fd), 0);
    cr_assert_eq(imgstore_bytes(s), 3 * BS);
    imgst_put(7 * BS, "x");               /* same content as block 3: no new block */
    cr_assert_eq(imgstore_save(s, 3, imgst_fd), 0);
    cr_assert_eq(imgstore_bytes(s), 3 * BS);
    cr_assert_eq(imgstore_save(s, 3, imgst_fd), 0);   /* re-save replaces */
    cr_assert_eq(imgstore_count(s), 3);
    cr_assert_eq(imgstore_bytes(s), 3 * BS);
    imgstore_free(s);
}

Test(metis_imgstore, discard_frees)
{
    struct imgstore *s = imgstore_new(SIZE, BS);
    cr_assert_eq(imgstore_save(s, 1, imgst_fd), 0);
    imgst_put(0, "unique to two");
    cr_assert_eq(imgstore_save(s, 2, imgst_fd), 0);
    imgst_put(0, "unique to 333");
    cr_assert_eq(imgstore_save(s, 3, imgst_fd), 0);
    cr_assert_eq(imgstore_bytes(s), 4 * BS);
    imgstore_discard(s, 2);
    cr_assert_eq(imgstore_bytes(s), 3 * BS);
    cr_assert(!imgstore_has(s, 2));
    imgstore_discard(s, 3);               /* still the current image: its block stays */
    cr_assert_eq(imgstore_bytes(s), 3 * BS);
    cr_assert_eq(imgstore_restore(s, 1, imgst_fd), 0);
    cr_assert_eq(imgstore_bytes(s), 2 * BS);
    imgstore_discard(s, 1);
    imgstore_discard(s, 1);
    cr_assert_eq(imgstore_count(s), 0);
    imgstore_free(s);
}

/* Many states with random changes: every one restores exactly, in any order. */
Test(metis_imgstore, many_states)
{
    enum { N = 300 };
    unsigned char *want = malloc((size_t)N * SIZE);
    struct imgstore *s = imgstore_new(SIZE, BS);
    srand(7);
    for (int i = 0; i < N; i++) {
        char text[32];
        snprintf(text, sizeof text, "s%d", i);
        imgst_put((size_t)(rand() % (int)(SIZE - 8)), text);
        if (i % 50 == 0) {
            memset(imgst_buf + (size_t)(rand() % NB) * BS, i, 100);
            cr_assert(pwrite(imgst_fd, imgst_buf, SIZE, 0) == (ssize_t)SIZE);
        }
        memcpy(want + (size_t)i * SIZE, imgst_buf, SIZE);
        cr_assert_eq(imgstore_save(s, (uint64_t)i, imgst_fd), 0);
    }
    cr_assert_eq(imgstore_count(s), N);
    cr_assert_leq(imgstore_bytes(s), (uint64_t)(10 + 3 * N) * BS);
    for (int k = 0; k < 2 * N; k++) {
        int i = rand() % N;
        if (k % 3 == 0)
            imgstore_file_changed(s);
        cr_assert_eq(imgstore_restore(s, (uint64_t)i, imgst_fd), 0);
        imgst_expect(want + (size_t)i * SIZE);
    }
    for (int i = 0; i < N; i++)
        imgstore_discard(s, (uint64_t)i);
    cr_assert_leq(imgstore_bytes(s), (uint64_t)NB * BS);   /* only the current image remains */
    imgstore_free(s);
    free(want);
}

Test(metis_imgstore, write_file)
{
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_put(12345, "exported");
    cr_assert_eq(imgstore_save(s, 9, imgst_fd), 0);
    char path[64];
    snprintf(path, sizeof path, "/tmp/metis-imgstore-export-%d", getpid());
    cr_assert_eq(imgstore_write_file(s, 9, path), 0);
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    cr_assert_eq(fread(imgst_back, 1, SIZE + 1, f), SIZE);
    fclose(f);
    unlink(path);
    cr_assert(memcmp(imgst_back, imgst_buf, SIZE) == 0);
    cr_assert_eq(imgstore_write_file(s, 10, path), -1);
    imgstore_free(s);
}

/* A sparse file (as a fresh image is): holes read as zeros and zero blocks become holes again. */
Test(metis_imgstore, sparse_file)
{
    static unsigned char s1[SIZE], s2[SIZE];
    cr_assert_eq(ftruncate(imgst_fd, 0), 0);
    cr_assert_eq(ftruncate(imgst_fd, SIZE), 0);
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_put(70 * BS + 1, "island");
    memcpy(s1, imgst_buf, SIZE);
    cr_assert_eq(imgstore_save(s, 1, imgst_fd), 0);
    cr_assert_eq(imgstore_bytes(s), 3 * BS);     /* zero, island, the short zero tail */
    memset(imgst_buf + 70 * BS, 0, BS);
    imgst_put(3 * BS, "elsewhere");
    imgst_put(SIZE - 3, "end");
    cr_assert(pwrite(imgst_fd, imgst_buf + 70 * BS, BS, 70 * BS) == BS);
    memcpy(s2, imgst_buf, SIZE);
    cr_assert_eq(imgstore_save(s, 2, imgst_fd), 0);
    cr_assert_eq(imgstore_restore(s, 1, imgst_fd), 0);
    imgst_expect(s1);
    imgstore_file_changed(s);
    cr_assert_eq(imgstore_restore(s, 2, imgst_fd), 0);
    imgst_expect(s2);
    cr_assert_eq(imgstore_restore(s, 1, imgst_fd), 0);
    imgst_expect(s1);
    imgstore_free(s);
}

Test(metis_imgstore, rekey_moves_an_image_to_another_id)
{
    static unsigned char s1[SIZE];
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_save_after(s, 100, 7 * BS, "checkpoint", s1);
    imgst_put(7 * BS, "replaced!!");
    cr_assert_eq(imgstore_save(s, 5, imgst_fd), 0);     /* rekey replaces what 5 held */
    cr_assert_eq(imgstore_rekey(s, 100, 5), 0);
    cr_assert(!imgstore_has(s, 100) && imgstore_has(s, 5));
    cr_assert_eq(imgstore_count(s), 1);
    cr_assert_eq(imgstore_restore(s, 5, imgst_fd), 0);
    imgst_expect(s1);
    cr_assert_eq(imgstore_rekey(s, 100, 6), -1);        /* gone from its old id */
    imgstore_discard(s, 5);
    cr_assert_eq(imgstore_count(s), 0);
    imgstore_free(s);
}

/* A store told which blocks a device wrote knows the image again from just those: the image
 * it keeps restores the file, and a block left out of the set shows as a file it does not
 * know (the check that a trace of writes missed none). */
Test(metis_imgstore, catch_up_reads_only_the_written_blocks)
{
    static unsigned char first[SIZE], second[SIZE];
    unsigned char written[NB] = { 0 };
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_save_after(s, 1, 0, "first", first);
    imgstore_device_wrote(s);
    imgst_put(5 * BS + 7, "written");
    imgst_put(NB * BS - 150, "tail");
    memcpy(second, imgst_buf, SIZE);
    written[5] = written[NB - 1] = 1;
    cr_assert_eq(imgstore_catch_up(s, imgst_fd, written), 0);
    cr_assert_eq(imgstore_matches_file(s, imgst_fd), 1);
    cr_assert_eq(imgstore_keep_current(s, 2), 0);
    cr_assert_eq(imgstore_restore(s, 1, imgst_fd), 0);
    imgst_expect(first);
    cr_assert_eq(imgstore_restore(s, 2, imgst_fd), 0);
    imgst_expect(second);

    imgstore_device_wrote(s);
    imgst_put(9 * BS, "missed");
    memset(written, 0, sizeof written);
    cr_assert_eq(imgstore_catch_up(s, imgst_fd, written), 0);
    cr_assert_eq(imgstore_matches_file(s, imgst_fd), 0, "a write the set left out must show");
    imgstore_free(s);
}

/* Written behind the store's back (not through the traced device), the store cannot catch up:
 * the image must be read whole, and keep_current refuses until then. */
Test(metis_imgstore, catch_up_refuses_after_a_change_behind_its_back)
{
    static unsigned char first[SIZE];
    unsigned char written[NB] = { 0 };
    struct imgstore *s = imgstore_new(SIZE, BS);
    imgst_save_after(s, 1, 0, "first", first);
    imgstore_file_changed(s);
    imgst_put(3 * BS, "behind");
    written[3] = 1;
    cr_assert_eq(imgstore_catch_up(s, imgst_fd, written), 1);
    cr_assert_eq(imgstore_keep_current(s, 2), -1);
    imgstore_free(s);
}
