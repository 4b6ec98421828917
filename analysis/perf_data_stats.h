/* What a perf.data file holds, counted over its records: records per type,
 * samples, periods, callchains and branch entries per event, lost events,
 * the samples' time span (td-info's summary). */
#ifndef TD_PERF_DATA_STATS_H
#define TD_PERF_DATA_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "parsers/perf_data.h"

#define PD_STATS_NTYPES 256

struct pd_stats {
	unsigned long records[PD_STATS_NTYPES], other_records, compressed_inner;
	/* per event (attr index), nattrs of them: events past it had no sample */
	unsigned long *samples, *callchains, *branch_samples;
	unsigned long long *periods, *branch_entries;
	unsigned long long lost, lost_samples;
	uint64_t first_time, last_time;   /* of the samples with a time, when has_time */
	bool has_time;
	int nattrs;
};

/* Counts one record (a perf_data_walk callback's record) into st (zeroed
 * to start). */
void pd_stats_add(struct pd_stats *st, const struct perf_data *d, const struct pd_record *r);
void pd_stats_free(struct pd_stats *st);

#endif
