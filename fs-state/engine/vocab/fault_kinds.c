/* Fault kinds, what a fault check finds, and the faulty device's arm command: the names config, traces and classes share. */
#include "engine/vocab/fault_kinds.h"
#include "engine/vocab/fsinfo.h"
#include "engine/vocab/opnames.h"
#include "engine/vocab/crash_modes.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[FAULT_NKINDS] = { "eio_write", "eio_read", "lost_write" };

int fault_kind_parse(const char *s)
{
    for (int k = 0; k < FAULT_NKINDS; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

const char *fault_kind_name(enum fault_kind k)
{
    return (unsigned)k < FAULT_NKINDS ? kind_names[k] : "?";
}

/* The test hook's loss is every write from the drawn one on, told by no flush: a device whose
 * write cache is gone, which no file system can see. */
void fault_arm_command(const struct fault_spec *s, char *out, size_t len)
{
    int lost = s->kind == FAULT_LOST_WRITE, silent = lost && s->silent;
    snprintf(out, len, "arm %s %s at=%llu%s", s->kind == FAULT_EIO_READ ? "read" : "write",
             lost ? "lost" : "eio", (unsigned long long)s->at,
             silent ? " silent" : lost ? " count=1" : "");
}

int fault_kinds_parse(const char *list, unsigned *bits, char *bad, size_t len)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list);
    *bits = 0;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = fault_kind_parse(w);
        if (k < 0) {
            snprintf(bad, len, "%s", w);
            return -1;
        }
        *bits |= 1u << k;
    }
    return 0;
}

static const struct { const char *name; unsigned kind; } found_names[] = {
    { "lost", FAULT_LOST }, { "partial", FAULT_PARTIAL }, { "fsck", FAULT_FSCK },
    { "errno", FAULT_ERRNO }, { "mount", FAULT_MOUNT }, { "stale", FAULT_STALE },
};

const char *fault_found_name(unsigned kinds)
{
    for (size_t i = 0; i < sizeof found_names / sizeof found_names[0]; i++)
        if (kinds & found_names[i].kind)
            return found_names[i].name;
    return "same";
}

void fault_found_list(unsigned kinds, char *out, size_t len)
{
    size_t used = 0;
    snprintf(out, len, "same");
    for (size_t i = 0; i < sizeof found_names / sizeof found_names[0] && used < len; i++)
        if (kinds & found_names[i].kind)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
                                     found_names[i].name);
}

static int found_one(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof found_names / sizeof found_names[0]; i++)
        if (strlen(found_names[i].name) == n && strncmp(s, found_names[i].name, n) == 0)
            return (int)found_names[i].kind;
    return -1;
}

int fault_found_parse(const char *s)
{
    int kinds = 0;
    if (strcmp(s, "same") == 0)
        return 0;
    for (;;) {
        size_t n = strcspn(s, ",");
        int k = found_one(s, n);
        if (k < 0)
            return -1;
        kinds |= k;
        if (!s[n])
            return kinds;
        s += n + 1;
    }
}

/* EIO: the device failed; EROFS: the fs stopped writing after an error (errors=remount-ro);
 * ENOSPC: a fs may give up an allocation it could not write. */
int fault_errno_allowed(int err)
{
    return err == EIO || err == EROFS || err == ENOSPC;
}
