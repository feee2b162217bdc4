/* The blocks written to a loop device, as the kernel's block_bio_queue tracepoint saw them, in a tracing instance of the run's own: what changed in an image since it was last kept, without comparing all of it. */
#ifndef METIS_WRITE_TRACE_H
#define METIS_WRITE_TRACE_H

#include <stddef.h>

/*
 * The instance is /sys/kernel/tracing/instances/metis-<run id>-loop<N>, its one event the
 * bios queued on /dev/loop<N> that are not reads (writes, discards, write-zeroes), so the
 * kernel does the filtering. A write made to the image file itself (not through the device)
 * is not seen: the caller must know there was none. Events the ring buffer lost make the
 * next take say so, never a short set. backend_sweep removes what a killed run left.
 */
struct write_trace;

/* Starts tracing writes to /dev/loop<loopnr> for blocks of block_size in an image of nblocks.
 * NULL with err set (no tracefs, not allowed, no memory, or the test hook
 * METIS_TEST_WRITE_TRACE=off): the caller compares whole images. With
 * METIS_TEST_WRITE_TRACE=miss[:N] it sees no write from its Nth take on (the tests that its
 * images are checked). */
struct write_trace *write_trace_open(const char *run_id, int loopnr, size_t nblocks,
                                     size_t block_size, char *err, size_t errlen);
/* Reads what the kernel logged since the last call into the trace's own set; cheap, so that
 * the ring buffer never fills between takes. 0, or -1 when events were lost (or unreadable):
 * the next take then fails. */
int write_trace_drain(struct write_trace *t);
/* The blocks written since the last take (dirty[i] = 1 for block i; the others untouched),
 * then forgotten: 0, or -1 when the trace cannot vouch for the set (events lost since the last
 * take, a line not understood, or the instance turned off or changed from outside), err saying
 * why. The device must be quiet (nothing in flight) for the set to be whole. */
int write_trace_take(struct write_trace *t, unsigned char *dirty, char *err, size_t errlen);
/* Stops the event and removes the instance; NULL is fine. */
void write_trace_close(struct write_trace *t);
/* Removes every tracing instance run_id (a safe name: bk_safe_name) left, a killed run's, this
 * process's own too (their readers closed first); how many. */
int write_trace_sweep(const char *run_id);
/* fn(ctx, id) for each run id a tracing instance is named for (the sweep of dead runs). */
void write_trace_each_run(void (*fn)(void *ctx, const char *run_id), void *ctx);

#endif
