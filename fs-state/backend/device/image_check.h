/* The format's read-only checker run on an unmounted image file: crash copies and images after a fault. */
#ifndef METIS_IMAGE_CHECK_H
#define METIS_IMAGE_CHECK_H

#include <stddef.h>
#include "backend/base/backend_types.h"

/* Runs checker (crash_modes.h's crash_checker: "e2fsck -fn", ...) on the image file path:
 * 0 clean, 1 damaged (why holds the exit status and its first finding), -1 when the checker
 * could not run or timed out (b->err). */
int bk_image_check(struct backend *b, const char *checker, const char *path, char *why,
                   size_t len);
/* The same without a backend, safe in a thread of its own: -1 with the reason in why. */
int bk_image_check_text(double timeout, const char *checker, const char *path, char *why,
                        size_t len);

#endif
