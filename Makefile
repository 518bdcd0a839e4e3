# Makefile - builds everything from C sources; no other tool is needed.
#
#   make          the programs train, probe and report, optimised (-O3 -march=native), on
#                 every core (make -j1 for one job at a time); the test programs build with make test
#   make test     build and run the whole test suite
#   make asan     the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench    the speed benchmark (bench/bench.c): kernels and training steps against the FMA peak
#   make fuzz     libFuzzer on the config, TSV and checkpoint readers (clang; FUZZ_SECONDS=60 each)
#   make valgrind a short run, a save and a resume under valgrind's memcheck
#   make clean
#
# Each variant builds into its own folder: build/f32 (what users run), build/f64 (the same
# code with `real` = double, for the gradient checks), and build/asan32, build/asan64.
# WERROR=1 turns warnings into errors (CI sets it). ARCH= overrides -march=native.

# Parallel by default: every dependency is explicit (-MMD), so any order is safe. An explicit
# -jN (or -j1) on the command line wins.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

CC      ?= cc
ARCH    ?= -march=native
WARN    := -Wall -Wextra
ifeq ($(WERROR),1)
WARN    += -Werror
endif
# -ffp-contract=off: a*b+c is never silently fused, so results do not depend on how the
# compiler vectorised a loop; the gemm kernel asks for fma() explicitly where it wants one.
# Never -ffast-math or -ffinite-math-only: they let the compiler delete isnan/isinf checks.
# -fno-trapping-math only says that no floating-point trap is ever enabled (none is): values,
# NaN and Inf are unchanged, and gcc may then vectorise a loop with a select such as
# `x < -87 ? 0 : y` (exp, tanh, GELU) on AVX2, which it otherwise leaves scalar there.
PORTABLE_BASE := -std=c11 $(WARN) -fopenmp -ffp-contract=off -fno-trapping-math -MMD -MP
BASE    := $(PORTABLE_BASE) $(ARCH)
OPT     := -O3
SAN     := -O2 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDLIBS  := -lm

# The layers, each using only those before it: base <- tensor <- io, model; base <- data;
# eval uses model and data; viz (SVG drawing) uses nothing; run (the program around the step)
# uses all of them.
BASE_SRC := $(wildcard base/*.c)
ENGINE  := $(wildcard tensor/*.c)
IO      := $(wildcard io/*.c)
MODEL   := $(wildcard model/*.c)
DATA    := $(wildcard data/*.c)
EVAL    := $(wildcard eval/*.c)
VIZ     := $(wildcard viz/*.c)
RUN     := $(wildcard run/*.c)
STATS   := stats/score_stats.c
TESTLIB := tests/test.c tests/gradcheck.c tests/fuzz_targets.c $(STATS)
APP     := $(BASE_SRC) $(ENGINE) $(IO) $(MODEL) $(DATA) $(EVAL) $(VIZ) $(RUN)

PROGRAMS := train probe report

# Test programs: those built in double precision and those in float.
TESTS64 := test_grad_ops test_grad_model
TESTS32 := test_engine test_model test_step test_stats test_data test_eval test_io test_fuzz test_report test_tape test_attention

objs = $(patsubst %.c,build/$(1)/%.o,$(2))

.PHONY: all test asan bench fuzz valgrind clean
all: $(PROGRAMS)

# ---------------------------------------------------------------- programs
train_SRC  := train.c $(APP)
probe_SRC  := stats/probe.c $(STATS) $(APP)
report_SRC := $(wildcard tools/*.c) viz/svg.c base/base.c
bench_SRC  := $(wildcard bench/*.c) $(APP)

# $(call program,VARIANT,TARGET,NAME,FLAGS): link program NAME from VARIANT's objects
define program
$(2): $(call objs,$(1),$($(3)_SRC))
	$$(CC) $$(BASE) $(4) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program,f32,$(p),$(p),$(OPT))))
$(foreach p,$(PROGRAMS),$(eval $(call program,asan32,build/asan32/$(p),$(p),$(SAN))))
$(eval $(call program,f32,build/bench,bench,$(OPT)))

# The benchmark: prints its tables and writes bench.csv (see bench/bench.c). Takes a few minutes.
bench: build/bench train
	build/bench

# ---------------------------------------------------------------- compile rules per variant
build/f32/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(OPT) -c $< -o $@
build/f64/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(OPT) -DREAL_DOUBLE -c $< -o $@
build/asan32/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SAN) -c $< -o $@
build/asan64/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SAN) -DREAL_DOUBLE -c $< -o $@
build/vg/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PORTABLE_BASE) $(VG_ARCH) -O2 -g -c $< -o $@

# ---------------------------------------------------------------- test programs
define test_program
build/$(1)/tests/$(2): $(call objs,$(1),tests/$(2).c $(TESTLIB) $(APP))
	$$(CC) $$(BASE) $(3) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach t,$(TESTS32),$(eval $(call test_program,f32,$(t),$(OPT))))
$(foreach t,$(TESTS64),$(eval $(call test_program,f64,$(t),$(OPT))))
$(foreach t,$(TESTS32),$(eval $(call test_program,asan32,$(t),$(SAN))))
$(foreach t,$(TESTS64),$(eval $(call test_program,asan64,$(t),$(SAN))))
# test_report checks the report's statistics: it links tools/stats.c too
build/f32/tests/test_report: build/f32/tools/stats.o
build/asan32/tests/test_report: build/asan32/tools/stats.o

# The golden fingerprints (tests/golden.sh) hold for this optimised build only: they are
# compared here, not under the sanitizers (another optimisation level adds in another order).
test: $(PROGRAMS) $(addprefix build/f32/tests/,$(TESTS32)) $(addprefix build/f64/tests/,$(TESTS64))
	tests/run.sh build/f32 build/f64 . golden

asan: $(addprefix build/asan32/,$(PROGRAMS)) $(addprefix build/asan32/tests/,$(TESTS32)) $(addprefix build/asan64/tests/,$(TESTS64))
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 tests/run.sh build/asan32 build/asan64 build/asan32

# ---------------------------------------------------------------- valgrind
# A short training run (with a dump and a figure), a save, a resume (drawing the weights at
# initialisation, recomputed), and a run through the scale study's mechanisms (additive
# attention, fp16, SGD momentum, recall, a log), the tape's table and graph, and --decode, under
# memcheck: no error, no leak. valgrind cannot decode AVX-512, so this build targets AVX2
# (x86-64-v3) on x86-64 and the default elsewhere.
VG_ARCH  ?= $(if $(filter x86_64,$(shell uname -m)),-march=x86-64-v3,)
VALGRIND := valgrind -q --error-exitcode=1 --suppressions=tests/valgrind.supp --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
build/vg/train: $(call objs,vg,$(train_SRC))
	$(CC) $(PORTABLE_BASE) $(VG_ARCH) -O2 -g $^ -o $@ $(LDLIBS)

valgrind: build/vg/train
	$(VALGRIND) build/vg/train --steps=3 --batch=4 --eval-examples=4 --quiet --save=build/vg/run.st \
	    --dump-state=build/vg/dump.st --attention-svg=build/vg/run.svg --attention-svg-at=both
	$(VALGRIND) build/vg/train --load=build/vg/run.st --steps=5 --eval-examples=4 --quiet \
	    --attention-svg=build/vg/resumed.svg --attention-svg-at=init
	$(VALGRIND) build/vg/train --steps=2 --batch=4 --eval-examples=4 --quiet --attn=additive --precision=fp16 \
	    --softmax=naive --optim=sgd --momentum=0.9 --task=recall --log=build/vg/run.csv
	$(VALGRIND) build/vg/train --layers=1 --batch=2 --print-tape --tape-dot=build/vg/step.dot >/dev/null
	printf 'A B C\nA X\n' | $(VALGRIND) build/vg/train --load=build/vg/run.st --decode --show-attention >/dev/null 2>&1; \
	    test $$? -eq 2 # the second line has an unknown word: exit 2, and no memory error (that would be 1)
	@echo "valgrind: no memory error, no leak"

# ---------------------------------------------------------------- libFuzzer (clang)
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := config tsv checkpoint
FUZZ_BASE    := -std=c11 $(WARN) -Wno-pass-failed -g -O1 -fopenmp $(ARCH) -ffp-contract=off -fno-trapping-math -fno-omit-frame-pointer -MMD -MP
build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_BASE) -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -c $< -o $@
build/fuzz/fuzz_%: build/fuzz/tests/fuzz/fuzz_%.o build/fuzz/tests/fuzz_targets.o $(call objs,fuzz,$(APP))
	$(FUZZ_CC) $(FUZZ_BASE) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $^ -o $@ -lm

fuzz: $(addprefix build/fuzz/fuzz_,$(FUZZ_TARGETS)) build/f32/tests/test_fuzz
	tests/run_fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
.SECONDARY: $(call objs,fuzz,$(APP) tests/fuzz_targets.c $(addprefix tests/fuzz/fuzz_,$(addsuffix .c,$(FUZZ_TARGETS))))

clean:
	rm -rf build $(PROGRAMS)

-include $(shell find build -name '*.d' 2>/dev/null)
