# mmprof: build, run and test.
#
#   make run        install what is missing (Debian), build, and profile a 2048 product
#   make test       everything that needs no GPU (CI runs this)
#   make test-gpu   the GPU tests, on a machine with a CUDA device
#   make bench      GFLOP/s per workload and the cost of CUPTI collection, on a GPU
#   make bench-import   time and peak memory of the PyTorch trace importer on a ~100 MB trace
#   make fuzz-kineto    libFuzzer on the PyTorch trace importer (FUZZ_SECONDS, default 60)
#
# C11 for the program, CUDA C++ (nvcc) for cuda/. Objects go to build/, the binary to
# build/mmprof, and the shared libraries a GPU machine may lack (cJSON, cmocka) are copied to
# build/lib, which the binaries find through their rpath ($ORIGIN/lib).

CUDA      ?= /usr/local/cuda
NVCC      ?= $(CUDA)/bin/nvcc
CC        ?= gcc
BUILD     ?= build
SIZE      ?= 2048
SAN       ?=

# sm_90 machine code for the H100/H200, plus compute_90 PTX that newer GPUs compile at load.
GENCODE   := -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

# src/ is split by stage; every folder is on the include path, so a file names its neighbours'
# headers plainly. cuda/ sees src/ (it implements src/builtin's GPU interface), never the reverse.
SRC_DIRS  := src/model src/collect src/import src/builtin src/analysis src/cli src/util
CPPFLAGS  := -D_GNU_SOURCE $(SRC_DIRS:%=-I%) -Ireport -I$(CUDA)/include -MMD -MP
CFLAGS    := -std=c11 -O2 -g -Wall -Wextra $(SAN)
NVCCFLAGS := -std=c++17 -O3 -g $(GENCODE) -Xcompiler -Wall,-Wextra -Xptxas -warn-spills
LDFLAGS   := -L$(CUDA)/lib64 -Wl,-rpath,'$$ORIGIN/lib' -Wl,-rpath,'$$ORIGIN/../lib' \
             -Wl,-rpath,$(CUDA)/lib64 $(SAN)
GPU_LIBS  := -lcupti -lcudart
LDLIBS    := -lopenblas -lcjson -lsqlite3 -lstdc++ -lm -ldl -lpthread

# The core: no CUDA runtime, so tests link it on any machine.
CORE_SRC  := src/model/model.c src/model/model_json.c src/model/device_state.c src/collect/nvml.c \
             src/analysis/analysis.c src/analysis/occupancy.c src/analysis/metric.c src/analysis/regions.c \
             src/analysis/metrics.c src/analysis/device_check.c src/analysis/compare.c src/builtin/verify.c src/cli/output_file.c src/util/strbuf.c \
             report/text.c report/text_parts.c report/text_regions.c report/json_report.c report/svg.c \
             report/html.c report/html_common.c report/html_charts.c report/html_regions.c report/trace.c report/compare_report.c \
             src/import/import.c src/import/kineto.c src/import/kineto_events.c src/import/kineto_finish.c \
             src/import/json_stream.c src/import/nsys_sqlite.c src/import/sqlite_table.c
# The pipeline: CUPTI, NVTX, OpenBLAS and the CUDA runtime.
RUN_SRC   := src/cli/main.c src/cli/cli.c src/cli/compare_cli.c src/builtin/workloads.c src/builtin/runner.c \
             src/collect/collector.c src/collect/cupti_records.c src/collect/ranges.c src/builtin/hostinfo.c src/builtin/cpu_workload.c \
             src/builtin/inputs.c
CUDA_SRC  := $(wildcard cuda/*.cu)

CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
RUN_OBJ   := $(RUN_SRC:%.c=$(BUILD)/%.o)
CUDA_OBJ  := $(CUDA_SRC:%.cu=$(BUILD)/%.o)
BIN       := $(BUILD)/mmprof
LIBDIR    := $(BUILD)/lib
CARRIED   := $(LIBDIR)/libcjson.so.1 $(LIBDIR)/libcmocka.so.0

UNIT_TESTS := test_model_json test_json_report test_regions test_analysis test_occupancy test_text_report test_cpu_blas \
              test_cli test_html_report test_trace test_browser test_import_kineto test_import_nsys test_import_cli test_nvml test_compare
UNIT_BINS  := $(UNIT_TESTS:%=$(BUILD)/tests/%)

.PHONY: all run deps test-deps test gpu-build test-gpu bench bench-import fuzz-kineto clean

all: $(BIN) $(CARRIED)

$(BIN): $(CORE_OBJ) $(RUN_OBJ) $(CUDA_OBJ) | $(CARRIED)
	$(CC) $(LDFLAGS) -o $@ $^ $(GPU_LIBS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/cuda/%.o: cuda/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -D_GNU_SOURCE $(SRC_DIRS:%=-I%) -Icuda -MMD -MP -c -o $@ $<

# wgmma exists only in the architecture-specific sm_90a target (no PTX: it runs on compute
# capability 9.0 alone, and the workload's setup refuses other GPUs).
$(BUILD)/cuda/ladder_tf32_wgmma.o: NVCCFLAGS := $(filter-out $(GENCODE),$(NVCCFLAGS)) -gencode arch=compute_90a,code=sm_90a

# Shared libraries the H200 machine does not have, carried beside the binaries.
$(LIBDIR)/%:
	@mkdir -p $(LIBDIR)
	cp -L /usr/lib/x86_64-linux-gnu/$* $@

# Debian packages the build needs, and those only the tests need (a real browser for the HTML
# page). Each list installs only what is missing.
DEB_PKGS  := gcc make libopenblas-dev libcjson-dev libcmocka-dev libsqlite3-dev
TEST_PKGS := chromium
define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PKGS))
	@test -x $(NVCC) || { echo "nvcc not found at $(NVCC): install the CUDA toolkit or set CUDA=" >&2; exit 1; }

test-deps: deps
	$(call install_missing,$(TEST_PKGS))

run: deps
	$(MAKE) all
	$(BIN) --size $(SIZE) --json $(BUILD)/run.json

# ---------- tests ----------

TEST_CORE := $(CORE_OBJ) $(BUILD)/tests/test_support.o
GPU_BINS  := $(BUILD)/tests/test_gpu $(BUILD)/tests/bench

# The unit tests run under AddressSanitizer and UBSan, and so does the core code they call: its
# objects are built a second time, instrumented, under $(SAN_DIR). build/mmprof and the GPU
# binaries stay uninstrumented (the H200 machine runs those; CUDA and ASan do not mix well).
# Undefined behaviour stops the test, so it fails instead of printing a line nobody reads.
TEST_SAN  ?= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_DIR   := $(BUILD)/san
SAN_CORE  := $(CORE_OBJ:$(BUILD)/%=$(SAN_DIR)/%) $(SAN_DIR)/tests/test_support.o

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests -c -o $@ $<

$(SAN_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TEST_SAN) -Itests -c -o $@ $<

$(BUILD)/tests/test_cpu_blas: $(SAN_DIR)/tests/test_cpu_blas.o $(SAN_CORE) $(SAN_DIR)/src/builtin/cpu_workload.o \
                              $(SAN_DIR)/src/builtin/inputs.o $(SAN_DIR)/src/collect/collector.o $(SAN_DIR)/src/collect/cupti_records.o \
                              $(SAN_DIR)/src/collect/ranges.o | $(CARRIED)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_SAN) -o $@ $^ -lcupti $(LDLIBS) -lcmocka

$(filter-out %/test_cpu_blas,$(UNIT_BINS)): $(BUILD)/tests/%: $(SAN_DIR)/tests/%.o $(SAN_CORE) | $(CARRIED)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_SAN) -o $@ $^ $(LDLIBS) -lcmocka

# A fake NVML the NVML tests open through MMPROF_NVML_LIBRARY (tests/fake_nvml.c says what it
# answers); test_nvml finds it beside itself.
$(BUILD)/tests/libfake_nvml.so: tests/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -shared -fPIC -o $@ $<
$(BUILD)/tests/test_nvml: | $(BUILD)/tests/libfake_nvml.so

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_CORE) | $(CARRIED)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# The kernel ladder's tuning harness (tests/ladder_tune.cu): the ladder workloads and candidate
# tile shapes of its top kernels, verified and timed beside cuBLAS in one process. Built by
# gpu-build only (many template instances); run on the GPU machine as build/tests/ladder_tune.
# sm_90a (not sm_90): its wgmma candidates need the architecture-specific target.
LADDER_TUNE := $(BUILD)/tests/ladder_tune
LADDER_OBJ  := $(filter $(BUILD)/cuda/ladder_%.o $(BUILD)/cuda/kernels_basic.o,$(CUDA_OBJ))
$(LADDER_TUNE): tests/ladder_tune.cu $(wildcard cuda/ladder_*.cuh) $(LADDER_OBJ)
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 -g -gencode arch=compute_90a,code=sm_90a -Xcompiler -Wall,-Wextra -Xptxas -warn-spills \
	    $(SRC_DIRS:%=-I%) -Icuda -o $@ $< $(LADDER_OBJ) -lcublas

# Everything a GPU machine runs, built here: `make gpu-build`, then carry build/ there.
gpu-build: all $(GPU_BINS) $(LADDER_TUNE)

test: test-deps
	$(MAKE) all $(UNIT_BINS) $(GPU_BINS)
	@tests/run_tests.sh $(BUILD) $(UNIT_TESTS) test_gpu

# On the GPU machine: the binaries built here travel with the tree (carry build/), so these
# targets only run them. They never rebuild: that machine has no cJSON or cmocka headers.
test-gpu:
	@test -x $(BUILD)/tests/test_gpu || { echo "run 'make gpu-build' first" >&2; exit 1; }
	@tests/run_tests.sh --gpu $(BUILD) test_gpu

bench:
	@test -x $(BUILD)/tests/bench || { echo "run 'make gpu-build' first" >&2; exit 1; }
	MMPROF_BIN=$(BUILD)/mmprof $(BUILD)/tests/bench

# The Kineto importer on a ~100 MB trace made by repeating a recorded one (a real H200 trace when
# samples/ has one): wall time, peak RSS and RSS over the file's size. CPU only; optimised build.
BENCH_TRACE ?= $(firstword $(wildcard samples/*.kineto.json) tests/data/kineto/matmul_copies.json)
bench-import: $(BUILD)/tests/bench_import
	$(BUILD)/tests/bench_import $(BENCH_TRACE) 100

# libFuzzer on the Kineto importer (clang's -fsanitize=fuzzer, with ASan and UBSan), seeded with
# the hand-made traces; new inputs it finds stay in a scratch corpus under build/.
FUZZ_SECONDS ?= 60
KINETO_SRC := src/import/kineto.c src/import/kineto_events.c src/import/kineto_finish.c src/import/json_stream.c
$(BUILD)/tests/fuzz_import_kineto: tests/fuzz_import_kineto.c $(KINETO_SRC) src/model/model.c
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 -D_GNU_SOURCE $(SRC_DIRS:%=-I%) -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -o $@ $^ -lcjson
fuzz-kineto: $(BUILD)/tests/fuzz_import_kineto
	@mkdir -p $(BUILD)/fuzz-kineto-corpus
	$< -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(BUILD)/fuzz-kineto-corpus tests/data/kineto

clean:
	rm -rf $(BUILD)

# ---------- the HTML report's templates ----------
# templates/ is compiled into the binary (report/html.c includes the generated header), so a
# report never needs the source tree at run time. Whichever builds of html.o exist get the rule.
TEMPLATES := templates/report.html templates/report.css templates/report.js
HTML_OBJ  := $(filter %/report/html.o,$(CORE_OBJ) $(SAN_CORE))

$(BUILD)/gen/templates.h: $(TEMPLATES) templates/embed.sh
	@mkdir -p $(dir $@)
	templates/embed.sh $@ $(TEMPLATES)

$(HTML_OBJ): $(BUILD)/gen/templates.h
$(HTML_OBJ): CPPFLAGS += -I$(BUILD)/gen

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
