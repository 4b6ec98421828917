/* Unit tests of where one perf stat run ends and the next begins, as the
 * model sees them: "# started on" (perf -o --append), a repeated
 * --metric-only header (but not the one -I repeats every 25 intervals),
 * and a new file; and the labels of the runs. Prints TAP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/stat_model.h"
#include "parsers/stat.h"
#include "tests/unit/tap.h"

/* Writes text to a temporary file named after what it is (synthetic). */
static void write_file(char *path, size_t cap, const char *name, const char *text)
{
	snprintf(path, cap, "/tmp/td-unit-%d-%s", (int)getpid(), name);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* The value perf printed with this unit in this run, NaN if none. */
static double printed(const struct stat_model *m, int session, const char *unit)
{
	for (int i = 0; i < m->nperf; i++)
		if (m->perf[i].session == session && strcmp(m->perf[i].unit, unit) == 0)
			return m->perf[i].value;
	return NAN;
}

static void read_into(struct stat_model *m, const char *path)
{
	stat_read(path, STAT_AUTO, stat_model_add, m);
}

int main(void)
{
	const char *root = getenv("TD_ROOT") ? getenv("TD_ROOT") : ".";
	char path[512], path2[512], label[600];
	struct stat_model m;

	/* perf stat -x, --metric-only twice into one file, without -o's header */
	write_file(path, sizeof path, "synthetic-metric-only-two-runs.csv",
		   "GHz,insn per cycle,\n3.10,1.52,\nGHz,insn per cycle,\n2.95,0.97,\n");
	stat_model_init(&m);
	read_into(&m, path);
	stat_model_finish(&m);
	ok(m.session == 1, "--metric-only: the repeated header starts a second run");
	ok(printed(&m, 0, "insn per cycle") == 1.52 && printed(&m, 1, "insn per cycle") == 0.97,
	   "--metric-only: each run keeps its own values");
	stat_model_free(&m);
	unlink(path);

	/* -I repeats the header every 25 intervals: one run */
	write_file(path, sizeof path, "synthetic-metric-only-interval-header-again.csv",
		   "time,GHz,insn per cycle,\n1.000,3.10,1.52,\n2.000,3.00,1.50,\n"
		   "time,GHz,insn per cycle,\n3.000,2.95,0.97,\n");
	stat_model_init(&m);
	read_into(&m, path);
	stat_model_finish(&m);
	ok(m.session == 0 && m.intervals == 3, "--metric-only -I: the header again is no new run");
	stat_model_free(&m);
	unlink(path);

	/* a real capture: perf stat -x, -o F, then --append */
	snprintf(path, sizeof path, "%s/testdata/stat/local-kvm_swevents_csv_-x,-append.csv", root);
	stat_model_init(&m);
	read_into(&m, path);
	stat_model_finish(&m);
	ok(m.session == 1 && m.nsets == 2, "--append: two runs, a set each");
	const struct counter_set *r1 = stat_model_find(&m, false, 0, -1, "", "");
	const struct counter_set *r2 = stat_model_find(&m, false, 1, -1, "", "");
	ok(r1 && r2 && counter_set_get(r1, "task-clock")->value == 0.82 &&
		   counter_set_get(r2, "task-clock")->value == 468.79,
	   "--append: 0.82 and 468.79 ms of task-clock, not their mean");
	ok(strcmp(stat_model_run_label(&m, 1, label, sizeof label), "run2") == 0, "one file: runs labelled run1, run2");

	/* a second file into the same model: its own run, labelled with its name */
	write_file(path2, sizeof path2, "synthetic-one-run.csv", "12.5,msec,task-clock,12500000,100.00,0.9,CPUs utilized\n");
	read_into(&m, path2);
	stat_model_finish(&m);
	ok(m.session == 2 && m.files == 2, "a second file is a run of its own");
	r2 = stat_model_find(&m, false, 2, -1, "", "");
	ok(r2 && counter_set_get(r2, "task-clock")->value == 12.5, "... with its own value");
	char want[600];
	snprintf(want, sizeof want, "%s run2", path);
	ok(strcmp(stat_model_run_label(&m, 1, label, sizeof label), want) == 0, "several files: FILE run2");
	ok(strcmp(stat_model_run_label(&m, 2, label, sizeof label), path2) == 0, "several files: a one-run file by its name");
	stat_model_free(&m);
	unlink(path2);
	return tap_done();
}
