/* Shared by the fuzz harnesses: the input as a file, stderr captured, the one-line-error check, and a trace's round trip. */
#ifndef METIS_FUZZ_COMMON_H
#define METIS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The directory the harness's files live in (made once, removed at exit). */
const char *fuzz_dir(void);
/* Writes data to fuzz_dir()/name and returns that path (static storage); aborts on failure. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);
/* data as a NUL-terminated string (malloc'd; the caller frees). */
char *fuzz_text(const uint8_t *data, size_t size);

/* A refusal's message must be one non-empty line: aborts (a crash the fuzzer keeps) when
 * msg is empty or holds a line break before its end. who names the parser. */
void fuzz_one_line(const char *who, const char *msg);

/* The input as a trace's records after its header ("metis-trace 1", "run ..."), through
 * trace_parse: a refusal must be one line; a trace it accepts, written back by trace_write,
 * must parse again and be written as the same bytes (aborts otherwise). 0 when accepted. */
int fuzz_trace_body(const uint8_t *data, size_t size);

/* Everything the parser writes to stderr between begin and end goes to a buffer instead;
 * end returns it (static storage, NUL-terminated, "" when nothing was written). */
void fuzz_stderr_begin(void);
const char *fuzz_stderr_end(void);

#endif
