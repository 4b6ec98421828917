/* td-info's views of a perf.data file: one record decoded per line
 * (--dump), the summary as text or one JSON document. */
#ifndef TD_PERF_DATA_INFO_H
#define TD_PERF_DATA_INFO_H

#include <stdio.h>
#include "analysis/perf_data_stats.h"

void pd_info_write_record(FILE *f, const struct perf_data *d, const struct pd_record *r);
void pd_info_write_text(FILE *f, const struct perf_data *d, const struct pd_stats *st);
void pd_info_write_json(FILE *f, const struct perf_data *d, const struct pd_stats *st);

#endif
