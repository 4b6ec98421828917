# tdkit: one static library of shared code, one thin binary per tool.
# Out-of-tree builds: make O=DIR puts objects in DIR/build and tools in DIR/bin.

O        ?= .
BUILD    := $(O)/build
BIN      := $(O)/bin
PREFIX   ?= /usr/local
SHARED   ?= $(abspath ../shared)
VERSION  := 0.1.0

CC       ?= cc
CFLAGS   ?= -O2 -g -flto=auto
WARN     := -Wall -Wextra
CPPFLAGS += -D_GNU_SOURCE -DTD_VERSION='"$(VERSION)"' -I. -I/usr/include/postgresql
LDLIBS   := -lzstd -lz -lxxhash -lelf -ldw -liberty -lpthread -lm

LIB_SRC  := $(sort $(wildcard common/*.c parsers/*.c analysis/*.c reports/*.c store/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOLS    := $(patsubst filters/%.c,$(BIN)/%,$(sort $(wildcard filters/td-*.c)))
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(sort $(wildcard tests/unit/*.c)))
FUZZERS  := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
MANPAGES := $(sort $(wildcard man/*.1))

.PHONY: deps all test check demo bench install asan asan-test fuzz fuzz-build clean
SHELL    := /bin/bash
all: $(TOOLS) $(UNITS) $(BUILD)/libtdcount.a $(BUILD)/tdcount-example

$(BUILD)/libtd.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

# td-store: its verbs (filters/td-store/cmd_*.c) and the database clients
STORE_VERBS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard filters/td-store/*.c)))
$(BIN)/td-store: $(BUILD)/filters/td-store.o $(STORE_VERBS) $(BUILD)/libtd.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lsqlite3 -ljansson

# libtdcount: counting inside a program (count/), event names through libpfm4
COUNT_LIB := $(BUILD)/libtdcount.a
$(BUILD)/count/tdcount.o: CFLAGS += -ffat-lto-objects   # linkable by any toolchain, with LTO or without
$(COUNT_LIB): $(BUILD)/count/tdcount.o
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/tdcount-example: $(BUILD)/count/example.o $(COUNT_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpfm

# td-collect: its modules (filters/td-collect/*.c), td-store's add verb for --store
COLLECT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard filters/td-collect/*.c)))
$(BIN)/td-collect: $(BUILD)/filters/td-collect.o $(COLLECT_OBJ) $(STORE_VERBS) $(BUILD)/libtd.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lsqlite3 -ljansson

# td-mcp: its modules (filters/td-mcp/*.c) over td-store's verbs, and an HTTP server
MCP_MODS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard filters/td-mcp/*.c)))
$(BIN)/td-mcp: $(BUILD)/filters/td-mcp.o $(MCP_MODS) $(STORE_VERBS) $(BUILD)/libtd.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lsqlite3 -ljansson -lmicrohttpd

$(BIN)/%: $(BUILD)/filters/%.o $(BUILD)/libtd.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit/%: $(BUILD)/tests/unit/%.o $(BUILD)/libtd.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# td-collect's peak kernels (the module is td-collect's, not the library's)
$(BUILD)/unit/test_peaks_kernels: $(BUILD)/filters/td-collect/peaks.o

-include $(LIB_OBJ:.o=.d) $(TOOLS:$(BIN)/%=$(BUILD)/filters/%.d) $(STORE_VERBS:.o=.d) $(COLLECT_OBJ:.o=.d) \
	 $(BUILD)/count/tdcount.d $(BUILD)/count/example.d $(MCP_MODS:.o=.d)

# Tests: TAP through prove. Shell tests find the tools through TD_BIN and the
# shared captures through TD_SHARED (skipped, with a reason, when absent).
TEST_ENV = TD_ROOT=$(CURDIR) TD_BIN=$(abspath $(BIN)) TD_BUILD=$(abspath $(BUILD)) \
           TD_SHARED=$(SHARED) TD_FUZZ_DIR=$(abspath build-fuzz) TD_SANITIZED=$(TD_SANITIZED) \
           $(foreach f,$(FUZZERS),TD_SEEDS_$(f)="$(abspath $(wildcard $(FUZZ_SEEDS_$(f:fuzz_%=%))))")
test check: all
	$(if $(SKIP_FUZZ),,@$(MAKE) --no-print-directory fuzz-build >/dev/null 2>&1 || echo "fuzz targets not built (clang with libFuzzer missing): fuzz tests will skip")
	$(TEST_ENV) prove $(PROVE_FLAGS) tests/*.t $(UNITS)

# ASan+UBSan build of tools and unit tests, and the same tests on it.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
asan:
	$(MAKE) O=build-asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" all
asan-test: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	$(MAKE) O=build-asan CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" SKIP_FUZZ=1 TD_SANITIZED=1 test

# libFuzzer targets, one per parser: build-fuzz/fuzz_NAME, linked against the
# library built once with clang's fuzzer instrumentation.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
# Inputs up to FUZZ_MAX_LEN bytes (FUZZ_MAX_LEN_NAME for one target): an
# execution costs about its input's length, and a few KiB hold every
# structure of the text formats (seeds longer are cut there). perf.data
# needs its header, attributes and data section in one input.
FUZZ_MAX_LEN ?= 4096
FUZZ_MAX_LEN_perf_data := 65536
# The stat targets at 2 KiB or 1 KiB: an execution costs more than its
# length there (a Top-down tree and the metrics per set, per interval); the
# longest line of the stat captures is 285 bytes; derive at 1 KiB and the
# others at 2 KiB reach the coverage they reach with more in equal CPU time
# (PERFORMANCE.md). flame: the longest line of its seeds is 466 bytes.
FUZZ_MAX_LEN_stat_plain    := 2048
FUZZ_MAX_LEN_derive        := 1024
FUZZ_MAX_LEN_derive_report := 2048
FUZZ_MAX_LEN_flame         := 1024
# ASan's quarantine of freed memory, smaller than its 256 MiB default: each
# execution then reuses the pages the last ones freed instead of faulting
# in new ones (a use after free within an execution is still caught).
FUZZ_ASAN_OPTIONS ?= quarantine_size_mb=16
# More libFuzzer options for make fuzz, e.g. -entropic=0 (a simpler input
# schedule: about twice the executions per CPU second on the stat targets).
FUZZ_RUN_FLAGS ?=
# ... and per target (FUZZ_RUN_FLAGS_NAME): on the stat and toplev targets,
# whose inputs each reach thousands of features, the entropic schedule's
# search of its rare features costs more than the target; without it they
# run more inputs and reach no less coverage (PERFORMANCE.md).
FUZZ_RUN_FLAGS_stat_plain    ?= -entropic=0
FUZZ_RUN_FLAGS_derive        ?= -entropic=0
FUZZ_RUN_FLAGS_derive_report ?= -entropic=0
FUZZ_RUN_FLAGS_toplev        ?= -entropic=0
# Comparison tracing (trace-cmp: libFuzzer records both operands of every
# integer compare, to mutate towards them) only in the code that reads binary
# input or raw numbers (perf.data, td-store's values, perf_expr). In the text
# readers its hooks run on every byte compare, took 30-35 % of the CPU and
# fed the mutator nothing (a 1-byte compare only feeds -use_value_profile;
# keywords reach it through the strcmp/memcmp hooks, which stay). Edge
# coverage stays on everywhere. The fuzz objects depend on this Makefile, so
# a change of these flags rebuilds them.
FUZZ_KEEP_CMP := parsers/perf_data.c analysis/perf_expr.c analysis/trend.c $(wildcard store/*.c)
ifdef FUZZ_NO_CMP
$(filter-out $(FUZZ_KEEP_CMP:%.c=$(BUILD)/%.o),$(LIB_OBJ)): override CFLAGS += -fno-sanitize-coverage=trace-cmp
$(LIB_OBJ): Makefile
endif
fuzz-build:
	@$(MAKE) --no-print-directory O=build-fuzz CC=$(FUZZ_CC) CFLAGS="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" FUZZ_NO_CMP=1 build-fuzz/build/libtd.a
	$(if $(FUZZERS),@$(MAKE) --no-print-directory $(FUZZERS:%=build-fuzz/%))
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c build-fuzz/build/libtd.a
	$(FUZZ_CC) -std=c11 $(CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)
# td-mcp's reader and protocol (its tools are stubs in the target)
build-fuzz/fuzz_mcp: tests/fuzz/fuzz_mcp.c filters/td-mcp/reader.c filters/td-mcp/protocol.c filters/td-mcp/tools.c \
		     filters/td-mcp/resources.c build-fuzz/build/libtd.a
	$(FUZZ_CC) -std=c11 $(CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS) -ljansson
# Seeds: tests/fuzz/seeds/NAME, and the real captures of the target's
# format, read in place (the repository's testdata and $(SHARED)/testdata;
# absent directories are left out).
STAT_CAPTURES   := testdata/stat testdata/toplev testdata/diff $(addprefix $(SHARED)/testdata/,stat stat_csv stat_json stat_text)
BRANCH_CAPTURES := $(addprefix $(SHARED)/testdata/,brstack spe)
FUZZ_SEEDS_stat         := $(STAT_CAPTURES)
FUZZ_SEEDS_stat_plain   := tests/fuzz/seeds/stat $(STAT_CAPTURES)
FUZZ_SEEDS_derive       := tests/fuzz/seeds/stat $(STAT_CAPTURES)
FUZZ_SEEDS_derive_report := tests/fuzz/seeds/stat $(STAT_CAPTURES)
FUZZ_SEEDS_toplev       := testdata/toplev
FUZZ_SEEDS_brstack      := $(BRANCH_CAPTURES)
FUZZ_SEEDS_brstack_plain := tests/fuzz/seeds/brstack $(BRANCH_CAPTURES)
FUZZ_SEEDS_spe          := tests/fuzz/seeds/brstack $(SHARED)/testdata/spe
FUZZ_SEEDS_script       := testdata/fold $(SHARED)/testdata/script_callchain
FUZZ_SEEDS_folded       := testdata/diff testdata/fold
FUZZ_SEEDS_perf_data    := testdata/perfdata $(SHARED)/testdata/perfdata
fuzz: fuzz-build
	@$(MAKE) --no-print-directory $(FUZZERS:%=fuzz-run-%)
fuzz-run-fuzz_%:
	@mkdir -p build-fuzz/corpus-fuzz_$*
	@echo "== fuzz_$* ($(FUZZ_SECONDS)s)"
	@ASAN_OPTIONS=$(FUZZ_ASAN_OPTIONS) build-fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) \
	  -max_len=$(or $(FUZZ_MAX_LEN_$*),$(FUZZ_MAX_LEN)) -artifact_prefix=build-fuzz/ -print_final_stats=1 $(FUZZ_RUN_FLAGS_$*) $(FUZZ_RUN_FLAGS) build-fuzz/corpus-fuzz_$* \
	  $(wildcard tests/fuzz/seeds/$*) $(wildcard $(FUZZ_SEEDS_$*)) 2>&1 | \
	  grep -E '^stat::number_of_executed_units|^Done|==[0-9]+== ?ERROR|^SUMMARY: |^#[0-9]+[[:space:]]+DONE'; test $${PIPESTATUS[0]} -eq 0

deps:
	@sh scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh "$(abspath $(BIN))" "$(SHARED)"

bench: all
	@sh scripts/bench.sh "$(abspath $(BIN))" "$(SHARED)"

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin
	$(if $(MANPAGES),install -m 644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 count/tdcount.h $(DESTDIR)$(PREFIX)/include
	install -m 644 $(COUNT_LIB) $(DESTDIR)$(PREFIX)/lib
	install -m 644 man/tdcount.3 $(DESTDIR)$(PREFIX)/share/man/man3

clean:
	rm -rf build bin build-asan build-fuzz
