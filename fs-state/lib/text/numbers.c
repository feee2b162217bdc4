/* The number parsers, one per meaning (numbers.h). */
#include "numbers.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int parse_decimal_u64(const char *s, uint64_t *v)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

int parse_u64_any_base(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || !isdigit((unsigned char)s[0]) || *end)
        return -1;
    *v = x;
    return 0;
}

int parse_canonical_u64(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    if (!*s || (s[0] == '0' && s[1]))
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return 0;
}
