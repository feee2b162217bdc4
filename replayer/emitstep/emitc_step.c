/* emit-c: the C statement of one step's call (its syscall, or the refusal Metis recorded where it did not run), errnos as C text, and run.sh's mount command. */
#include "emit.h"
#include "emitc_ops.h"

#include <errno.h>
#include <string.h>

const char *emit_errno_symbol(int err)
{
    const char *n = err ? strerrorname_np(err) : NULL;
    return n ? n : "0";
}

/* The syscall of one operation, as a statement setting r (errno kept from the call). */
void emit_op_call(FILE *f, const struct op_args *a)
{
    emitc_op_fn *emit = emitc_emitter(a->op);
    if (emit)
        emit(f, a);
    else
        fprintf(f, "    errno = EINVAL; r = -1;\n");
}

/* 1 when the fs under test did not run op in the run: a gatekeeper (a fs that lists it
 * `unsupported`, step.c) refused it with EOPNOTSUPP, and the fs under test is none. */
static int skipped_here(const struct emit *e, const struct trace_op *op)
{
    int v = op_variant_of(&op->args);
    if (fs_unsupported(&e->cfg->fs[e->fut], op->args.op, v))
        return 0;
    for (int i = 0; i < e->cfg->nfs; i++) {
        const struct trace_outcome *o = e->map[i] >= 0 ? &op->res[e->map[i]] : NULL;
        if (fs_unsupported(&e->cfg->fs[i], op->args.op, v) && o && o->have && o->err == EOPNOTSUPP)
            return 1;
    }
    return 0;
}

/* A step's call, or the refusal Metis recorded where it did not run the call (skipped_here). */
void emit_step_call(FILE *f, const struct emit *e, const struct trace_op *op)
{
    if (skipped_here(e, op))
        fprintf(f, "    /* a file system that lists it unsupported refused it: Metis ran it"
                " nowhere else */\n    r = -1; errno = EOPNOTSUPP;\n");
    else
        emit_op_call(f, &op->args);
}


void emit_mount_cmd(FILE *f, const struct fs_config *c, const char *dev, const char *mnt)
{
    fprintf(f, "mount -t %s %s%s%s\"%s\" \"%s\"", c->fstype, c->mount_opts[0] ? "-o " : "",
            c->mount_opts, c->mount_opts[0] ? " " : "", dev, mnt);
}
