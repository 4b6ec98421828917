#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/diag.h"
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

/* ---- kallsyms, read ahead ----------------------------------------------------------- */

struct symbol_loader {
	const char *kallsyms_path;
	pthread_t thread;
	bool has_thread;
	pthread_mutex_t lock;
	pthread_cond_t read;             /* kallsyms were read */
	atomic_bool kallsyms_read;
	struct kallsyms *kallsyms;
};

static void *read_kallsyms(void *arg)
{
	struct symbol_loader *l = arg;
	struct kallsyms *k = kallsyms_load(l->kallsyms_path);
	pthread_mutex_lock(&l->lock);
	l->kallsyms = k;
	atomic_store_explicit(&l->kallsyms_read, true, memory_order_release);
	pthread_cond_broadcast(&l->read);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct symbol_loader *symbol_loader_start(const char *kallsyms_path)
{
	struct symbol_loader *l = td_calloc(1, sizeof(*l));
	l->kallsyms_path = kallsyms_path;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->read, NULL);
	if (pthread_create(&l->thread, NULL, read_kallsyms, l) == 0) {
		l->has_thread = true;
		return l;
	}
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->read);
	free(l);
	return NULL;
}

void symbol_loader_stop(struct symbol_loader *l)
{
	if (!l)
		return;
	if (l->has_thread)
		pthread_join(l->thread, NULL);
	kallsyms_free(l->kallsyms);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->read);
	free(l);
}

struct kallsyms *symbol_loader_kallsyms(struct symbol_loader *l)
{
	pthread_mutex_lock(&l->lock);
	while (!atomic_load_explicit(&l->kallsyms_read, memory_order_acquire))
		pthread_cond_wait(&l->read, &l->lock);
	struct kallsyms *k = l->kallsyms;
	l->kallsyms = NULL;
	pthread_mutex_unlock(&l->lock);
	return k;
}

bool symbol_loader_kallsyms_ready(struct symbol_loader *l)
{
	return atomic_load_explicit(&l->kallsyms_read, memory_order_acquire);
}
