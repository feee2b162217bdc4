/* Whether fusectl is mounted, the one way to end a FUSE call whose daemon cannot be killed. */
#include "fusectl.h"
#include <sys/statfs.h>

enum { FUSECTL_MAGIC = 0x65735543 };    /* Linux's FUSE_CTL_SUPER_MAGIC */

int fusectl_mounted(void)
{
    struct statfs st;
    return statfs(FUSECTL_DIR, &st) == 0 && st.f_type == FUSECTL_MAGIC;
}
