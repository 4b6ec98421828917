/* libpq through dlopen (pq.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "store/pq.h"

#define PQ_LIBRARY "libpq.so.5"

struct pq_functions pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_error[512];      /* empty when libpq loaded */

static void pq_open(void)
{
	void *lib = dlopen(PQ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(pq_error, sizeof pq_error, "PostgreSQL needs libpq (Debian package libpq5): %s", dlerror());
		return;
	}
	/* POSIX: a function pointer is read from dlsym's void * this way */
#define PQ_RESOLVE(name)                                                                                      \
	if (!(*(void **)&pq.name = dlsym(lib, #name))) {                                                      \
		snprintf(pq_error, sizeof pq_error, "PostgreSQL: %s has no %s (libpq 14 or newer is needed)",        \
			 PQ_LIBRARY, #name);                                                                   \
		return;                                                                                        \
	}
	PQ_FUNCTIONS(PQ_RESOLVE)
#undef PQ_RESOLVE
}

int pq_load(char *err, size_t errlen)
{
	pthread_once(&pq_once, pq_open);
	if (!pq_error[0])
		return 0;
	snprintf(err, errlen, "%s", pq_error);
	return -1;
}
