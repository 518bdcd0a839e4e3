# Makefile - builds everything from C sources; no other tool is needed.
#
#   make          the programs train, probe and report, optimised (-O3 -march=native), on
#                 every core (make -j1 for one job at a time); the test programs build with make test
#   make test     build and run the whole test suite
#   make asan     the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench    the speed benchmark (lab/bench/bench.c): kernels and training steps against the FMA peak
#   make torch-bench  PyTorch's times at the bench's configs (optional, Python), which make bench compares with
#   make fuzz     libFuzzer on the config, TSV and checkpoint readers (clang; FUZZ_SECONDS=60 each)
#   make valgrind a short run, a save and a resume under valgrind's memcheck
#   make clean
#
# Each variant builds into its own folder: build/f32 (what users run), build/f64 (the same
# code with `real` = double, for the gradient checks), and build/asan32, build/asan64.
# WERROR=1 turns warnings into errors (CI sets it). ARCH= overrides -march=native.
#
# Other builds (docs/PERFORMANCE.md, "Builds"), each best in a folder of its own (BUILD=, which then also
# holds its programs train, probe and report):
#   make CC=clang BUILD=build/clang test
#   make ARCH=-march=x86-64-v2 BUILD=build/v2 test     a generic x86-64 build
#   make OPENMP=0 BUILD=build/noomp test               no OpenMP: one thread, the same results
#   make CROSS=aarch64 test                            aarch64 cross build in build/aarch64, its
#                                                      unit tests and the golden runs under qemu-user
# OpenMP is detected: a compiler that cannot link -fopenmp (Apple's clang) builds with OPENMP=0.

# Parallel by default: every dependency is explicit (-MMD), so any order is safe. An explicit
# -jN (or -j1) on the command line wins.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# CROSS=aarch64: the cross compiler, no -march (aarch64's baseline has NEON and FMA), and the
# test programs run under qemu-user (EMULATOR).
ifeq ($(CROSS),aarch64)
CC       := aarch64-linux-gnu-gcc
ARCH     ?=
BUILD    ?= build/aarch64
EMULATOR ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
else ifneq ($(CROSS),)
$(error CROSS=$(CROSS): the cross builds are CROSS=aarch64)
endif
# make's built-in default for CC is cc
ifeq ($(origin CC),default)
CC      := cc
endif
ARCH    ?= -march=native
BUILD   ?= build
# The programs: ./train etc. for the default build, in the build's folder for the others.
BIN     := $(if $(filter build,$(BUILD)),.,$(BUILD))
WARN    := -Wall -Wextra
ifeq ($(WERROR),1)
WARN    += -Werror
endif

# OpenMP: OPENMP=1 or 0, or detected (can $(CC) link -fopenmp?). Without it, tensor/openmp.h
# stands in for <omp.h>, and -fopenmp-simd still honours the `#pragma omp simd` loops (so the
# code vectorises as with OpenMP); the other omp pragmas are ignored, and not warned about.
ifeq ($(OPENMP),)
OPENMP  := $(shell echo 'int main(void) { return 0; }' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo 1 || echo 0)
ifeq ($(OPENMP),0)
$(info make: $(CC) cannot link -fopenmp: building without OpenMP (one thread, the same results); OPENMP=0 says so)
endif
endif
ifeq ($(OPENMP),1)
OMP     := -fopenmp
else
OMP     := -fopenmp-simd -Wno-unknown-pragmas
endif
# -ffp-contract=off: a*b+c is never silently fused, so results do not depend on how the
# compiler vectorised a loop; the gemm kernel asks for fma() explicitly where it wants one.
# Never -ffast-math or -ffinite-math-only: they let the compiler delete isnan/isinf checks.
# -fno-trapping-math only says that no floating-point trap is ever enabled (none is): values,
# NaN and Inf are unchanged, and gcc may then vectorise a loop with a select such as
# `x < -87 ? 0 : y` (exp, tanh, GELU) on AVX2, which it otherwise leaves scalar there.
# -fno-math-errno: no libm call sets errno (nothing reads it), so sqrt is one instruction that
# clang can vectorise (the AdamW update); sqrt is correctly rounded either way: the same bits.
PORTABLE_BASE := -std=c11 $(WARN) $(OMP) -ffp-contract=off -fno-trapping-math -fno-math-errno -MMD -MP
BASE    := $(PORTABLE_BASE) $(ARCH)
OPT     := -O3
SAN     := -O2 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDLIBS  := -lm

# The layers, each using only those before it: tensor (the engine, with the helpers every part
# uses: memory, random numbers, OpenMP) <- model (the GPT, attention, the optimizers) and data (the
# tasks); run (the trainer's machinery: options, the run loop, evaluation, decoding, what a run
# measures, logs and draws, checkpoint files) uses all of them, and train.c wires it up. lab (the
# lab: ./probe, ./report with the study's statistics and figures, and the bench) reads what the
# trainer writes, by the trainer's own tables.
ENGINE  := $(wildcard tensor/*.c)
MODEL   := $(wildcard model/*.c)
DATA    := $(wildcard data/*.c)
RUN     := $(wildcard run/*.c)
SCORES  := lab/score_stats.c
TESTLIB := tests/test.c tests/gradcheck.c tests/fuzz_targets.c $(SCORES)
APP     := $(ENGINE) $(MODEL) $(DATA) $(RUN)

PROGRAMS := train probe report

# Test programs: those built in double precision and those in float.
TESTS64 := test_grad_ops test_grad_model
TESTS32 := test_engine test_model test_step test_stats test_data test_eval test_io test_fuzz test_report test_tape test_attention

objs = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(2))
# the path of program $(1) of this build: ./train for the default build, $(BUILD)/train else
prog = $(if $(filter .,$(BIN)),$(1),$(BIN)/$(1))

.PHONY: all test check-long asan bench torch-bench fuzz valgrind clean
all: $(foreach p,$(PROGRAMS),$(call prog,$(p)))

# ---------------------------------------------------------------- programs
train_SRC  := train.c $(APP)
probe_SRC  := lab/probe.c $(SCORES) $(APP)
# ./report's parts: the study's statistics, tables and figures; ./train's log columns, which it
# reads logs by (run/log_columns.c); and the scale table (model/scale_table.c, whose s is attn_scale.c's)
STUDY_SRC  := $(wildcard lab/study/*.c) run/svg.c run/exit.c tensor/base.c tensor/rng.c tensor/progress.c run/log_columns.c model/attn_scale.c model/scale_table.c
report_SRC := lab/report.c $(STUDY_SRC)
bench_SRC  := $(wildcard lab/bench/*.c) $(APP)

# $(call program,VARIANT,TARGET,NAME,FLAGS): link program NAME from VARIANT's objects
define program
$(2): $(call objs,$(1),$($(3)_SRC))
	$$(CC) $$(BASE) $(4) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program,f32,$(call prog,$(p)),$(p),$(OPT))))
$(foreach p,$(PROGRAMS),$(eval $(call program,asan32,$(BUILD)/asan32/$(p),$(p),$(SAN))))
$(eval $(call program,f32,$(BUILD)/bench,bench,$(OPT)))

# The benchmark: prints its tables and writes bench.csv (see lab/bench/bench.c). Takes a few minutes.
# With $(BUILD)/torch_bench.csv present (make torch-bench), it also prints ours / PyTorch's best.
bench: $(BUILD)/bench $(call prog,train)
	$(BUILD)/bench --train=$(call prog,train) --torch=$(BUILD)/torch_bench.csv

# PyTorch's times at the same configs on this machine (optional; scripts/torch_bench.py, not
# part of the build or the tests): about 25 minutes on 2 cores. Needs torch in /usr/bin/python3 (or PYTHON=).
PYTHON ?= /usr/bin/python3
torch-bench:
	@if $(PYTHON) -c 'import torch' 2>/dev/null; then $(PYTHON) scripts/torch_bench.py --out=$(BUILD)/torch_bench.csv; \
	else echo "torch-bench: $(PYTHON) has no torch: apt-get install python3-torch libopenblas0-pthread libopenblas0-openmp (Debian), or make torch-bench PYTHON=/path/to/python"; exit 2; fi

# ---------------------------------------------------------------- compile rules per variant
$(BUILD)/f32/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(OPT) -c $< -o $@
$(BUILD)/f64/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(OPT) -DREAL_DOUBLE -c $< -o $@
$(BUILD)/asan32/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SAN) -c $< -o $@
$(BUILD)/asan64/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(SAN) -DREAL_DOUBLE -c $< -o $@
$(BUILD)/vg/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PORTABLE_BASE) $(VG_ARCH) -O2 -g -c $< -o $@

# ---------------------------------------------------------------- test programs
define test_program
$(BUILD)/$(1)/tests/$(2): $(call objs,$(1),tests/$(2).c $(TESTLIB) $(APP))
	$$(CC) $$(BASE) $(3) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach t,$(TESTS32),$(eval $(call test_program,f32,$(t),$(OPT))))
$(foreach t,$(TESTS64),$(eval $(call test_program,f64,$(t),$(OPT))))
$(foreach t,$(TESTS32),$(eval $(call test_program,asan32,$(t),$(SAN))))
$(foreach t,$(TESTS64),$(eval $(call test_program,asan64,$(t),$(SAN))))
# test_report checks the report's statistics: it links lab/study/stats.c, stats_outcomes.c, stats_power.c and stats_t.c too
$(BUILD)/f32/tests/test_report: $(call objs,f32,lab/study/stats.c lab/study/stats_outcomes.c lab/study/stats_power.c lab/study/stats_t.c)
$(BUILD)/asan32/tests/test_report: $(call objs,asan32,lab/study/stats.c lab/study/stats_outcomes.c lab/study/stats_power.c lab/study/stats_t.c)
# test_outcomes checks ./report's outcome analysis: it links ./report's parts
OUTCOMES_TEST_SRC := tests/test_outcomes.c tests/test.c $(STUDY_SRC)
$(BUILD)/f32/tests/test_outcomes: $(call objs,f32,$(OUTCOMES_TEST_SRC))
	$(CC) $(BASE) $(OPT) $^ -o $@ $(LDLIBS)
$(BUILD)/asan32/tests/test_outcomes: $(call objs,asan32,$(OUTCOMES_TEST_SRC))
	$(CC) $(BASE) $(SAN) $^ -o $@ $(LDLIBS)

# The golden fingerprints (tests/golden.sh) hold for the optimised builds: every build (gcc or
# clang, any -march, with or without OpenMP, aarch64) gives the same bits, since every sum has a
# fixed order (tensor/sum16.h). They are compared here, not under the sanitizers (which build
# at another optimisation level, and slowly). Under an
# EMULATOR, run.sh runs the unit tests and the golden runs only.
test: $(foreach p,$(PROGRAMS),$(call prog,$(p))) $(addprefix $(BUILD)/f32/tests/,$(TESTS32) test_outcomes) $(addprefix $(BUILD)/f64/tests/,$(TESTS64))
	EMULATOR='$(EMULATOR)' tests/run.sh $(BUILD)/f32 $(BUILD)/f64 $(BIN) golden

# The long checks, apart from `make test` so that it stays short (.ci/run runs both): the second
# study's calibration gate at its budget, tests/gate.sh (30 runs of 1000 steps, two at a time,
# a line as each ends).
check-long: $(call prog,train) $(call prog,report)
	tests/gate.sh $(BIN)
	@# "fails, or slower?" made again: 2 rows of its record (5000 steps each, so not in make test)
	[ ! -f docs/ablation/slower/runs.csv ] || tests/reproduce.sh $(BIN) docs/ablation/slower/runs.csv 2 - 60

asan: $(addprefix $(BUILD)/asan32/,$(PROGRAMS)) $(addprefix $(BUILD)/asan32/tests/,$(TESTS32) test_outcomes) $(addprefix $(BUILD)/asan64/tests/,$(TESTS64))
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 tests/run.sh $(BUILD)/asan32 $(BUILD)/asan64 $(BUILD)/asan32

# ---------------------------------------------------------------- valgrind
# A short training run (with a dump and a figure), a save, a resume (drawing the weights at
# initialisation, recomputed), and a run through the scale study's mechanisms (additive
# attention, fp16, SGD momentum, recall, a log), the tape's table and graph, and --decode, under
# memcheck: no error, no leak. valgrind cannot decode AVX-512, so this build targets AVX2
# (x86-64-v3) on x86-64 and the default elsewhere.
VG_ARCH  ?= $(if $(filter x86_64,$(shell uname -m)),-march=x86-64-v3,)
VALGRIND := valgrind -q --error-exitcode=1 --suppressions=tests/valgrind.supp --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
$(BUILD)/vg/train: $(call objs,vg,$(train_SRC))
	$(CC) $(PORTABLE_BASE) $(VG_ARCH) -O2 -g $^ -o $@ $(LDLIBS)

valgrind: $(BUILD)/vg/train
	$(VALGRIND) $(BUILD)/vg/train --steps=3 --batch=4 --eval-examples=4 --quiet --save=$(BUILD)/vg/run.st \
	    --dump-state=$(BUILD)/vg/dump.st --attention-svg=$(BUILD)/vg/run.svg --attention-svg-at=both
	$(VALGRIND) $(BUILD)/vg/train --load=$(BUILD)/vg/run.st --steps=5 --eval-examples=4 --quiet \
	    --attention-svg=$(BUILD)/vg/resumed.svg --attention-svg-at=init
	$(VALGRIND) $(BUILD)/vg/train --steps=2 --batch=4 --eval-examples=4 --quiet --attn=additive --precision=fp16 \
	    --softmax=naive --optim=sgd --momentum=0.9 --task=recall --log=$(BUILD)/vg/run.csv
	$(VALGRIND) $(BUILD)/vg/train --layers=1 --batch=2 --print-tape --tape-dot=$(BUILD)/vg/step.dot >/dev/null
	printf 'A B C\nA X\n' | $(VALGRIND) $(BUILD)/vg/train --load=$(BUILD)/vg/run.st --decode --show-attention >/dev/null 2>&1; \
	    test $$? -eq 2 # the second line has an unknown word: exit 2, and no memory error (that would be 1)
	printf 'A B C\nC B A\n' | $(VALGRIND) $(BUILD)/vg/train --load=$(BUILD)/vg/run.st --decode --temperature=2 --top-k=3 --seed=5 >/dev/null
	@echo "valgrind: no memory error, no leak"

# ---------------------------------------------------------------- libFuzzer (clang)
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := config tsv checkpoint
FUZZ_BASE    := -std=c11 $(WARN) -Wno-pass-failed -g -O1 $(OMP) $(ARCH) -ffp-contract=off -fno-trapping-math -fno-math-errno -fno-omit-frame-pointer -MMD -MP
$(BUILD)/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_BASE) -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -c $< -o $@
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/tests/fuzz/fuzz_%.o $(BUILD)/fuzz/tests/fuzz_targets.o $(call objs,fuzz,$(APP))
	$(FUZZ_CC) $(FUZZ_BASE) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $^ -o $@ -lm

fuzz: $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZ_TARGETS)) $(BUILD)/f32/tests/test_fuzz
	tests/run_fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
.SECONDARY: $(call objs,fuzz,$(APP) tests/fuzz_targets.c $(addprefix tests/fuzz/fuzz_,$(addsuffix .c,$(FUZZ_TARGETS))))

clean:
	rm -rf build $(BUILD) $(PROGRAMS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
