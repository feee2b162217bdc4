/* The [fs] lacks vocabulary, written once: each word with the attributes it leaves out of the abstract state and the operations and variants it keeps out of the draw. */
#include "engine/vocab/features.h"
#include "tree/tree.h"
#include <stdio.h>
#include <string.h>

#define NO_OP OP_COUNT

/* One word. A variant word names its operation's variant (opnames.c); an operation word up to
 * two operations. case_insensitive and sparse remove nothing (see their meanings): they are
 * words so that a profile can state them, and a file system that breaks them is still seen. */
static const struct word {
    const char *word;
    unsigned ignore;
    enum op_id op1, op2;        /* operations never drawn (NO_OP: none) */
    const char *variant;        /* variant never drawn (of op1), or NULL */
    int no_setid_draws;
    const char *meaning;
} words[] = {
    { "hardlinks", 0, OP_link, NO_OP, NULL, 0, "link is never drawn" },
    { "symlinks", 0, OP_symlink, NO_OP, NULL, 0, "symlink is never drawn" },
    { "xattrs", TREE_IGNORE_XATTRS, OP_setxattr, OP_removexattr, NULL, 0,
      "xattrs are not compared; setxattr and removexattr are never drawn" },
    { "owners", TREE_IGNORE_OWNER, OP_chown_file, OP_chgrp_file, NULL, 0,
      "owner and group are not compared; chown_file and chgrp_file are never drawn" },
    { "modes", TREE_IGNORE_MODE, OP_chmod, NO_OP, NULL, 0,
      "mode bits are not compared; chmod is never drawn" },
    { "setid", TREE_IGNORE_SETID, NO_OP, NO_OP, NULL, 1,
      "setuid and setgid bits are not compared and never drawn (so no set-id inheritance or "
      "clearing is exercised)" },
    { "sparse", 0, NO_OP, NO_OP, NULL, 0,
      "nothing more to leave out: the abstract state never tells a hole from written zeros" },
    { "fallocate:allocate", 0, OP_fallocate_file, NO_OP, "allocate", 0,
      "fallocate allocate (mode 0) is never drawn" },
    { "fallocate:keep_size", 0, OP_fallocate_file, NO_OP, "keep_size", 0,
      "fallocate keep_size is never drawn" },
    { "fallocate:punch_hole", 0, OP_fallocate_file, NO_OP, "punch_hole", 0,
      "fallocate punch_hole is never drawn" },
    { "fallocate:zero_range", 0, OP_fallocate_file, NO_OP, "zero_range", 0,
      "fallocate zero_range is never drawn" },
    { "fallocate:zero_range_keep", 0, OP_fallocate_file, NO_OP, "zero_range_keep", 0,
      "fallocate zero_range_keep is never drawn" },
    { "fallocate:collapse", 0, OP_fallocate_file, NO_OP, "collapse", 0,
      "fallocate collapse is never drawn" },
    { "fallocate:insert", 0, OP_fallocate_file, NO_OP, "insert", 0,
      "fallocate insert is never drawn" },
    { "rename:noreplace", 0, OP_rename, NO_OP, "noreplace", 0,
      "rename noreplace (RENAME_NOREPLACE) is never drawn" },
    { "rename:exchange", 0, OP_rename, NO_OP, "exchange", 0,
      "rename exchange (RENAME_EXCHANGE) is never drawn" },
    { "copy_file_range", 0, OP_copy_range, NO_OP, NULL, 0, "copy_range is never drawn" },
    { "mknod:fifo", 0, OP_mknod, NO_OP, "fifo", 0, "mknod fifo is never drawn" },
    { "mknod:socket", 0, OP_mknod, NO_OP, "socket", 0, "mknod socket is never drawn" },
    { "mknod:chr", 0, OP_mknod, NO_OP, "chr", 0, "mknod chr is never drawn" },
    { "mknod:blk", 0, OP_mknod, NO_OP, "blk", 0, "mknod blk is never drawn" },
    { "open_unlink", 0, OP_open_unlink, NO_OP, NULL, 0,
      "open_unlink (an open file's name removed) is never drawn" },
    { "utimes", 0, OP_utimes, NO_OP, NULL, 0, "utimes is never drawn" },
    { "case_insensitive", 0, NO_OP, NO_OP, NULL, 0,
      "nothing to leave out: no two names of the pool differ only by case" },
    { "dir_nlink", TREE_IGNORE_DIR_NLINK, NO_OP, NO_OP, NULL, 0,
      "directories' link counts are not compared" },
    { "root_nlink", TREE_IGNORE_ROOT_NLINK, NO_OP, NO_OP, NULL, 0,
      "the root directory's link count is not compared" },
};
#define NWORDS ((int)(sizeof words / sizeof words[0]))
_Static_assert(NWORDS <= 64, "lacks words are bits of a uint64_t");

int features_count(void)
{
    return NWORDS;
}

const char *feature_word(int w)
{
    return w >= 0 && w < NWORDS ? words[w].word : "?";
}

const char *feature_meaning(int w)
{
    return w >= 0 && w < NWORDS ? words[w].meaning : "?";
}

int feature_lookup(const char *word)
{
    for (int w = 0; w < NWORDS; w++)
        if (strcmp(words[w].word, word) == 0)
            return w;
    return -1;
}

/* "hardlinks, symlinks, ..." into out. */
static void valid_words(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int w = 0; w < NWORDS && used < len; w++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", w ? ", " : "", words[w].word);
}

int features_parse(const char *list, uint64_t *out, char *err, size_t errlen)
{
    *out = 0;
    for (const char *p = list; p && *p;) {
        p += strspn(p, " \t,");
        size_t n = strcspn(p, " \t,");
        if (n == 0)
            break;
        char word[64], valid[600];
        snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), p);
        int w = n < 63 ? feature_lookup(word) : -1;
        if (w < 0) {
            valid_words(valid, sizeof valid);
            snprintf(err, errlen, "unknown word '%s' (valid: %s)", word, valid);
            return -1;
        }
        *out |= 1ULL << w;
        p += n;
    }
    return 0;
}

/* Every variant of op lacked (op has variants): op is never drawn at all. */
static int all_variants_lacked(enum op_id op, uint64_t variants)
{
    int any = 0;
    for (int v = 0; v < op_variant_count(); v++) {
        if (op_variant_op(v) != op)
            continue;
        if (!((variants >> v) & 1))
            return 0;
        any = 1;
    }
    return any;
}

void features_effect(uint64_t set, struct lack_effect *out)
{
    memset(out, 0, sizeof *out);
    for (int w = 0; w < NWORDS; w++) {
        const struct word *x = &words[w];
        if (!((set >> w) & 1))
            continue;
        out->ignore |= x->ignore;
        out->no_setid_draws |= x->no_setid_draws;
        if (x->variant)
            out->variants |= 1ULL << op_variant_lookup(x->variant);
        else if (x->op1 != NO_OP)
            out->ops |= 1ULL << x->op1;
        if (x->op2 != NO_OP)
            out->ops |= 1ULL << x->op2;
    }
    for (int op = 0; op < OP_COUNT; op++)
        if (all_variants_lacked(op, out->variants))
            out->ops |= 1ULL << op;
}

const char *features_word_for(enum op_id op, int v)
{
    for (int w = 0; w < NWORDS; w++) {
        const struct word *x = &words[w];
        if (x->variant ? (v >= 0 && strcmp(op_variant_name(v), x->variant) == 0 &&
                          op_variant_op(v) == op)
                       : (x->op1 == op || x->op2 == op))
            return x->word;
    }
    return NULL;
}

void features_ignore_text(unsigned ignore, char *out, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { TREE_IGNORE_DIR_NLINK, "dir_nlink" }, { TREE_IGNORE_XATTRS, "xattrs" },
        { TREE_IGNORE_MODE, "mode" }, { TREE_IGNORE_OWNER, "owner" },
        { TREE_IGNORE_ROOT_NLINK, "root_nlink" }, { TREE_IGNORE_SETID, "setid" },
    };
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && used < len; i++)
        if (ignore & names[i].bit)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "",
                                     names[i].name);
}
