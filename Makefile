# mmprof: build, run and test.
#
#   make run        install what is missing (Debian), build, and profile a 2048 product
#   make test       everything that needs no GPU (CI runs this)
#   make readme     the output README.md and docs/*.md quote, made again by the commands they name
#   make test-gpu   the GPU tests, on a machine with a CUDA device
#   make bench      every benchmark this machine can run: the importer and report memory (CPU), and on
#                   a GPU machine TFLOP/s per workload, the cost of CUPTI collection and of host
#                   sampling and call sites on a PyTorch loop (bench-gpu)
#   make bench-long     a 60 s training run's file size, memory and time from exit to report
#   make bench-import   time and peak memory of the PyTorch trace importer on a ~100 MB trace
#   make fuzz       libFuzzer on the run-file reader, the importers and the command line
#   make install    install under PREFIX (default /usr/local; DESTDIR stages); make uninstall
#   make deb        a Debian package, build/mmprof_VERSION_ARCH.deb
#
# C11 for the program, CUDA C++ (nvcc) for cuda/. Objects go to build/, the binary to
# build/mmprof, and the shared libraries a GPU machine may lack (cJSON, cmocka, zstd) are copied to
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
SRC_DIRS  := src/model src/collect src/inject src/import src/builtin src/analysis src/store src/cli src/util
# libpq's header (libpq-dev) for its types: the library itself is opened at run time (db_pg.c says why).
PG_INC    := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
CPPFLAGS  := -D_GNU_SOURCE $(SRC_DIRS:%=-I%) -Ireport -I$(CUDA)/include -I$(PG_INC) -MMD -MP
CFLAGS    := -std=c11 -O2 -g -Wall -Wextra $(SAN)
NVCCFLAGS := -std=c++17 -O3 -g $(GENCODE) -Xcompiler -Wall,-Wextra -Xptxas -warn-spills
LDFLAGS   := -L$(CUDA)/lib64 -Wl,-rpath,'$$ORIGIN/lib' -Wl,-rpath,'$$ORIGIN/../lib' \
             -Wl,-rpath,$(CUDA)/lib64 $(SAN)
GPU_LIBS  := -lcupti -lcudart
LDLIBS    := -lopenblas -lcjson -lsqlite3 -lz -lzstd -llzma -lcsv -lstdc++ -lm -ldl -lpthread

# The core: no CUDA runtime, so tests link it on any machine.
CORE_SRC  := src/analysis/verdict.c src/analysis/sections.c src/model/model.c src/model/source.c src/model/host_activity.c src/model/host_json.c src/model/event_view.c src/model/model_json.c src/model/member_drop.c src/model/event_columns.c src/model/device_state.c src/collect/nvml.c src/collect/nvml_link.c \
             src/analysis/analyze.c src/analysis/spread.c src/analysis/peaks.c src/util/intervals.c src/model/display_names.c src/analysis/copy_bests.c src/analysis/overlap.c src/analysis/range_groups.c src/analysis/capture.c src/analysis/incomplete.c src/analysis/roofline.c src/analysis/occupancy.c src/analysis/metric.c src/analysis/value_figures.c src/analysis/regions.c src/analysis/launch_index.c src/analysis/idle_causes.c \
             src/analysis/host_where.c src/analysis/host_idle.c src/analysis/call_sites.c src/analysis/site_line.c \
             src/analysis/metrics.c src/analysis/tables.c src/analysis/ranks.c src/analysis/devices.c src/analysis/sweep.c src/analysis/summary.c src/analysis/device_check.c src/analysis/compare.c \
             src/builtin/verify.c src/builtin/sampling.c src/cli/output_file.c src/cli/output_stream.c src/cli/output_compress.c src/util/stats.c src/util/strbuf.c src/util/json_writer.c src/util/json_print.c src/util/key_sort.c src/util/rank_select.c src/util/spill.c src/util/interrupt.c src/util/thread_wait.c src/util/kernel_regex.c src/util/stage_times.c \
             report/text.c report/text_parts.c report/text_counters.c report/text_devices.c report/text_regions.c report/text_idle.c report/text_sites.c report/text_ranks.c report/text_sweep.c report/json_report.c report/svg.c \
             report/html.c report/html_common.c report/html_header.c report/html_workloads.c report/html_charts.c report/html_timeline.c report/html_events.c report/html_ranks.c report/html_capture.c report/html_roofline.c report/html_devices.c report/html_sweep.c report/html_regions.c report/html_sites.c report/trace.c \
             report/csv.c report/compare_report.c report/outputs.c report/markdown.c \
             src/import/import.c src/import/kineto.c src/import/kineto_reader.c src/import/kineto_events.c src/import/kineto_finish.c src/import/host_spans.c \
             src/util/json_stream.c src/util/trace_input.c src/import/nsys_sqlite.c src/import/sqlite_table.c src/import/nsys_tidy.c \
             src/collect/stream_read.c src/collect/stream_follow.c src/collect/stream_format.c src/collect/symbolize.c src/collect/elf_symtab.c src/collect/rank_env.c src/model/model_merge.c \
             src/model/region_tracker.c src/collect/capture_config.c src/collect/capture_control.c
# Nsight Compute's CSV export (issue 35): its reader (libcsv), and its launches matched to a run's
# kernels (report --ncu).
CORE_SRC  += src/import/ncu_csv.c src/import/ncu_attach.c
# Where the wall-clock time went: the cause table, its matcher, the per-process account and the
# accounts a report shows (issue 34).
CORE_SRC  += src/analysis/cause_table.c src/analysis/cause_match.c src/analysis/wall_account.c src/analysis/accounts.c \
             report/text_account.c report/html_account.c report/html_answer.c
UNIT_TESTS_ACCOUNT := test_causes
# Runs in a database (issue 38): a run's figures as rows, SQLite and PostgreSQL (libpq, opened at
# run time), the structural diff of two runs and a figure's history, and their renderers.
CORE_SRC  += src/analysis/run_rows.c src/util/sha256.c src/store/db.c src/store/db_sqlite.c src/store/db_pg.c \
             src/store/schema.c src/store/store.c src/store/run_store.c src/analysis/diff.c report/diff_report.c \
             src/analysis/history.c report/history_report.c
# The run file's parts beside model_json.c, each its writer and reader (model_json_parts.h).
CORE_SRC  += src/model/model_json_parts.c src/model/events_json.c src/model/builtin_json.c src/model/counters_json.c \
             src/model/devices_json.c src/model/regions_json.c
# GPU memory over time (issue 37), kept in lines of its own: the model's memory store and its
# run-file member, NVML opened for the injection library too, the Kineto importer's memory events.
CORE_SRC  += src/model/memory_activity.c src/model/memory_json.c src/collect/nvml_open.c src/import/kineto_memory.c \
             src/analysis/memory.c src/analysis/memory_sites.c src/analysis/memory_series.c src/analysis/memory_lines.c \
             src/analysis/memory_steps.c report/text_memory.c report/html_memory.c
# The pipeline: CUPTI, NVTX, OpenBLAS and the CUDA runtime.
RUN_SRC   := src/cli/main.c src/cli/cli.c src/cli/cli_sweep.c src/cli/cli_numbers.c src/cli/cli_devices.c src/cli/compare_cli.c src/cli/profile.c src/cli/cli_builtin.c src/cli/cli_capture.c \
             src/builtin/workloads.c src/builtin/runner.c src/builtin/device_thread.c src/builtin/multi_gpu.c \
             src/builtin/gpu_workload.c src/builtin/gpu_counters.c \
             src/collect/collector.c src/collect/cupti_records.c src/collect/ranges.c src/collect/pcie_link.c src/collect/hostinfo.c src/builtin/blas_info.c src/builtin/cpu_workload.c \
             src/builtin/inputs.c src/builtin/progress.c src/cli/build_info.c
RUN_SRC   += src/cli/store_cli.c src/cli/diff_cli.c src/cli/history_cli.c
CUDA_SRC  := $(wildcard cuda/*.cu)
# C++ with a C interface: CUPTI's profiler host API has a C++-only header (cupti_profiler_host.h).
CXX_SRC   := src/collect/counters.cpp

CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
RUN_OBJ   := $(RUN_SRC:%.c=$(BUILD)/%.o)
CUDA_OBJ  := $(CUDA_SRC:%.cu=$(BUILD)/%.o)
CXX_OBJ   := $(CXX_SRC:%.cpp=$(BUILD)/%.o)
BIN       := $(BUILD)/mmprof
LIBDIR    := $(BUILD)/lib
CARRIED   := $(LIBDIR)/libcjson.so.1 $(LIBDIR)/libcmocka.so.0 $(LIBDIR)/libzstd.so.1 $(LIBDIR)/libcsv.so.3
# liblzma (xz) is not carried: every Debian and Ubuntu system has liblzma5 (dpkg needs it), and the
# H200 machine (Ubuntu 24.04) has liblzma.so.5.

UNIT_TESTS := test_sampling test_sweep test_sweep_cli test_model_json test_json_report test_regions test_summary test_csv test_tables \
              test_analysis test_occupancy test_text_report test_cpu_blas test_cli test_html_report test_trace test_browser \
              test_import_kineto test_import_nsys test_import_cli test_outputs bench_cpu test_nvml test_compare \
              test_stream_read test_profile test_inject_signal test_devices test_counters test_profile_counters test_ranks \
              test_page_figures test_region_tracker test_cupti_records test_overlap test_no_placeholders \
              test_hta_parity test_idle_causes test_capture_cli test_capture_control test_train_steps test_host_tree test_symbolize test_host_idle test_key_sort test_rank_select test_member_drop test_json_print test_launch_index test_output_stream test_spill
UNIT_TESTS += $(UNIT_TESTS_ACCOUNT)
# GPU memory over time (issue 37): the model, run file and stream lines; the library's live table.
UNIT_TESTS += test_memory test_mem_live test_memory_analysis
# The sampler names native frames without the loader's load lock (module_map.h).
UNIT_TESTS += test_module_map
# The wall-time timeline's sums, however a span is cut.
UNIT_TESTS += test_wall_account
# Runs as rows, their key, the store's round trip, diff's noise rules, history's band (issue 38).
UNIT_TESTS += test_run_rows
# The Markdown output (--md): the samples against their JSON, the command line.
UNIT_TESTS += test_markdown
# Nsight Compute's CSV export (issue 35): import, report --ncu, against the program's own counts.
UNIT_TESTS += test_import_ncu
# Each source's row (src/model/source.c) whole, its reasons in the figures, none named in report/.
UNIT_TESTS += test_sources
UNIT_BINS  := $(UNIT_TESTS:%=$(BUILD)/tests/%)

.PHONY: all run deps test-deps test test-sql bench-db readme gpu-build test-gpu bench bench-gpu bench-cpu bench-import bench-merge bench-long fuzz fuzz-deps fuzz-build clean install \
        uninstall deb

all: $(BIN) $(CARRIED)

$(BIN): $(CORE_OBJ) $(RUN_OBJ) $(CUDA_OBJ) $(CXX_OBJ) | $(CARRIED)
	$(CC) $(LDFLAGS) -o $@ $^ $(GPU_LIBS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) -std=c++17 -O2 -g -Wall -Wextra $(SAN) -c -o $@ $<

$(BUILD)/cuda/%.o: cuda/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -D_GNU_SOURCE $(SRC_DIRS:%=-I%) -Icuda -MMD -MP -c -o $@ $<

# wgmma exists only in the architecture-specific sm_90a target (no PTX: it runs on compute
# capability 9.0 alone, and the workload's setup refuses other GPUs).
$(BUILD)/cuda/ladder_tf32_wgmma.o: NVCCFLAGS := $(filter-out $(GENCODE),$(NVCCFLAGS)) -gencode arch=compute_90a,code=sm_90a

# The injection library `mmprof profile` puts into the program it runs (CUDA_INJECTION64_PATH
# and NVTX_INJECTION64_PATH). It lives in someone else's process, so it needs only libc, libdl and
# pthread (CUPTI it opens at CUDA's start, below); hidden visibility keeps everything but its entry
# points out of the program's symbol space.
INJECT     := $(BUILD)/libmmprof_inject.so
INJECT_SRC := src/inject/inject_cuda.c src/inject/inject_kinds.c src/inject/inject_stream.c src/inject/inject_device.c \
              src/inject/inject_nvtx.c src/inject/inject_signal.c src/collect/cupti_records.c src/collect/stream_format.c \
              src/collect/rank_env.c src/inject/inject_counters.c src/model/model.c src/model/host_activity.c src/util/spill.c src/util/strbuf.c src/util/thread_wait.c src/util/kernel_regex.c src/util/stage_times.c \
              src/collect/capture_config.c src/inject/inject_capture.c src/collect/capture_control.c src/inject/inject_control.c \
              src/inject/host_tree.c src/inject/inject_host.c src/inject/inject_sites.c src/inject/inject_pyframes.c \
              src/inject/inject_pycode.c src/inject/inject_pylook.c src/inject/inject_sampler.c src/inject/module_map.c \
              src/inject/inject_pyhooks.c src/collect/cupti_load.c
# GPU memory over time (issue 37): the model's memory store (model.c frees it), the allocation
# calls' callbacks and the table of live allocations, the devices' memory through NVML.
INJECT_SRC += src/model/memory_activity.c src/inject/inject_memory.c src/inject/mem_live.c \
              src/inject/inject_memory_nvml.c src/collect/nvml_open.c
# counters.cpp too (the range profiler, for profile --counters): C++ only for a header, it needs
# no libstdc++, and the library must not bring one (inject_counters.c says why).
INJECT_OBJ := $(INJECT_SRC:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/src/collect/counters.o

# CUPTI is opened at CUDA's start, not linked (src/collect/cupti_load.h says why): the library's
# files call it through pointers (MMPROF_CUPTI_DLOPEN), and the run path finds the toolkit's copy.
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DMMPROF_CUPTI_DLOPEN -fPIC -fvisibility=hidden -c -o $@ $<

$(BUILD)/pic/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) -DMMPROF_CUPTI_DLOPEN -std=c++17 -O2 -g -Wall -Wextra -fPIC -fvisibility=hidden -c -o $@ $<

$(INJECT): $(INJECT_OBJ)
	$(CC) -shared -Wl,-soname,libmmprof_inject.so -Wl,-z,defs -Wl,-rpath,$(CUDA)/lib64 \
	    -o $@ $^ -ldl -lpthread

# Preloaded beside it (LD_PRELOAD): an _exit that flushes the injection library first. No
# libcupti dependency: it must not load a CUPTI before the program loads its own.
EXIT_HOOK := $(BUILD)/libmmprof_exit.so
$(EXIT_HOOK): src/inject/exit_hook.c
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libmmprof_exit.so -Wl,-z,defs -o $@ $< -ldl
# (defined here, after the variables: a prerequisite is expanded where its rule is read)
all: $(INJECT) $(EXIT_HOOK)

# Shared libraries the H200 machine does not have, carried beside the binaries.
$(LIBDIR)/%:
	@mkdir -p $(LIBDIR)
	cp -L /usr/lib/x86_64-linux-gnu/$* $@

# Debian packages the build needs, and those only the tests need: a real browser for the HTML
# page; for the install test, what builds a Debian package (dpkg-dev, debhelper, fakeroot, and
# build-essential, which dpkg-buildpackage requires of every build), man for `man -w` and
# bash-completion, which loads the installed completion; for make fuzz, clang and its runtime
# (libFuzzer). Each list installs only what is missing.
DEB_PKGS  := gcc g++ make libopenblas-dev libcjson-dev libcmocka-dev libsqlite3-dev zlib1g-dev libzstd-dev liblzma-dev libpq-dev \
             libcsv-dev
# postgresql: the server the database tests start in a temporary directory (initdb, a Unix socket).
TEST_PKGS := chromium dpkg-dev debhelper fakeroot build-essential man-db bash-completion xz-utils zstd postgresql
FUZZ_PKGS := clang libclang-rt-14-dev
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

# axe-core (the accessibility engine test_browser runs in Chromium) is vendored in
# tests/vendor/axe-core (its README says which release and how it was checked): no npm.
test-deps: deps
	$(call install_missing,$(TEST_PKGS))

run: deps
	$(MAKE) all
	$(BIN) --size $(SIZE) --json $(BUILD)/run.json

# ---------- tests ----------

# Run files made from recorded ones with a known change planted (tests/run_plant.c): mmprof diff's
# tests and the database benchmark.
RUN_PLANT := $(BUILD)/tests/run_plant

TEST_CORE := $(CORE_OBJ) $(BUILD)/tests/test_support.o
GPU_BINS  := $(BUILD)/tests/test_gpu $(BUILD)/tests/test_multi_gpu $(BUILD)/tests/test_profile_gpu $(BUILD)/tests/bench
# Made through pattern rules only, these objects would be intermediate, deleted at the end of
# every make and compiled again by the next.
.SECONDARY: $(BUILD)/tests/test_support.o $(GPU_BINS:%=%.o)

# The unit tests run under AddressSanitizer and UBSan, and so does the core code they call: its
# objects are built a second time, instrumented, under $(SAN_DIR). build/mmprof and the GPU
# binaries stay uninstrumented (the H200 machine runs those; CUDA and ASan do not mix well).
# Undefined behaviour stops the test, so it fails instead of printing a line nobody reads.
# -O1 -g1 after CFLAGS' -O2 -g: line tables are what a sanitizer's report needs, and the
# instrumented objects then build in 37 s instead of 66 s on two cores (make test's budget).
TEST_SAN  ?= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g1
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

# test_counters also calls the range profiler's reason text (counters.o, CUPTI, no GPU needed).
$(BUILD)/tests/test_counters: $(SAN_DIR)/tests/test_counters.o $(SAN_CORE) $(CXX_OBJ) | $(CARRIED)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_SAN) -o $@ $^ $(GPU_LIBS) $(LDLIBS) -lcmocka

# test_cupti_records builds CUPTI's records in memory and maps them (libcupti names API calls
# and walks a buffer without a GPU or a driver).
$(BUILD)/tests/test_cupti_records: $(SAN_DIR)/tests/test_cupti_records.o $(SAN_CORE) $(SAN_DIR)/src/collect/cupti_records.o | $(CARRIED)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_SAN) -o $@ $^ -lcupti $(LDLIBS) -lcmocka

$(filter-out %/test_cpu_blas %/test_counters %/test_cupti_records %/test_page_figures,$(UNIT_BINS)): $(BUILD)/tests/%: $(SAN_DIR)/tests/%.o $(SAN_CORE) | $(CARRIED)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(TEST_SAN) -o $@ $^ $(LDLIBS) -lcmocka

# test_page_figures checks the pages build/mmprof (uninstrumented, like every program the tests
# run) wrote against the JSON it wrote: the code it tests runs there. The checker itself, which
# parses every sample's JSON (the sweep's is 44 MB), is built without the sanitizers, which made
# it the longest test of make test.
$(BUILD)/tests/test_page_figures: $(BUILD)/tests/test_page_figures.o $(TEST_CORE) | $(CARRIED)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# The injection library's signal path, with a stand-in for the flush it asks for.
$(BUILD)/tests/test_inject_signal: $(SAN_DIR)/src/inject/inject_signal.o $(SAN_DIR)/src/util/thread_wait.o
# The injection library's host call tree.
$(BUILD)/tests/test_host_tree: $(SAN_DIR)/src/inject/host_tree.o
# The injection library's table of live allocations.
$(BUILD)/tests/test_mem_live: $(SAN_DIR)/src/inject/mem_live.o
# The injection library's table of loaded modules, and a library that is slow to load beside it.
$(BUILD)/tests/test_module_map: $(SAN_DIR)/src/inject/module_map.o | $(BUILD)/tests/libslow_ctor.so
$(BUILD)/tests/libslow_ctor.so: tests/slow_ctor.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -Wall -Wextra -shared -fPIC -o $@ $<

# A fake NVML the NVML tests open through MMPROF_NVML_LIBRARY (tests/fake_nvml.c says what it
# answers); test_nvml finds it beside itself.
$(BUILD)/tests/libfake_nvml.so: tests/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -shared -fPIC -o $@ $<
$(BUILD)/tests/test_nvml: | $(BUILD)/tests/libfake_nvml.so

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_CORE) | $(CARRIED)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# Programs the profile tests run under `mmprof profile`, needing no GPU: nvtx_demo makes NVTX
# ranges (header-only NVTX), so the injection library's NVTX side is tested on any machine;
# inject_probe calls the library's CUDA entry point itself, as the driver would.
PROFILE_HELPERS := $(BUILD)/tests/nvtx_demo $(BUILD)/tests/inject_probe
$(PROFILE_HELPERS): $(BUILD)/tests/%: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -I$(CUDA)/include -o $@ $< -ldl

$(BUILD)/tests/test_profile: | $(PROFILE_HELPERS) $(INJECT)

# The injection library's host stacks without a GPU (tests/test_host_inject.sh): its objects with
# tests/host_probe.c as one shared object that exports what CUPTI and the driver would call, and
# a C program with no Python that drives it.
HOST_PROBE := $(BUILD)/tests/host_probe.so $(BUILD)/tests/host_probe_main
$(BUILD)/tests/host_probe.so: $(BUILD)/pic/tests/host_probe.o $(INJECT_OBJ)
	$(CC) -shared -Wl,-z,defs -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -o $@ $^ -lcupti -ldl -lpthread
$(BUILD)/tests/host_probe_main: tests/host_probe_main.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -rdynamic -o $@ $< -ldl
# GPU memory (issue 37): a program that drives the library's allocation callbacks into an
# out-of-memory error (tests/test_memory_inject.sh).
HOST_PROBE += $(BUILD)/tests/memory_probe_main
$(BUILD)/tests/memory_probe_main: tests/memory_probe_main.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -I$(CUDA)/include -rdynamic -o $@ $< -ldl

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

# Example programs for `mmprof profile` (examples/): ordinary CUDA programs that report their own
# counts and cudaEvent times, which tests/test_profile_gpu.c compares with what mmprof recorded.
EXAMPLES := $(BUILD)/examples/copies_and_streams $(BUILD)/examples/counter_kernels $(BUILD)/examples/capture_ranges \
            $(BUILD)/examples/host_loop $(BUILD)/examples/causes/launch
# GPU memory (issue 37, tests/memory_gpu.sh): every allocator, an out-of-memory death, a GPU-bound
# loop to kill, the cost benchmark.
EXAMPLES += $(BUILD)/examples/memory_allocators $(BUILD)/examples/memory_oom $(BUILD)/examples/crash_steps \
            $(BUILD)/examples/memory_bench
$(BUILD)/examples/%: examples/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O2 -g $(GENCODE) -Xcompiler -Wall,-Wextra -o $@ $< -ldl

# Everything a GPU machine runs, built here: `make gpu-build`, then carry build/ there.
gpu-build: all $(GPU_BINS) $(LADDER_TUNE) $(EXAMPLES)

# make test builds with TEST_JOBS jobs unless make was given -j (its job server then decides), and
# runs TEST_JOBS tests at once (tests/run_tests.sh prints them in order), except test_browser,
# which times pages and runs alone, first. TEST_JOBS is one more than the CPUs: tests wait on the
# programs they run, and a third worker fills those waits (5m40s to 5m22s on two idle cores). The clock starts with make (the packages test-deps installs
# included); run_tests.sh prints the time before the closing line.
TEST_JOBS ?= $(shell echo $$(($$(nproc) + 1)))
ifneq ($(filter test,$(MAKECMDGOALS)),)
TESTS_STARTED := $(shell date +%s)
endif
# The longest first (the sanitized ones that load the 2048 sample many times), so that no worker
# is left with one of them at the end. consistency.sh (issue 36) renders every committed sample and
# reads its outputs against one another: about 10 s on an idle core.
SLOW_TESTS := test_browser test_install test_browser_pages.sh test_text_report test_model_json test_analysis test_devices test_compare \
              test_sweep test_page_figures

test: test-deps
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS)) all $(UNIT_BINS) $(GPU_BINS) $(INSTALL_BIN) $(HOST_PROBE) $(REPLAY_BINS) $(RUN_PLANT)
	@TESTS_STARTED=$(TESTS_STARTED) TEST_JOBS=$(TEST_JOBS) TESTS_ALONE=test_browser MMPROF_BROWSER_PART=timed \
	    tests/run_tests.sh $(BUILD) $(SLOW_TESTS) \
	    $(filter-out $(SLOW_TESTS),$(UNIT_TESTS)) test_gpu test_multi_gpu test_profile_gpu test_docs_options test_architecture.sh test_host_inject.sh test_cause_samples.sh test_memory_inject.sh test_read_limits.sh readme_quotes.sh readme_examples.sh test_db.sh consistency.sh float_formats.sh \
	    $(FUZZ_TARGETS)

# The database tests on every committed sample rather than make test's three (SQLite and the test's
# own PostgreSQL server; tests/test_db.sh), about a minute on two cores.
test-sql: test-deps
	$(MAKE) all $(RUN_PLANT)
	@tests/run_tests.sh $(BUILD) test_db_all.sh

# The quoted output of README.md and docs/*.md made again by the commands their markers name
# (tests/readme_quotes.sh says how); make test fails while a quoted block differs from what the
# binary prints. tests/readme_examples.sh runs README.md's examples (make test and make test-gpu).
readme: $(BIN)
	@tests/readme_quotes.sh --update $(BUILD)

# On the GPU machine: the binaries built here travel with the tree (carry build/), so these
# targets only run them. test-gpu also runs two mmprof at once on the GPU (tests/concurrent_gpu.sh),
# compares --counters with Nsight Compute (tests/counters_gpu.sh, needs ncu on PATH), checks profile's
# capture options on examples/capture_ranges.cu (tests/capture_gpu.sh)
# and compute-sanitizer's four tools over every hand-written kernel (tests/sanitize_gpu.sh), GPU memory
# against the programs' own accounts (tests/memory_gpu.sh), and README.md's GPU examples
# (tests/readme_examples.sh). They never rebuild: that machine has no cJSON or cmocka headers.
test-gpu:
	@test -x $(BUILD)/tests/test_gpu -a -x $(BUILD)/examples/copies_and_streams || { echo "run 'make gpu-build' first" >&2; exit 1; }
	@tests/run_tests.sh --gpu $(BUILD) test_gpu test_multi_gpu test_profile_gpu concurrent_gpu.sh counters_gpu.sh profile_counters_gpu.sh capture_gpu.sh host_causes_gpu.sh sanitize_gpu.sh ddp_gpu.sh memory_gpu.sh readme_examples.sh

# Every benchmark this machine can run: the CPU ones everywhere (the importer on a ~100 MB trace,
# the memory `mmprof report` needs for a large run file), the GPU ones where there is a GPU and
# `make gpu-build` made them (bench-gpu).
bench: bench-import bench-cpu bench-merge bench-long bench-db
	@if nvidia-smi -L >/dev/null 2>&1; then $(MAKE) --no-print-directory bench-gpu; \
	else echo "bench: the GPU part is skipped: no GPU here (bench-gpu runs it on a GPU machine)"; fi

# With PyTorch, also issue 23's long runs (about 10 minutes): a minute of training profiled whole
# (run file, mmprof's memory, exit to report and its stages: tests/long_run_gpu.sh) and 5 minutes
# under a capture against unprofiled and a 30 s capture (tests/long_capture_gpu.sh); their
# summaries under $(BENCH_OUT).
BENCH_OUT ?= /tmp/mmprof-bench
bench-gpu:
	@test -x $(BUILD)/tests/bench || { echo "run 'make gpu-build' first" >&2; exit 1; }
	MMPROF_BIN=$(BUILD)/mmprof $(BUILD)/tests/bench
	@if python3 -c 'import torch' 2>/dev/null; then python3 tests/bench_host_ab.py $(BUILD) && \
	  OUT=$(BENCH_OUT) MMPROF_BIN=$(BUILD)/mmprof tests/long_run_gpu.sh 60 && \
	  OUT=$(BENCH_OUT) MMPROF_BIN=$(BUILD)/mmprof tests/long_capture_gpu.sh; \
	else echo "bench: host sampling's cost and the long runs are not measured: no PyTorch here"; fi

# The Kineto importer on a ~100 MB trace made by repeating a recorded one (a real H200 trace when
# samples/ has one): wall time, peak RSS and RSS over the file's size. CPU only; optimised build.
BENCH_TRACE ?= $(firstword $(wildcard samples/*.kineto.json) tests/data/kineto/matmul_copies.json)
bench-import: $(BUILD)/tests/bench_import
	$(BUILD)/tests/bench_import $(BENCH_TRACE) 100

# The merge of a job's rank files as the job grows (docs/scaling.md): 8 to 64 copies of a rank file.
# BENCH_RANK_FILE: the DDP sample's rank file when it is there, else the PyTorch profile sample.
BENCH_RANK_FILE ?= $(firstword $(wildcard samples/h200-ddp-rank.0.json.xz) samples/h200-profile-torch.json)
bench-merge: all
	$(call install_missing,time python3)
	tests/bench_merge.sh $(BIN) $(BENCH_RANK_FILE) 5 8 16 32 64

# A long run (docs/scaling.md): 60 s of a training loop made from the recorded one
# (tests/long_run_gen), its file size, peak RSS and time from the program's exit to the report,
# and `mmprof report` on its run file; median of 3. About 2 minutes on two cores: not in make test.
# BENCH_BASE=DIR/mmprof (a build of another commit, its injection library beside it): each rep runs
# it before this build's, and every figure is given for both with the ratio (docs/scaling.md).
bench-long: all $(BUILD)/tests/long_run_gen
	$(call install_missing,time bc)
	tests/long_run_bench.sh $(BIN) 3 60 $(BENCH_BASE)

# Runs in a database (issue 38): 1,000 synthetic run files made from the samples (tests/run_plant.c
# series) stored into SQLite (at most a minute on two cores) and `mmprof history` over them (at
# most 2 s), and the same into a PostgreSQL server of its own (tests/db_bench.sh). Not in make
# test: about two minutes with the files' making.
BENCH_DB_RUNS ?= 1000
bench-db: all $(RUN_PLANT)
	$(call install_missing,postgresql time)
	tests/db_bench.sh $(BIN) $(RUN_PLANT) $(BENCH_DB_RUNS)

# The memory `mmprof report` needs for a large run file (no GPU needed; also part of make test).
bench-cpu: all $(BUILD)/tests/bench_cpu
	@tests/run_tests.sh $(BUILD) bench_cpu

clean:
	rm -rf $(BUILD)

# ---------- install ----------
# `make install` puts, under PREFIX (DESTDIR before it stages the tree for a package):
#   bin/mmprof                               the program
#   lib/mmprof/                              what it loads at run time, found relative to the
#                                            binary ($ORIGIN/../lib/mmprof), never through the
#                                            build tree: every file the build put in
#                                            build/lib/mmprof/ (the injection library of
#                                            `mmprof profile`)
#   share/man/man1/mmprof.1                  docs/mmprof.1
#   share/bash-completion/completions/mmprof completion/mmprof
#   share/doc/mmprof/                        README.md and samples/
# The installed binary is build/mmprof relinked without its run path into build/lib: that folder
# holds copies of cJSON and cmocka for the GPU machine only, and is never installed, so the
# installed binary uses the system's cJSON and OpenBLAS. Its one run path is the CUDA toolkit's
# library folder: libcupti and libcudart come from the toolkit, which is not a Debian package and
# not on the loader's default path.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
PKGLIBDIR   := $(PREFIX)/lib/mmprof
MAN1DIR     := $(PREFIX)/share/man/man1
COMPDIR     := $(PREFIX)/share/bash-completion/completions
DOCDIR      := $(PREFIX)/share/doc/mmprof
PKGLIB_SRC  ?= $(LIBDIR)/mmprof
INSTALL_BIN := $(BUILD)/install/mmprof
# The files of samples/, not its folders (causes/ and ncu/ are test and importer data), which
# install -m 644 refuses (tests/test_install.sh installs the same list).
SAMPLES     := $(filter-out $(patsubst %/.,%,$(wildcard samples/*/.)),$(wildcard samples/*))

$(INSTALL_BIN): $(CORE_OBJ) $(RUN_OBJ) $(CUDA_OBJ) $(CXX_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 $(SAN) -o $@ $^ $(GPU_LIBS) $(LDLIBS)

# The build tree's binary finds the injection library beside it; the installed one in
# ../lib/mmprof, so install carries a copy from build/lib/mmprof/.
PKGLIB_FILES := $(LIBDIR)/mmprof/libmmprof_inject.so $(LIBDIR)/mmprof/libmmprof_exit.so
$(LIBDIR)/mmprof/%.so: $(BUILD)/%.so
	@mkdir -p $(dir $@)
	cp $< $@

install: $(INSTALL_BIN) $(PKGLIB_FILES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(COMPDIR) $(DESTDIR)$(DOCDIR)/samples
	install -m 755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/mmprof
	install -m 644 docs/mmprof.1 $(DESTDIR)$(MAN1DIR)/mmprof.1
	install -m 644 completion/mmprof $(DESTDIR)$(COMPDIR)/mmprof
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 644 $(SAMPLES) $(DESTDIR)$(DOCDIR)/samples/
	if [ -n "$$(ls -A $(PKGLIB_SRC) 2>/dev/null)" ]; then \
	  install -d $(DESTDIR)$(PKGLIBDIR) && install -m 644 $(PKGLIB_SRC)/* $(DESTDIR)$(PKGLIBDIR)/; fi

# Removes each file install put there, and the folders that are mmprof's own once they are empty
# (a file someone else put in one stays, and so does the folder). lib/mmprof is mmprof's private
# folder and goes whole: the build that installed it may be gone.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mmprof $(DESTDIR)$(MAN1DIR)/mmprof.1 $(DESTDIR)$(COMPDIR)/mmprof
	rm -f $(DESTDIR)$(DOCDIR)/README.md $(SAMPLES:%=$(DESTDIR)$(DOCDIR)/%)
	rm -rf $(DESTDIR)$(PKGLIBDIR)
	@rmdir $(DESTDIR)$(DOCDIR)/samples $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# ---------- the Debian package ----------
# Built by dpkg-buildpackage (debian/ says how) in a copy of the tree under build/deb/, so its
# own build, its clean and the files it writes beside the tree stay inside build/; the .deb is
# moved to build/. The copy has no .git: the commit --version names is passed in MMPROF_COMMIT.
# The package's version is debian/changelog's, which must be the program's.
# DEB_REUSE=1 copies this tree's compiled objects of the program (not its tests, fuzz targets or
# sanitizer builds) in with the sources, so the package's build only links: make test's package
# test uses it, since compiling everything again (nvcc's kernels above all) took 48 of its 63 s.
# The objects are those make builds with the same flags; the package's clean step is skipped
# (-nc), as it would delete them. `make deb` alone builds from sources.
DEB_DIR := $(BUILD)/deb
DEB_REUSE ?=
DEB_EXCLUDE = $(if $(DEB_REUSE),--exclude=./$(DEB_DIR) --exclude=./$(BUILD)/san --exclude=./$(BUILD)/fuzz \
              --exclude=./$(BUILD)/tests --exclude=./$(BUILD)/examples --exclude=./$(BUILD)/install \
              --exclude=./$(BUILD)/mmprof_*.deb,--exclude=./$(BUILD))

deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || \
	  { echo "make deb needs dpkg-dev and debhelper (make test-deps installs them)" >&2; exit 1; }
	@v=$$(sed -n 's/^#define MMPROF_VERSION "\(.*\)"/\1/p' src/model/model.h); \
	d=$$(dpkg-parsechangelog -S Version); \
	[ "$$v" = "$$d" ] || { echo "debian/changelog says $$d, src/model/model.h says $$v: add a changelog entry" >&2; exit 1; }
	rm -rf $(DEB_DIR) $(BUILD)/mmprof_*.deb
	mkdir -p $(DEB_DIR)/mmprof
	tar -c $(DEB_EXCLUDE) --exclude=./.git -f - . | tar -x -C $(DEB_DIR)/mmprof -f -
	cd $(DEB_DIR)/mmprof && MMPROF_COMMIT=$$(cd $(CURDIR) && src/cli/commit.sh .) CUDA=$(CUDA) \
	  dpkg-buildpackage -b -us -uc -J2 $(if $(DEB_REUSE),-nc)
	mv $(DEB_DIR)/mmprof_*.deb $(BUILD)/
	@ls $(BUILD)/mmprof_*.deb
# ---------- fuzzing (libFuzzer) ----------
# Each target is tests/fuzz/fuzz_NAME.c, built with clang, libFuzzer, ASan and UBSan together with
# the sources it reaches, and seeded from tests/fuzz/corpus/NAME (small inputs, checked in; an
# input that once crashed stays there, so every run replays it first). Adding a target is one
# line: $(eval $(call fuzz_target,NAME,SOURCES,EXTRA LINK ARGUMENTS)).
#   make fuzz              each target for FUZZ_SECONDS (new inputs kept in build/fuzz/corpus/NAME)
#   make test              replays each checked-in corpus under ASan and UBSan (replay_NAME, below), counted
# The sources are compiled once into $(FUZZ_OBJ_DIR), instrumented for libFuzzer but without its
# main (fuzzer-no-link), and every target links the objects it needs: the targets share the core,
# which compiled four times over was most of make test's build.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -std=c11 -gline-tables-only -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) -fno-omit-frame-pointer \
                -D_GNU_SOURCE $(SRC_DIRS:%=-I%) -Ireport -I$(BUILD)/gen -I$(CUDA)/include -I$(PG_INC) -MMD -MP
FUZZ_OBJ_DIR := $(BUILD)/fuzz/obj
FUZZ_TARGETS :=
comma        := ,

$(FUZZ_OBJ_DIR)/%.o: %.c | $(BUILD)/gen/templates.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

# SOURCES' .c files become objects of $(FUZZ_OBJ_DIR); anything else in it (objects built by gcc
# or nvcc) is only a prerequisite, linked through EXTRA LINK ARGUMENTS.
# Each target also gets build/tests/replay_NAME: the same fuzz_NAME.c and SOURCES from the
# sanitized objects the unit tests use, with tests/fuzz/replay_main.c for a main, which make test
# runs over the checked-in corpus (no clang, no third build of the core).
define fuzz_target
FUZZ_TARGETS += fuzz_$(1)
$(BUILD)/fuzz/fuzz_$(1): $(FUZZ_OBJ_DIR)/tests/fuzz/fuzz_$(1).o $(patsubst %.c,$(FUZZ_OBJ_DIR)/%.o,$(2)) | $(CARRIED)
	$$(FUZZ_CC) -fsanitize=fuzzer $$(FUZZ_SAN) -o $$@ $$(filter $(FUZZ_OBJ_DIR)/%,$$^) $(3) \
	    -Wl,-rpath,'$$$$ORIGIN/../lib' -lcjson -lsqlite3 -lz -lzstd -llzma -lcsv -lm
$(BUILD)/tests/replay_$(1): $(SAN_DIR)/tests/fuzz/replay_main.o $(SAN_DIR)/tests/fuzz/fuzz_$(1).o \
                            $(patsubst %.c,$(SAN_DIR)/%.o,$(2)) | $(CARRIED)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) $$(TEST_SAN) -o $$@ $$(filter $(SAN_DIR)/%,$$^) $(3) $$(LDLIBS)
endef

$(eval $(call fuzz_target,run_file,$(CORE_SRC)))
# The importers, fed a file of the fuzzer's bytes: the Kineto trace reader, the SQLite reader and
# the Nsight Compute CSV reader.
$(eval $(call fuzz_target,import_kineto,$(CORE_SRC)))
$(eval $(call fuzz_target,import_nsys,$(CORE_SRC)))
$(eval $(call fuzz_target,import_ncu,$(CORE_SRC)))
# Traces as users have them: gzip, zstd or xz content (told by its bytes), and any input on a pipe.
$(eval $(call fuzz_target,import_gzip,$(CORE_SRC)))
$(eval $(call fuzz_target,import_pipe,$(CORE_SRC),-lpthread))
# Record streams as mmprof profile reads them back, through the run file and back again.
$(eval $(call fuzz_target,stream,$(CORE_SRC)))
# The parser reaches the workload table, which names the GPU workloads: the program's own
# sources and kernels, less main.
$(eval $(call fuzz_target,cli,$(CORE_SRC) $(filter-out src/cli/main.c,$(RUN_SRC)) $(CUDA_OBJ) $(CXX_OBJ),$(CUDA_OBJ) $(CXX_OBJ) -L$(CUDA)/lib64 -Wl$(comma)-rpath$(comma)$(CUDA)/lib64 $(GPU_LIBS) -lopenblas -lstdc++ -ldl -lpthread))

FUZZ_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
REPLAY_BINS := $(FUZZ_TARGETS:fuzz_%=$(BUILD)/tests/replay_%)

fuzz-deps: deps
	$(call install_missing,$(FUZZ_PKGS))

fuzz-build: fuzz-deps
	$(MAKE) $(FUZZ_BINS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  n=$${t#fuzz_}; mkdir -p $(BUILD)/fuzz/corpus/$$n; \
	  echo "== $$t for $(FUZZ_SECONDS) s"; \
	  $(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(BUILD)/fuzz/$$n- \
	      $(BUILD)/fuzz/corpus/$$n tests/fuzz/corpus/$$n || exit 1; \
	done

# libcsv's header is <csv.h>, which report/csv.h would shadow: the Nsight Compute reader, which
# needs nothing of report/, is compiled without report/ on the include path.
NCU_CSV_OBJ := $(BUILD)/src/import/ncu_csv.o $(SAN_DIR)/src/import/ncu_csv.o
$(NCU_CSV_OBJ): CPPFLAGS := $(filter-out -Ireport,$(CPPFLAGS))
$(FUZZ_OBJ_DIR)/src/import/ncu_csv.o: FUZZ_CFLAGS := $(filter-out -Ireport,$(FUZZ_CFLAGS))

# ---------- the HTML report's templates ----------
# templates/ is compiled into the binary (report/html.c includes the generated header), so a
# report never needs the source tree at run time. Whichever builds of html.o exist get the rule.
TEMPLATES := templates/report.html templates/report.css templates/report.js templates/timeline.css templates/timeline.js
# GPU memory's bands and tables (issue 37), carried by pages with memory data only.
TEMPLATES += templates/memory.css templates/memory.js
HTML_OBJ  := $(filter %/report/html.o,$(CORE_OBJ) $(SAN_CORE)) $(FUZZ_OBJ_DIR)/report/html.o

$(BUILD)/gen/templates.h: $(TEMPLATES) templates/embed.sh
	@mkdir -p $(dir $@)
	templates/embed.sh $@ $(TEMPLATES)

$(HTML_OBJ): $(BUILD)/gen/templates.h
$(HTML_OBJ): CPPFLAGS += -I$(BUILD)/gen

# ---------- the commit --version names ----------
# Asked of git on every make (src/cli/commit.sh), but the header is replaced only when the answer
# changes, so only build_info.o is recompiled, and only then.
$(BUILD)/gen/commit.h: FORCE
	@mkdir -p $(dir $@)
	@echo "#define MMPROF_COMMIT \"$$(src/cli/commit.sh .)\"" >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/src/cli/build_info.o $(SAN_DIR)/src/cli/build_info.o $(FUZZ_OBJ_DIR)/src/cli/build_info.o: $(BUILD)/gen/commit.h
$(BUILD)/src/cli/build_info.o $(SAN_DIR)/src/cli/build_info.o: CPPFLAGS += -I$(BUILD)/gen

FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
