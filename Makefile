# locksim — one Makefile. Settings first, then the rules.
#
#   make deps     install what is missing (Debian packages, apt-get)
#   make          build build/locksim
#   make run      deps + build + the smoke suite on the embedded fake, and its report
#   make test     deps + build + every test (unit, conformance, scenarios)
#   make bench    deps + build + the benchmark (ratios side by side)
#   make clean
#   make fuzz     clang + libFuzzer: each fuzz target for FUZZ_SECONDS (build-fuzz/)
#   make fuzz-long  fuzz_sim for FUZZ_EXECS executions (10^6) on the LSan build
#                 (build-fuzz-lite/), then its corpus under ASan
#   make hunt-quality  precision of the correct locks' hunts within their
#                 contracts (QUALITY_SEEDS, 1..2000) and recall of hunt BUGGY
#                 --against FIXED (RECALL_SEEDS, 1..10000); long
#   make hunt     the known-bug table: each known bug hunted on its protocol
#                 (HUNT_SEEDS, 1..10000) and on its fixed version (HUNT_FIXED_SEEDS,
#                 1..100000); long, out/hunt/table.txt; HUNT_ROW_SECONDS=S boxes each hunt
#   SAN=1         AddressSanitizer + UndefinedBehaviorSanitizer build (build-san/)

CC      ?= cc
SAN     ?= 0
OPT     ?= -O2
PKGS     = lua5.1 lua5.1-bitop lua5.1-cjson hiredis check inih libfiu libxxhash nettle jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# jemalloc (what Redis itself allocates with) speeds up the fake's many
# small allocations; the sanitizer builds keep ASan's allocator. FUZZ=1 is
# the clang + libFuzzer build that `make fuzz` uses.
FUZZ    ?= 0
FUZZ_SECONDS ?= 60
# Both check the simulator's O(n) invariants too (SIM_PARANOID: sim_paranoid
# in sim/kernel/sim.h).
# FUZZ_ASAN=0 trades AddressSanitizer for LeakSanitizer alone (UBSan as traps, the
# paranoid checks, assertions and leak checks stay): fuzz_sim runs about
# four times as many executions, and the corpus they grow is replayed
# under the ASan build afterwards (tools/fuzz-sim-long.sh).
FUZZ_ASAN ?= 1
ifeq ($(FUZZ)$(FUZZ_ASAN),10)
BUILD   := build-fuzz-lite
CC      := clang
SANFLAGS = -fsanitize=leak,undefined,fuzzer-no-link -fsanitize-trap=undefined -fno-omit-frame-pointer
PARANOID = -DSIM_PARANOID
MALLOC_LIBS =
else ifeq ($(FUZZ),1)
BUILD   := build-fuzz
CC      := clang
SANFLAGS = -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=all
PARANOID = -DSIM_PARANOID
MALLOC_LIBS =
else ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PARANOID = -DSIM_PARANOID
MALLOC_LIBS =
else
BUILD   := build
SANFLAGS =
PARANOID =
MALLOC_LIBS = $(shell pkg-config --libs jemalloc 2>/dev/null)
endif

# The simulator's deep layers see no input bytes: comparison tracing (which
# steers libFuzzer towards the constants an input is compared with) only
# slows them (a third of fuzz_sim's time). The parser, the fake (the Lua
# target) and the reply path (resp) keep it.
ifeq ($(FUZZ),1)
NO_CMP_DIRS = sim/kernel sim/world sim/history protocols sim/checkers sim/engine faults reports
$(foreach d,$(NO_CMP_DIRS),$(eval $(BUILD)/$(d)/%.o: CFLAGS += -fno-sanitize-coverage=trace-cmp))
endif

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) $(SANFLAGS) $(PARANOID) -MMD -MP \
           -I. -I$(BUILD)/gen $(PKG_CFLAGS)
LDFLAGS += $(SANFLAGS)
LDLIBS  += $(PKG_LIBS) $(MALLOC_LIBS) -lm

# Sources by wildcard per folder, one folder per layer, in the order the
# data flows (each includes only from folders before it: tests/layers.sh).
# sim/cli/main.c is the only entry point.
LIB_DIRS = sim/kernel sim/scn sim/fake sim/real sim/world sim/history protocols/client protocols \
           faults sim/checkers sim/engine reports
LIB_SRC  = $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/scripts_embed.o
CLI_SRC  = $(wildcard sim/cli/*.c)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC = $(wildcard tests/unit/*.c)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_SRC = $(wildcard bench/*.c)
BENCH_OBJ = $(BENCH_SRC:%.c=$(BUILD)/%.o)
# Fuzz targets: libFuzzer binaries (FUZZ=1), and in every build a replay
# binary per target that runs saved inputs (the corpora, the regressions).
FUZZ_TARGETS = scn lua resp sim
FUZZ_OBJ = $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/fuzz_%.o) $(BUILD)/tests/fuzz/replay.o
FUZZERS  = $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
REPLAYS  = $(FUZZ_TARGETS:%=$(BUILD)/replay_%)
LUA_SCRIPTS = $(sort $(wildcard protocols/lua/*.lua))
# The bundled lock policies (protocols/locks/*.lock) and their scripts.
LOCK_FILES = $(sort $(wildcard protocols/locks/*.lock protocols/locks/*.lua))
# The scenario templates of `locksim new`, carried by the binary too.
TEMPLATE_FILES = $(sort $(wildcard scenarios/templates/*.scn))
DEPS     = $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d)

BIN      = $(BUILD)/locksim
LIB      = $(BUILD)/liblocksim.a
UNIT     = $(BUILD)/unit_tests
# One benchmark binary per bench/NAME.c: bench_NAME (bench_evals.c: bench_evals).
BENCHBIN = $(patsubst bench/%.c,$(BUILD)/bench_%,$(subst bench_,,$(BENCH_SRC)))
SHIM     = $(BUILD)/libclockshim.so

.PHONY: all deps run test bench fuzz fuzz-long fuzzers clean unit conform hunt hunt-quality
all: $(BIN) $(UNIT) $(BENCHBIN) $(SHIM) $(REPLAYS)
fuzzers: $(FUZZERS) $(REPLAYS)

deps:
	@sh tools/deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The protocol scripts are compiled into the binary: one C array per file.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -Wall -Wextra -Werror $(shell pkg-config --cflags nettle) -o $@ $< \
	    $(shell pkg-config --libs nettle)
$(BUILD)/gen/scripts_embed.c: $(BUILD)/tools/embed $(LUA_SCRIPTS) $(LOCK_FILES) $(TEMPLATE_FILES)
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed $@ $(LUA_SCRIPTS) -- $(LOCK_FILES) $(TEMPLATE_FILES)
$(BUILD)/gen/scripts_embed.o: $(BUILD)/gen/scripts_embed.c
	$(CC) $(CFLAGS) -c -o $@ $<

# Preloaded into redis-server for server clock faults (real backend); no
# sanitizer: it runs inside redis-server.
$(SHIM): tools/clockshim.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)
$(UNIT): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(LIB) $(LDLIBS)
$(BUILD)/bench_%: $(BUILD)/bench/bench_%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
$(BUILD)/bench_%: $(BUILD)/bench/%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
# Built through the pattern rules below: kept, not removed as intermediate.
.SECONDARY: $(FUZZ_OBJ)
$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIB)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(LDLIBS)
$(BUILD)/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The top-level targets install first, then build in a fresh make so that
# pkg-config sees what deps just installed.
run: deps
	@$(MAKE) --no-print-directory all
	@bash tests/run_smoke.sh $(BIN)

# The tests also open the HTML report in headless Chromium (chromedriver)
# and build with clang (determinism across builds); fuzzing needs clang's
# libFuzzer runtime.
# libFuzzer's runtime comes with the libclang-rt-N-dev of the clang found
# (tools/deps.sh asks clang where it is; the fallback names Debian 12's).
FUZZ_DEPS = clang:clang libfuzzer:libclang-rt-14-dev
test:
	@LOCKSIM_DEPS_EXTRA="chromium:chromium chromedriver:chromium-driver $(FUZZ_DEPS)" sh tools/deps.sh
	@$(MAKE) --no-print-directory all
	@bash tests/run_all.sh $(BUILD) $(SAN)

bench: deps
	@$(MAKE) --no-print-directory all OPT=-O2 SAN=0
	@bash tests/bench.sh build

HUNT_SEEDS ?= 1..10000
HUNT_FIXED_SEEDS ?= 1..100000
hunt: deps
	@$(MAKE) --no-print-directory all OPT=-O2 SAN=0
	@bash tools/hunt-table.sh build $(HUNT_SEEDS) $(HUNT_FIXED_SEEDS)

# How far a hunt can be trusted: precision (the correct locks' hunts within
# their contracts, QUALITY_SEEDS) and recall (each known bug found by
# hunt BUGGY --against FIXED, RECALL_SEEDS); out/hunt-quality/summary.txt.
QUALITY_SEEDS ?= 1..2000
RECALL_SEEDS ?= 1..10000
hunt-quality: deps
	@$(MAKE) --no-print-directory all OPT=-O2 SAN=0
	@bash tools/hunt-quality.sh build $(QUALITY_SEEDS) $(RECALL_SEEDS)

fuzz:
	@LOCKSIM_DEPS_EXTRA="$(FUZZ_DEPS)" sh tools/deps.sh
	@$(MAKE) --no-print-directory FUZZ=1 fuzzers
	@bash tests/fuzz.sh build-fuzz $(FUZZ_SECONDS)

# fuzz_sim for FUZZ_EXECS executions (a million: about an hour on 2 cores),
# then its corpus under ASan.
FUZZ_EXECS ?= 1000000
fuzz-long:
	@LOCKSIM_DEPS_EXTRA="$(FUZZ_DEPS)" sh tools/deps.sh
	@bash tools/fuzz-sim-long.sh $(FUZZ_EXECS)

unit: all
	@CK_FORK=$(if $(filter 1,$(SAN)),no,yes) $(UNIT)

clean:
	rm -rf build build-san build-clang build-fuzz build-fuzz-lite build-prof out

-include $(DEPS)
