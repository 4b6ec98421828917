#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/diag.h"
#include "common/intern.h"
#include "common/grow.h"
#include "common/queue.h"
#include "symbol_loader.h"

/* ---- finding a binary's symbols --------------------------------------------------- */

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first path that holds the binary itself, with the recorded build id. */
static const char *runtime_file(const char *const *paths, int n, const char *build_id)
{
	for (int i = 0; i < n; i++) {
		char hex[41];
		if (paths[i] && is_file(paths[i]) && elf_file_build_id(paths[i], hex) && (!*build_id || strcmp(hex, build_id) == 0))
			return paths[i];
	}
	return NULL;
}

/* Symbols from the first readable candidate with the recorded build id
 * (any, when none was recorded) that has symbols, else the first with the
 * build id at all; PLT stubs from the first of runtime_paths. */
static struct elf_symbols *open_matching(const char *const *paths, int n, const char *const *runtime_paths, int nrun,
					 const char *build_id)
{
	struct elf_symbols *fallback = NULL;
	const char *runtime = runtime_file(runtime_paths, nrun, build_id);
	for (int i = 0; i < n; i++) {
		if (!paths[i] || !is_file(paths[i]))
			continue;
		struct elf_symbols *e = elf_symbols_try(paths[i], runtime);
		if (!e)
			continue;
		if (*build_id && strcmp(elf_symbols_build_id(e), build_id) != 0) {
			elf_symbols_close(e);
			continue;
		}
		if (elf_symbols_count(e) > 0) {
			elf_symbols_close(fallback);
			return e;
		}
		if (!fallback)
			fallback = e;
		else
			elf_symbols_close(e);
	}
	return fallback;
}

struct elf_symbols *symbol_places_load(const struct symbol_places *p, const char *name, const char *build_id,
				       bool vdso)
{
	char cache_debug[700] = "", cache_elf[700] = "", path[1200] = "";
	if (*build_id) {
		snprintf(cache_debug, sizeof cache_debug, "%s/.build-id/%.2s/%s/debug", p->buildid_dir, build_id, build_id + 2);
		snprintf(cache_elf, sizeof cache_elf, "%s/.build-id/%.2s/%s/%s", p->buildid_dir, build_id, build_id + 2,
			 vdso ? "vdso" : "elf");
	}
	if (!vdso)
		snprintf(path, sizeof path, "%s%s", p->symfs ? p->symfs : "", name);
	/* perf tries the binary's .gnu_debuglink first: the name as it is,
	 * then beside the binary, in .debug/ there, and under /usr/lib/debug */
	char link[256], dir[1200], linked[4][1600];
	const char *candidates[7] = { NULL, NULL, NULL, NULL, cache_debug, cache_elf, path };
	const char *slash = strrchr(path, '/');
	if (!vdso && slash && elf_file_debuglink(path, link, sizeof link)) {
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
		snprintf(linked[0], sizeof linked[0], "%s", link);
		snprintf(linked[1], sizeof linked[1], "%s/%s", dir, link);
		snprintf(linked[2], sizeof linked[2], "%s/.debug/%s", dir, link);
		snprintf(linked[3], sizeof linked[3], "/usr/lib/debug%s/%s", dir, link);
		for (int i = 0; i < 4; i++)
			candidates[i] = linked[i];
	}
	return open_matching(candidates, 7, candidates + 5, 2, build_id);
}

/* ---- the loading thread ----------------------------------------------------------- */

enum job_state { QUEUED, LOADING, DONE, TAKEN };

#define QUEUE_JOBS 1024          /* asked for and not begun; more are left to the caller */

struct job {
	char *name;
	char build_id[41];
	bool vdso;
	enum job_state state;
	struct elf_symbols *elf;
};

struct symbol_loader {
	struct symbol_places places;
	const char *kallsyms_path;
	pthread_t kallsyms_thread, thread;
	bool has_kallsyms_thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;          /* a job done, kallsyms read */
	pthread_mutex_t build;           /* held while a binary's table is built: one at a time, on */
					 /* whichever thread, bounds the building arrays' memory */
	struct td_queue queue;           /* jobs to read: their index + 1 */
	bool stop;
	atomic_bool kallsyms_read;
	struct kallsyms *kallsyms;
	struct td_intern *names;     /* name -> index into jobs */
	struct job *jobs;
	size_t njobs, jobs_cap;
};

/* The next job the queue hands out that nobody took meanwhile, LOADING
 * now; NULL when stopping. Takes the lock, and holds it on return. */
static struct job *next_job(struct symbol_loader *l)
{
	for (;;) {
		uintptr_t id = (uintptr_t)td_queue_pop(&l->queue);
		pthread_mutex_lock(&l->lock);
		if (id == 0 || l->stop)
			return NULL;
		struct job *j = &l->jobs[id - 1];
		if (j->state == QUEUED) {
			j->state = LOADING;
			return j;
		}
		pthread_mutex_unlock(&l->lock);
	}
}

/* Builds the table of job at, LOADING, on this thread while no other
 * thread builds one; the lock is held on entry and on return, and down
 * meanwhile (jobs may move then: the load works on copies). */
static void run_job(struct symbol_loader *l, size_t at)
{
	char build_id[41];
	memcpy(build_id, l->jobs[at].build_id, sizeof build_id);
	char *name = td_strndup(l->jobs[at].name, strlen(l->jobs[at].name));
	bool vdso = l->jobs[at].vdso;
	pthread_mutex_unlock(&l->lock);
	pthread_mutex_lock(&l->build);
	struct elf_symbols *e = symbol_places_load(&l->places, name, build_id, vdso);
	pthread_mutex_unlock(&l->build);
	free(name);
	pthread_mutex_lock(&l->lock);
	l->jobs[at].elf = e;
	l->jobs[at].state = DONE;
	pthread_cond_broadcast(&l->changed);
}

/* kallsyms on a thread of their own: samples with kernel frames can wait
 * for them (script_replay holds them back), the binaries' cannot. */
static void *read_kallsyms(void *arg)
{
	struct symbol_loader *l = arg;
	struct kallsyms *k = l->kallsyms_path ? kallsyms_load(l->kallsyms_path) : NULL;
	pthread_mutex_lock(&l->lock);
	l->kallsyms = k;
	atomic_store_explicit(&l->kallsyms_read, true, memory_order_release);
	pthread_cond_broadcast(&l->changed);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static void *read_binaries(void *arg)
{
	struct symbol_loader *l = arg;
	struct job *j;
	while ((j = next_job(l))) {
		run_job(l, (size_t)(j - l->jobs));
		pthread_mutex_unlock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct symbol_loader *symbol_loader_start(const char *kallsyms_path, const struct symbol_places *p)
{
	struct symbol_loader *l = td_calloc(1, sizeof(*l));
	l->places = *p;
	l->kallsyms_path = kallsyms_path;
	l->names = td_intern_new();
	pthread_mutex_init(&l->lock, NULL);
	pthread_mutex_init(&l->build, NULL);
	pthread_cond_init(&l->changed, NULL);
	td_queue_init(&l->queue, QUEUE_JOBS);
	if (pthread_create(&l->thread, NULL, read_binaries, l) != 0) {
		td_queue_destroy(&l->queue);
		pthread_mutex_destroy(&l->lock);
		pthread_mutex_destroy(&l->build);
		pthread_cond_destroy(&l->changed);
		td_intern_free(l->names);
		free(l);
		return NULL;
	}
	if (pthread_create(&l->kallsyms_thread, NULL, read_kallsyms, l) == 0)
		l->has_kallsyms_thread = true;
	else
		read_kallsyms(l);
	return l;
}

void symbol_loader_stop(struct symbol_loader *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_mutex_unlock(&l->lock);
	td_queue_close(&l->queue);
	pthread_join(l->thread, NULL);
	if (l->has_kallsyms_thread)
		pthread_join(l->kallsyms_thread, NULL);
	for (size_t i = 0; i < l->njobs; i++) {
		if (l->jobs[i].state == DONE)
			elf_symbols_close(l->jobs[i].elf);
		free(l->jobs[i].name);
	}
	free(l->jobs);
	kallsyms_free(l->kallsyms);
	td_intern_free(l->names);
	td_queue_destroy(&l->queue);
	pthread_mutex_destroy(&l->lock);
	pthread_mutex_destroy(&l->build);
	pthread_cond_destroy(&l->changed);
	free(l);
}

struct kallsyms *symbol_loader_kallsyms(struct symbol_loader *l)
{
	pthread_mutex_lock(&l->lock);
	while (!atomic_load_explicit(&l->kallsyms_read, memory_order_acquire))
		pthread_cond_wait(&l->changed, &l->lock);
	struct kallsyms *k = l->kallsyms;
	l->kallsyms = NULL;
	pthread_mutex_unlock(&l->lock);
	return k;
}

bool symbol_loader_kallsyms_ready(struct symbol_loader *l)
{
	return atomic_load_explicit(&l->kallsyms_read, memory_order_acquire);
}

void symbol_loader_want(struct symbol_loader *l, const char *name, const char *build_id, bool vdso)
{
	pthread_mutex_lock(&l->lock);
	uint32_t id = td_intern(l->names, name, strlen(name));
	if (id == l->njobs) {
		TD_ALLOC_GROW(l->jobs, l->njobs + 1, l->jobs_cap);
		struct job *j = &l->jobs[l->njobs++];
		*j = (struct job){ td_strndup(name, strlen(name)), "", vdso, QUEUED, NULL };
		snprintf(j->build_id, sizeof j->build_id, "%s", build_id);
		/* a full queue leaves the job to the caller (take() finds it QUEUED) */
		(void)td_queue_try_push(&l->queue, (void *)(uintptr_t)l->njobs);
	}
	pthread_mutex_unlock(&l->lock);
}

bool symbol_loader_asked(struct symbol_loader *l, const char *name)
{
	pthread_mutex_lock(&l->lock);
	bool asked = td_intern_find(l->names, name, strlen(name)) != UINT32_MAX;
	pthread_mutex_unlock(&l->lock);
	return asked;
}

bool symbol_loader_take(struct symbol_loader *l, const char *name, const char *build_id, struct elf_symbols **out)
{
	pthread_mutex_lock(&l->lock);
	uint32_t id = td_intern_find(l->names, name, strlen(name));
	bool taken = false;
	if (id != UINT32_MAX && strcmp(l->jobs[id].build_id, build_id) == 0) {
		if (l->jobs[id].state == QUEUED) {      /* not begun: read here, now */
			l->jobs[id].state = LOADING;
			run_job(l, id);
		}
		while (l->jobs[id].state == LOADING)
			pthread_cond_wait(&l->changed, &l->lock);
		if (l->jobs[id].state == DONE) {
			*out = l->jobs[id].elf;
			l->jobs[id].state = TAKEN;
			taken = true;
		}
	}
	pthread_mutex_unlock(&l->lock);
	return taken;
}
