/* Unit tests of a recorded block stream's crash states (which, in which order, bounded) and of the oracle that judges them. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "engine/crash/crash_states.h"
#include "engine/crash/crash_oracle.h"
#include "faultdev_proto.h"

#define W FAULTDEV_REC_WRITE
#define F FAULTDEV_REC_FLUSH
#define M FAULTDEV_REC_MARK

static unsigned kind_room[16];

/* A stream of the given kinds (writes of 1 byte at their index). */
static struct stream stream_of(const uint32_t *kinds, size_t n, struct stream_rec *room)
{
    static const unsigned char byte = 1;
    for (size_t i = 0; i < n; i++) {
        room[i] = (struct stream_rec){ kinds[i], kinds[i] == M ? 2 : 1, i, kinds[i] == W ? &byte : NULL };
        kind_room[i] = kinds[i];
    }
    return (struct stream){ room, kind_room, n };
}

static struct stream_rec room[16];
static struct crash_state st[16];

Test(metis_crash_states, flushes_give_a_state_each_and_skip_empty_ones)
{
    uint32_t k[] = { W, W, F, F, W, M, F, W };
    struct stream s = stream_of(k, 8, room);
    cr_assert_eq(stream_states(&s, 0, st, 16), 4);
    cr_expect_eq(st[0].kind, STATE_BASE);
    cr_expect_eq(st[0].crash_at, 2);
    cr_expect_eq(st[1].kind, STATE_FLUSH);
    cr_expect_eq(st[1].end, 2);         /* the second flush (3) is the same state: left out */
    cr_expect_eq(st[1].crash_at, 3);
    cr_expect_eq(st[2].end, 6);
    cr_expect_eq(st[3].kind, STATE_END);
    cr_expect(stream_marked_before(&s, st[2].crash_at, 2), "the mark before flush 6 counts");
    cr_expect(!stream_marked_before(&s, st[1].crash_at, 2));
}

Test(metis_crash_states, stream_drops_each_write_and_takes_prefixes_bounded)
{
    uint32_t k[] = { W, W, W, W, F };
    struct stream s = stream_of(k, 5, room);
    /* base, the flush, 4 drops, prefixes of 1 and 2 writes */
    cr_assert_eq(stream_states(&s, 1, st, 16), 8);
    cr_expect_eq(st[2].kind, STATE_DROP);
    cr_expect_eq(st[2].skip, 0);
    cr_expect_eq(st[5].skip, 3);
    cr_expect_eq(st[6].kind, STATE_PREFIX);
    cr_expect_eq(st[6].end, 1);
    cr_expect_eq(st[7].end, 2);
    cr_expect_eq(st[7].crash_at, 4);
    cr_expect_eq(stream_states(&s, 1, st, 3), 8, "the count is of all states, past the bound");
}

Test(metis_crash_states, touched_blocks_ascending_each_once)
{
    static const unsigned char data[9000];
    struct stream_rec r[] = {
        { W, 5000, 8000, data },            /* blocks 1 to 3 */
        { F, 0, 0, NULL },
        { FAULTDEV_REC_DISCARD, 4096, 0, NULL },    /* block 0 */
        { W, 1, 4096, data },               /* block 1 again */
        { M, 2, 100000, NULL },             /* a mark touches nothing */
        { W, 0, 90000, data },              /* nor does an empty write */
    };
    struct stream s = { r, kind_room, 6 };
    size_t *b = NULL, n = 0;
    cr_assert_eq(stream_touched(&s, 4096, &b, &n), 0);
    cr_assert_eq(n, 4);
    for (size_t i = 0; i < n; i++)
        cr_expect_eq(b[i], i, "block %zu is %zu", i, b[i]);
    free(b);
    s.n = 0;
    cr_assert_eq(stream_touched(&s, 4096, &b, &n), 0);
    cr_expect_eq(n, 0);
    cr_expect_null(b);
}

Test(metis_crash_states, malformed_log_refused)
{
    struct faultdev_rec r = { W, 100, 0 };
    struct stream s;
    cr_expect_eq(stream_parse((const char *)&r, sizeof r, &s), -1, "a write without its data");
    r.kind = 9;
    cr_expect_eq(stream_parse((const char *)&r, sizeof r, &s), -1, "an unknown kind");
}

static const char *pre = "/ d 0755 3 0 0 - - []\n/a f 0644 1 0 0 3 x []\n/c f 0644 1 0 0 1 y []\n";
static const char *post = "/ d 0755 3 0 0 - - []\n/b f 0644 1 0 0 3 x []\n/c f 0644 1 0 0 1 y []\n";

Test(metis_crash_states, oracle_rename_all_or_nothing)
{
    char why[512];
    cr_expect_eq(crash_oracle_atomic(pre, post, pre, NULL, 0, why, sizeof why), 0);
    cr_expect_eq(crash_oracle_atomic(pre, post, post, NULL, 0, why, sizeof why), 0);
    const char *both = "/ d 0755 3 0 0 - - []\n/a f 0644 1 0 0 3 x []\n/b f 0644 1 0 0 3 x []\n"
                       "/c f 0644 1 0 0 1 y []\n";
    cr_expect_eq(crash_oracle_atomic(pre, post, both, NULL, 0, why, sizeof why), 1);
    cr_expect(strstr(why, "half there"));
    const char *neither = "/ d 0755 3 0 0 - - []\n/c f 0644 1 0 0 1 y []\n";
    cr_expect_eq(crash_oracle_atomic(pre, post, neither, NULL, 0, why, sizeof why), 1);
}

Test(metis_crash_states, oracle_untouched_kept_and_no_garbage)
{
    char why[512];
    cr_expect_eq(crash_oracle_kept(pre, post, post, NULL, why, sizeof why), 0);
    const char *lost_c = "/ d 0755 3 0 0 - - []\n/b f 0644 1 0 0 3 x []\n";
    cr_expect_eq(crash_oracle_kept(pre, post, lost_c, NULL, why, sizeof why), 1);
    cr_expect(strstr(why, "/c, untouched"));
    const char *garbage = "/ d 0755 3 0 0 - - []\n/b f 0644 1 0 0 3 x []\n/c f 0644 1 0 0 1 y []\n"
                          "/z f 0644 1 0 0 0 - []\n";
    cr_expect_eq(crash_oracle_kept(pre, post, garbage, NULL, why, sizeof why), 1);
}

/* rename /d0/f1 /d1 over a symlink of the same target: /d1's line is the same before and
 * after, but it names another inode (btrfs, seed 2 of crash_states.sh, operation 9828). */
static const char *sym_pre = "/ d 0755 4 0 0 - - []\n/d0 d 0755 2 0 0 - - []\n"
                             "/d0/f1 l 0777 1 0 0 2 t -\n/d1 l 0777 1 0 0 2 t -\n";
static const char *sym_post = "/ d 0755 4 0 0 - - []\n/d0 d 0755 2 0 0 - - []\n"
                              "/d1 l 0777 1 0 0 2 t -\n";
/* Both names left to the renamed inode, its link count 2. */
static const char *sym_both = "/ d 0755 4 0 0 - - []\n/d0 d 0755 2 0 0 - - []\n"
                              "/d0/f1 l 0777 2 0 0 2 t -\n/d1 l 0777 2 0 0 2 t -\n";

Test(metis_crash_states, oracle_names_of_an_operation)
{
    static struct crash_named n;
    crash_oracle_names("/d0/f1", "/d1", &n);
    cr_assert_eq(n.n, 4);
    cr_expect_str_eq(n.path[0], "/d0/f1");
    cr_expect_str_eq(n.path[1], "/d0");
    cr_expect_str_eq(n.path[2], "/d1");
    cr_expect_str_eq(n.path[3], "/", "a name in the root has / for its parent, once");
    crash_oracle_names("/f1", NULL, &n);
    cr_expect_eq(n.n, 2);
}

Test(metis_crash_states, oracle_named_path_is_not_untouched)
{
    char why[512];
    static struct crash_named n;
    crash_oracle_names("/d0/f1", "/d1", &n);
    cr_expect_eq(crash_oracle_kept(sym_pre, sym_post, sym_both, &n, why, sizeof why), 0,
                 "/d1 is the rename's destination, not untouched: %s", why);
    cr_expect_eq(crash_oracle_kept(sym_pre, sym_post, sym_both, NULL, why, sizeof why), 1,
                 "without the names /d1 looks untouched");
    const char *lost_d0 = "/ d 0755 4 0 0 - - []\n/d1 l 0777 1 0 0 2 t -\n";
    cr_expect_eq(crash_oracle_kept(sym_pre, sym_post, lost_d0, &n, why, sizeof why), 0,
                 "the parent /d0 is named too");
    cr_expect_eq(crash_oracle_atomic(sym_pre, sym_post, lost_d0, &n, 0, why, sizeof why), 1,
                 "but in flight the parent is kept");
}

Test(metis_crash_states, oracle_named_path_held_in_flight)
{
    char why[512];
    static struct crash_named n;
    crash_oracle_names("/d0/f1", "/d1", &n);
    cr_expect_eq(crash_oracle_atomic(sym_pre, sym_post, sym_pre, &n, 0, why, sizeof why), 0);
    cr_expect_eq(crash_oracle_atomic(sym_pre, sym_post, sym_post, &n, 0, why, sizeof why), 0);
    cr_expect_eq(crash_oracle_atomic(sym_pre, sym_post, sym_both, &n, 0, why, sizeof why), 1,
                 "both names to one inode is neither before nor after");
    cr_expect(strstr(why, "half there"));
    const char *after_but_d1 = "/ d 0755 4 0 0 - - []\n/d0 d 0755 2 0 0 - - []\n"
                               "/d1 l 0777 2 0 0 2 t -\n";
    cr_expect_eq(crash_oracle_atomic(sym_pre, sym_post, after_but_d1, &n, 0, why, sizeof why), 1,
                 "a named path whose line is the same before and after is held in flight");
    cr_expect(strstr(why, "/d1"));
}

/* rename /d0/f0 /d1/f0 where /d0/f0 has a second name /f1 (btrfs, seed 3, operation 1855): a
 * crash after the new parent's fsync leaves the inode at both names and /f1 counting 3 links. */
Test(metis_crash_states, oracle_other_name_of_a_named_inode)
{
    char why[512];
    static struct crash_named n;
    const char *pre = "/ d 0755 - 0 0 - - []\n/d0 d 0433 - 0 0 - - []\n"
                      "/d0/f0 l 0777 2 0 0 1 t -\n/d1 d 0652 - 0 0 - - []\n"
                      "/d1/f0 l 0777 1 0 0 2 u -\n/f0 l 0777 2 0 0 1 v -\n/f1 l 0777 2 0 0 1 t -\n";
    const char *post = "/ d 0755 - 0 0 - - []\n/d0 d 0433 - 0 0 - - []\n/d1 d 0652 - 0 0 - - []\n"
                       "/d1/f0 l 0777 2 0 0 1 t -\n/f0 l 0777 2 0 0 1 v -\n/f1 l 0777 2 0 0 1 t -\n";
    const char *rec = "/ d 0755 - 0 0 - - []\n/d0 d 0433 - 0 0 - - []\n"
                      "/d0/f0 l 0777 3 0 0 1 t -\n/d1 d 0652 - 0 0 - - []\n"
                      "/d1/f0 l 0777 3 0 0 1 t -\n/f0 l 0777 2 0 0 1 v -\n/f1 l 0777 3 0 0 1 t -\n";
    crash_oracle_names("/d0/f0", "/d1/f0", &n);
    cr_expect_eq(crash_oracle_kept(pre, post, rec, &n, why, sizeof why), 0,
                 "/f1 is another name of the renamed inode: %s", why);
    const char *f0_changed = "/ d 0755 - 0 0 - - []\n/d0 d 0433 - 0 0 - - []\n/d1 d 0652 - 0 0 - - []\n"
                             "/d1/f0 l 0777 2 0 0 1 t -\n/f0 l 0777 3 0 0 1 v -\n/f1 l 0777 2 0 0 1 t -\n";
    cr_expect_eq(crash_oracle_kept(pre, post, f0_changed, &n, why, sizeof why), 1,
                 "a hard link of another inode is still untouched");
    cr_expect(strstr(why, "/f0, untouched"));
}
