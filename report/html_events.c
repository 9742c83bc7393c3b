/* The HTML report's timeline of every event, for the pages of profiled programs and imported
 * traces (a built-in run keeps html_timeline.c's drawings of its workloads). The events go on the
 * page as data, not marks: tracks of columns of integers (starts as differences from the previous
 * start, durations, indices into one table of names), which templates/timeline.js draws on a
 * canvas at whatever zoom the reader picks. A mark per event, as the SVG timelines have, would cost
 * a hundred bytes each and a DOM node each; a profile of 100,000 events would not load.
 *
 * Tracks, in the page's order: the capture windows where profile's capture options made some
 * (each window's reasons on hover: outside them nothing was recorded); where each accounted
 * process's time went (the analysis' bands, accounts.h: its span in stretches of one wall-time
 * state, coloured by the state's group as the account's bar is, the state, its share and its
 * evidence on hover); per GPU, its busy time (the union of its kernels, copies and
 * memsets) and one track per stream holding those events (kernels and copies of one device on
 * aligned tracks, so copy/compute overlap shows as marks above one another); per host thread, its
 * NVTX ranges and annotations nested by depth, and its CUDA API calls (a runtime call and the
 * driver call inside it nest the same way), and its host samples (a tick per sample, coloured by
 * the thread's state, running or waiting off the CPU; the whole stack on hover, from a table of
 * frames each written once, the user's own marked as host_user_frame says; host_where.h names
 * the frames); a launch with a recorded call site says the line it was made from on hover, and
 * each kernel, copy and memset carries the number of the API call that launched it (launch_of's
 * join, launch_index.h), which the page joins by a line on hover. Render
 * only: every mark is a model event, and nothing here is a figure of the analysis; but for the
 * bands, and GPU memory's under the tracks where the run has memory data (the analysis' timeline
 * of each process and device, memory.h), drawn as the analysis computed them. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "cause_match.h"
#include "host_idle.h"
#include "host_where.h"
#include "html_parts.h"
#include "launch_index.h"
#include "memory.h"
#include "source.h"
#include "trace.h"

#define TL_MAX_EVENTS 200000 /* events embedded at most: about 20 bytes each on the page */
#define TL_MAX_DEPTH 12      /* nesting rows a thread's track shows; deeper ones share the last */

typedef enum { TK_BUSY = 0, TK_STREAM, TK_RANGES, TK_API, TK_HOST, TK_CAPTURE, TK_BANDS } track_kind;

/* Event categories, as timeline.js colours them: a host sample's by its thread's state, and from
 * CAT_GROUP on a band's by its state's group (cause_table.h's wall_groups, in their order). */
enum {
    CAT_KERNEL = 0, CAT_H2D, CAT_D2H, CAT_D2D, CAT_COPY, CAT_MEMSET, CAT_API, CAT_RANGE, CAT_BUSY,
    CAT_HOST,      /* a host sample whose thread's state was not recorded */
    CAT_HOST_RUN,  /* ... running on a CPU */
    CAT_HOST_WAIT, /* ... off the CPU: sleeping, blocked, waiting */
    CAT_GROUP
};

typedef struct {
    track_kind kind;
    uint32_t pid, a, b; /* device and stream, or thread */
    size_t n;           /* its events */
} track;

typedef struct {
    int track;
    int64_t s, e;
    int name, info; /* indices into the name table; info -1: none */
    uint64_t bytes;
    int cat, depth;
    /* The launch link: a GPU event's and an API call's index in the model's calls plus one, the
     * call that launched it by launch_of (0: none); renumbered before it is written (link_ids). */
    size_t link;
    int frame; /* a host sample's innermost frame in the page's frame table (stack_frames), -1 none */
} item;

/* The name table: each distinct string once, found through an open-addressed hash. */
typedef struct {
    char **s;
    size_t n, cap;
    int *slot;
    size_t nslot;
    bool oom;
} names;

static uint64_t hash_str(const char *p)
{
    uint64_t h = 1469598103934665603ull;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

static bool names_grow(names *t)
{
    size_t nslot = t->nslot ? t->nslot * 2 : 256;
    int *slot = malloc(nslot * sizeof *slot);
    if (!slot)
        return false;
    for (size_t i = 0; i < nslot; i++)
        slot[i] = -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t k = hash_str(t->s[i]) & (nslot - 1);
        while (slot[k] >= 0)
            k = (k + 1) & (nslot - 1);
        slot[k] = (int)i;
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return true;
}

static int intern(names *t, const char *str)
{
    if (t->oom)
        return 0;
    if ((t->n + 1) * 2 > t->nslot && !names_grow(t)) {
        t->oom = true;
        return 0;
    }
    size_t k = hash_str(str) & (t->nslot - 1);
    for (; t->slot[k] >= 0; k = (k + 1) & (t->nslot - 1))
        if (strcmp(t->s[t->slot[k]], str) == 0)
            return t->slot[k];
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **s = realloc(t->s, cap * sizeof *s);
        if (!s) {
            t->oom = true;
            return 0;
        }
        t->s = s;
        t->cap = cap;
    }
    t->s[t->n] = strdup(str);
    if (!t->s[t->n]) {
        t->oom = true;
        return 0;
    }
    t->slot[k] = (int)t->n;
    return (int)t->n++;
}

static void names_free(names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
}

/* The run's events as items, and their tracks. */
typedef struct {
    track *t;
    size_t nt, capt;
    item *it;
    size_t n, cap;
    names nm;
    /* The host samples' stacks (stack_frames): each frame on one once, callers first; a frame's
     * caller, name and whether it is the user's own code (host_user_frame). */
    int *page_frame; /* the model's node -> its place in the table, -1 not in it */
    int *fparent, *fname;
    bool *fuser;
    int nf;
    bool oom;
} tl_build;

static int track_of(tl_build *b, track_kind kind, uint32_t pid, uint32_t a, uint32_t c)
{
    for (size_t i = b->nt; i-- > 0;)
        if (b->t[i].kind == kind && b->t[i].pid == pid && b->t[i].a == a && b->t[i].b == c)
            return (int)i;
    if (b->nt == b->capt) {
        size_t cap = b->capt ? b->capt * 2 : 16;
        track *t = realloc(b->t, cap * sizeof *t);
        if (!t) {
            b->oom = true;
            return -1;
        }
        b->t = t;
        b->capt = cap;
    }
    b->t[b->nt] = (track){kind, pid, a, c, 0};
    return (int)b->nt++;
}

static void add(tl_build *b, int track, int64_t s, int64_t e, int name, int info, uint64_t bytes, int cat)
{
    if (track < 0 || b->oom)
        return;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        item *it = realloc(b->it, cap * sizeof *it);
        if (!it) {
            b->oom = true;
            return;
        }
        b->it = it;
        b->cap = cap;
    }
    b->it[b->n++] = (item){track, s, e < s ? s : e, name, info, bytes, cat, 0, 0, -1};
    b->t[track].n++;
}

static bool drawn_region(const region *r)
{
    return r->kind == REGION_NVTX || r->kind == REGION_ANNOTATION;
}

/* Every event the timeline could draw: kernels, copies, memsets, API calls, ranges, host samples
 * and capture windows. */
static size_t candidates(const run_model *m)
{
    const event_list *e = &m->events;
    size_t n = e->nkernels + e->ncopies + e->nmemsets + e->napis + m->host_activity.nsamples +
               (size_t)m->capture.nwindows;
    for (int i = 0; i < m->nregions; i++)
        n += drawn_region(&m->regions[i]);
    return n;
}

size_t html_event_timeline_events(const run_model *m)
{
    return source_has(m->source, HAS_WORKLOADS) ? 0 : candidates(m);
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Past TL_MAX_EVENTS the page keeps the earliest events: those starting before the returned time
 * (INT64_MAX: all of them). A window of the run drawn whole says more than every event thinned
 * out, and the page says which window it is. */
static int64_t window_end(const run_model *m, size_t total)
{
    if (total <= TL_MAX_EVENTS)
        return INT64_MAX;
    int64_t *s = malloc(total * sizeof *s);
    if (!s)
        return INT64_MIN;
    size_t n = 0;
    const event_list *e = &m->events;
    for (size_t i = 0; i < e->nkernels; i++)
        s[n++] = e->kernels[i].start_ns;
    for (size_t i = 0; i < e->ncopies; i++)
        s[n++] = e->copies[i].start_ns;
    for (size_t i = 0; i < e->nmemsets; i++)
        s[n++] = e->memsets[i].start_ns;
    for (size_t i = 0; i < e->napis; i++)
        s[n++] = e->apis[i].start_ns;
    for (int i = 0; i < m->nregions; i++)
        if (drawn_region(&m->regions[i]))
            s[n++] = m->regions[i].start_ns;
    for (size_t i = 0; i < m->host_activity.nsamples; i++)
        s[n++] = m->host_activity.samples[i].ts_ns;
    for (int i = 0; i < m->capture.nwindows; i++)
        s[n++] = m->capture.windows[i].start_ns;
    qsort(s, n, sizeof *s, cmp_i64);
    int64_t cut = s[TL_MAX_EVENTS];
    /* Events sharing the cut's start all go, so the kept ones are at most the cap. */
    free(s);
    return cut;
}

static int copy_cat(copy_dir d)
{
    return d == COPY_H2D ? CAT_H2D : d == COPY_D2H ? CAT_D2H : d == COPY_D2D ? CAT_D2D : CAT_COPY;
}

static const char *copy_words(copy_dir d)
{
    switch (d) {
    case COPY_H2D: return "host to device";
    case COPY_D2H: return "device to host";
    case COPY_D2D: return "device to device";
    case COPY_H2H: return "host to host";
    case COPY_P2P: return "peer to peer";
    default: return "other";
    }
}

/* "launched from model.py:42 (forward)": the user's line of a call's recorded site as the call-site
 * table says it (site_line.h: "main thread at ..." for autograd's), or "" where none was recorded. */
static void site_words(const run_model *m, const site_lines *lines, const host_site *const *sites, uint32_t pid,
                       uint32_t corr, const char *lead, char *buf, size_t len)
{
    const host_site *s = lines ? host_site_find(sites, m->host_activity.nsites, pid, corr) : NULL;
    char at[HOST_NAME] = "";
    if (s)
        site_line_words(&m->host_activity, site_line_of(lines, s), at, sizeof at);
    buf[0] = '\0';
    if (at[0])
        snprintf(buf, len, "%s%s", lead, at);
}

/* A host sample's category by its thread's state, read as the cause table's matcher reads it
 * (cause_match.h); a CPU-time sample without one ran, since only CPU time fires its timer. */
static int sample_cat(const host_sample *s)
{
    thread_class c = s->source == HOST_SAMPLE_CPU && !s->state ? THREAD_RUNNING : thread_class_of(s->state);
    return c == THREAD_RUNNING ? CAT_HOST_RUN : c == THREAD_WAITING ? CAT_HOST_WAIT : CAT_HOST;
}

/* The frame table's place of the model's node, adding it and its callers not in it yet (callers
 * first, so each frame's caller comes before it); -1 for no node, or when memory ran out. */
static int stack_frames(tl_build *b, const host_activity *h, int node)
{
    if (node < 0 || node >= h->nframes)
        return -1;
    if (!b->page_frame) {
        size_t n = (size_t)h->nframes;
        b->page_frame = malloc(n * sizeof *b->page_frame);
        b->fparent = malloc(n * sizeof *b->fparent);
        b->fname = malloc(n * sizeof *b->fname);
        b->fuser = malloc(n * sizeof *b->fuser);
        if (!b->page_frame || !b->fparent || !b->fname || !b->fuser) {
            b->oom = true;
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            b->page_frame[i] = -1;
    }
    /* The nodes not in the table yet, innermost first: a chain is at most every node long (a
     * parent index that loops is cut there). */
    int top = node, depth = 0;
    while (top >= 0 && top < h->nframes && b->page_frame[top] < 0 && depth < h->nframes) {
        top = h->frames[top].parent;
        depth++;
    }
    int caller = top >= 0 && top < h->nframes ? b->page_frame[top] : -1;
    int *chain = malloc((size_t)(depth ? depth : 1) * sizeof *chain);
    if (!chain) {
        b->oom = true;
        return -1;
    }
    for (int k = 0, f = node; k < depth; k++, f = h->frames[f].parent)
        chain[k] = f;
    for (int k = depth; k-- > 0;) {
        const host_frame *f = &h->frames[chain[k]];
        char one[HOST_NAME];
        host_frame_name(f, true, one, sizeof one);
        b->fparent[b->nf] = caller;
        b->fname[b->nf] = intern(&b->nm, one);
        b->fuser[b->nf] = host_user_frame(f);
        caller = b->page_frame[chain[k]] = b->nf++;
    }
    free(chain);
    return b->page_frame[node];
}

/* Each host sample, a tick on its thread's track coloured by the thread's state: its innermost
 * named frame, its state and its whole stack on hover (the frame table's, the user's own frames
 * marked). */
static void collect_samples(tl_build *b, const run_model *m, int64_t cut)
{
    const host_activity *h = &m->host_activity;
    char head[160], name[HOST_NAME];
    for (size_t i = 0; i < h->nsamples; i++) {
        const host_sample *s = &h->samples[i];
        if (s->ts_ns >= cut)
            continue;
        int cat = sample_cat(s);
        snprintf(head, sizeof head, "%s sample%s", host_sample_source_name(s->source),
                 cat == CAT_HOST_RUN ? ", running" : cat == CAT_HOST_WAIT ? ", waiting off the CPU" : "");
        if (s->state)
            snprintf(head + strlen(head), sizeof head - strlen(head), ", thread state %c", s->state);
        copy_str(name, sizeof name, "(no stack)");
        if (s->frame >= 0 && s->frame < h->nframes)
            host_frame_name(&h->frames[s->frame], true, name, sizeof name);
        add(b, track_of(b, TK_HOST, s->pid, s->tid, 0), s->ts_ns, s->ts_ns, intern(&b->nm, name),
            intern(&b->nm, head), 0, cat);
        if (!b->oom && b->n > 0)
            b->it[b->n - 1].frame = stack_frames(b, h, s->frame);
    }
}

/* Each accounted process's bands (accounts.h): a mark per stretch of its span in one wall-time
 * state, coloured by the state's group; its state, its share of the stretch and its evidence on
 * hover. The analysis cut each process into ACCOUNT_BAND_BUCKETS buckets at most, so they cost a
 * page a bounded few hundred kB however long the run. */
static void collect_bands(tl_build *b, const analysis *a, int64_t cut)
{
    char words[3 * HOST_NAME + 160], info[sizeof words + 48], pct[24];
    for (int i = 0; i < a->nbands; i++) {
        const account_band *band = &a->bands[i];
        const account_row *r = &band->row;
        if (band->start_ns >= cut || r->state >= WS_COUNT)
            continue;
        account_row_words(r, words, sizeof words);
        html_fig_text(&account_row_table, r, "share_pct", true, pct, sizeof pct);
        snprintf(info, sizeof info, "%s of this stretch%s%s", pct, words[0] ? ": " : "", words);
        add(b, track_of(b, TK_BANDS, band->pid, 0, 0), band->start_ns, band->end_ns,
            intern(&b->nm, wall_states[r->state].label), intern(&b->nm, info), 0,
            CAT_GROUP + (int)wall_states[r->state].group);
    }
}

/* The last item's launch: the API call of its process and correlation id (launch_of: the
 * runtime call where a driver call shares the id), by its index in the model's calls. */
static void launched_by(tl_build *b, const event_list *e, const launch_index *launches, uint32_t pid, uint32_t corr)
{
    const api_event *a = launch_of(launches, pid, corr);
    if (a && !b->oom && b->n > 0)
        b->it[b->n - 1].link = (size_t)(a - e->apis) + 1;
}

static void collect(tl_build *b, const run_model *m, const site_lines *lines, int64_t cut)
{
    const event_list *e = &m->events;
    char buf[512], from[HOST_NAME + 24];
    const host_site **sites = host_sites_sorted(&m->host_activity);
    launch_index *launches = launch_index_build(e);
    if ((m->host_activity.nsites > 0 && !sites) || !launches) {
        free(sites);
        launch_index_free(launches);
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < e->nkernels; i++) {
        const kernel_event *k = &e->kernels[i];
        if (k->start_ns >= cut)
            continue;
        kernel_display_name(k->name, buf, sizeof buf);
        int name = intern(&b->nm, buf);
        site_words(m, lines, sites, k->pid, k->correlation, "; launched from ", from, sizeof from);
        snprintf(buf, sizeof buf, "grid %d\xc3\x97%d\xc3\x97%d, block %d\xc3\x97%d\xc3\x97%d%s", k->grid[0],
                 k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], from);
        add(b, track_of(b, TK_STREAM, 0, k->device, k->stream), k->start_ns, k->end_ns, name, intern(&b->nm, buf), 0,
            CAT_KERNEL);
        launched_by(b, e, launches, k->pid, k->correlation);
    }
    for (size_t i = 0; i < e->ncopies; i++) {
        const copy_event *c = &e->copies[i];
        if (c->start_ns >= cut)
            continue;
        snprintf(buf, sizeof buf, "%s copy", copy_dir_name(c->dir));
        int name = intern(&b->nm, buf);
        site_words(m, lines, sites, c->pid, c->correlation, "; launched from ", from, sizeof from);
        snprintf(buf, sizeof buf, "%s, %s to %s%s", copy_words(c->dir), mem_kind_name(c->src), mem_kind_name(c->dst),
                 from);
        add(b, track_of(b, TK_STREAM, 0, c->device, c->stream), c->start_ns, c->end_ns, name, intern(&b->nm, buf),
            c->bytes, copy_cat(c->dir));
        launched_by(b, e, launches, c->pid, c->correlation);
    }
    for (size_t i = 0; i < e->nmemsets; i++) {
        const memset_event *s = &e->memsets[i];
        if (s->start_ns >= cut)
            continue;
        site_words(m, lines, sites, s->pid, s->correlation, "; launched from ", from, sizeof from);
        snprintf(buf, sizeof buf, "%s memory%s", mem_kind_name(s->mem), from);
        add(b, track_of(b, TK_STREAM, 0, s->device, s->stream), s->start_ns, s->end_ns, intern(&b->nm, "memset"),
            intern(&b->nm, buf), s->bytes, CAT_MEMSET);
        launched_by(b, e, launches, s->pid, s->correlation);
    }
    for (int i = 0; i < m->nregions; i++) {
        const region *r = &m->regions[i];
        if (!drawn_region(r) || r->start_ns >= cut)
            continue;
        add(b, track_of(b, TK_RANGES, r->pid, r->tid, 0), r->start_ns, r->end_ns, intern(&b->nm, r->name),
            r->domain ? intern(&b->nm, r->domain) : -1, 0, CAT_RANGE);
    }
    for (size_t i = 0; i < e->napis; i++) {
        const api_event *a = &e->apis[i];
        if (a->start_ns >= cut)
            continue;
        api_display_name(a->name, buf, sizeof buf);
        site_words(m, lines, sites, a->pid, a->correlation, "from ", from, sizeof from);
        add(b, track_of(b, TK_API, a->pid, a->thread, 0), a->start_ns, a->end_ns, intern(&b->nm, buf),
            from[0] ? intern(&b->nm, from) : -1, 0, CAT_API);
        if (!b->oom)
            b->it[b->n - 1].link = i + 1;
    }
    free(sites);
    launch_index_free(launches);
    collect_samples(b, m, cut);
    for (int i = 0; i < m->capture.nwindows; i++) {
        const capture_window *w = &m->capture.windows[i];
        if (w->start_ns >= cut)
            continue;
        snprintf(buf, sizeof buf, "capture %d", w->number);
        int name = intern(&b->nm, buf);
        snprintf(buf, sizeof buf, "from %.200s to %.200s", w->began_detail[0] ? w->began_detail : w->began,
                 w->ended_detail[0] ? w->ended_detail : w->ended);
        add(b, track_of(b, TK_CAPTURE, w->pid, 0, 0), w->start_ns, w->end_ns, name, intern(&b->nm, buf), 0,
            CAT_RANGE);
    }
}

/* Tracks in the page's order: the capture windows by process; where each process's time went;
 * GPUs by device, each busy track before its streams by number; then threads by process and
 * thread, ranges before API calls. The bands sit right above GPU 0's busy track: they say what
 * the whole process did, so they lead, and its gaps are read against them. Below the busy track
 * they would part it from the streams it sums, and a process's GPUs are not always one. */
static int track_rank(const track *t)
{
    return t->kind == TK_CAPTURE ? -2 : t->kind == TK_BANDS ? -1 : t->kind == TK_BUSY || t->kind == TK_STREAM ? 0 : 1;
}

static int cmp_track(const track *x, const track *y)
{
    int rx = track_rank(x), ry = track_rank(y);
    if (rx != ry)
        return rx - ry;
    uint32_t kx[3], ky[3];
    if (rx == 0) { /* device, then busy first, then stream */
        kx[0] = x->a, kx[1] = x->kind != TK_BUSY, kx[2] = x->b;
        ky[0] = y->a, ky[1] = y->kind != TK_BUSY, ky[2] = y->b;
    } else { /* process, thread, then ranges, API calls, host samples */
        kx[0] = x->pid, kx[1] = x->a, kx[2] = x->kind;
        ky[0] = y->pid, ky[1] = y->a, ky[2] = y->kind;
    }
    for (int i = 0; i < 3; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static const track *sort_tracks; /* qsort has no context argument */

static int cmp_item(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->track != b->track) {
        int c = cmp_track(&sort_tracks[a->track], &sort_tracks[b->track]);
        if (c)
            return c;
        return a->track - b->track;
    }
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    /* The enclosing of two events starting together first, so it takes the upper row. */
    return (a->e < b->e) - (a->e > b->e);
}

/* Each GPU's busy time: the union of its stream tracks' events, a busy item per stretch. Items
 * are sorted by track, so one device's streams are together. */
static void add_busy(tl_build *b)
{
    size_t n = b->n;
    int64_t *iv = malloc(2 * (n ? n : 1) * sizeof *iv);
    if (!iv) {
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < n;) {
        const track *t = &b->t[b->it[i].track];
        if (t->kind != TK_STREAM) {
            i++;
            continue;
        }
        uint32_t dev = t->a;
        size_t k = 0;
        for (; i < n && b->t[b->it[i].track].kind == TK_STREAM && b->t[b->it[i].track].a == dev; i++) {
            iv[2 * k] = b->it[i].s;
            iv[2 * k + 1] = b->it[i].e;
            k++;
        }
        /* Sort the starts and ends together: pairs of (start, end) by start. */
        qsort(iv, k, 2 * sizeof *iv, cmp_i64);
        int bt = track_of(b, TK_BUSY, 0, dev, 0);
        int name = intern(&b->nm, "GPU busy");
        int64_t s = iv[0], e = iv[1];
        for (size_t j = 1; j <= k; j++) {
            if (j < k && iv[2 * j] <= e) {
                e = iv[2 * j + 1] > e ? iv[2 * j + 1] : e;
                continue;
            }
            add(b, bt, s, e, name, -1, 0, CAT_BUSY);
            if (j < k) {
                s = iv[2 * j];
                e = iv[2 * j + 1];
            }
        }
    }
    free(iv);
}

/* The launch links as the page has them: the API calls that launched an event on the page are
 * numbered 1, 2, ... in the page's order (tracks, then starts), each GPU event takes its call's
 * number (0: none on the page), and a call keeps its number (0: it launched nothing shown). The
 * page writes a call's as a flag alone: timeline.js counts the flags in the same order. */
static void link_ids(tl_build *b, size_t napis)
{
    bool *launched = calloc(napis ? napis : 1, sizeof *launched);
    size_t *id = calloc(napis ? napis : 1, sizeof *id);
    if (!launched || !id) {
        free(launched);
        free(id);
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < b->n; i++)
        if (b->t[b->it[i].track].kind == TK_STREAM && b->it[i].link > 0 && b->it[i].link <= napis)
            launched[b->it[i].link - 1] = true;
    size_t next = 0;
    for (size_t i = 0; i < b->n; i++) {
        item *it = &b->it[i];
        if (b->t[it->track].kind != TK_API || it->link == 0 || it->link > napis)
            continue;
        it->link = launched[it->link - 1] ? (id[it->link - 1] = ++next) : 0;
    }
    for (size_t i = 0; i < b->n; i++)
        if (b->t[b->it[i].track].kind == TK_STREAM && b->it[i].link > 0)
            b->it[i].link = b->it[i].link <= napis ? id[b->it[i].link - 1] : 0;
    free(launched);
    free(id);
}

/* Nesting depth on thread tracks: an event inside the one before it goes a row lower. */
static void set_depths(tl_build *b)
{
    int64_t ends[TL_MAX_DEPTH + 1];
    int depth = 0, cur = -1;
    for (size_t i = 0; i < b->n; i++) {
        item *it = &b->it[i];
        track_kind k = b->t[it->track].kind;
        if (k == TK_BUSY || k == TK_STREAM || k == TK_HOST || k == TK_BANDS)
            continue;
        if (it->track != cur) {
            cur = it->track;
            depth = 0;
        }
        while (depth > 0 && ends[depth - 1] <= it->s)
            depth--;
        it->depth = depth < TL_MAX_DEPTH ? depth : TL_MAX_DEPTH - 1;
        if (depth < TL_MAX_DEPTH)
            ends[depth++] = it->e;
    }
}

/* A thread's waiting samples a row below its running ones, where it has both: at a whole run's
 * zoom a pixel column holds several ticks and shows one, so on one row either state would hide
 * the other; on two the rows read as when the thread ran and when it waited. */
static void sample_rows(tl_build *b)
{
    for (size_t i = 0, j; i < b->n; i = j) {
        bool waits = false, other = false;
        for (j = i; j < b->n && b->it[j].track == b->it[i].track; j++) {
            waits |= b->it[j].cat == CAT_HOST_WAIT;
            other |= b->it[j].cat != CAT_HOST_WAIT;
        }
        if (b->t[b->it[i].track].kind == TK_HOST && waits && other)
            for (size_t k = i; k < j; k++)
                b->it[k].depth = b->it[k].cat == CAT_HOST_WAIT;
    }
}

static const char *thread_name(const run_model *m, uint32_t pid, uint32_t tid)
{
    for (int i = 0; i < m->nthreads; i++)
        if (m->threads[i].tid == tid && (m->threads[i].pid == pid || pid == 0) && m->threads[i].name[0])
            return m->threads[i].name;
    return NULL;
}

static void track_label(const run_model *m, const track *t, bool many_pids, char *buf, size_t len)
{
    char who[160] = "";
    if (t->kind == TK_RANGES || t->kind == TK_API || t->kind == TK_HOST) {
        const char *tn = thread_name(m, t->pid, t->a);
        int k = many_pids ? snprintf(who, sizeof who, "process %u, ", t->pid) : 0;
        bool fits = k >= 0 && (size_t)k < sizeof who;
        if (fits && tn && strncmp(tn, "thread ", 7) == 0) /* a PyTorch trace's: "thread 457 (python3)" */
            snprintf(who + k, sizeof who - (size_t)k, "%s", tn);
        else if (fits && t->a == 0 && !tn) /* a source that did not record the thread */
            snprintf(who + k, sizeof who - (size_t)k, "no recorded thread");
        else if (fits)
            snprintf(who + k, sizeof who - (size_t)k, tn ? "thread %u (%s)" : "thread %u", t->a, tn);
    }
    switch (t->kind) {
    case TK_BUSY: snprintf(buf, len, "GPU %u busy", t->a); break;
    case TK_STREAM: snprintf(buf, len, "GPU %u, stream %u", t->a, t->b); break;
    case TK_RANGES: snprintf(buf, len, "%s: ranges", who); break;
    case TK_API: snprintf(buf, len, "%s: CUDA API", who); break;
    case TK_HOST: snprintf(buf, len, "%s: host samples", who); break;
    case TK_BANDS: snprintf(buf, len, "where the time went (process %u)", t->pid); break;
    case TK_CAPTURE:
        if (many_pids)
            snprintf(buf, len, "process %u: capture windows", t->pid);
        else
            snprintf(buf, len, "capture windows");
        break;
    }
}

static const char *kind_key(track_kind k)
{
    return k == TK_BUSY      ? "busy"
           : k == TK_STREAM  ? "stream"
           : k == TK_RANGES  ? "ranges"
           : k == TK_API     ? "api"
           : k == TK_CAPTURE ? "capture"
           : k == TK_BANDS   ? "bands"
                             : "host";
}

/* A JSON string safe inside a <script> element: "<" as \u003c, so no name can close it. */
static void json_str(strbuf *b, const char *s)
{
    sb_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            sb_printf(b, "\\u%04x", *p);
        else
            sb_addn(b, (const char *)p, 1);
    }
    sb_add(b, "\"");
}

/* One column of a track: its items' field, comma-separated. */
typedef int64_t (*field)(const item *it, int64_t *prev);

static int64_t f_start(const item *it, int64_t *prev)
{
    int64_t d = it->s - *prev; /* differences from the previous start: short numbers */
    *prev = it->s;
    return d;
}
static int64_t f_dur(const item *it, int64_t *prev) { (void)prev; return it->e - it->s; }
static int64_t f_name(const item *it, int64_t *prev) { (void)prev; return it->name; }
static int64_t f_info(const item *it, int64_t *prev) { (void)prev; return it->info; }
static int64_t f_bytes(const item *it, int64_t *prev) { (void)prev; return (int64_t)it->bytes; }
static int64_t f_cat(const item *it, int64_t *prev) { (void)prev; return it->cat; }
static int64_t f_depth(const item *it, int64_t *prev) { (void)prev; return it->depth; }
static int64_t f_link(const item *it, int64_t *prev) { (void)prev; return (int64_t)it->link; }
static int64_t f_frame(const item *it, int64_t *prev) { (void)prev; return it->frame; }

static void column(strbuf *b, const char *key, const item *it, size_t n, field f, int64_t t0)
{
    sb_printf(b, ",\"%s\":[", key);
    int64_t prev = t0;
    for (size_t i = 0; i < n; i++)
        sb_printf(b, i ? ",%lld" : "%lld", (long long)f(&it[i], &prev));
    sb_add(b, "]");
}

/* An API track's flags of the calls that launched an event shown, as one string of "0" and "1",
 * a character a call (a track of calls is most of a large page's data: as numbers they took twice
 * that). */
static void launched_column(strbuf *b, const item *it, size_t n)
{
    sb_add(b, ",\"r\":\"");
    for (size_t i = 0; i < n; i++)
        sb_addn(b, it[i].link > 0 ? "1" : "0", 1);
    sb_add(b, "\"");
}

static bool any_info(const item *it, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (it[i].info >= 0)
            return true;
    return false;
}

/* Whether a track of host samples says any thread's state: else every tick is CAT_HOST, the
 * track's own colour, and needs no column. */
static bool any_state(const item *it, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (it[i].cat != CAT_HOST)
            return true;
    return false;
}

static bool any_nonzero(const item *it, size_t n, field f)
{
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++)
        if (f(&it[i], &prev) != 0)
            return true;
    return false;
}

static void html_ms(strbuf *b, int64_t ns)
{
    sb_add(b, value_text(&report_value_table, "event_ms", (double)ns / 1e6, true).s); /* as the model has it */
}

/* A column of a memory band's values: a number, or null where n/a. */
static void mem_column(strbuf *o, const char *key, const memory_analysis *x, const mem_series *s, size_t field)
{
    sb_printf(o, ",\"%s\":[", key);
    for (int i = 0; i < s->npoints; i++) {
        const metric *v = (const metric *)((const char *)&x->points[s->first_point + i] + field);
        sb_add(o, i ? "," : "");
        if (v->ok)
            sb_int(o, llround(v->v)); /* bytes: whole numbers, the page's data */
        else
            sb_add(o, "null");
    }
    sb_add(o, "]");
}

/* GPU memory under the timeline (memory.h): a band per process and device from the analysis'
 * timeline, the most live, reserved and in-use bytes of each bucket, its start as a difference
 * from the previous one's, as the tracks' starts are; drawn by templates/memory.js, which follows
 * the timeline's view. */
static void memory_bands(strbuf *o, const analysis *a, int64_t t0, int64_t span)
{
    const memory_analysis *x = a->memory;
    if (!x)
        return;
    sb_add(o, "<figure class=\"tl-events\" id=\"tl-memory\">\n<p class=\"tl-nojs\">GPU memory over time is drawn by "
              "the page's script, which needs JavaScript; the Memory section has its figures.</p>\n<div class=\"tl-box\">"
              "<canvas class=\"tl-canvas\" role=\"img\" aria-label=\"GPU memory over time, per process and device, "
              "under the timeline\"></canvas></div>\n<figcaption class=\"key\"><span class=\"sw mlive\"></span>live "
              "<span class=\"sw mres\"></span>reserved <span class=\"sw mused\"></span>in use on the device (NVML): "
              "the most of each of 400 buckets of the run</figcaption>\n</figure>\n");
    sb_printf(o, "<script type=\"application/json\" id=\"tl-mem\">{\"span\":%lld,\"bands\":[", (long long)span);
    for (int si = 0; si < x->nseries; si++) {
        const mem_series *s = &x->series[si];
        char label[96];
        if (s->device_only)
            snprintf(label, sizeof label, "GPU %u memory (the device, NVML)", s->device);
        else
            snprintf(label, sizeof label, "GPU %u memory of process %u", s->device, s->pid);
        sb_add(o, si ? ",\n{\"l\":" : "\n{\"l\":");
        json_str(o, label);
        sb_add(o, ",\"s\":[");
        int64_t prev = t0;
        for (int i = 0; i < s->npoints; i++) {
            int64_t t = x->points[s->first_point + i].t_ns;
            sb_printf(o, "%s%lld", i ? "," : "", (long long)(t - prev));
            prev = t;
        }
        sb_add(o, "]");
        mem_column(o, "v", x, s, offsetof(mem_point, live_bytes));
        mem_column(o, "r", x, s, offsetof(mem_point, reserved_bytes));
        mem_column(o, "u", x, s, offsetof(mem_point, device_used_bytes));
        sb_add(o, "}");
    }
    sb_add(o, "]}</script>\n");
}

/* The host samples' stacks: "frames" with each frame's distance back to its caller ("p", 0 for
 * the outermost: callers come first, mostly right before), its name ("n", in the names) and the
 * places of the user's own frames ("u"); a sample's "f" is its innermost frame. */
static void frame_table(strbuf *o, const tl_build *b)
{
    if (b->nf == 0)
        return;
    sb_add(o, ",\"frames\":{\"p\":[");
    for (int i = 0; i < b->nf; i++)
        sb_printf(o, i ? ",%d" : "%d", b->fparent[i] < 0 ? 0 : i - b->fparent[i]);
    sb_add(o, "],\"n\":[");
    for (int i = 0; i < b->nf; i++)
        sb_printf(o, i ? ",%d" : "%d", b->fname[i]);
    sb_add(o, "],\"u\":[");
    for (int i = 0, k = 0; i < b->nf; i++)
        if (b->fuser[i])
            sb_printf(o, k++ ? ",%d" : "%d", i);
    sb_add(o, "]}");
}

/* One swatch of a key line and its words, kept together where the line wraps (a phone's). */
static void key_entry(strbuf *o, const char *cls, const char *words)
{
    sb_printf(o, " <span class=\"tl-k\"><span class=\"sw %s\"></span>", cls);
    sb_html(o, words);
    sb_add(o, "</span>");
}

void html_event_timeline(html_ctx *x)
{
    const run_model *m = x->a->m;
    size_t total = html_event_timeline_events(m);
    if (total == 0)
        return;
    tl_build b = {0};
    int64_t cut = window_end(m, total);
    if (cut == INT64_MIN) {
        x->b->oom = true;
        return;
    }
    collect(&b, m, x->a->host ? x->a->host->lines : NULL, cut);
    collect_bands(&b, x->a, cut);
    sort_tracks = b.t;
    if (!b.oom)
        qsort(b.it, b.n, sizeof *b.it, cmp_item);
    if (!b.oom)
        add_busy(&b);
    sort_tracks = b.t;
    if (!b.oom)
        qsort(b.it, b.n, sizeof *b.it, cmp_item);
    if (!b.oom) {
        set_depths(&b);
        sample_rows(&b);
        link_ids(&b, m->events.napis);
    }
    if (b.oom || b.nm.oom || b.n == 0) {
        x->b->oom |= b.oom || b.nm.oom;
        goto done;
    }

    /* The axis starts at the run's start (or the earliest event, when one came before it). */
    int64_t t0 = m->nregions > 0 ? m->regions[0].start_ns : b.it[0].s, t1 = INT64_MIN, all_end = INT64_MIN;
    size_t shown = 0;
    for (size_t i = 0; i < b.n; i++) {
        t0 = b.it[i].s < t0 ? b.it[i].s : t0;
        t1 = b.it[i].e > t1 ? b.it[i].e : t1;
        shown += b.t[b.it[i].track].kind != TK_BUSY && b.t[b.it[i].track].kind != TK_BANDS; /* events alone */
    }
    all_end = t1;
    if (cut != INT64_MAX && m->nregions > 0 && m->regions[0].end_ns > all_end)
        all_end = m->regions[0].end_ns;
    /* Threads are named with their process only when there is more than one. */
    bool many_pids = false;
    uint32_t pid0 = 0;
    bool seen = false;
    bool cats[CAT_GROUP + WG_COUNT] = {false}; /* the categories drawn, for the key */
    for (size_t i = 0; i < b.n; i++)
        cats[b.it[i].cat] = true;
    bool samples = cats[CAT_HOST] || cats[CAT_HOST_RUN] || cats[CAT_HOST_WAIT], bands = false;
    for (int g = 0; g < WG_COUNT; g++)
        bands |= cats[CAT_GROUP + g];
    for (size_t i = 0; i < b.nt; i++)
        if (b.t[i].kind == TK_RANGES || b.t[i].kind == TK_API || b.t[i].kind == TK_HOST) {
            many_pids |= seen && b.t[i].pid != pid0;
            pid0 = b.t[i].pid;
            seen = true;
        }

    strbuf *o = x->b;
    const char *ticks = " Each host sample is a tick on its thread's track; hover for its stack.";
    if (cats[CAT_HOST_RUN] || cats[CAT_HOST_WAIT])
        ticks = " Each host sample is a tick on its thread's track, bright where the thread ran and pale where it "
                "waited off the CPU (a row lower, where it did both); hover for its stack.";
    sb_printf(o, "<p class=\"lede\" data-events=\"%zu\">Every kernel, copy and memset on its GPU's stream, with each "
                 "GPU's busy time above its streams, then each host thread's NVTX ranges (nested) and CUDA API calls, "
                 "on one axis from the run's start: copies and kernels that overlap sit above one another.%s%s Zoom "
                 "with the buttons or the mouse wheel, drag to pan, shift+drag (or the key M: the view shown) to "
                 "measure an interval, hover over a mark for its details (a kernel, copy or memset and the API call "
                 "that launched it are joined by a line), find events by name in the box above the tracks.%s</p>\n",
              shown,
              bands ? " Above the GPUs, where each process's time went: its span in stretches of one state of "
                      "<a href=\"#time\">Where the time went</a>, coloured as there, so that a gap in a GPU's busy "
                      "time reads against the stretch above it."
                    : "",
              samples ? ticks : "",
              x->a->m->capture.nwindows > 0 ? " The capture windows come first: outside them nothing was recorded."
                                             : "");
    if (cut != INT64_MAX) {
        sb_printf(o, "<p class=\"tl-window\"><b>Windowed:</b> the page holds the first %zu of the run's %zu events "
                     "(those starting in its first ",
                  shown, total);
        html_ms(o, cut - t0);
        sb_add(o, " of ");
        html_ms(o, all_end - t0);
        sb_printf(o, "); a page holds %d at most. <code>mmprof report RUN.json --trace FILE</code> writes the "
                     "run for Perfetto (past %zu events, its GPU work whole and its API calls' first stretch).</p>\n",
                  TL_MAX_EVENTS, trace_max_events);
    }
    sb_add(o, "<figure class=\"tl-events\" id=\"tl-events\">\n"
              "<p class=\"tl-nojs\">The interactive timeline is drawn by the page's own script (nothing is loaded from "
              "elsewhere): it needs JavaScript, which is off here. The tracks it would draw are listed below.</p>\n"
              "<div class=\"tl-ctl\" hidden><button type=\"button\" data-tl=\"in\">Zoom in</button>"
              "<button type=\"button\" data-tl=\"out\">Zoom out</button>"
              "<button type=\"button\" data-tl=\"left\" aria-label=\"Pan earlier\">&larr;</button>"
              "<button type=\"button\" data-tl=\"right\" aria-label=\"Pan later\">&rarr;</button>"
              "<button type=\"button\" data-tl=\"all\">Whole run</button>"
              " <span class=\"tl-view quiet\" aria-live=\"polite\"></span></div>\n"
              "<div class=\"tl-ctl tl-tools\" hidden><input type=\"search\" class=\"tl-find\" "
              "placeholder=\"Find by name\" aria-label=\"Find events by name\" autocomplete=\"off\">"
              "<button type=\"button\" data-tl=\"prev\">Previous</button>"
              "<button type=\"button\" data-tl=\"next\">Next</button>"
              " <span class=\"tl-found quiet\" aria-live=\"polite\"></span></div>\n"
              "<p class=\"tl-measure\" aria-live=\"polite\" hidden></p>\n"
              "<div class=\"tl-box\"><canvas class=\"tl-canvas\" tabindex=\"0\" role=\"img\" aria-label=\"Timeline "
              "of the run's events; the tracks are listed below\"></canvas></div>\n"
              "<figcaption class=\"key\"><span class=\"sw k\"></span>kernel <span class=\"sw h2d\"></span>host to "
              "device <span class=\"sw d2h\"></span>device to host <span class=\"sw d2d\"></span>other copy "
              "<span class=\"sw ms\"></span>memset <span class=\"sw busy\"></span>GPU busy <span class=\"sw rg\">"
              "</span>range <span class=\"sw api\"></span>CUDA API call");
    /* Samples with a state, and the bands, have a key line each, led by what they are. */
    if (cats[CAT_HOST_RUN] || cats[CAT_HOST_WAIT]) {
        sb_add(o, "<span class=\"tl-key-line\"><span>Host samples:</span>");
        const char *const cls[] = {"hs", "hsw", "hsu"}, *const words[] = {"running", "waiting off the CPU",
                                                                       "state not recorded"};
        const int cat[] = {CAT_HOST_RUN, CAT_HOST_WAIT, CAT_HOST};
        for (int k = 0; k < 3; k++)
            if (cats[cat[k]])
                key_entry(o, cls[k], words[k]);
        sb_add(o, "</span>");
    } else if (samples) {
        sb_add(o, " <span class=\"sw hsu\"></span>host sample");
    }
    /* The bands' groups drawn, in the account's words and colours (report.css's g- classes). */
    if (bands) {
        sb_add(o, "<span class=\"tl-key-line\"><span>Where the time went:</span>");
        for (int g = 0; g < WG_COUNT; g++)
            if (cats[CAT_GROUP + g]) {
                char cls[32];
                snprintf(cls, sizeof cls, "g-%s", wall_groups[g].key);
                key_entry(o, cls, wall_groups[g].brief);
            }
        sb_add(o, "</span>");
    }
    sb_add(o, "</figcaption>\n<details class=\"tl-tracks\"><summary>Tracks</summary><ol>");
    size_t first = 0;
    for (size_t ti = 0; first < b.n; ti++) {
        size_t n = 0;
        while (first + n < b.n && b.it[first + n].track == b.it[first].track)
            n++;
        char label[256];
        track_label(m, &b.t[b.it[first].track], many_pids, label, sizeof label);
        sb_printf(o, "<li data-track=\"%zu\" data-kind=\"%s\" data-events=\"%zu\">", ti,
                  kind_key(b.t[b.it[first].track].kind), n);
        sb_html(o, label);
        sb_printf(o, " <span class=\"quiet\">%zu</span></li>", n);
        first += n;
    }
    sb_add(o, "</ol></details>\n</figure>\n");

    /* The data: JSON in a script element that is never run; timeline.js reads it. */
    /* run0: where the run's start lies on the axis (the tables' "at ms" count from it; the axis
     * from the earliest event, which may come before it) */
    sb_printf(o, "<script type=\"application/json\" id=\"tl-data\">{\"span\":%lld,\"run0\":%lld,\"names\":[",
              (long long)(t1 - t0), (long long)(m->nregions > 0 ? m->regions[0].start_ns - t0 : 0));
    for (size_t i = 0; i < b.nm.n; i++) {
        if (i)
            sb_add(o, ",");
        json_str(o, b.nm.s[i]);
    }
    sb_add(o, "],\"tracks\":[");
    first = 0;
    for (size_t ti = 0; first < b.n; ti++) {
        size_t n = 0;
        const item *it = &b.it[first];
        while (first + n < b.n && b.it[first + n].track == it->track)
            n++;
        const track *t = &b.t[it->track];
        char label[256];
        track_label(m, t, many_pids, label, sizeof label);
        sb_add(o, ti ? ",\n{\"l\":" : "\n{\"l\":");
        json_str(o, label);
        sb_printf(o, ",\"k\":\"%s\"", kind_key(t->kind));
        column(o, "s", it, n, f_start, t0);
        column(o, "d", it, n, f_dur, 0);
        column(o, "n", it, n, f_name, 0);
        if (t->kind == TK_BANDS || (t->kind == TK_HOST && any_state(it, n))) {
            column(o, "c", it, n, f_cat, 0);
            column(o, "i", it, n, f_info, 0);
        } else if (t->kind == TK_STREAM) {
            column(o, "c", it, n, f_cat, 0);
            column(o, "i", it, n, f_info, 0);
            column(o, "b", it, n, f_bytes, 0);
        } else if (t->kind == TK_RANGES || t->kind == TK_HOST || t->kind == TK_CAPTURE ||
                   (t->kind == TK_API && any_info(it, n))) {
            column(o, "i", it, n, f_info, 0);
        }
        if (any_nonzero(it, n, f_depth))
            column(o, "z", it, n, f_depth, 0);
        if (t->kind == TK_STREAM && any_nonzero(it, n, f_link))
            column(o, "r", it, n, f_link, 0);
        else if (t->kind == TK_API && any_nonzero(it, n, f_link))
            launched_column(o, it, n);
        else if (t->kind == TK_HOST && b.nf > 0)
            column(o, "f", it, n, f_frame, 0);
        sb_add(o, "}");
        first += n;
    }
    sb_add(o, "]");
    /* The groups' keys in their order, once: a band's category less CAT_GROUP is its group, whose
     * colour timeline.js reads from report.css's g-KEY class, so that it is written once. */
    if (bands) {
        sb_printf(o, ",\"group0\":%d,\"groups\":[", CAT_GROUP);
        for (int g = 0; g < WG_COUNT; g++)
            sb_printf(o, "%s\"%s\"", g ? "," : "", wall_groups[g].key);
        sb_add(o, "]");
    }
    frame_table(o, &b);
    sb_add(o, "}</script>\n");
    memory_bands(o, x->a, t0, t1 - t0);
done:
    free(b.t);
    free(b.it);
    free(b.page_frame);
    free(b.fparent);
    free(b.fname);
    free(b.fuser);
    names_free(&b.nm);
}
