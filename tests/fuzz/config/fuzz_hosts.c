/* Fuzz harness of the swarm's hosts-file parser (front/swarm/launch/hosts.c): a refusal is one line on stderr. */
#include "fuzz_common.h"
#include "front/swarm/swarm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct swarm s;
    const char *path = fuzz_write("hosts", data, size);
    fuzz_stderr_begin();
    int rc = swarm_hosts_load(&s, path);
    const char *said = fuzz_stderr_end();
    if (rc < 0)
        fuzz_one_line("swarm_hosts_load", said);
    return 0;
}
