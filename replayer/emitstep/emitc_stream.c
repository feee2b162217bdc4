/* emit-c for crash states of a recorded block stream: run.sh records the last step on the faulty device, has it enumerate the states Metis checked, and builds, recovers, checks and judges each with the engine's oracle pasted into repro.c. */
#include "emitc_stream.h"
#include "emitc_crash.h"
#include "emitc_fault.h"
#include "engine/vocab/crash_modes.h"

/* crash_listing.h, crash_oracle.h, crash_listing.c and crash_oracle.c as one text. */
static const char crash_oracle_text[] =
#include "crash_oracle_text.h"
    ;

int emitc_stream_mode(const struct metis_config *cfg, const struct fs_config *c)
{
    return emitc_crash_mode(cfg, c) != CRASH_OFF &&
           crash_states_parse(cfg->run.crash_states) != CRASH_STATES_COPY;
}

/* "repro oracle": the list files ("TYPE PATH FIELDS...") turned back into the listing format
 * the oracle reads ("PATH TYPE FIELDS..."), then the oracle's two rules. */
static const char oracle_cmd[] =
    "/* A \"list\" file in the listing format (path first), for the oracle; \"\" if unreadable. */\n"
    "static char *oracle_listing(const char *path)\n{\n"
    "    static char line[1 << 16];\n    char *text = NULL;\n    size_t len = 0;\n"
    "    FILE *in = fopen(path, \"r\"), *out = open_memstream(&text, &len);\n"
    "    while (in && out && fgets(line, sizeof line, in)) {\n"
    "        char *rest = line[0] && line[1] == ' ' ? strchr(line + 2, ' ') : NULL;\n"
    "        if (rest)\n            fprintf(out, \"%.*s %c%s\", (int)(rest - line - 2), line + 2, line[0], rest);\n"
    "    }\n    if (in)\n        fclose(in);\n    if (out)\n        fclose(out);\n"
    "    return text ? text : strdup(\"\");\n}\n\n"
    "/* oracle PRE POST REC ATOMIC DATAOP [PATH [PATH2]]: what Metis's crash check holds every\n"
    " * state to; PATH and PATH2 are the names the operation gives. */\n"
    "static int crash_oracle_cmd(char **argv)\n{\n"
    "    char why[2048];\n"
    "    static struct crash_named named;\n"
    "    crash_oracle_names(argv[5], argv[5] ? argv[6] : NULL, &named);\n"
    "    char *pre = oracle_listing(argv[0]), *post = oracle_listing(argv[1]), *rec = oracle_listing(argv[2]);\n"
    "    int bad = crash_oracle_kept(pre, post, rec, &named, why, sizeof why) ||\n"
    "              (atoi(argv[3]) && crash_oracle_atomic(pre, post, rec, &named, atoi(argv[4]), why, sizeof why));\n"
    "    if (bad)\n        printf(\"repro: %s\\n\", why);\n"
    "    free(pre);\n    free(post);\n    free(rec);\n    return bad;\n}\n\n";

void emitc_stream_oracle(FILE *f, const struct emit *e)
{
    if (!emitc_stream_mode(e->cfg, &e->cfg->fs[e->fut])) {
        fprintf(f, "static int crash_oracle_cmd(char **argv)\n{\n    (void)argv;\n"
                "    fprintf(stderr, \"repro: no recorded crash states here\\n\");\n    return 2;\n}\n\n");
        return;
    }
    fputs("/* Metis's crash oracle (fs-state/engine/crash/crash_oracle.c), as the engine runs it. */\n", f);
    fputs(crash_oracle_text, f);
    fputs(oracle_cmd, f);
}

/* The last step on the recording device: the base image kept, the log on from before the mount
 * to after the unmount, the syncs between the marks Metis puts there; then the states Metis
 * checked, enumerated by the device from the log. */
static void record_step(FILE *f, const struct emit *e, const struct fs_config *c)
{
    const struct run_config *r = &e->cfg->run;
    if (r->crash_test_lie)
        fprintf(f, "  # test hook crash_test_lie = %d: Metis's recording device lied about its flushes\n",
                r->crash_test_lie);
    fprintf(f, "  cp --sparse=always \"$img\" \"$work/base.img\" || exit 2\n"
            "  echo 'record %s' >\"$fdm/ctl\" || exit 2\n  ", crash_lie_record(r->crash_test_lie));
    emit_mount_cmd(f, c, "$floop", "$mnt");
    fprintf(f, " || exit 2\n"
            "  \"$here/repro\" \"$mnt\" step \"$nsteps\" || rc=1\n"
            "  echo 'record mark 1' >\"$fdm/ctl\"\n"
            "  \"$here/repro\" \"$mnt\" sync \"$nsteps\" >\"$work/promised.txt\"\n"
            "  echo 'record mark 2' >\"$fdm/ctl\"\n"
            "  \"$here/repro\" \"$mnt\" list >\"$work/live.txt\"; do_umount\n"
            "  cp \"$fdm/log\" \"$work/stream.log\" || exit 2\n  echo 'record off' >\"$fdm/ctl\"\n"
            "  \"$fdbin\" --states \"$work/stream.log\" %s %ld >\"$work/states.txt\" || exit 2\n",
            crash_states_name((enum crash_states)crash_states_parse(r->crash_states)),
            r->crash_states_max);
}

/* The names the last operation gives, as the oracle's PATH [PATH2] words (a symlink's second
 * is its target, no name). */
static void oracle_names(FILE *f, const struct trace *t)
{
    const struct op_args *a = t->nops ? &t->ops[t->nops - 1].args : NULL;
    if (!a || !a->path[0])
        return;
    fputc(' ', f);
    emitsh_quote(f, a->path);
    if ((op_desc_of(a->op)->fields & OPF_PATH2) && a->op != OP_symlink) {
        fputc(' ', f);
        emitsh_quote(f, a->path2);
    }
}

/* One state: built (its skipped write left out), recovered and checked; the base's listing
 * kept as the tree before the operation; then the oracle, and the promise once synced. */
static void check_state(FILE *f, const struct emit *e, const struct fs_config *c, int mode)
{
    const struct trace *t = e->t;
    int data_op = t->nops && crash_data_op(op_name(t->ops[t->nops - 1].args.op));
    fprintf(f, "  while read -r kind end skip syncing synced <&3; do\n"
            "    n=$((n + 1)); rm -f \"$work/rec.txt\"; but=; [ \"$skip\" = -1 ] || but=$skip\n"
            "    \"$fdbin\" --state \"$work/stream.log\" \"$work/base.img\" \"$work/crash.img\" \"$end\" $but || exit 2\n");
    emitc_crash_recover(f, c, 1);
    fprintf(f, "  [ \"$kind\" = base ] && [ -f \"$work/rec.txt\" ] && cp \"$work/rec.txt\" \"$work/pre.txt\"\n"
            "  atomic=%s\n"
            "  [ $crash = 0 ] && [ -f \"$work/rec.txt\" ] && { \"$here/repro\" oracle \"$work/pre.txt\" "
            "\"$work/live.txt\" \"$work/rec.txt\" $atomic %d",
            mode == CRASH_ANY ? "1" : "$((1 - syncing))", data_op);
    oracle_names(f, t);
    fprintf(f, " || crash=1; }\n");
    emitc_crash_compare(f, mode, "[ $crash = 0 ] && [ $synced = 1 ] && ");
    fprintf(f, "    [ $crash = 1 ] && { echo \"repro: crash state $n ($kind: the step's writes before "
            "record $end of its block log${but:+ but $but}, syncs $([ $synced = 1 ] && echo returned || "
            "{ [ $syncing = 1 ] && echo begun || echo 'not begun'; })) is not what a power cut may leave\"; break; }\n"
            "  done 3<\"$work/states.txt\"\n");
}

void emitc_stream_script(FILE *f, const struct emit *e, const struct fs_config *c, int mode)
{
    fprintf(f, "  # Metis's crash states of the last step (crash = %s, crash_states = %s, at most %ld):\n"
            "  # the step runs on the recording device (bin/metis-faultdev, here or built from\n"
            "  # faultdev.c), which logs its writes and flushes and enumerates from that log the\n"
            "  # states Metis checked, in its order (--states); each is built from the image before\n"
            "  # the step and the log, recovered on a loop device of its own, checked by the format's\n"
            "  # checker, held to Metis's oracle (untouched entries kept, nothing from nowhere; the\n"
            "  # operation all or nothing while its syncs had not begun) and, once the syncs had\n"
            "  # returned, compared with what they promised.\n",
            crash_mode_name((enum crash_mode)mode), e->cfg->run.crash_states,
            e->cfg->run.crash_states_max);
    emitc_fault_device(f, e, 0);
    fprintf(f, "  cloop= crash=0 n=0\n  trap '[ -n \"$cloop\" ] && { umount \"$work/cmnt\" 2>/dev/null; "
            "losetup -d \"$cloop\"; }; cleanup' EXIT\n");
    record_step(f, e, c);
    check_state(f, e, c, mode);
    fprintf(f, "  echo \"repro: $n of $(\"$fdbin\" --states \"$work/stream.log\" %s | wc -l) crash "
            "states checked\"\n"
            "  [ $crash = 1 ] && { echo \"repro: the defect shows: a crash state of the last step is "
            "not what a power cut may leave\"; rc=1; }\n",
            crash_states_name((enum crash_states)crash_states_parse(e->cfg->run.crash_states)));
}
