#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common/plain.h"

static bool plain;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_switch(void)
{
	const char *v = getenv("TD_PLAIN");
	plain = v && *v && strcmp(v, "0") != 0;
}

bool td_plain(void)
{
	pthread_once(&once, read_switch);
	return plain;
}
