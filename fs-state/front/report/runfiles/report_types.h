/* Where a run directory is, as report.html's tables and sections take it, apart from their functions so each includes only the type. */
#ifndef METIS_REPORT_TYPES_H
#define METIS_REPORT_TYPES_H

/* A run directory (absolute, resolved) and the path from report.html to it ("" or "vt-3/"). */
struct run_loc {
    const char *dir, *href_prefix;
};

#endif
