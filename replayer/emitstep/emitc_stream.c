/* emit-c for crash states of a recorded block stream: run.sh records the last step on the faulty device, builds the state at every flush and recovers, checks and compares each. */
#include "emitc_stream.h"
#include "emitc_crash.h"
#include "emitc_fault.h"
#include "engine/vocab/crash_modes.h"

int emitc_stream_mode(const struct metis_config *cfg, const struct fs_config *c)
{
    return emitc_crash_mode(cfg, c) != CRASH_OFF &&
           crash_states_parse(cfg->run.crash_states) != CRASH_STATES_COPY;
}

/* The last step on the recording device: the base image kept, the log on from before the mount
 * to after the unmount, the syncs between the marks Metis puts there. */
static void record_step(FILE *f, const struct emit *e, const struct fs_config *c)
{
    if (e->cfg->run.crash_test_lie)
        fprintf(f, "  # test hook crash_test_lie: Metis's recording device lied about its flushes\n");
    fprintf(f, "  cp --sparse=always \"$img\" \"$work/base.img\" || exit 2\n"
            "  echo 'record on%s' >\"$fdm/ctl\" || exit 2\n  ", e->cfg->run.crash_test_lie ? " lie" : "");
    emit_mount_cmd(f, c, "$floop", "$mnt");
    fprintf(f, " || exit 2\n"
            "  \"$here/repro\" \"$mnt\" step \"$nsteps\" || rc=1\n"
            "  echo 'record mark 1' >\"$fdm/ctl\"\n"
            "  \"$here/repro\" \"$mnt\" sync \"$nsteps\" >\"$work/promised.txt\"\n"
            "  echo 'record mark 2' >\"$fdm/ctl\"\n"
            "  \"$here/repro\" \"$mnt\" list >\"$work/live.txt\"; do_umount\n"
            "  cp \"$fdm/log\" \"$work/stream.log\" || exit 2\n  echo 'record off' >\"$fdm/ctl\"\n"
            "  \"$fdbin\" --flushes \"$work/stream.log\" >\"$work/states.txt\" || exit 2\n");
}

void emitc_stream_script(FILE *f, const struct emit *e, const struct fs_config *c, int mode)
{
    fprintf(f, "  # Metis's crash states of the last step (crash = %s, crash_states = %s): the step\n"
            "  # runs on the recording device (bin/metis-faultdev, here or built from faultdev.c),\n"
            "  # which logs its writes and flushes; the state at every flush (the base, each flush,\n"
            "  # the end) is built from the image before the step and the log, recovered on a loop\n"
            "  # device of its own, checked by the format's checker and, once the syncs had\n"
            "  # returned, compared with what they promised.\n",
            crash_mode_name((enum crash_mode)mode), e->cfg->run.crash_states);
    emitc_fault_device(f, e, 0);
    fprintf(f, "  cloop= crash=0 n=0\n  trap '[ -n \"$cloop\" ] && { umount \"$work/cmnt\" 2>/dev/null; "
            "losetup -d \"$cloop\"; }; cleanup' EXIT\n");
    record_step(f, e, c);
    fprintf(f, "  while read -r end synced <&3; do\n    n=$((n + 1)); rm -f \"$work/rec.txt\"\n"
            "    \"$fdbin\" --state \"$work/stream.log\" \"$work/base.img\" \"$work/crash.img\" \"$end\" || exit 2\n");
    emitc_crash_recover(f, c, 1);
    emitc_crash_compare(f, mode, "[ $synced = 1 ] && ");
    fprintf(f, "    [ $crash = 1 ] && { echo \"repro: crash state $n (the step's writes before record "
            "$end of its block log, syncs $([ $synced = 1 ] && echo returned || echo pending)) is "
            "not what the sync promised\"; break; }\n"
            "  done 3<\"$work/states.txt\"\n"
            "  echo \"repro: $n crash states checked\"\n"
            "  [ $crash = 1 ] && { echo \"repro: the defect shows: the recovered copy is not what "
            "the sync promised\"; rc=1; }\n");
}
