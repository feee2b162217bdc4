/* emit-c's listing of the reference: its tree as the program lists the fs under test. */
#include "emitstep/emit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/logical/states/equalize.h"
#include "replay/session.h"

const char *emit_filler_dir(void)
{
    return FILLER_DIR;
}

/* The reference's root entries left out: the filler, lost+found, its exclusions. */
static void exclude_list(const struct fs_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s,lost+found,%s", FILLER_DIR, c->exclude);
}

int emit_list_reference(struct session *s, struct rt_tree *tree, char *err, size_t errlen)
{
    struct backend *b = s->g.be[0];
    char excl[700];
    exclude_list(b->cfg, excl, sizeof excl);
    if (b->ops->begin(b) < 0)
        return snprintf(err, errlen, "%s", b->err), -1;
    int rc = rt_list(b->rootfd, excl, tree);
    int saved = errno;
    if (b->ops->end(b) < 0 && rc == 0)
        return snprintf(err, errlen, "%s", b->err), -1;
    if (rc < 0)
        snprintf(err, errlen, "%s: listing its final tree: %s", b->cfg->name, strerror(saved));
    return rc;
}
