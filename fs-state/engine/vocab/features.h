/* Declared feature sets ([fs] lacks): the one vocabulary of what a file system may lack, and what each word leaves out of the state and the draw. */
#ifndef METIS_FEATURES_H
#define METIS_FEATURES_H

#include <stddef.h>
#include <stdint.h>
#include "engine/vocab/opnames.h"

/* What a set of lacked words takes out of a run, for every fs of it: the attributes no digest
 * shows (TREE_IGNORE_*), the operations and variants (opnames.h) never drawn, and whether the
 * mode draws leave out S_ISUID and S_ISGID (setid). An operation all of whose variants are
 * lacked is in ops too. */
struct lack_effect {
    unsigned ignore;
    uint64_t ops;               /* bit op_id */
    uint64_t variants;          /* bit variant id */
    int no_setid_draws;
};

/* Words of the vocabulary: ids 0 .. features_count()-1, in the documented order. */
int features_count(void);
const char *feature_word(int w);              /* "?" when out of range */
int feature_lookup(const char *word);         /* -1 if unknown */
/* One sentence of what word w removes, e.g. "fallocate punch_hole is never drawn". */
const char *feature_meaning(int w);

/* Parses a comma- or blank-separated list of words into *words (bit w). 0, or -1 with
 * "unknown word 'X' (valid: ...)" in err. */
int features_parse(const char *list, uint64_t *words, char *err, size_t errlen);
/* The union of what the words in *words remove. */
void features_effect(uint64_t words, struct lack_effect *out);
/* The word that declares op (with variant v, or -1) lacking, or NULL when none does (a plain
 * rename, a write: nothing a file system may leave out). */
const char *features_word_for(enum op_id op, int v);
/* The names of TREE_IGNORE_* bits, comma-separated, into out ("" for none). */
void features_ignore_text(unsigned ignore, char *out, size_t len);

#endif
