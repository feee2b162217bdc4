/* Small helpers of the swarm: spawning with redirections, rm -rf, shell quoting, host tags, the clock, this binary's path. */
#ifndef METIS_SWARM_UTIL_H
#define METIS_SWARM_UTIL_H

#include <stddef.h>
#include <sys/types.h>

pid_t swarm_spawn(char *const argv[], const char *in, const char *out, const char *err,
                  int own_group);
int swarm_rm_rf(const char *path);
void swarm_shell_quote(const char *s, char *out, size_t len);
void swarm_host_tag(const char *login, char *out, size_t len);
double swarm_now(void);
void swarm_self_exe(char *out, size_t len);

#endif
