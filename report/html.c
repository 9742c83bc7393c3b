/* The HTML report: fills templates/report.html's {{slots}} from the analysis. The template holds
 * the page's skeleton, its CSS and script; the sections and the navigation to them come from
 * sections.h: a section (and its entry in the navigation) is on the page only when section_shown
 * says its data exists, so a profiled program's page has no built-in workloads' sections rather
 * than sections saying it has none. Each section's body is written by its own file (html_parts.h).
 *
 * Every string that came from outside the program (kernel names, paths, the command line, device
 * and CPU names, warnings) goes through sb_html, so a kernel named "<script>" shows as text. */
#include "html.h"

#include <stdio.h>
#include <string.h>

#include "html_parts.h"
#include "sections.h"
#include "source.h"
#include "templates.h" /* generated from templates/ by templates/embed.sh */

/* A built-in run's timelines are its workloads' (html_timeline.c); any other run's is every event
 * on its tracks (html_events.c). */
static void sec_timeline(html_ctx *x)
{
    if (source_has(x->a->m->source, HAS_WORKLOADS))
        html_timeline(x);
    else
        html_event_timeline(x);
}

/* A section of the page: what writes its body, and the words under its heading (NULL: the body
 * opens with its own). */
typedef struct {
    section_id id;
    void (*fill)(html_ctx *x);
    const char *lede;
    bool per_workload; /* shows a sweep's workloads at its detail size only (workload_in_detail) */
} page_section;

static const page_section page_sections[] = {
    {SEC_FINDINGS, html_findings,
     "What this run says, most important first, each with the figure that decides it. The sections below hold the "
     "details.", false},
    {SEC_ACCOUNT, html_account,
     "Every instant of the wall-clock time in one state: the GPU working on the program's work (computing, copying, "
     "in collectives), or the GPU idle with what the host did meanwhile (waiting for input, compiling, importing, "
     "synchronising, computing at a line), from CUDA calls, host samples and recorded spans, each with its "
     "evidence.", false},
    {SEC_SWEEP, html_sweep, NULL, false},
    {SEC_DEVICES, html_devices, NULL, false},
    {SEC_LADDER, html_ladder,
     "Each GPU workload's kernel time against cuBLAS in the same precision with the same host memory, from the same "
     "run: 100% matches the library. Beside each, the theoretical occupancy of its kernels and what limits it.", true},
    {SEC_COUNTERS, html_roofline,
     "Hardware counters of each GPU workload's kernels, read in a pass of their own after the timed launches (the "
     "timings above are not touched): achieved occupancy, the speed-of-light throughputs, DRAM bytes, cache hit rates "
     "and executed FLOPs, the same metrics as Nsight Compute's, and what bounds each kernel. The roofline places each "
     "workload under the device's ceilings.", true},
    {SEC_COPIES, html_copies,
     "Where one product's time goes, per workload and host-memory kind: pageable and pinned runs of each workload side "
     "by side, each bar scaled to its own end-to-end time (written beside it), and each copy direction's bandwidth "
     "against the fastest measured.", true},
    {SEC_TIMELINE, sec_timeline, NULL, true},
    {SEC_REGIONS, html_regions,
     "The whole run and its regions (workloads, NVTX ranges, PyTorch annotations). In the table, " REGION_ATTRIBUTION
     ": a range's kernel time may exceed its wall, its GPU span saying over how long its work ran. Headings explain "
     "each figure on hover.", false},
    {SEC_CAPTURE, html_capture,
     "Only what ran inside these windows was recorded (mmprof profile's capture options). Each window with why it "
     "opened and closed, and the time and CUDA runtime calls outside it, which the rest of the page does not "
     "show.", false},
    {SEC_RANKS, html_ranks, NULL, false},
    {SEC_CALL_SITES, html_sites,
     "Which line of the program each kernel, copy and call was made from: the host stack at the call, named by its "
     "innermost frame in the program's own code (not the Python installation, site-packages or system libraries).",
     false},
    {SEC_MEMORY, html_memory,
     "GPU memory: live bytes are device memory allocated and not yet freed (from CUPTI's records, or the allocator's "
     "own totals in a PyTorch trace), reserved what the allocators hold from the driver, and in use what NVML read "
     "of the whole device. The bands over time are under the timeline.", false},
    {SEC_WORKLOADS, html_workloads,
     "One product is one n&times;n multiply as a program would run it once: copy A and B in, multiply (the median of "
     "the timed launches), copy C out. Verified against an FP64 OpenBLAS product.", true},
    {SEC_SPEEDUP, html_speedup, NULL, true},
    {SEC_KERNELS, html_kernels,
     "One row per kernel per workload: median over the compute phase; theoretical occupancy from registers, shared "
     "memory and block size (cuda_occupancy.h). Click a heading to sort.", true},
    {SEC_WARNINGS, html_warnings, NULL, false},
};
#define NPAGE_SECTIONS (sizeof page_sections / sizeof page_sections[0])

/* The page's order: a built-in run's as above; a timeline (an import, a profiled program) has no
 * built-in workloads, so its full timeline comes right after the summary (whose answer's small
 * timeline leads to it), then where the time went, its regions and ranks. */
static const section_id timeline_first[] = {SEC_FINDINGS, SEC_TIMELINE, SEC_ACCOUNT, SEC_CAPTURE, SEC_REGIONS,
                                             SEC_CALL_SITES, SEC_MEMORY, SEC_RANKS};

static const page_section *page_section_of(section_id id)
{
    for (size_t i = 0; i < NPAGE_SECTIONS; i++)
        if (page_sections[i].id == id)
            return &page_sections[i];
    return NULL;
}

static bool timeline_page(const run_model *m)
{
    return !source_has(m->source, HAS_WORKLOADS);
}

bool html_section_shown(const analysis *a, section_id s)
{
    if (s == SEC_TIMELINE && timeline_page(a->m))
        return html_event_timeline_events(a->m) > 0;
    return section_shown(a, s);
}

/* The sections on this page, in its order; returns how many. */
static int page_order(const analysis *a, const page_section **out)
{
    int n = 0;
    bool timeline = timeline_page(a->m);
    if (timeline)
        for (size_t i = 0; i < sizeof timeline_first / sizeof timeline_first[0]; i++)
            out[n++] = page_section_of(timeline_first[i]);
    for (size_t i = 0; i < NPAGE_SECTIONS; i++) {
        bool placed = false;
        for (int k = 0; timeline && k < n; k++)
            placed |= out[k] == &page_sections[i];
        if (!placed)
            out[n++] = &page_sections[i];
    }
    int shown = 0;
    for (int i = 0; i < n; i++)
        if (html_section_shown(a, out[i]->id))
            out[shown++] = out[i];
    return shown;
}

static void sec_sections(html_ctx *x)
{
    const page_section *order[NPAGE_SECTIONS];
    int n = page_order(x->a, order);
    for (int i = 0; i < n; i++) {
        const section_def *d = section_of(order[i]->id);
        sb_printf(x->b, "<section id=\"%s\">\n<h2>", d->key);
        sb_html(x->b, d->title);
        sb_add(x->b, "</h2>\n");
        if (order[i]->lede)
            sb_printf(x->b, "<p class=\"lede\">%s</p>\n", order[i]->lede);
        if (order[i]->per_workload && x->a->sweep && x->a->sweep->detail_n > 0)
            sb_printf(x->b, "<p class=\"sweep-size\"><b>n = %d</b>, the sweep's largest size. <span class=\"quiet\">The "
                            "Sweep section compares every size; the JSON, CSV and text report hold each size's "
                            "figures.</span></p>\n",
                      x->a->sweep->detail_n);
        order[i]->fill(x);
        sb_add(x->b, "</section>\n\n");
    }
}

/* The reasons of every n/a on the page, numbered as the page refers to them; no section when every
 * figure was measured. Filled after every other section, which note them. */
static void sec_notes(html_ctx *x)
{
    if (x->nnotes == 0)
        return;
    sb_add(x->b, "<section id=\"notes\">\n<h2>Not available</h2>\n<ol class=\"notes\">\n");
    for (int i = 0; i < x->nnotes; i++) {
        sb_printf(x->b, "<li id=\"na-%d\">n/a ", i + 1);
        sb_html(x->b, x->notes[i]);
        sb_add(x->b, "</li>\n");
    }
    sb_add(x->b, "</ol>\n</section>\n");
}

/* One entry per section on the page, in its order, and the notes when there are any. */
static void sec_nav(html_ctx *x)
{
    const page_section *order[NPAGE_SECTIONS];
    int n = page_order(x->a, order);
    for (int i = 0; i < n; i++) {
        const section_def *d = section_of(order[i]->id);
        sb_printf(x->b, "<a href=\"#%s\">", d->key);
        sb_html(x->b, d->nav);
        sb_add(x->b, "</a>");
    }
    if (x->nnotes > 0)
        sb_add(x->b, "<a href=\"#notes\">Not available</a>");
}

static void sec_footer(html_ctx *x)
{
    const run_model *m = x->a->m;
    sb_add(x->b, "Made by mmprof ");
    sb_html(x->b, m->tool_version);
    char date[48];
    html_readable_date(m->started_at, date, sizeof date);
    if (date[0]) {
        sb_add(x->b, " from the run of ");
        sb_html(x->b, date);
    }
    sb_add(x->b, ". Self-contained: nothing on this page is loaded from elsewhere. "
                 "<code>mmprof report RUN.json --trace FILE</code> writes the same run as a trace "
                 "for Perfetto or chrome://tracing.");
}

static void sec_title(html_ctx *x)
{
    const run_model *m = x->a->m;
    if (!source_has(m->source, HAS_WORKLOADS)) {
        sb_printf(x->b, "mmprof: %s ", source_of(m->source)->name);
        sb_html(x->b, m->source_file);
        return;
    }
    sb_add(x->b, "mmprof: ");
    html_run_sizes(x->b, m);
    sb_add(x->b, " on ");
    sb_html(x->b, m->ndevices > 0 ? m->devices[0].name : "the CPU");
}

static void sec_version(html_ctx *x)
{
    sb_add(x->b, "mmprof ");
    sb_html(x->b, x->a->m->tool_version);
}

/* "builtin" or "timeline": what kind of page this is, for the print styles. */
static void sec_body_class(html_ctx *x)
{
    sb_add(x->b, timeline_page(x->a->m) ? "timeline" : "builtin");
}

static void sec_css(html_ctx *x)
{
    sb_add(x->b, tpl_report_css);
    if (timeline_page(x->a->m))
        sb_add(x->b, tpl_timeline_css);
    if (x->a->memory) /* GPU memory's: only on pages that have it, so the others stay as they were */
        sb_add(x->b, tpl_memory_css);
}

/* The timeline's script only on a page that has its data: a built-in run's and a sweep's pages
 * stay as they were. */
static void sec_script(html_ctx *x)
{
    sb_add(x->b, tpl_report_js);
    if (timeline_page(x->a->m) && html_section_shown(x->a, SEC_TIMELINE)) {
        sb_add(x->b, tpl_timeline_js);
        if (x->a->memory)
            sb_add(x->b, tpl_memory_js);
    }
}

/* The template's slots. Those marked last are filled after all the others: the notes list the
 * reasons every other slot noted, and the navigation has an entry for the notes when there are
 * any. */
typedef struct {
    const char *name;
    void (*fill)(html_ctx *x);
    bool last;
} slot;

static const slot slots[] = {
    {"title", sec_title, false},     {"version", sec_version, false}, {"css", sec_css, false},
    {"body_class", sec_body_class, false}, {"header", html_header, false}, {"sections", sec_sections, false},
    {"footer", sec_footer, false},   {"script", sec_script, false},   {"notes", sec_notes, true},
    {"nav", sec_nav, true},
};
#define NSLOTS (sizeof slots / sizeof slots[0])

static int find_slot(const char *name, size_t len)
{
    for (size_t i = 0; i < NSLOTS; i++)
        if (strlen(slots[i].name) == len && strncmp(slots[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

char *render_html(const analysis *a)
{
    html_ctx x;
    memset(&x, 0, sizeof x);
    x.a = a;
    strbuf parts[NSLOTS];
    for (size_t i = 0; i < NSLOTS; i++)
        sb_init(&parts[i]);
    bool oom = false;

    /* Fill the slots in the order the template uses them, so notes are numbered as read, and
     * the last ones on a second pass; a slot used twice is filled once. */
    const char *tpl = tpl_report_html;
    bool filled[NSLOTS] = {false};
    for (int pass = 0; pass < 2; pass++) {
        for (const char *p = strstr(tpl, "{{"); p; p = strstr(p + 2, "{{")) {
            const char *end = strstr(p + 2, "}}");
            int s = end ? find_slot(p + 2, (size_t)(end - p - 2)) : -1;
            if (s < 0 || filled[s] || slots[s].last != (pass == 1))
                continue;
            x.b = &parts[s];
            slots[s].fill(&x);
            filled[s] = true;
        }
    }

    strbuf page;
    sb_init(&page);
    const char *p = tpl;
    for (const char *open; (open = strstr(p, "{{"));) {
        const char *end = strstr(open + 2, "}}");
        if (!end)
            break;
        int s = find_slot(open + 2, (size_t)(end - open - 2));
        sb_addn(&page, p, (size_t)(open - p));
        if (s >= 0) {
            if (parts[s].oom)
                oom = true;
            else if (parts[s].s)
                sb_add(&page, parts[s].s);
        } else {
            sb_addn(&page, open, (size_t)(end + 2 - open)); /* not ours: left as written */
        }
        p = end + 2;
    }
    sb_add(&page, p);
    for (size_t i = 0; i < NSLOTS; i++)
        sb_free(&parts[i]);
    if (oom) {
        sb_free(&page);
        return NULL;
    }
    return sb_finish(&page);
}
