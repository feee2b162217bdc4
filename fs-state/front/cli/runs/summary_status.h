/* Marks a run's summary.json interrupted when the stop signal came between two of its searches. */
#ifndef METIS_SUMMARY_STATUS_H
#define METIS_SUMMARY_STATUS_H

/* Rewrites the status and reason that open out/summary.json (the finished search wrote it
 * believing the run went on); 0, or -1 when it cannot be read or written. */
int summary_mark_interrupted(const char *out, const char *reason);

#endif
