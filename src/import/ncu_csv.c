/* Nsight Compute's CSV export (`ncu --csv --page raw` or `--page details`), read into launches
 * with mmprof's hardware counters (kernel_counters), and as `mmprof import FILE.csv` into a run of
 * those launches: counters and no timeline.
 *
 * The file as ncu writes it to standard output: its own "==PROF==" and "==WARNING==" lines and the
 * program's output, then a header line ("ID","Process ID","Process Name","Host Name","Kernel
 * Name",...). Lines before the header are not CSV (the program prints what it likes) and are
 * passed over; after it, a line starting "==" where a row would start is ncu's again.
 *   raw page      a row per launch, a column per metric named as ncu names it, a second row of
 *                 units ("ns", "%", "byte", "inst", "hz"); counters are the columns whose name is
 *                 counter_metric_name's (model.c)
 *   details page  a row per metric of a launch: "Section Name", "Metric Name" (a display name,
 *                 "Duration"), "Metric Unit", "Metric Value", then rule columns; the display
 *                 names mapped below are those whose metric is exactly the counter's (ncu's
 *                 section files say which metric each shows); one named as the metric itself
 *                 (--metrics adds those) maps as on the raw page
 * Numbers have thousands separators ("2,230", "3,195,181,255.53"); a unit with a prefix
 * ("usecond", "Kbyte") is converted to the counter's ("ns", bytes). A counter whose unit is not
 * the kind the counter is (a time for a percentage) is left n/a, said once; an empty or "n/a"
 * value is n/a, anything else that is not a number refuses the file with its line.
 *
 * CSV itself is libcsv's (Debian's libcsv-dev): quoting, doubled quotes, separators and line
 * breaks inside quoted fields. The file is fed to it a line at a time, so messages can say the
 * line. Its header is <csv.h>, the name of report/csv.h on the project's include path: the
 * Makefile compiles this file without report/ on it. */
#include "import.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "ncu_csv.h"

#define MAX_ROW_BYTES ((size_t)64 << 20) /* one row's fields: the raw page's are ~100 kB */
#define MAX_COLUMNS 100000
#define MAX_LAUNCHES 10000000
#define LINE_HEAD 16 /* what tells a line's kind: '"ID",' or "==" */

/* ---------- units and metrics ---------- */

typedef enum { DIM_PCT, DIM_TIME_NS, DIM_BYTES, DIM_COUNT, DIM_HZ, DIM_BYTES_PER_CYCLE } dimension;

/* Each unit ncu writes for a kind of figure, and its factor to the counter's own. */
static const struct {
    const char *unit;
    dimension dim;
    double factor;
} units[] = {
    {"%", DIM_PCT, 1},
    {"ns", DIM_TIME_NS, 1}, {"nsecond", DIM_TIME_NS, 1}, {"us", DIM_TIME_NS, 1e3}, {"usecond", DIM_TIME_NS, 1e3},
    {"ms", DIM_TIME_NS, 1e6}, {"msecond", DIM_TIME_NS, 1e6}, {"s", DIM_TIME_NS, 1e9}, {"second", DIM_TIME_NS, 1e9},
    /* ncu's byte prefixes are decimal (1 Kbyte = 1000 bytes) */
    {"byte", DIM_BYTES, 1}, {"Kbyte", DIM_BYTES, 1e3}, {"Mbyte", DIM_BYTES, 1e6}, {"Gbyte", DIM_BYTES, 1e9},
    {"Tbyte", DIM_BYTES, 1e12},
    {"inst", DIM_COUNT, 1}, {"Kinst", DIM_COUNT, 1e3}, {"Minst", DIM_COUNT, 1e6}, {"Ginst", DIM_COUNT, 1e9},
    {"", DIM_COUNT, 1},
    {"hz", DIM_HZ, 1}, {"Khz", DIM_HZ, 1e3}, {"Mhz", DIM_HZ, 1e6}, {"Ghz", DIM_HZ, 1e9},
    {"cycle/second", DIM_HZ, 1}, {"cycle/usecond", DIM_HZ, 1e6}, {"cycle/nsecond", DIM_HZ, 1e9},
    {"byte/cycle", DIM_BYTES_PER_CYCLE, 1},
};

/* What kind of figure each counter is (model.h). */
static const dimension counter_dim[CTR_COUNT] = {
    [CTR_OCCUPANCY_PCT] = DIM_PCT, [CTR_SM_PCT] = DIM_PCT, [CTR_MEM_PCT] = DIM_PCT,
    [CTR_DRAM_READ_BYTES] = DIM_BYTES, [CTR_DRAM_WRITE_BYTES] = DIM_BYTES, [CTR_L1_HIT_PCT] = DIM_PCT,
    [CTR_L2_HIT_PCT] = DIM_PCT, [CTR_FFMA] = DIM_COUNT, [CTR_FADD] = DIM_COUNT, [CTR_FMUL] = DIM_COUNT,
    [CTR_TENSOR_PCT] = DIM_PCT, [CTR_DRAM_PCT] = DIM_PCT, [CTR_L2_PCT] = DIM_PCT, [CTR_L1_PCT] = DIM_PCT,
    [CTR_DURATION_NS] = DIM_TIME_NS, [CTR_L2_PEAK_BYTES_PER_CYCLE] = DIM_BYTES_PER_CYCLE,
    [CTR_L2_CYCLES_PER_SECOND] = DIM_HZ, [CTR_DRAM_PEAK_BYTES_PER_CYCLE] = DIM_BYTES_PER_CYCLE,
    [CTR_DRAM_CYCLES_PER_SECOND] = DIM_HZ,
};

/* The details page's display names whose metric is exactly a counter's, from ncu's section files
 * (SpeedOfLight, Occupancy, MemoryWorkloadAnalysis): the raw page of the same sections holds
 * those metrics under their own names (samples/ncu/counter_kernels.raw.csv). Section NULL: the
 * name is shown by one section only. Not mapped: "DRAM Throughput", which is
 * gpu__dram_throughput (not dram__throughput, CTR_DRAM_PCT's metric), and the Memory Workload
 * Analysis's "Memory Throughput", a rate in bytes per second (the unit tells it apart). */
static const struct {
    const char *section, *name;
    counter_id c;
} display_names[] = {
    {"GPU Speed Of Light Throughput", "Duration", CTR_DURATION_NS},                  /* gpu__time_duration.sum */
    {"GPU Speed Of Light Throughput", "Compute (SM) Throughput", CTR_SM_PCT},        /* sm__throughput */
    {"GPU Speed Of Light Throughput", "Memory Throughput", CTR_MEM_PCT},             /* gpu__compute_memory_throughput */
    {"GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", CTR_L1_PCT},        /* l1tex__throughput */
    {"GPU Speed Of Light Throughput", "L2 Cache Throughput", CTR_L2_PCT},            /* lts__throughput */
    {"GPU Speed Of Light Throughput", "DRAM Frequency", CTR_DRAM_CYCLES_PER_SECOND}, /* dram__cycles_elapsed */
    {"Occupancy", "Achieved Occupancy", CTR_OCCUPANCY_PCT},                          /* sm__warps_active */
    {NULL, "L1/TEX Hit Rate", CTR_L1_HIT_PCT},                                       /* l1tex__t_sector_hit_rate.pct */
    {NULL, "L2 Hit Rate", CTR_L2_HIT_PCT},                                           /* lts__t_sector_hit_rate.pct */
};

static int counter_of_metric(const char *name)
{
    for (int c = 0; c < CTR_COUNT; c++)
        if (strcmp(name, counter_metric_name((counter_id)c)) == 0)
            return c;
    return -1;
}

static int counter_of_display(const char *section, const char *name)
{
    for (size_t i = 0; i < sizeof display_names / sizeof display_names[0]; i++)
        if (strcmp(name, display_names[i].name) == 0 &&
            (!display_names[i].section || strcmp(section, display_names[i].section) == 0))
            return (int)display_names[i].c;
    return counter_of_metric(name);
}

/* The raw page's device__attribute_* columns the run's device keeps. */
static const struct {
    const char *column;
    size_t offset;
    bool wide; /* uint64_t, else int */
} device_columns[] = {
    {"device__attribute_multiprocessor_count", offsetof(device_info, sm_count), false},
    {"device__attribute_clock_rate", offsetof(device_info, clock_khz), false},
    {"device__attribute_memory_clock_rate", offsetof(device_info, mem_clock_khz), false},
    {"device__attribute_global_memory_bus_width", offsetof(device_info, bus_width_bits), false},
    {"device__attribute_l2_cache_size", offsetof(device_info, l2_bytes), false},
    {"device__attribute_total_memory", offsetof(device_info, total_mem), true},
    {"device__attribute_max_threads_per_multiprocessor", offsetof(device_info, max_threads_per_sm), false},
    {"device__attribute_max_threads_per_block", offsetof(device_info, max_threads_per_block), false},
    {"device__attribute_max_blocks_per_multiprocessor", offsetof(device_info, max_blocks_per_sm), false},
    {"device__attribute_max_registers_per_multiprocessor", offsetof(device_info, regs_per_sm), false},
    {"device__attribute_max_registers_per_block", offsetof(device_info, regs_per_block), false},
    {"device__attribute_warp_size", offsetof(device_info, warp_size), false},
    {"device__attribute_max_shared_memory_per_multiprocessor", offsetof(device_info, smem_per_sm), true},
    {"device__attribute_max_shared_memory_per_block", offsetof(device_info, smem_per_block), true},
    {"device__attribute_max_shared_memory_per_block_optin", offsetof(device_info, smem_per_block_optin), true},
    {"device__attribute_reserved_shared_memory_per_block", offsetof(device_info, reserved_smem_per_block), true},
};
#define NDEVICE_COLUMNS ((int)(sizeof device_columns / sizeof device_columns[0]))

/* ---------- the reader ---------- */

typedef enum { COL_ID, COL_PID, COL_KERNEL, COL_DEVICE, COL_CC, COL_BLOCK, COL_GRID, COL_SECTION, COL_METRIC,
               COL_UNIT, COL_VALUE, COL_GPU_NAME, COL_PASSES, COL_PROCESS, NCOLS } column;
static const char *const column_names[NCOLS] = {
    "ID", "Process ID", "Kernel Name", "Device", "CC", "Block Size", "Grid Size", "Section Name", "Metric Name",
    "Metric Unit", "Metric Value", "device__attribute_display_name", "profiler__replayer_passes", "Process Name",
};

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    bool failed;
    ncu_csv *c;
    int line;           /* the line being fed, from 1 */
    bool header_seen;   /* before it, lines are passed over */
    bool row_start;     /* the next byte begins a row (a line starting "==" there is ncu's own) */
    char head[LINE_HEAD]; /* a line's first bytes, held until its kind is known */
    size_t nhead;
    bool skipping;      /* the rest of this line is passed over */
    long rows;          /* rows read, the header first */
    /* the row at hand: its fields, NUL-terminated, at offsets into text */
    char *text;
    size_t text_len, text_cap;
    size_t *field_at;
    size_t nfields, fields_cap;
    int row_line;       /* where the row at hand began */
    /* the header */
    int col[NCOLS];     /* -1: no such column */
    int ncolumns;
    int *counter_col;   /* raw page: each column's counter, -1 for none */
    int device_col[NDEVICE_COLUMNS];
    double *col_factor; /* raw page: each counter column's unit factor, NaN where its unit is not the counter's */
    bool units_seen;
    long max_id;        /* the highest ID yet, -1 before the first */
} reader;

static bool fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    int n = snprintf(r->err, r->errlen, "%s: ", r->path);
    if (r->line > 0 && n >= 0 && (size_t)n < r->errlen)
        n += snprintf(r->err + n, r->errlen - (size_t)n, "line %d: ", r->row_line > 0 ? r->row_line : r->line);
    if (n < 0 || (size_t)n >= r->errlen)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool no_memory(reader *r) { return fail(r, "out of memory"); }

static const char *field(const reader *r, int col)
{
    return col >= 0 && (size_t)col < r->nfields ? r->text + r->field_at[col] : "";
}

/* A number as ncu writes it ("3,195,181,255.53", "-2", "1.5e+03"): true with NaN for an empty
 * value or "n/a"; false for anything else that is not a number. */
static bool parse_number(const char *s, double *out)
{
    *out = NAN;
    if (!s[0] || strcmp(s, "n/a") == 0)
        return true;
    char buf[64];
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        if (*p == ',' && p > s && p[1] >= '0' && p[1] <= '9' && p[-1] >= '0' && p[-1] <= '9')
            continue; /* a thousands separator */
        if (n + 1 >= sizeof buf || !strchr("0123456789.-+eE", *p))
            return false;
        buf[n++] = *p;
    }
    buf[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + n || errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* A whole number from lo to hi (thousands separators allowed). */
static bool parse_whole(const char *s, double lo, double hi, long long *out)
{
    double v;
    if (!parse_number(s, &v) || !isfinite(v) || v != floor(v) || v < lo || v > hi)
        return false;
    *out = (long long)v;
    return true;
}

/* "(256, 1, 1)": zeros where it is not three whole numbers. */
static void parse_dim3(const char *s, int out[3])
{
    int x, y, z;
    char close;
    if (sscanf(s, " (%d , %d , %d %c", &x, &y, &z, &close) == 4 && close == ')' && x >= 0 && y >= 0 && z >= 0)
        out[0] = x, out[1] = y, out[2] = z;
    else
        out[0] = out[1] = out[2] = 0;
}

/* The factor from unit to counter c's own, or NaN (kept for a warning) where the unit is not the
 * kind c is. */
static double unit_factor(reader *r, counter_id c, const char *unit, const char *metric)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].unit) == 0 && units[i].dim == counter_dim[c])
            return units[i].factor;
    if (!r->c->odd_unit[c].metric[0]) {
        copy_str(r->c->odd_unit[c].metric, sizeof r->c->odd_unit[c].metric, metric);
        copy_str(r->c->odd_unit[c].unit, sizeof r->c->odd_unit[c].unit, unit);
    }
    return NAN;
}

/* ---------- the header and its rows ---------- */

static bool read_header(reader *r)
{
    for (int i = 0; i < NCOLS; i++)
        r->col[i] = -1;
    for (int i = 0; i < NDEVICE_COLUMNS; i++)
        r->device_col[i] = -1;
    if (r->nfields > MAX_COLUMNS)
        return fail(r, "%zu columns: more than %d", r->nfields, MAX_COLUMNS);
    r->ncolumns = (int)r->nfields;
    for (int j = 0; j < r->ncolumns; j++) {
        const char *name = field(r, j);
        for (int i = 0; i < NCOLS; i++)
            if (r->col[i] < 0 && strcmp(name, column_names[i]) == 0)
                r->col[i] = j;
        for (int i = 0; i < NDEVICE_COLUMNS; i++)
            if (r->device_col[i] < 0 && strcmp(name, device_columns[i].column) == 0)
                r->device_col[i] = j;
    }
    if (r->col[COL_ID] < 0 || r->col[COL_KERNEL] < 0)
        return fail(r, "not an Nsight Compute CSV export: its header has no \"ID\" and \"Kernel Name\" columns "
                       "(expected the output of ncu --csv --page raw or --page details)");
    r->c->details = r->col[COL_METRIC] >= 0 && r->col[COL_VALUE] >= 0;
    if (r->c->details)
        return true;
    r->counter_col = malloc((size_t)r->ncolumns * sizeof *r->counter_col);
    r->col_factor = malloc((size_t)r->ncolumns * sizeof *r->col_factor);
    if (!r->counter_col || !r->col_factor)
        return no_memory(r);
    for (int j = 0; j < r->ncolumns; j++) {
        r->counter_col[j] = counter_of_metric(field(r, j));
        r->col_factor[j] = NAN;
    }
    return true;
}

/* The raw page's second row: each counter column's unit. */
static bool read_units(reader *r)
{
    r->units_seen = true;
    for (int j = 0; j < r->ncolumns; j++)
        if (r->counter_col[j] >= 0)
            r->col_factor[j] = unit_factor(r, (counter_id)r->counter_col[j], field(r, j),
                                           counter_metric_name((counter_id)r->counter_col[j]));
    return !r->failed;
}

/* The run's device of CUDA index idx, made on first sight with what the row tells of it. */
static bool note_device(reader *r, int idx)
{
    ncu_csv *c = r->c;
    for (int i = 0; i < c->ndevices; i++)
        if (c->devices[i].index == idx)
            return true;
    device_info *grown = realloc(c->devices, (size_t)(c->ndevices + 1) * sizeof *grown);
    if (!grown)
        return no_memory(r);
    c->devices = grown;
    device_info *d = &c->devices[c->ndevices++];
    memset(d, 0, sizeof *d);
    d->index = idx;
    copy_str(d->name, sizeof d->name, field(r, r->col[COL_GPU_NAME]));
    if (!d->name[0])
        copy_str(d->name, sizeof d->name, "unnamed (the details page names no GPU)");
    int major, minor;
    if (sscanf(field(r, r->col[COL_CC]), "%d.%d", &major, &minor) == 2 && major > 0 && major < 100 && minor >= 0 &&
        minor < 100)
        d->cc_major = major, d->cc_minor = minor;
    for (int i = 0; i < NDEVICE_COLUMNS; i++) {
        long long v;
        if (r->device_col[i] < 0 || !parse_whole(field(r, r->device_col[i]), 0, device_columns[i].wide ? 1e18 : INT_MAX, &v))
            continue;
        if (device_columns[i].wide)
            *(uint64_t *)((char *)d + device_columns[i].offset) = (uint64_t)v;
        else
            *(int *)((char *)d + device_columns[i].offset) = (int)v;
    }
    copy_str(d->pcie_why, sizeof d->pcie_why, "not in an Nsight Compute CSV export");
    return true;
}

/* The process of a launch, named on first sight ("Process Name"). */
static bool note_process(reader *r, uint32_t pid)
{
    ncu_csv *c = r->c;
    for (int i = 0; i < c->nprocesses; i++)
        if (c->processes[i].pid == pid)
            return true;
    process_info *grown = realloc(c->processes, (size_t)(c->nprocesses + 1) * sizeof *grown);
    if (!grown)
        return no_memory(r);
    c->processes = grown;
    process_info *p = &c->processes[c->nprocesses++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->rank = p->world_size = p->local_rank = -1;
    copy_str(p->name, sizeof p->name, field(r, r->col[COL_PROCESS]));
    return true;
}

/* The launch of the row's ID: the last one (the details page's rows of one launch come
 * together), or a new one. */
static ncu_launch *launch_of_row(reader *r, long id)
{
    ncu_csv *c = r->c;
    if (c->nlaunches > 0 && c->launches[c->nlaunches - 1].id == id) {
        if (!c->details)
            fail(r, "launch ID %ld appears twice", id);
        return c->details ? &c->launches[c->nlaunches - 1] : NULL;
    }
    /* IDs come in order: only one at or below the highest yet can be a launch seen before. */
    for (size_t i = 0; id <= r->max_id && i < c->nlaunches; i++)
        if (c->launches[i].id == id) {
            fail(r, "launch ID %ld again, after other launches' rows (line %d has it first)", id, c->launches[i].line);
            return NULL;
        }
    if (c->nlaunches >= MAX_LAUNCHES) {
        fail(r, "more than %d launches", MAX_LAUNCHES);
        return NULL;
    }
    const char *name = field(r, r->col[COL_KERNEL]);
    long long pid = 0, dev = 0;
    if (!name[0]) {
        fail(r, "launch ID %ld has no kernel name", id);
        return NULL;
    }
    if (r->col[COL_PID] >= 0 && !parse_whole(field(r, r->col[COL_PID]), 0, UINT32_MAX, &pid)) {
        fail(r, "\"Process ID\" '%.40s' is not a process id", field(r, r->col[COL_PID]));
        return NULL;
    }
    if (r->col[COL_DEVICE] >= 0 && !parse_whole(field(r, r->col[COL_DEVICE]), 0, 1023, &dev)) {
        fail(r, "\"Device\" '%.40s' is not a device index", field(r, r->col[COL_DEVICE]));
        return NULL;
    }
    if (!note_device(r, (int)dev) || !note_process(r, (uint32_t)pid))
        return NULL;
    ncu_launch *grown = array_grow(c->launches, c->nlaunches, sizeof *grown);
    char *copy = strdup(name);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            c->launches = grown;
        no_memory(r);
        return NULL;
    }
    c->launches = grown;
    ncu_launch *l = &c->launches[c->nlaunches++];
    r->max_id = id > r->max_id ? id : r->max_id;
    memset(l, 0, sizeof *l);
    l->id = id;
    l->line = r->row_line;
    l->k.name = copy;
    l->k.pid = (uint32_t)pid;
    l->k.device = (uint32_t)dev;
    for (int i = 0; i < CTR_COUNT; i++)
        l->k.v[i] = NAN;
    parse_dim3(field(r, r->col[COL_GRID]), l->grid);
    parse_dim3(field(r, r->col[COL_BLOCK]), l->block);
    return l;
}

/* value (in the unit factor says) into counter c of l. */
static bool set_counter(reader *r, ncu_launch *l, int c, const char *value, double factor, const char *metric)
{
    double v;
    if (!parse_number(value, &v))
        return fail(r, "%s of launch ID %ld: '%.40s' is not a number", metric, l->id, value);
    l->k.v[c] = v * factor; /* NaN stays NaN */
    return true;
}

static bool read_raw_row(reader *r, ncu_launch *l)
{
    for (int j = 0; j < r->ncolumns && (size_t)j < r->nfields; j++)
        if (r->counter_col[j] >= 0 && !set_counter(r, l, r->counter_col[j], field(r, j), r->col_factor[j],
                                                    counter_metric_name((counter_id)r->counter_col[j])))
            return false;
    long long passes;
    if (r->col[COL_PASSES] >= 0 && parse_whole(field(r, r->col[COL_PASSES]), 1, 100000, &passes) &&
        passes > r->c->passes)
        r->c->passes = (int)passes;
    return true;
}

static bool read_details_row(reader *r, ncu_launch *l)
{
    const char *name = field(r, r->col[COL_METRIC]);
    if (!name[0])
        return true; /* a rule's row */
    int c = counter_of_display(field(r, r->col[COL_SECTION]), name);
    if (c < 0)
        return true;
    double factor = unit_factor(r, (counter_id)c, field(r, r->col[COL_UNIT]), name);
    return r->failed || set_counter(r, l, c, field(r, r->col[COL_VALUE]), factor, name);
}

/* Whether the row has the fields the header says: every one on the raw page; on the details page
 * at least up to "Metric Value" (ncu leaves a metric's empty rule columns out). */
static bool row_complete(reader *r)
{
    size_t need = (size_t)r->ncolumns;
    if (r->c->details) {
        need = 0;
        for (int i = 0; i < NCOLS; i++)
            if (r->col[i] >= 0 && (size_t)r->col[i] + 1 > need && i <= COL_VALUE)
                need = (size_t)r->col[i] + 1;
    }
    if (r->nfields >= need && r->nfields <= (size_t)r->ncolumns)
        return true;
    return fail(r, "%zu fields where the header has %d columns (cut short, or not ncu's CSV)", r->nfields,
                r->ncolumns);
}

static bool read_row(reader *r)
{
    if (r->rows++ == 0)
        return read_header(r);
    if (!row_complete(r))
        return false;
    const char *id_text = field(r, r->col[COL_ID]);
    if (!r->c->details && !r->units_seen) {
        if (id_text[0])
            return fail(r, "expected the raw page's row of units (its \"ID\" empty) after the header");
        return read_units(r);
    }
    long long id;
    if (!parse_whole(id_text, 0, 1e15, &id))
        return fail(r, "\"ID\" '%.40s' is not a launch number", id_text);
    ncu_launch *l = launch_of_row(r, (long)id);
    if (!l)
        return false;
    return r->c->details ? read_details_row(r, l) : read_raw_row(r, l);
}

/* ---------- libcsv's callbacks, and the lines fed to it ---------- */

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->failed)
        return;
    if (r->nfields >= MAX_COLUMNS) {
        fail(r, "more than %d fields in a row", MAX_COLUMNS);
        return;
    }
    if (r->text_len + len + 1 > MAX_ROW_BYTES) {
        fail(r, "a row longer than %zu MiB", MAX_ROW_BYTES >> 20);
        return;
    }
    if (r->text_len + len + 1 > r->text_cap) {
        size_t cap = r->text_cap ? r->text_cap : 4096;
        while (cap < r->text_len + len + 1)
            cap *= 2;
        char *grown = realloc(r->text, cap);
        if (!grown) {
            no_memory(r);
            return;
        }
        r->text = grown, r->text_cap = cap;
    }
    size_t *at = array_grow(r->field_at, r->nfields, sizeof *at);
    if (!at) {
        no_memory(r);
        return;
    }
    r->field_at = at;
    r->field_at[r->nfields++] = r->text_len;
    if (len)
        memcpy(r->text + r->text_len, s, len);
    r->text_len += len;
    r->text[r->text_len++] = '\0';
}

static void on_row(int terminator, void *data)
{
    (void)terminator;
    reader *r = data;
    if (!r->failed)
        read_row(r);
    r->nfields = r->text_len = 0;
    r->row_start = true;
}

/* n bytes of one line into libcsv. */
static void feed(reader *r, struct csv_parser *p, const char *s, size_t n)
{
    if (r->failed || n == 0)
        return;
    size_t blank = 0;
    while (blank < n && (s[blank] == '\r' || s[blank] == '\n'))
        blank++;
    if (r->row_start && blank < n) {
        r->row_start = false;
        r->row_line = r->line;
    }
    if (csv_parse(p, s, n, on_field, on_row, r) != n)
        fail(r, "not valid CSV (%s)", csv_strerror(csv_error(p)));
    else if (csv_get_buffer_size(p) > MAX_ROW_BYTES)
        fail(r, "a field longer than %zu MiB", MAX_ROW_BYTES >> 20);
}

/* A line's first bytes, once they tell what it is: before the header, the header ('"ID",') or
 * a line to pass over; after it, where a row would start, ncu's own line ("==PROF==") or CSV. */
static void line_head(reader *r, struct csv_parser *p)
{
    size_t skip = 0;
    if (r->line == 1 && r->nhead >= 3 && memcmp(r->head, "\xEF\xBB\xBF", 3) == 0)
        skip = 3; /* a UTF-8 byte-order mark */
    const char *h = r->head + skip;
    size_t n = r->nhead - skip;
    if (!r->header_seen) {
        r->header_seen = n >= 5 && memcmp(h, "\"ID\",", 5) == 0;
        r->skipping = !r->header_seen;
    } else {
        r->skipping = n >= 2 && h[0] == '=' && h[1] == '=';
    }
    if (!r->skipping)
        feed(r, p, h, n);
    r->nhead = 0;
}

/* Whether the line at hand is still to be told (its first bytes held in head). */
static bool telling(const reader *r, bool line_start)
{
    return (line_start || r->nhead > 0) && (!r->header_seen || r->row_start);
}

/* n bytes of the file, cut into lines. */
static void take(reader *r, struct csv_parser *p, const char *buf, size_t n, bool *line_start)
{
    for (size_t i = 0; i < n && !r->failed;) {
        const char *nl = memchr(buf + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - buf) + 1 : n;
        if (telling(r, *line_start)) {
            size_t want = LINE_HEAD - r->nhead, got = end - i < want ? end - i : want;
            memcpy(r->head + r->nhead, buf + i, got);
            r->nhead += got;
            i += got;
            *line_start = false;
            if (r->nhead < LINE_HEAD && !(nl && i == end))
                continue; /* the line's head goes on in the next bytes read */
            line_head(r, p);
        }
        if (!r->skipping)
            feed(r, p, buf + i, end - i);
        i = end;
        if (nl) {
            r->line++;
            r->skipping = false;
            *line_start = true;
        }
    }
}

void ncu_csv_free(ncu_csv *c)
{
    for (size_t i = 0; i < c->nlaunches; i++)
        free(c->launches[i].k.name);
    free(c->launches);
    free(c->devices);
    free(c->processes);
    memset(c, 0, sizeof *c);
}

void ncu_csv_warnings(const ncu_csv *c, const char *path, run_model *m)
{
    for (int i = 0; i < CTR_COUNT; i++)
        if (c->odd_unit[i].metric[0])
            model_add_warning(m, "%s: %s (%s) is given in '%s', not a unit of its kind: left n/a", path,
                              c->odd_unit[i].metric, counter_key((counter_id)i), c->odd_unit[i].unit);
}

static int by_id(const void *a, const void *b)
{
    long x = ((const ncu_launch *)a)->id, y = ((const ncu_launch *)b)->id;
    return (x > y) - (x < y);
}

bool ncu_csv_read(trace_input *in, ncu_csv *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    reader r = {.path = in->name, .err = err, .errlen = errlen, .c = c, .line = 1, .max_id = -1, .row_start = true};
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
        return no_memory(&r);
    enum { CHUNK = 1 << 16 };
    char *buf = malloc(CHUNK);
    if (!buf)
        no_memory(&r);
    bool line_start = true;
    size_t got;
    while (!r.failed && (got = ti_read(in, buf, CHUNK)) > 0)
        take(&r, &p, buf, got, &line_start);
    if (!r.failed && ti_failed(in)) {
        r.line = 0;
        fail(&r, "%s", ti_error(in));
    }
    if (!r.failed && r.nhead > 0)
        line_head(&r, &p); /* a last line without its newline, shorter than a head */
    if (!r.failed && csv_fini(&p, on_field, on_row, &r) != 0)
        fail(&r, "the file ends inside a quoted field (cut short?)");
    r.line = r.row_line = 0;
    if (!r.failed && !r.header_seen)
        fail(&r, "not an Nsight Compute CSV export: no header line starting \"ID\", (expected the output of "
                 "ncu --csv --page raw or --page details)");
    else if (!r.failed && c->nlaunches == 0)
        fail(&r, "an Nsight Compute CSV export with no launches (ncu profiled no kernel)");
    csv_free(&p);
    free(buf);
    free(r.text);
    free(r.field_at);
    free(r.counter_col);
    free(r.col_factor);
    if (r.failed) {
        ncu_csv_free(c);
        return false;
    }
    qsort(c->launches, c->nlaunches, sizeof *c->launches, by_id);
    return true;
}

/* ---------- `mmprof import FILE.csv` ---------- */

bool ncu_csv_content(const char *head, size_t n)
{
    size_t i = 0;
    if (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && strchr(" \t\r\n", head[i]))
        i++;
    static const char *const starts[] = {"\"ID\",\"", "==PROF==", "==WARNING==", "==ERROR=="};
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
        if (n - i >= strlen(starts[k]) && memcmp(head + i, starts[k], strlen(starts[k])) == 0)
            return true;
    return false;
}

/* The launches as a run: its devices and processes, a launch_counters entry per launch (no
 * kernel record to name: correlation 0), no events. */
static bool ncu_model(ncu_csv *c, const char *name, run_model *m)
{
    m->source = SOURCE_NCU;
    copy_str(m->source_file, sizeof m->source_file, name);
    m->collection.source = TIMING_NONE;
    copy_str(m->collection.reason, sizeof m->collection.reason,
             "an Nsight Compute CSV export holds each launch's counters, not when it ran");
    m->counters.asked = true;
    m->counters.passes = c->passes;
    copy_str(m->counters.from, sizeof m->counters.from, name);
    m->devices = c->devices, m->ndevices = c->ndevices;
    m->processes = c->processes, m->nprocesses = c->nprocesses;
    c->devices = NULL, c->processes = NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < c->nlaunches; i++) {
        kernel_counters *k = &c->launches[i].k;
        for (int d = 0; d < m->ndevices; d++)
            if (m->devices[d].index == (int)k->device) {
                k->device = (uint32_t)d;
                break;
            }
        ok = model_add_launch_counters(m, k);
    }
    ncu_csv_warnings(c, name, m);
    const char *base = strrchr(name, '/');
    return ok && model_finish_regions(m, base ? base + 1 : name);
}

bool import_ncu_csv_input(trace_input *in, run_model *m, char *err, size_t errlen)
{
    ncu_csv c;
    if (!ncu_csv_read(in, &c, err, errlen))
        return false;
    bool ok = ncu_model(&c, in->name, m);
    ncu_csv_free(&c);
    if (!ok) {
        snprintf(err, errlen, "%s: out of memory", in->name);
        model_free(m);
        model_init(m);
    }
    return ok;
}
