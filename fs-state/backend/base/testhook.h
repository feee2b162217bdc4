/* The backends' test hook (METIS_TEST_KILL_DAEMON): a daemon's death where a tree is read. */
#ifndef METIS_BACKEND_TESTHOOK_H
#define METIS_BACKEND_TESTHOOK_H

#include "backend/base/backend_types.h"

/* With METIS_TEST_KILL_DAEMON=FS:STEP:N, kills fs FS's daemon at the Nth call naming STEP
 * ("read-back", "save", "restore", "restore: after replay", ...); else does nothing. */
void bk_test_kill_hook(struct backend *b, const char *step);

#endif
