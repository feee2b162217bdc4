/* `metis check`'s account of the lacks declarations: what each word of each fs removes, and what the whole run then leaves out of its states and its draws. */
#include "check_lacks.h"
#include "engine/vocab/features.h"

/* "link, fallocate_file/punch_hole" of the ops and variants in the two masks. */
static void never_drawn(const struct metis_config *cfg, FILE *f)
{
    int n = 0;
    for (int op = 0; op < OP_COUNT; op++)
        if ((cfg->lacked_ops >> op) & 1)
            fprintf(f, "%s%s", n++ ? ", " : "", op_name(op));
    for (int v = 0; v < op_variant_count(); v++)
        if (((cfg->lacked_variants >> v) & 1) && !((cfg->lacked_ops >> op_variant_op(v)) & 1))
            fprintf(f, "%s%s/%s", n++ ? ", " : "", op_name(op_variant_op(v)), op_variant_name(v));
    fprintf(f, "%s\n", n ? "" : "nothing");
}

void check_print_lacks(const struct metis_config *cfg, FILE *f)
{
    int any = 0;
    for (int i = 0; i < cfg->nfs; i++)
        for (int w = 0; w < features_count(); w++)
            if ((cfg->fs[i].lacks_words >> w) & 1) {
                fprintf(f, "fs %s lacks %s: %s\n", cfg->fs[i].name, feature_word(w),
                        feature_meaning(w));
                any = 1;
            }
    if (!any)
        return;
    char ignored[200];
    features_ignore_text(cfg->lacked_ignore, ignored, sizeof ignored);
    fprintf(f, "not compared on any fs of the run: %s\n", ignored[0] ? ignored : "nothing more");
    fputs("never drawn on any fs of the run: ", f);
    never_drawn(cfg, f);
}
