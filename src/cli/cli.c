/* Command-line parsing with getopt_long. Every rejected argument is named in the message. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "build_info.h"
#include "kernel_regex.h"
#include "model.h"
#include "sample_config.h"
#include "workloads.h"

static void usage(FILE *f)
{
    fputs("Usage: mmprof [OPTIONS]                 run the workloads and report\n"
          "       mmprof report RUN.json [OPTIONS]  report a recorded run again\n"
          "       mmprof report RUN.json RUN2.json ...   merge several runs (the ranks of one job) into one report\n"
          "       mmprof import TRACE [OPTIONS]     analyse a PyTorch profiler trace (JSON), an Nsight\n"
          "                                         Systems SQLite export or an Nsight Compute CSV\n"
          "                                         export (its counters, no timeline)\n"
          "       mmprof compare BASE NEW [OPTIONS]  compare two run files (mmprof compare --help)\n"
          "       mmprof store DB RUN... [OPTIONS]   store run files in a database (mmprof store --help)\n"
          "       mmprof diff A B [OPTIONS]          what changed between two runs, where and why\n"
          "                                         (mmprof diff --help)\n"
          "       mmprof history DB [OPTIONS]        a figure across stored runs, its noise band and\n"
          "                                         the runs that changed it (mmprof history --help)\n"
          "       mmprof capture start|stop TARGET   open or close the capture window of a running\n"
          "                                         profile --capture-range manual (mmprof capture --help)\n"
          "       mmprof profile [OPTIONS] [--] CMD [ARGS...]\n"
          "                                         run CMD and report its CUDA kernels, copies and\n"
          "                                         NVTX ranges, in every process it starts\n"
          "\n"
          "A matrix multiply C = A x B (FP32, row-major, n x n, the same random inputs for every\n"
          "workload) on the CPU through OpenBLAS, through CUDA kernels and through cuBLAS; for each,\n"
          "where the time went, from CUPTI activity records.\n"
          "\n"
          "Run options:\n"
          "  -s, --size N            matrix size n (default 2048)\n"
          "      --sizes LIST        a sweep in one run: sizes 256,512,1000 or powers of two A:B\n"
          "                          (64:8192); at most 32; the report adds where the GPU pays off\n"
          "  -w, --workloads LIST    comma-separated workloads, each named once (default: all; see\n"
          "                          --list-workloads)\n"
          "  -r, --repeat N          timed products per workload (default: sampled by noise, below)\n"
          "      --max-noise PCT     sample until the relative noise, stdev / mean of the timed\n"
          "                          products in %, is at most PCT (default 0.5; at least 10 GPU\n"
          "                          or 3 CPU products)...\n"
          "      --max-time S        ... or S seconds of sampling per workload and size have passed\n"
          "                          (default 0.1)\n"
          "      --cold-l2           flush the GPU's L2 before each timed launch (outside the timing)\n"
          "      --counters          read each GPU kernel's hardware counters (occupancy, throughput,\n"
          "                          DRAM bytes, cache hit rates, FLOPs) in a pass after its timed\n"
          "                          launches, replaying the kernel once per counter pass (timings\n"
          "                          stay as without it); needs permission to read GPU counters.\n"
          "                          With mmprof profile: each chosen launch of CMD is replayed\n"
          "                          under the counters within the launch (CMD runs slower; its\n"
          "                          kernels' times then are not its own)\n"
          "      --kernels REGEX     profile --counters: only kernels whose name (demangled or\n"
          "                          mangled) matches the extended regular expression REGEX\n"
          "      --max-kernels N     profile --counters: at most N launches (default: every one)\n"
          "      --delay SECONDS     profile: record from SECONDS after CMD starts (CUPTI's tracing\n"
          "                          is off before: CMD runs at near-native speed)\n"
          "      --duration SECONDS  profile: stop recording SECONDS after it started (after --delay;\n"
          "                          CMD runs on, unrecorded)\n"
          "      --capture-range R   profile: record only inside R: cuda-profiler (from each\n"
          "                          cudaProfilerStart to its cudaProfilerStop), nvtx:NAME[@DOMAIN]\n"
          "                          (each push/pop or start/end range NAME, ranges nested in it too)\n"
          "                          or manual (between `mmprof capture start` and `stop`, given from\n"
          "                          outside to the pid or directory mmprof profile prints)\n"
          "      --capture-count K   profile --capture-range: record the first K of them (default 1)\n"
          "      --capture-skip K    profile --capture-range: pass over the first K first (warm-up)\n"
          "      --max-size SIZE     profile: stop recording, in every process, once the record files\n"
          "                          reach SIZE bytes in all (K, M, G, T: powers of 1024; 500M, 2G);\n"
          "                          CMD runs on unrecorded and the report says when it stopped\n"
          "      --no-sample         profile: no host sampling (call sites are still taken)\n"
          "      --sample-rate HZ    profile: look at every thread's stack HZ times a second (default\n"
          "                          100, at most 1000): Python stacks on the wall clock, native code\n"
          "                          by CPU time\n"
          "      --no-memory         profile: no GPU memory collection (on by default: every\n"
          "                          allocation and free with its call site, each failed one with\n"
          "                          what was live, the device's memory from NVML)\n"
          "  -m, --host-memory KIND  host buffers for GPU copies: pageable, pinned or both (default)\n"
          "      --seed N            seed for the inputs (default: from the clock; the run records it)\n"
          "      --device N          CUDA device index (default 0)\n"
          "      --devices all|LIST  run the GPU workloads on every listed GPU (0,1,...), one GPU\n"
          "                          after another and then all at once, and measure copies\n"
          "                          between every pair of them (the peer matrix)\n"
          "      --require-gpu       fail (exit 3) instead of skipping GPU workloads without a GPU\n"
          "      --no-cupti          time GPU work with cudaEvents only, as under another profiler\n"
          "      --timeout SECONDS   a workload still running after SECONDS is abandoned and\n"
          "                          reported as an error (exit 1), the rest of the run goes on\n"
          "                          (after a GPU one, without the GPU) (default 600; 0: no limit)\n"
          "      --list-workloads    list the workloads and exit\n"
          "\n"
          "Output options (every command):\n",
          f);
    outputs_help(f); /* the outputs' rows (outputs.h) */
    fputs("      --db DB             store the run in the database DB: an SQLite file (made when\n"
          "                          missing) or postgresql://...; mmprof store --help says more\n"
          "      --ncu EXPORT        report, import, profile: give the run's kernels the hardware\n"
          "                          counters of EXPORT, an Nsight Compute CSV export (what ncu\n"
          "                          writes with --csv and --page raw or details), matched by\n"
          "                          kernel name and launch order\n"
          "  -q, --quiet             no text report on standard output (warned about when no\n"
          "                          output file is named either)\n"
          "      --color WHEN        auto (default: on a terminal, unless NO_COLOR is set), always, never\n"
          "  -h, --help              this help\n"
          "  -V, --version           the version, the commit it was built from and its CUDA toolkit\n"
          "\n"
          "mmprof profile: the output options apply, and --counters, --kernels and --max-kernels,\n"
          "--delay, --duration, --capture-range, --capture-count, --capture-skip and --max-size (as nsys's:\n"
          "outside the capture window(s) no activity is traced, and CMD is never ended by them;\n"
          "the report names each window, why it opened and closed, and the CUDA calls outside),\n"
          "--no-sample and --sample-rate (host sampling, on by default: what each thread was doing,\n"
          "and the stack that made each launch, copy, memset and synchronisation; see the man page),\n"
          "--no-memory (GPU memory, on by default);\n"
          "the text report goes to standard error unless --text names a file, so the program's\n"
          "standard output stays its own. Options end at CMD (or --): what follows belongs to CMD.\n"
          "CMD keeps its stdin, stdout, arguments and environment; mmprof adds\n"
          "CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH (naming libmmprof_inject.so),\n"
          "MMPROF_PROFILE_DIR, and libmmprof_exit.so first in LD_PRELOAD. When either injection\n"
          "variable is already set, another profiler (Nsight Systems, Nsight Compute) holds CUPTI,\n"
          "and mmprof profile refuses (exit 2) rather than record nothing. Ctrl-C reaches CMD;\n"
          "mmprof then reports what was recorded. A process that leaves through _exit flushes its\n"
          "CUDA records first (libmmprof_exit.so's _exit does, waiting at most 1 s), and so does\n"
          "one ended by SIGTERM, SIGINT or SIGHUP left at its default; one that crashes or is\n"
          "killed otherwise loses the records since the last flush (every 100 ms; MMPROF_FLUSH_MS\n"
          "sets it), and the report says which process.\n"
          "\n"
          "FILE '-' is standard output (the text report is then left out). A regular FILE is\n"
          "replaced whole, through a temporary file, keeping its mode and owner; a symlink is\n"
          "followed; a device or FIFO (/dev/null, >(cmd)) is written in place. A read-only FILE,\n"
          "the run file being read, or an output that cannot be opened is refused before any work.\n"
          "\n"
          "Exit status: 0 all workloads verified; 1 a workload failed verification or a CUDA call\n"
          "failed; 2 bad option, size, workload or run file; 3 --require-gpu without a usable GPU;\n"
          "4 an output could not be written (standard output included: a full disk, a closed pipe);\n"
          "130 or 143 interrupted by SIGINT or SIGTERM (no output or temporary file is left).\n"
          "mmprof profile exits with CMD's status (128+N when signal N killed it), or 2 on a bad\n"
          "option or under another profiler, 4 when an output cannot be written, 125 when the\n"
          "injection library is missing or the records cannot be read, 126 when CMD cannot be run,\n"
          "127 when CMD is not found.\n",
          f);
}

static bool parse_seed(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return false;
    *out = v;
    return true;
}

/* Marks each name of a comma list as selected; "all" selects every workload. */
static bool parse_workloads(const char *list, cli_options *o, FILE *err)
{
    int count;
    const workload_def *defs = workload_list(&count);
    bool chosen[MAX_SELECTED] = {false};
    char *copy = strdup(list);
    if (!copy)
        return false;
    bool ok = true;
    int names = 0;
    bool all_given = false;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        names++;
        /* A name given twice (or with "all") is an error, not silently merged: the user may
         * have meant to type another workload. */
        if (strcmp(tok, "all") == 0) {
            for (int i = 0; i < count && i < MAX_SELECTED; i++) {
                if (chosen[i]) {
                    fprintf(err, "mmprof: --workloads: '%s' is named twice ('all' includes it)\n", defs[i].name);
                    ok = false;
                    break;
                }
                chosen[i] = true;
            }
            if (!ok)
                break;
            all_given = true;
            continue;
        }
        const workload_def *d = workload_find(tok);
        if (!d) {
            fprintf(err, "mmprof: --workloads: unknown workload '%s' (known:", tok);
            for (int i = 0; i < count; i++)
                fprintf(err, " %s", defs[i].name);
            fprintf(err, ")\n");
            ok = false;
            break;
        }
        if (chosen[d - defs]) {
            fprintf(err, "mmprof: --workloads: '%s' is named twice%s\n", tok, all_given ? " ('all' includes it)" : "");
            ok = false;
            break;
        }
        chosen[d - defs] = true;
    }
    free(copy);
    if (ok && names == 0) {
        fprintf(err, "mmprof: --workloads: '%s' names no workload\n", list);
        ok = false;
    }
    o->nselected = 0;
    for (int i = 0; ok && i < count && i < MAX_SELECTED; i++)
        if (chosen[i])
            o->selected[o->nselected++] = defs[i].name;
    return ok;
}

static void list_workloads(FILE *out)
{
    int count;
    const workload_def *defs = workload_list(&count);
    for (int i = 0; i < count; i++)
        fprintf(out, "%-18s %-4s %s\n", defs[i].name, defs[i].needs_gpu ? "GPU" : "CPU", defs[i].summary);
}

/* The run's short options; the outputs' (-j) are added from their rows (outputs.h). */
#define SHORT_OPTS ":s:w:r:m:qhV"

/* The option getopt rejected, as the user wrote it. An unknown letter inside a cluster ("-xq")
 * leaves optind on the cluster, so argv[optind - 1] would be the argument before it: the letter
 * is named instead. Long options (optopt 0, or the option's own value for "--quiet=yes") are
 * named as written. */
static void rejected_option(char **argv, const char *shortopts, char *buf, size_t len)
{
    if (optopt > 0 && optopt < 256 && !strchr(shortopts, optopt))
        snprintf(buf, len, "-%c", optopt);
    else
        snprintf(buf, len, "%s", argv[optind - 1]);
}

enum { OPT_SEED = 256, OPT_DEVICE, OPT_REQUIRE_GPU, OPT_NO_CUPTI, OPT_LIST, OPT_COLOR, OPT_TIMEOUT, OPT_DB, OPT_SIZES, OPT_MAX_NOISE, OPT_MAX_TIME, OPT_COLD_L2, OPT_DEVICES,
       OPT_COUNTERS, OPT_KERNELS, OPT_MAX_KERNELS, OPT_DELAY, OPT_DURATION, OPT_CAPTURE_RANGE, OPT_CAPTURE_COUNT,
       OPT_CAPTURE_SKIP, OPT_MAX_SIZE, OPT_NO_SAMPLE, OPT_SAMPLE_RATE, OPT_NO_MEMORY, OPT_NCU,
       OPT_OUTPUT /* the outputs' long options: OPT_OUTPUT + their row */ };

/* The option getopt returned for an output (its long option, or its short one), as its row's
 * index; -1 for any other option. */
static int output_of(int c)
{
    for (int i = 0; i < noutputs; i++)
        if (c == OPT_OUTPUT + i || (outputs[i].short_option && c == outputs[i].short_option))
            return i;
    return -1;
}

int cli_parse(int argc, char **argv, cli_options *o, FILE *out, FILE *err)
{
    static const struct option run_opts[] = {
        {"size", required_argument, NULL, 's'},
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"max-noise", required_argument, NULL, OPT_MAX_NOISE},
        {"max-time", required_argument, NULL, OPT_MAX_TIME},
        {"cold-l2", no_argument, NULL, OPT_COLD_L2},
        {"counters", no_argument, NULL, OPT_COUNTERS},
        {"kernels", required_argument, NULL, OPT_KERNELS},
        {"max-kernels", required_argument, NULL, OPT_MAX_KERNELS},
        {"delay", required_argument, NULL, OPT_DELAY},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"capture-range", required_argument, NULL, OPT_CAPTURE_RANGE},
        {"capture-count", required_argument, NULL, OPT_CAPTURE_COUNT},
        {"capture-skip", required_argument, NULL, OPT_CAPTURE_SKIP},
        {"max-size", required_argument, NULL, OPT_MAX_SIZE},
        {"no-sample", no_argument, NULL, OPT_NO_SAMPLE},
        {"sample-rate", required_argument, NULL, OPT_SAMPLE_RATE},
        {"no-memory", no_argument, NULL, OPT_NO_MEMORY},
        {"workloads", required_argument, NULL, 'w'},
        {"repeat", required_argument, NULL, 'r'},
        {"host-memory", required_argument, NULL, 'm'},
        {"seed", required_argument, NULL, OPT_SEED},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"require-gpu", no_argument, NULL, OPT_REQUIRE_GPU},
        {"no-cupti", no_argument, NULL, OPT_NO_CUPTI},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"list-workloads", no_argument, NULL, OPT_LIST},
        {"db", required_argument, NULL, OPT_DB},
        {"ncu", required_argument, NULL, OPT_NCU},
        {"quiet", no_argument, NULL, 'q'},
        {"color", required_argument, NULL, OPT_COLOR},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
    };
    enum { NRUN_OPTS = sizeof run_opts / sizeof run_opts[0] };
    /* The run's options, then one per output row, then the end. */
    struct option longopts[NRUN_OPTS + OUTPUTS_MAX + 1];
    memcpy(longopts, run_opts, sizeof run_opts);
    char outshort[2 * OUTPUTS_MAX + 1] = "";
    for (int i = 0; i < noutputs; i++) {
        longopts[NRUN_OPTS + i] = (struct option){outputs[i].option + 2, required_argument, NULL, OPT_OUTPUT + i};
        if (outputs[i].short_option)
            snprintf(outshort + strlen(outshort), sizeof outshort - strlen(outshort), "%c:", outputs[i].short_option);
    }
    longopts[NRUN_OPTS + noutputs] = (struct option){NULL, 0, NULL, 0};
    memset(o, 0, sizeof *o);
    o->n = 2048;
    o->max_noise_pct = DEFAULT_MAX_NOISE_PCT;
    o->max_time_s = DEFAULT_MAX_TIME_S;
    o->timeout_s = DEFAULT_TIMEOUT_S;
    bool size_given = false, sizes_given = false, device_given = false, devices_given = false;
    bool run_only_given = false;
    const char *run_only_name = NULL;
    const char *kernels_opt = NULL; /* --kernels or --max-kernels, which need profile --counters */
    capture_args capture = {0};     /* profile's capture options, checked together after the loop */
    const char *sample_opt = NULL;  /* --no-sample or --sample-rate, which are profile's */
    o->sample_hz = SAMPLE_DEFAULT_HZ;

    /* `mmprof report RUN.json ...`: the subcommand comes first. */
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "report") == 0) {
        o->report_mode = true;
        first = 2;
    } else if (argc > 1 && strcmp(argv[1], "import") == 0) {
        o->report_mode = o->import_mode = true;
        first = 2;
    } else if (argc > 1 && strcmp(argv[1], "profile") == 0) {
        o->profile_mode = true;
        first = 2;
    }
    const char *cmd = o->import_mode ? "mmprof import" : o->profile_mode ? "mmprof profile" : "mmprof report";
    /* getopt keeps its place inside a cluster of short options ("-xq") between calls: a parse
     * that stopped there would resume in the previous argv. Parsing an empty argv from optind 0
     * resets that state; then parsing starts after the subcommand.
     * glibc also takes the ordering ("+": stop at the first non-option) from the optstring of
     * that initialising call, so it is given the same one. profile: options stop at CMD ("+"),
     * so CMD's own options stay CMD's. */
    char shortopts[sizeof "+" SHORT_OPTS + sizeof outshort];
    snprintf(shortopts, sizeof shortopts, "%s%s%s", o->profile_mode ? "+" : "", SHORT_OPTS, outshort);
    static char *const empty[] = {"mmprof", NULL};
    optind = 0;
    opterr = 0;
    getopt(1, empty, shortopts);
    optind = first;
    int c;
    long v;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const char *arg = optarg;
        int row = output_of(c);
        if (row >= 0) {
            o->out_path[row] = arg;
            continue;
        }
        switch (c) {
        case 's':
            if (!parse_positive(arg, MAX_SIZE, &v)) {
                fprintf(err, "mmprof: --size '%s': expected a whole number from 1 to %d\n", arg, MAX_SIZE);
                return EXIT_USAGE;
            }
            o->n = (int)v;
            size_given = true;
            run_only_given = true, run_only_name = "--size";
            break;
        case OPT_SIZES:
            if (!parse_sizes(arg, o, err))
                return EXIT_USAGE;
            sizes_given = true;
            run_only_given = true, run_only_name = "--sizes";
            break;
        case OPT_MAX_NOISE:
            if (!parse_positive_real("--max-noise", arg, 100, "percent", &o->max_noise_pct, err))
                return EXIT_USAGE;
            run_only_given = true, run_only_name = "--max-noise";
            break;
        case OPT_MAX_TIME:
            if (!parse_positive_real("--max-time", arg, 3600, "seconds", &o->max_time_s, err))
                return EXIT_USAGE;
            run_only_given = true, run_only_name = "--max-time";
            break;
        case OPT_COLD_L2:
            o->cold_l2 = true;
            run_only_given = true, run_only_name = "--cold-l2";
            break;
        case OPT_COUNTERS:
            o->counters = true;
            if (!o->profile_mode) /* profile --counters: the program's kernels */
                run_only_given = true, run_only_name = "--counters";
            break;
        case OPT_KERNELS: {
            regex_t re;
            char why[160];
            if (!kernel_regex_compile(&re, arg, why, sizeof why)) {
                fprintf(err, "mmprof: --kernels '%.600s': %s\n", arg, why);
                return EXIT_USAGE;
            }
            regfree(&re);
            o->counter_kernels = arg;
            kernels_opt = "--kernels";
            break;
        }
        case OPT_MAX_KERNELS:
            if (!parse_positive(arg, 1000000, &v)) {
                fprintf(err, "mmprof: --max-kernels '%s': expected a whole number from 1 to 1000000\n", arg);
                return EXIT_USAGE;
            }
            o->counter_max = v;
            kernels_opt = "--max-kernels";
            break;
        case OPT_DELAY: capture.delay = arg; break;
        case OPT_DURATION: capture.duration = arg; break;
        case OPT_CAPTURE_RANGE: capture.range = arg; break;
        case OPT_CAPTURE_COUNT: capture.count = arg; break;
        case OPT_CAPTURE_SKIP: capture.skip = arg; break;
        case OPT_MAX_SIZE: capture.max_size = arg; break;
        case OPT_NO_SAMPLE:
            if (sample_opt && strcmp(sample_opt, "--no-sample") != 0) {
                fprintf(err, "mmprof: --no-sample and --sample-rate both set the host sampling: use one\n");
                return EXIT_USAGE;
            }
            o->sample_hz = 0;
            sample_opt = "--no-sample";
            break;
        case OPT_SAMPLE_RATE:
            if (sample_opt && strcmp(sample_opt, "--no-sample") == 0) {
                fprintf(err, "mmprof: --no-sample and --sample-rate both set the host sampling: use one\n");
                return EXIT_USAGE;
            }
            if (!parse_positive_real("--sample-rate", arg, SAMPLE_MAX_HZ, "Hz", &o->sample_hz, err))
                return EXIT_USAGE;
            sample_opt = "--sample-rate";
            break;
        case OPT_NO_MEMORY: o->no_memory = true; break;
        case 'w':
            if (!parse_workloads(arg, o, err))
                return EXIT_USAGE;
            run_only_given = true, run_only_name = "--workloads";
            break;
        case 'r':
            if (!parse_positive(arg, MAX_REPEAT_OPT, &v)) {
                fprintf(err, "mmprof: --repeat '%s': expected a whole number from 1 to %d\n", arg, MAX_REPEAT_OPT);
                return EXIT_USAGE;
            }
            o->repeat = (int)v;
            run_only_given = true, run_only_name = "--repeat";
            break;
        case 'm':
            if (strcmp(arg, "both") == 0)
                o->host_memory = HOSTMEM_BOTH;
            else if (strcmp(arg, "pageable") == 0)
                o->host_memory = HOSTMEM_PAGEABLE;
            else if (strcmp(arg, "pinned") == 0)
                o->host_memory = HOSTMEM_PINNED;
            else {
                fprintf(err, "mmprof: --host-memory '%s': expected pageable, pinned or both\n", arg);
                return EXIT_USAGE;
            }
            run_only_given = true, run_only_name = "--host-memory";
            break;
        case OPT_SEED:
            if (!parse_seed(arg, &o->seed)) {
                fprintf(err, "mmprof: --seed '%s': expected a whole number from 0 to 2^64-1\n", arg);
                return EXIT_USAGE;
            }
            o->seed_given = true;
            run_only_given = true, run_only_name = "--seed";
            break;
        case OPT_DEVICE:
            if (strcmp(arg, "0") == 0)
                v = 0;
            else if (!parse_positive(arg, 1024, &v)) {
                fprintf(err, "mmprof: --device '%s': expected a device index from 0\n", arg);
                return EXIT_USAGE;
            }
            o->device = (int)v;
            device_given = true;
            run_only_given = true, run_only_name = "--device";
            break;
        case OPT_DEVICES:
            if (!parse_devices(arg, o, err))
                return EXIT_USAGE;
            devices_given = true;
            run_only_given = true, run_only_name = "--devices";
            break;
        case OPT_REQUIRE_GPU:
            o->require_gpu = true;
            run_only_given = true, run_only_name = "--require-gpu";
            break;
        case OPT_NO_CUPTI:
            o->no_cupti = true;
            run_only_given = true, run_only_name = "--no-cupti";
            break;
        case OPT_TIMEOUT:
            if (strcmp(arg, "0") == 0)
                v = 0;
            else if (!parse_positive(arg, MAX_TIMEOUT_S, &v)) {
                fprintf(err, "mmprof: --timeout '%s': expected whole seconds from 0 (no limit) to %d\n", arg,
                        MAX_TIMEOUT_S);
                return EXIT_USAGE;
            }
            o->timeout_s = (int)v;
            run_only_given = true, run_only_name = "--timeout";
            break;
        case OPT_LIST:
            list_workloads(out);
            return EXIT_OK;
        case OPT_DB: o->db = arg; break;
        case OPT_NCU: o->ncu_file = arg; break;
        case 'q': o->quiet = true; break;
        case OPT_COLOR:
            if (strcmp(arg, "auto") == 0)
                o->color = COLOR_AUTO;
            else if (strcmp(arg, "always") == 0)
                o->color = COLOR_ALWAYS;
            else if (strcmp(arg, "never") == 0)
                o->color = COLOR_NEVER;
            else {
                fprintf(err, "mmprof: --color '%s': expected auto, always or never\n", arg);
                return EXIT_USAGE;
            }
            break;
        case 'h':
            usage(out);
            return EXIT_OK;
        case 'V':
            print_version(out);
            return EXIT_OK;
        case ':':
            fprintf(err, "mmprof: option '%s' needs a value\n", argv[optind - 1]);
            return EXIT_USAGE;
        default: {
            char opt[64];
            rejected_option(argv, shortopts, opt, sizeof opt);
            fprintf(err, "mmprof: unknown option '%s' (try --help)\n", opt);
            return EXIT_USAGE;
        }
        }
    }
    if (device_given && devices_given) {
        fprintf(err, "mmprof: --device and --devices both choose the GPU: use one\n");
        return EXIT_USAGE;
    }
    if (size_given && sizes_given) {
        fprintf(err, "mmprof: --sizes and --size both give the size: use one\n");
        return EXIT_USAGE;
    }
    if (kernels_opt && !o->profile_mode) {
        fprintf(err, "%s: %s chooses the kernels of a program (mmprof profile --counters %s ...)\n",
                o->report_mode ? cmd : "mmprof", kernels_opt, kernels_opt);
        return EXIT_USAGE;
    }
    if (kernels_opt && !o->counters) {
        fprintf(err, "%s: %s chooses the kernels --counters profiles: add --counters\n", cmd, kernels_opt);
        return EXIT_USAGE;
    }
    if (!capture_options(&capture, o, err))
        return EXIT_USAGE;
    if (o->no_memory && !o->profile_mode) {
        fprintf(err, "%s: --no-memory sets the GPU memory collection of a program (mmprof profile --no-memory ...)\n",
                o->report_mode ? cmd : "mmprof");
        return EXIT_USAGE;
    }
    if (sample_opt && !o->profile_mode) {
        fprintf(err, "%s: %s sets the host sampling of a program (mmprof profile %s ...)\n",
                o->report_mode ? cmd : "mmprof", sample_opt, sample_opt);
        return EXIT_USAGE;
    }
    if (o->ncu_file && !o->report_mode && !o->profile_mode) {
        fprintf(err, "mmprof: --ncu gives Nsight Compute's counters to the kernels of a program "
                     "(mmprof report RUN.json --ncu FILE.csv, or mmprof profile --ncu FILE.csv CMD)\n");
        return EXIT_USAGE;
    }
    if (o->profile_mode) {
        if (run_only_given) {
            fprintf(err, "%s: %s applies to the built-in run, not to a program\n", cmd, run_only_name);
            return EXIT_USAGE;
        }
        if (optind >= argc) {
            fprintf(err, "%s: expected a command to run (mmprof profile [OPTIONS] [--] CMD [ARGS...])\n", cmd);
            return EXIT_USAGE;
        }
        o->command = &argv[optind];
        optind = argc;
    }
    if (o->report_mode) {
        if (optind >= argc) {
            fprintf(err, "%s: expected a %s\n", cmd,
                    o->import_mode ? "trace file (mmprof import TRACE)" : "run file (mmprof report RUN.json)");
            return EXIT_USAGE;
        }
        o->run_file = argv[optind++];
        o->more_files = &argv[optind];
        o->nmore_files = argc - optind;
        optind = argc;
        if (run_only_given) {
            fprintf(err, "%s: %s applies to a new run, not to a recorded one\n", cmd, run_only_name);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(err, "mmprof: unexpected argument '%s' (try --help)\n", argv[optind]);
        return EXIT_USAGE;
    }
    /* Two outputs on one path would overwrite each other. */
    const char *const *paths = o->out_path;
    for (int i = 0; i < noutputs; i++)
        for (int j = i + 1; j < noutputs; j++)
            if (paths[i] && paths[j] && strcmp(paths[i], paths[j]) == 0) {
                fprintf(err, "mmprof: '%s' is named for two outputs\n", paths[i]);
                return EXIT_USAGE;
            }
    /* "-" as an input is standard input and as an output standard output: not the same file. */
    if (o->report_mode)
        for (int i = 0; i < noutputs; i++)
            for (int f = -1; f < o->nmore_files; f++)
                if (paths[i] && strcmp(paths[i], "-") != 0 &&
                    strcmp(paths[i], f < 0 ? o->run_file : o->more_files[f]) == 0) {
                    fprintf(err, "%s: output '%s' would overwrite the %s it reads\n", cmd, paths[i],
                            o->import_mode ? "trace" : "run file");
                    return EXIT_USAGE;
                }
    for (int i = 0; i < noutputs && o->ncu_file; i++)
        if (paths[i] && strcmp(paths[i], "-") != 0 && strcmp(paths[i], o->ncu_file) == 0) {
            fprintf(err, "%s: output '%s' would overwrite the --ncu file it reads\n", cmd, paths[i]);
            return EXIT_USAGE;
        }
    return -1;
}
