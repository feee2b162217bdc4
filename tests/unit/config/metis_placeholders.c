/* Unit tests of a command template's placeholders ({mnt}, {img}, {bin}, {dir}, {dir:NAME}): scanning, expansion, config_load's refusals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/config/config.h"
#include "lib/text/placeholders.h"

static int scan(const char *tmpl, struct ph_dirs *d, char *err)
{
    memset(d, 0, sizeof *d);
    return ph_scan(tmpl, d, err, 200);
}

Test(placeholders, dir_names_listed_once)
{
    struct ph_dirs d;
    char err[200] = "";
    cr_assert_eq(scan("mount -o {dir:lower},{dir:up_2} {dir} {dir:lower} {mnt} {bin}", &d, err), 0, "%s", err);
    cr_assert_eq(d.n, 3);
    cr_expect_str_eq(d.name[0], "lower");
    cr_expect_str_eq(d.name[1], "up_2");
    cr_expect_str_eq(d.name[2], "dir");
    cr_expect_eq(d.uses_img, 0);
    cr_assert_eq(scan("fuse2fs {img} {mnt}", &d, err), 0);
    cr_expect_eq(d.n, 0);
    cr_expect_eq(d.uses_img, 1);
}

Test(placeholders, shell_braces_are_not_placeholders)
{
    struct ph_dirs d;
    char err[200] = "";
    const char *ok[] = { "x ${HOME} ${dir}", "echo {a,b} {1..3}", "find {mnt} -exec ls {} +",
                         "f() { true; }; f", "{ bindfs {dir} {mnt}; }", "" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect_eq(scan(ok[i], &d, err), 0, "'%s': %s", ok[i], err);
}

Test(placeholders, refusals_name_the_placeholder)
{
    static const struct { const char *tmpl, *err; } bad[] = {
        { "bindfs {src} {mnt}", "unknown placeholder {src} (known: {mnt}, {img}, {bin}, {dir}, {dir:NAME})" },
        { "bindfs {DIR} {mnt}", "unknown placeholder {DIR} (known: {mnt}, {img}, {bin}, {dir}, {dir:NAME})" },
        { "bindfs {dir:Lower} {mnt}", "{dir:Lower}: a directory name is 1 to 31 of a-z, 0-9 and _" },
        { "bindfs {dir:} {mnt}", "{dir:}: a directory name is 1 to 31 of a-z, 0-9 and _" },
        { "bindfs {dir:a-b} {mnt}", "{dir:a-b}: a directory name is 1 to 31 of a-z, 0-9 and _" },
        { "x {dir:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}", "{dir:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}: a directory name is 1 to 31 of a-z, 0-9 and _" },
        { "x {dir:a} {dir:b} {dir:c} {dir:d} {dir:e}", "more than 4 directories ({dir} and {dir:NAME})" },
    };
    struct ph_dirs d;
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        cr_expect_eq(scan(bad[i].tmpl, &d, err), -1, "accepted '%s'", bad[i].tmpl);
        cr_expect_str_eq(err, bad[i].err);
    }
}

static const char *lookup(void *ctx, const char *name)
{
    (void)ctx;
    const char *dir = ph_dir_name(name);
    if (dir)
        return strcmp(dir, "dir") == 0 ? "/s/dir" : strcmp(dir, "low") == 0 ? "/s/low" : NULL;
    return strcmp(name, "mnt") == 0 ? "/m" : NULL;
}

Test(placeholders, expand_fills_known_and_keeps_the_rest)
{
    char out[128];
    cr_assert_eq(ph_expand("a {dir} {dir:low} {mnt} ${mnt} {x} {", lookup, NULL, out, sizeof out), 0);
    cr_expect_str_eq(out, "a /s/dir /s/low /m ${mnt} {x} {");
    cr_expect_eq(ph_expand("{dir}{dir}", lookup, NULL, out, 12), -1, "12 bytes hold 11 characters");
    cr_expect_eq(ph_expand("{dir}{dir}", lookup, NULL, out, 13), 0);
    cr_expect_str_eq(out, "/s/dir/s/dir");
}

/* config_load: one "file:line: message" naming the key, and dir_backed set. */
static int load(const char *text, struct metis_config *cfg, char *err, size_t errlen)
{
    char path[] = "/tmp/metis-ph-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    int rc = config_load(path, cfg, err, errlen);
    char *colon = strstr(err, path);
    if (colon)     /* the message without the temporary path */
        memmove(err, colon + strlen(path), strlen(colon + strlen(path)) + 1);
    unlink(path);
    return rc;
}

#define FS "[fs ref]\ntype = reffs\n[fs b]\ntype = fuse\nsize = 256K\n"

Test(placeholders, config_refuses_with_key_and_line)
{
    static const struct { const char *text, *err; } bad[] = {
        { FS "mount_cmd = bindfs {dir:Up} {mnt}\n",
          ":6: [fs b]: mount_cmd: {dir:Up}: a directory name is 1 to 31 of a-z, 0-9 and _" },
        { FS "mount_cmd = bindfs {dir} {mnt}\nunmount_cmd = fusermount3 -u {mount}\n",
          ":7: [fs b]: unmount_cmd: unknown placeholder {mount} (known: {mnt}, {img}, {bin}, {dir}, {dir:NAME})" },
        { FS "mount_cmd = fuse2fs {img} -o x={dir} {mnt}\n",
          ":6: [fs b]: mount_cmd: {img} and {dir} together: a fs keeps its data in an image or in run-owned directories, not both" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct metis_config cfg;
        char err[600] = "";
        cr_expect_eq(load(bad[i].text, &cfg, err, sizeof err), -1, "accepted:\n%s", bad[i].text);
        cr_expect_str_eq(err, bad[i].err);
    }
}

Test(placeholders, config_marks_dir_backed)
{
    struct metis_config cfg;
    char err[600] = "";
    cr_assert_eq(load(FS "mount_cmd = bindfs {dir} {mnt}\nrestore = logical\n", &cfg, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(cfg.fs[1].dir_backed, 1, "size > 0 with {dir} is no image: restore applies");
    cr_assert_eq(load(FS "mount_cmd = fuse2fs {img} {mnt}\n", &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_eq(cfg.fs[1].dir_backed, 0);
}
