/* Fuzz harness of the classes readers (front/cli/classes/summary_classes.c and the swarm's merge of them): a summary.json's text. */
#include "fuzz_common.h"
#include "front/cli/classes/summary_classes.h"
#include "front/swarm/swarm.h"

#include <stdlib.h>

/* Every reader of classes gives a count, or -1/-2 with *out NULL. */
static void check(int n, struct run_class *v)
{
    if (n < -2 || (n < 0 && v))
        abort();
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *json = fuzz_text(data, size);
    struct run_class *v = NULL;
    int n = classfile_parse(json, &v);
    check(n, v);
    n = classfile_listed(json, &v);
    check(n, v);
    n = classfile_not_seen(json, &v);
    check(n, v);
    free(classfile_insert(json, 1, ",\"triage\":\"x\""));
    swarm_classes_reset();
    if (swarm_classes_add_vt(json, 0, NULL, NULL) < -1)
        abort();
    swarm_classes_reset();
    free(json);
    return 0;
}
