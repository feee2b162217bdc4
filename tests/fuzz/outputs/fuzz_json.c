/* Fuzz harness of the JSON reader (front/json/json_reader.c): a file loaded, then every accessor on every member, as the front ends use them. */
#include "fuzz_common.h"
#include "front/json/json_reader.h"

#include <stdlib.h>

/* Each accessor on key of o, then the same one level down for objects and arrays. */
static void visit(json_object *o, const char *key, int depth)
{
    char text[64];
    double d;
    rj_num(o, key, 0);
    rj_int(o, key, 0);
    rj_u64(o, key, 0);
    rj_num_at(o, key, &d);
    rj_copy(o, key, text, sizeof text);
    rj_true(o, key);
    rj_str(o, key, "");
    rj_text(o, key);
    rj_len(o, key);
    json_object *v = rj_get(o, key);
    if (!v || depth > 3)
        return;
    rj_value_text(v);
    if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, k, child) {
            (void)child;
            visit(v, k, depth + 1);
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n && i < 16; i++) {
            json_object *e = json_object_array_get_idx(v, i);
            if (!json_object_is_type(e, json_type_object))
                continue;
            json_object_object_foreach(e, k, c) {
                (void)c;
                visit(e, k, depth + 1);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_object *root = rj_load(fuzz_write("summary.json", data, size));
    if (!root)
        return 0;
    static const char *const keys[] = { "ops", "states", "seed", "classes", "fs", "time_per_op_us",
                                        "discrepancies", "known_not_seen", "vts", "hosts" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        visit(root, keys[i], 0);
    if (json_object_is_type(root, json_type_object)) {
        json_object_object_foreach(root, k, v) {
            (void)v;
            visit(root, k, 0);
        }
    }
    json_object_put(root);
    return 0;
}
