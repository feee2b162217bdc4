/* Unit tests of RefFS snapshots: save/restore/discard, sharing, stats, invalidation, generations. */
#include <pthread.h>
#include "reffs_testutil.h"

static struct reffs *fs;
static void setup(void) { fs = t_fs(0, 0); }
static void teardown(void) { reffs_destroy(fs); }
TestSuite(reffs_snap, .init = setup, .fini = teardown);

#define R REFFS_ROOT_INO

static void mess_up(void)
{
    reffs_ino a = t_lookup(fs, R, "a");
    reffs_ino d = t_lookup(fs, R, "dir");
    t_write(fs, a, "ZZZZZZZZ", 8, 2);
    cr_assert_eq(t_truncate(fs, t_lookup(fs, d, "b"), 3), 0);
    cr_assert_eq(reffs_unlink(fs, R, "fifo"), 0);
    t_dir(fs, R, "newdir");
    cr_assert_eq(reffs_rename(fs, d, "sub", R, "moved", 0), 0);
    cr_assert_eq(reffs_setxattr(fs, a, "user.colour", "red", 3, 0), 0);
    cr_assert_eq(t_chmod(fs, a, 0600), 0);
}

Test(reffs_snap, restore_brings_back_saved_tree)
{
    t_populate(fs);
    char *before = t_dump_fs(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    mess_up();
    char *messed = t_dump_fs(fs);
    cr_assert_str_neq(before, messed);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    char *after = t_dump_fs(fs);
    cr_assert_str_eq(before, after);
    free(before);
    free(messed);
    free(after);
}

Test(reffs_snap, restore_keeps_snapshot_for_reuse)
{
    t_populate(fs);
    char *before = t_dump_fs(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 9), 0);
    for (int i = 0; i < 3; i++) {
        mess_up();
        cr_assert_eq(reffs_snapshot_restore(fs, 9, NULL), 0);
        char *after = t_dump_fs(fs);
        cr_assert_str_eq(before, after);
        free(after);
    }
    free(before);
}

Test(reffs_snap, restored_state_is_copy_on_write)
{
    reffs_ino f = t_file(fs, R, "f");
    t_write(fs, f, "old", 3, 0);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    t_write(fs, f, "new", 3, 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    char buf[3];
    cr_assert_eq(reffs_read(fs, f, buf, 3, 0), 3);
    cr_assert_eq(memcmp(buf, "old", 3), 0);
}

Test(reffs_snap, save_replaces_existing_key)
{
    reffs_ino f = t_file(fs, R, "f");
    cr_assert_eq(reffs_snapshot_save(fs, 5), 0);
    t_write(fs, f, "v2", 2, 0);
    cr_assert_eq(reffs_snapshot_save(fs, 5), 0);
    t_write(fs, f, "v3", 2, 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 5, NULL), 0);
    char buf[2];
    cr_assert_eq(reffs_read(fs, f, buf, 2, 0), 2);
    cr_assert_eq(memcmp(buf, "v2", 2), 0);
    struct reffs_snap_stats ss;
    cr_assert_eq(reffs_snapshot_stats(fs, &ss), 0);
    cr_assert_eq(ss.count, 1);
}

Test(reffs_snap, restore_ENOENT_changes_nothing)
{
    t_populate(fs);
    char *before = t_dump_fs(fs);
    cr_assert_eq(reffs_snapshot_restore(fs, 77, NULL), -ENOENT);
    char *after = t_dump_fs(fs);
    cr_assert_str_eq(before, after);
    free(before);
    free(after);
}

Test(reffs_snap, discard_and_discard_ENOENT)
{
    cr_assert_eq(reffs_snapshot_save(fs, 3), 0);
    cr_assert_eq(reffs_snapshot_discard(fs, 3), 0);
    cr_assert_eq(reffs_snapshot_discard(fs, 3), -ENOENT);
    cr_assert_eq(reffs_snapshot_restore(fs, 3, NULL), -ENOENT);
}

Test(reffs_snap, several_independent_snapshots)
{
    reffs_ino f = t_file(fs, R, "f");
    for (int i = 0; i < 5; i++) {
        char c = (char)('0' + i);
        t_write(fs, f, &c, 1, 0);
        cr_assert_eq(reffs_snapshot_save(fs, i), 0);
    }
    for (int i = 4; i >= 0; i--) {
        cr_assert_eq(reffs_snapshot_restore(fs, i, NULL), 0);
        char c;
        cr_assert_eq(reffs_read(fs, f, &c, 1, 0), 1);
        cr_assert_eq(c, '0' + i);
    }
}

Test(reffs_snap, accounting_is_part_of_state)
{
    reffs_ino f = t_file(fs, R, "f");
    uint64_t bfree = t_bfree(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    static char buf[40960];
    t_write(fs, f, buf, sizeof buf, 0);
    t_file(fs, R, "g");
    cr_assert_eq(t_bfree(fs), bfree - 10);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    struct statvfs sv;
    reffs_statfs(fs, &sv);
    cr_assert_eq(sv.f_bfree, bfree);
    cr_assert_eq(sv.f_ffree, 65536 - 2);
}

Test(reffs_snap, stats_unchanged_state_shares_everything)
{
    t_populate(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    struct reffs_snap_stats ss;
    cr_assert_eq(reffs_snapshot_stats(fs, &ss), 0);
    cr_assert_eq(ss.count, 1);
    cr_assert_lt(ss.bytes, 1024, "bytes %lu", (unsigned long)ss.bytes);
}

Test(reffs_snap, stats_one_byte_change_in_1MiB_file_costs_about_a_block)
{
    reffs_ino f = t_file(fs, R, "big");
    static char buf[1 << 20];
    memset(buf, 'b', sizeof buf);
    t_write(fs, f, buf, sizeof buf, 0);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    t_write(fs, f, "X", 1, 500000);
    struct reffs_snap_stats ss;
    cr_assert_eq(reffs_snapshot_stats(fs, &ss), 0);
    cr_assert_gt(ss.bytes, 4096);
    cr_assert_lt(ss.bytes, 16384, "bytes %lu", (unsigned long)ss.bytes);
}

Test(reffs_snap, stats_count_bytes_after_discard)
{
    reffs_ino f = t_file(fs, R, "f");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    t_write(fs, f, "x", 1, 0);
    cr_assert_eq(reffs_snapshot_save(fs, 2), 0);
    struct reffs_snap_stats ss;
    reffs_snapshot_stats(fs, &ss);
    cr_assert_eq(ss.count, 2);
    cr_assert_eq(reffs_snapshot_discard(fs, 1), 0);
    cr_assert_eq(reffs_snapshot_discard(fs, 2), 0);
    reffs_snapshot_stats(fs, &ss);
    cr_assert_eq(ss.count, 0);
    cr_assert_eq(ss.bytes, 0);
}

Test(reffs_snap, generations_never_repeat_across_restores)
{
    struct reffs_entry e1, e2, e3;
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_mknod(fs, R, "f", S_IFREG | 0644, 0, 0, 0, &e1), 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    reffs_forget(fs, e1.st.st_ino, 1);
    cr_assert_eq(reffs_mknod(fs, R, "g", S_IFREG | 0644, 0, 0, 0, &e2), 0);
    cr_assert_eq(e1.st.st_ino, e2.st.st_ino);
    cr_assert_neq(e1.generation, e2.generation);
    cr_assert_eq(reffs_snapshot_save(fs, 2), 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert_eq(reffs_mknod(fs, R, "h", S_IFREG | 0644, 0, 0, 0, &e3), 0);
    cr_assert_neq(e3.generation, e1.generation);
    cr_assert_neq(e3.generation, e2.generation);
}

Test(reffs_snap, restore_keeps_inode_numbers)
{
    reffs_ino f = t_file(fs, R, "f");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_unlink(fs, R, "f"), 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert_eq(t_lookup(fs, R, "f"), f);
}

struct t_calls {
    reffs_ino inodes[64];
    int ni;
    reffs_ino parents[64];
    char names[64][64];
    int ne;
};

static void on_inode(void *ctx, reffs_ino ino)
{
    struct t_calls *c = ctx;
    if (c->ni < 64)
        c->inodes[c->ni++] = ino;
}

static void on_entry(void *ctx, reffs_ino parent, const char *name)
{
    struct t_calls *c = ctx;
    if (c->ne < 64) {
        c->parents[c->ne] = parent;
        snprintf(c->names[c->ne++], 64, "%s", name);
    }
}

static int saw_inode(const struct t_calls *c, reffs_ino ino)
{
    for (int i = 0; i < c->ni; i++)
        if (c->inodes[i] == ino)
            return 1;
    return 0;
}

static int saw_entry(const struct t_calls *c, reffs_ino parent, const char *name)
{
    for (int i = 0; i < c->ne; i++)
        if (c->parents[i] == parent && !strcmp(c->names[i], name))
            return 1;
    return 0;
}

Test(reffs_snap, inval_reports_changed_inodes_and_entries)
{
    reffs_ino a = t_file(fs, R, "a");
    reffs_ino b = t_file(fs, R, "b");
    reffs_ino d = t_dir(fs, R, "d");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    t_write(fs, a, "x", 1, 0);
    reffs_ino n = t_file(fs, d, "new");
    cr_assert_eq(reffs_unlink(fs, R, "b"), 0);
    struct t_calls c = { 0 };
    struct reffs_inval inval = { on_inode, on_entry, &c };
    cr_assert_eq(reffs_snapshot_restore(fs, 1, &inval), 0);
    cr_assert(saw_inode(&c, a));
    cr_assert(saw_inode(&c, b));
    cr_assert(saw_inode(&c, n));
    cr_assert(saw_inode(&c, d));
    cr_assert(saw_entry(&c, d, "new"));
    cr_assert(saw_entry(&c, R, "b"));
    cr_assert_not(saw_entry(&c, R, "a"));
}

Test(reffs_snap, inval_silent_when_nothing_changed)
{
    t_populate(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    struct t_calls c = { 0 };
    struct reffs_inval inval = { on_inode, on_entry, &c };
    cr_assert_eq(reffs_snapshot_restore(fs, 1, &inval), 0);
    cr_assert_eq(c.ni, 0);
    cr_assert_eq(c.ne, 0);
}

Test(reffs_snap, inval_entry_when_same_number_is_another_file)
{
    struct reffs_entry e;
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_mknod(fs, R, "f", S_IFREG | 0644, 0, 0, 0, &e), 0);
    cr_assert_eq(reffs_snapshot_save(fs, 2), 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    cr_assert_eq(reffs_mknod(fs, R, "f", S_IFREG | 0644, 0, 0, 0, &e), 0);
    struct t_calls c = { 0 };
    struct reffs_inval inval = { on_inode, on_entry, &c };
    cr_assert_eq(reffs_snapshot_restore(fs, 2, &inval), 0);
    cr_assert(saw_entry(&c, R, "f"));
    cr_assert(saw_inode(&c, e.st.st_ino));
}

/* The kernel reads an owner without refreshing it in a sticky directory's O_CREAT check: the
 * names of an inode whose owner a restore changed must be dropped, or that open fails. */
Test(reffs_snap, inval_entry_when_owner_changed)
{
    reffs_ino d = t_dir(fs, R, "d");
    reffs_ino f = t_file(fs, d, "f");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    struct reffs_setattr sa = { .valid = REFFS_SET_UID, .uid = 1000 };
    cr_assert_eq(reffs_setattr(fs, f, &sa, NULL), 0);
    struct t_calls c = { 0 };
    struct reffs_inval inval = { on_inode, on_entry, &c };
    cr_assert_eq(reffs_snapshot_restore(fs, 1, &inval), 0);
    cr_assert(saw_inode(&c, f));
    cr_assert(saw_entry(&c, d, "f"));
}

Test(reffs_snap, inval_callbacks_may_be_null)
{
    t_file(fs, R, "a");
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    t_file(fs, R, "b");
    struct reffs_inval inval = { NULL, NULL, NULL };
    cr_assert_eq(reffs_snapshot_restore(fs, 1, &inval), 0);
}

Test(reffs_snap, orphan_in_snapshot_is_dropped_on_restore)
{
    reffs_ino f = t_file(fs, R, "f");
    static char buf[8192];
    t_write(fs, f, buf, sizeof buf, 0);
    uint64_t bfree = t_bfree(fs);
    cr_assert_eq(reffs_open(fs, f), 0);
    cr_assert_eq(reffs_unlink(fs, R, "f"), 0);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_release(fs, f), 0);
    reffs_forget(fs, f, 1);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    struct stat st;
    cr_assert_eq(reffs_getattr(fs, f, &st), -ENOENT);
    cr_assert_eq(t_bfree(fs), bfree + 2);
}

Test(reffs_snap, snapshot_of_deleted_dir_tree)
{
    reffs_ino d = t_dir(fs, R, "d");
    reffs_ino e = t_dir(fs, d, "e");
    t_file(fs, e, "f");
    char *before = t_dump_fs(fs);
    cr_assert_eq(reffs_snapshot_save(fs, 1), 0);
    cr_assert_eq(reffs_unlink(fs, e, "f"), 0);
    cr_assert_eq(reffs_rmdir(fs, d, "e"), 0);
    cr_assert_eq(reffs_rmdir(fs, R, "d"), 0);
    cr_assert_eq(reffs_snapshot_restore(fs, 1, NULL), 0);
    char *after = t_dump_fs(fs);
    cr_assert_str_eq(before, after);
    free(before);
    free(after);
}

static void *hammer(void *arg)
{
    long id = (long)arg;
    char name[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "t%ld_%d", id, i % 10);
        struct reffs_entry e;
        if (reffs_mknod(fs, R, name, S_IFREG | 0644, 0, 0, 0, &e) == 0)
            reffs_write(fs, e.st.st_ino, name, strlen(name), i);
        if (i % 7 == 0)
            reffs_snapshot_save(fs, (uint64_t)id * 1000 + i % 5);
        if (i % 11 == 0)
            reffs_snapshot_restore(fs, (uint64_t)id * 1000 + i % 5, NULL);
        if (i % 3 == 0)
            reffs_unlink(fs, R, name);
    }
    return NULL;
}

Test(reffs_snap, threads_are_safe)
{
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    struct statvfs sv;
    cr_assert_eq(reffs_statfs(fs, &sv), 0);
    char *dump = t_dump_fs(fs);
    free(dump);
}
