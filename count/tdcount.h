/* libtdcount: count hardware and software events around a block of code,
 * from inside the program (a benchmark harness, a CI test), and print them
 * as perf stat -x, lines that td-derive, td-diff and td-store read.
 *
 *     tdcount *t = tdcount_open("cycles,instructions,task-clock,page-faults", err, sizeof err);
 *     tdcount_start(t);            // reset and enable the group
 *     work();
 *     tdcount_stop(t);             // disable
 *     tdcount_write(t, stderr);    // "1234567,,cycles,830114,100.00,,"
 *     tdcount_close(t);
 *
 * Event names are encoded by libpfm4 (the library PAPI builds on): perf's
 * generic names (cycles, instructions, branch-misses, task-clock,
 * page-faults, context-switches ...) and the CPU's own (INST_RETIRED.ANY,
 * de_no_dispatch_per_slot.no_ops_from_frontend ...) all work. The events
 * are one perf_event_open group on the calling thread (pid 0, any CPU),
 * so they are enabled and disabled together; an event the machine does not
 * have is kept as "not supported" (a VM without a PMU), not an error.
 * Counts are read with time_enabled and time_running: a multiplexed count
 * is scaled (value * enabled / running, as perf does) and its share of
 * time counted (running / enabled) says how far to trust it.
 *
 * Kernel and user space are counted where perf_event_paranoid allows it,
 * else user space only: the event is then named with ":u", as perf names
 * a user-only count. Costs: open is one system call per event; start and
 * stop one ioctl each; read one per event. Not thread-safe: one tdcount
 * per thread. */
#ifndef TDCOUNT_H
#define TDCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdcount tdcount;

struct tdcount_value {
	const char *name;          /* as given, ":u" added for a user-space-only count */
	bool supported;            /* false: the machine has no such event (or may not count it) */
	bool counted;              /* false: never scheduled (time_running 0) */
	uint64_t raw;              /* the count as read */
	uint64_t time_enabled, time_running;   /* ns */
	double value;              /* raw * enabled / running; task-clock and cpu-clock in ns */
	double running_share;      /* running / enabled: 1 exact, less when multiplexed */
};

/* Opens a comma-separated list of events; NULL with the reason in err
 * when a name is unknown to libpfm4, the list is empty, or no event at all
 * can be opened (perf_event_open's reason). */
tdcount *tdcount_open(const char *events, char *err, size_t errlen);

/* Reset and enable (start), disable (stop): 0, or -1 with errno. */
int tdcount_start(tdcount *t);
int tdcount_stop(tdcount *t);

/* The events' values (the last stop, or now while running), in the order
 * given; returns their number (at most max filled). */
int tdcount_read(tdcount *t, struct tdcount_value *out, int max);

/* perf stat -x, lines, one per event, then duration_time (the wall time
 * between start and stop): td-derive reads them as a perf stat run.
 * Returns 0, or -1 when the stream fails. */
int tdcount_write(tdcount *t, FILE *f);

void tdcount_close(tdcount *t);

#ifdef __cplusplus
}
#endif

#endif
