/* The {name} placeholders of a command template ({mnt}, {img}, {bin}, {dir}, {dir:NAME}): checked, listed, expanded. */
#ifndef METIS_PLACEHOLDERS_H
#define METIS_PLACEHOLDERS_H

#include <stddef.h>

/*
 * A placeholder is '{', one or more of [A-Za-z0-9_:-], '}', not preceded by '$' (so the shell's
 * ${VAR}, brace lists {a,b} and {1..3}, find's {} and function bodies { ...; } are left alone). The known
 * ones are {mnt}, {img}, {bin}, {dir} (the directory named "dir") and {dir:NAME} with NAME of
 * [a-z0-9_], at most PH_NAME_MAX - 1 characters.
 */
#define PH_MAX_DIRS 4           /* directory names one file system's commands may use */
#define PH_NAME_MAX 32

struct ph_dirs {
    int n;
    char name[PH_MAX_DIRS][PH_NAME_MAX];
    int uses_img;               /* the template names {img} */
};

/* Adds the directory names tmpl uses to d (each once; call again for a second template).
 * 0, or -1 with a one-line reason in err (an unknown placeholder, a bad NAME, too many). */
int ph_scan(const char *tmpl, struct ph_dirs *d, char *err, size_t errlen);

/* The value of the placeholder name (the text between the braces), or NULL to keep it as is. */
typedef const char *(*ph_lookup_fn)(void *ctx, const char *name);

/* tmpl with every placeholder lookup knows replaced; 0, or -1 if out (outlen) is too short. */
int ph_expand(const char *tmpl, ph_lookup_fn lookup, void *ctx, char *out, size_t outlen);

/* The directory name a placeholder stands for ("dir" for {dir}, NAME for {dir:NAME}), or NULL
 * when name (the text between the braces) is not a directory placeholder. */
const char *ph_dir_name(const char *name);

#endif
