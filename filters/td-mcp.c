/* td-mcp: tdkit's store, filters and explanations for AI assistants, over
 * the Model Context Protocol (stdio, or Streamable HTTP with a token). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/diag.h"
#include "common/opts.h"
#include "filters/td-mcp/mcp.h"
#include "filters/td-store/verbs.h"

struct mcp_config mcp_cfg;

static const char *opt_http, *opt_token_file, *opt_new_token;
static bool opt_allow_remote, opt_allow_collect;
static long opt_max_message = 4 << 20, opt_timeout = 120;
static const char *origins[16];
static int norigins;

static int allow_dir(const char *arg, void *data)
{
	(void)data;
	char *real = realpath(arg, NULL);
	struct stat st;
	if (!real || stat(real, &st) || !S_ISDIR(st.st_mode)) {
		td_error("--allow-dir %s: %s", arg, real ? "not a directory" : strerror(errno));
		free(real);
		return -1;
	}
	if (mcp_cfg.nallow_dir == MCP_MAX_ALLOW_DIRS)
		return -1;
	mcp_cfg.allow_dir[mcp_cfg.nallow_dir++] = real;
	return 0;
}

static int allow_origin(const char *arg, void *data)
{
	(void)data;
	if (norigins == 16)
		return -1;
	origins[norigins++] = arg;
	return 0;
}

static const struct td_option options[] = {
	{ 0, "http", TD_OPT_STRING, &opt_http, "HOST:PORT", "Streamable HTTP on HOST:PORT (POST /mcp) instead of stdio; needs --token-file", NULL },
	{ 0, "token-file", TD_OPT_STRING, &opt_token_file, "FILE", "HTTP: the bearer token clients must send (the file's first line)", NULL },
	{ 0, "new-token", TD_OPT_STRING, &opt_new_token, "FILE", "write a new random token to FILE (mode 0600, a new file) and exit", NULL },
	{ 0, "allow-remote", TD_OPT_FLAG, &opt_allow_remote, NULL, "HTTP: allow a HOST that is not a loopback address", NULL },
	{ 0, "allow-origin", TD_OPT_CALLBACK, NULL, "ORIGIN", "HTTP: also accept requests with this Origin header (repeatable)", allow_origin },
	{ 0, "allow-dir", TD_OPT_CALLBACK, NULL, "DIR", "fold_top and branches_top may read files under DIR (repeatable)", allow_dir },
	{ 0, "allow-collect", TD_OPT_FLAG, &opt_allow_collect, NULL, "offer the collect tool (runs td-collect, which runs perf)", NULL },
	{ 0, "max-message", TD_OPT_INT, &opt_max_message, "BYTES", "refuse longer messages (default 4194304)", NULL },
	{ 0, "timeout", TD_OPT_INT, &opt_timeout, "SECONDS", "stop a tool that runs longer (default 120; collect: its duration + 60)", NULL },
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-mcp", "[--db URL] [--allow-dir DIR]... [--allow-collect] [--http HOST:PORT --token-file FILE]",
	"An MCP server: the run store, td-derive, td-fold, td-branches and td-explain as tools for AI assistants.",
	options,
	"Reads JSON-RPC messages on stdin (one per line), or HTTP POSTs with --http; runs from the store --db names.",
};

static int new_token(const char *path)
{
	unsigned char raw[32];
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		td_die("no random bytes: %s", strerror(errno));
	char hex[2 * sizeof raw + 2];
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	strcat(hex, "\n");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		td_error("--new-token %s: %s%s", path, strerror(errno), errno == EEXIST ? " (a token is never overwritten: remove it first)" : "");
		return TD_EXIT_BAD;
	}
	if (write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex) || close(fd)) {
		td_error("--new-token %s: %s", path, strerror(errno));
		return TD_EXIT_BAD;
	}
	return TD_EXIT_OK;
}

/* The token: the first line of the file, at least 16 characters. */
static char *read_token(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		td_error("--token-file %s: %s", path, strerror(errno));
		return NULL;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);
	fclose(f);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
		line[--n] = 0;
	if (n < 16) {
		td_error("--token-file %s: the token must be at least 16 characters (td-mcp --new-token FILE makes one)", path);
		free(line);
		return NULL;
	}
	return line;
}

static const char *bin_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0)
		return ".";
	dir[n] = 0;
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return dir;
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	if (n)
		td_usage_error(&cmd, "td-mcp takes no operands");
	if (td_bad_input_count())
		return TD_EXIT_BAD;
	if (opt_new_token)
		return new_token(opt_new_token);
	if (opt_max_message < 1024 || opt_timeout < 1)
		td_usage_error(&cmd, "--max-message: 1024 bytes or more; --timeout: 1 second or more");
	mcp_cfg.db = verb_db;
	mcp_cfg.allow_collect = opt_allow_collect;
	mcp_cfg.max_message = (size_t)opt_max_message;
	mcp_cfg.tool_timeout_s = (double)opt_timeout;
	mcp_cfg.bin_dir = bin_dir();
	if (!opt_http) {
		if (opt_token_file || opt_allow_remote || norigins)
			td_usage_error(&cmd, "--token-file, --allow-remote and --allow-origin go with --http");
		return mcp_serve_stdio();
	}
	if (!opt_token_file)
		td_usage_error(&cmd, "--http needs --token-file FILE (td-mcp --new-token FILE makes one)");
	char *token = read_token(opt_token_file);
	if (!token)
		return TD_EXIT_BAD;
	int rc = mcp_serve_http(opt_http, token, opt_allow_remote, origins, norigins);
	free(token);
	return rc;
}
