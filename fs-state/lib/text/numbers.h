/* The number parsers, one per meaning: which texts each accepts is in its name. */
#ifndef METIS_NUMBERS_H
#define METIS_NUMBERS_H

#include <stdint.h>

/* Decimal digits only (no sign, no spaces, no junk after), within 64 bits: config values and
 * the swarm's options. 0, or -1 with *v untouched. */
int parse_decimal_u64(const char *s, uint64_t *v);
/* A command-line number in any base strtoull knows (42, 0x2a, 052), without a leading '-'
 * and within 64 bits: run and record options, where seeds are often written in hex. */
int parse_u64_any_base(const char *s, uint64_t *v);
/* Canonical decimal: digits only and no leading zero (but "0" itself), so that each number
 * has exactly one text, as a trace writes it. */
int parse_canonical_u64(const char *s, uint64_t *v);

#endif
