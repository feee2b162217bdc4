/* Small file and text helpers shared by the front end, the swarm and the run report. */
#ifndef METIS_UTIL_H
#define METIS_UTIL_H

#include <stddef.h>

int mkdir_p(const char *path);                 /* like mkdir -p; 0 or -1 with errno */
int copy_file(const char *from, const char *to);
/* s as the inside of a JSON string (quotes, backslashes and control characters escaped). */
void json_escape(const char *s, char *out, size_t len);

#endif
