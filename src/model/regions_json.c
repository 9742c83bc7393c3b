/* The run's regions in the run file (the run, workloads, phases, NVTX ranges, annotations,
 * capture windows), profile's capture windows, and the processes and threads the events name. */
#include "model_json_parts.h"

#include <stdlib.h>
#include <string.h>

/* ---------- writing ---------- */

static cJSON *region_json(const region *g, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "name", g->name) &&
              mj_ok_add(o, "domain", g->domain ? cJSON_CreateString(g->domain) : cJSON_CreateNull()) &&
              mj_add_str(o, "kind", region_kind_name(g->kind)) && mj_add_time(o, "start_ns", g->start_ns, epoch) &&
              mj_add_time(o, "end_ns", g->end_ns, epoch) && mj_add_num(o, "pid", g->pid) &&
              mj_add_num(o, "tid", g->tid) && mj_add_num(o, "parent", g->parent) &&
              mj_add_num(o, "workload", g->workload) && mj_add_bool(o, "push_pop", g->push_pop);
    return mj_built(o, ok);
}

cJSON *make_region(const void *a, size_t i, int64_t e) { return region_json(&((const region *)a)[i], e); }

/* profile's capture windows: what was asked, and each window with its region, reasons and the
 * unrecorded stretches around it (-1: not known). */
static cJSON *make_window(const void *a, size_t i, int64_t e)
{
    const capture_window *w = &((const capture_window *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok =
        o && mj_add_num(o, "region", w->region) && mj_add_num(o, "pid", w->pid) && mj_add_num(o, "number", w->number) &&
        mj_add_time(o, "start_ns", w->start_ns, e) && mj_add_time(o, "end_ns", w->end_ns, e) &&
        mj_add_str(o, "began", w->began) && mj_add_str(o, "began_detail", w->began_detail) &&
        mj_add_str(o, "ended", w->ended) && mj_add_str(o, "ended_detail", w->ended_detail) &&
        mj_add_num(o, "before_ns", (double)w->before_ns) && mj_add_num(o, "after_ns", (double)w->after_ns) &&
        mj_add_num(o, "calls_before", (double)w->calls_before) && mj_add_num(o, "calls_after", (double)w->calls_after);
    return mj_built(o, ok);
}

cJSON *capture_json(const capture_info *c, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "asked", c->asked) &&
              mj_ok_add(o, "windows", mj_array_of((size_t)c->nwindows, make_window, c->windows, epoch));
    return mj_built(o, ok);
}

cJSON *make_process(const void *a, size_t i, int64_t e)
{
    (void)e;
    const process_info *p = &((const process_info *)a)[i];
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_num(o, "pid", p->pid) && mj_add_str(o, "name", p->name);
    /* Only a process a launcher gave a rank says it (older readers ignore the keys). */
    if (ok && p->rank >= 0)
        ok = mj_add_num(o, "rank", p->rank) && mj_add_num(o, "world_size", p->world_size) &&
             mj_add_num(o, "local_rank", p->local_rank);
    if (ok && p->host[0])
        ok = mj_add_str(o, "host", p->host);
    if (ok && p->records_cut) /* only where true: older readers ignore it */
        ok = cJSON_AddBoolToObject(o, "records_cut", true) != NULL;
    return mj_built(o, ok);
}

cJSON *make_thread(const void *a, size_t i, int64_t e)
{
    (void)e;
    const thread_info *t = &((const thread_info *)a)[i];
    cJSON *o = cJSON_CreateObject();
    return mj_built(o, o && mj_add_num(o, "pid", t->pid) && mj_add_num(o, "tid", t->tid) &&
                           mj_add_str(o, "name", t->name));
}

/* ---------- reading ---------- */

/* One capture window (make_window); its region must be a capture region already read. */
static bool read_window(mj_reader *r, const cJSON *e, int64_t epoch, void *arg)
{
    run_model *m = arg;
    capture_window w;
    memset(&w, 0, sizeof w);
    int64_t pid;
    bool ok = mj_get_int(r, e, "region", 1, m->nregions - 1, &w.region) &&
              mj_get_i64(r, e, "pid", 0, UINT32_MAX, &pid) && mj_get_int(r, e, "number", 1, INT32_MAX, &w.number) &&
              mj_read_interval(r, e, epoch, &w.start_ns, &w.end_ns) &&
              mj_get_str(r, e, "began", false, w.began, sizeof w.began) &&
              mj_get_str(r, e, "began_detail", false, w.began_detail, sizeof w.began_detail) &&
              mj_get_str(r, e, "ended", false, w.ended, sizeof w.ended) &&
              mj_get_str(r, e, "ended_detail", false, w.ended_detail, sizeof w.ended_detail) &&
              mj_get_i64(r, e, "before_ns", -1, INT64_MAX, &w.before_ns) &&
              mj_get_i64(r, e, "after_ns", -1, INT64_MAX, &w.after_ns) &&
              mj_get_i64(r, e, "calls_before", -1, INT64_MAX, &w.calls_before) &&
              mj_get_i64(r, e, "calls_after", -1, INT64_MAX, &w.calls_after);
    if (!ok)
        return false;
    if (m->regions[w.region].kind != REGION_CAPTURE)
        return mj_fail(r, "region", "is not a capture region");
    w.pid = (uint32_t)pid;
    capture_info *c = &m->capture;
    capture_window *p = realloc(c->windows, (size_t)(c->nwindows + 1) * sizeof *p);
    if (!p)
        return mj_fail(r, NULL, "out of memory");
    c->windows = p;
    p[c->nwindows++] = w;
    return true;
}

/* profile's "capture" object, where it has one (capture_json). */
bool read_capture(mj_reader *r, const cJSON *root, run_model *m)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "capture");
    if (!o)
        return true;
    size_t s = mj_enter_obj(r, "capture");
    bool ok = cJSON_IsObject(o) ? mj_get_str(r, o, "asked", false, m->capture.asked, sizeof m->capture.asked) &&
                                      mj_read_each(r, o, "windows", m->epoch_ns, m, read_window, true)
                                : mj_fail(r, NULL, "expected an object");
    mj_leave(r, s);
    return ok;
}

/* Region i (the next one: m->nregions) encloses nothing before it, so parent links only point
 * back and can be followed without a cycle check; the first is the run. Workloads are read by
 * now. */
bool read_region(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    run_model *m = dst;
    int i = m->nregions;
    char kind_name[16];
    region g;
    memset(&g, 0, sizeof g);
    if (!mj_get_str(r, e, "kind", false, kind_name, sizeof kind_name) ||
        !mj_read_interval(r, e, epoch, &g.start_ns, &g.end_ns) || !mj_get_u32(r, e, "pid", &g.pid) ||
        !mj_get_u32(r, e, "tid", &g.tid) || !mj_get_int(r, e, "parent", -1, INT32_MAX, &g.parent) ||
        !mj_get_int(r, e, "workload", -1, INT32_MAX, &g.workload) || !mj_get_bool(r, e, "push_pop", &g.push_pop))
        return false;
    if (!region_kind_parse(kind_name, &g.kind))
        return mj_fail(r, "kind", "expected run, workload, phase, nvtx or annotation, not '%s'", kind_name);
    if ((i == 0) != (g.kind == REGION_RUN))
        return mj_fail(r, "kind", i == 0 ? "the first region is the run's (kind run), not '%s'"
                                         : "'%s' after the first region: a run has one run region", kind_name);
    if (g.parent >= i || (i > 0 && g.parent < 0))
        return mj_fail(r, "parent", "is %d; a region's parent is an earlier region (0 to %d)", g.parent, i - 1);
    if (g.workload >= m->builtin.nworkloads)
        return mj_fail(r, "workload", "is %d; the run has %d workload%s", g.workload, m->builtin.nworkloads,
                       m->builtin.nworkloads == 1 ? "" : "s");
    if (!mj_get_owned_str(r, e, "name", false, &g.name) || !mj_get_owned_str(r, e, "domain", true, &g.domain)) {
        free(g.name);
        return false;
    }
    int at = model_add_region(m, g.kind, g.name, g.domain, g.start_ns, g.end_ns, g.pid, g.tid, g.parent);
    free(g.name);
    free(g.domain);
    if (at < 0)
        return mj_fail(r, NULL, "out of memory");
    m->regions[at].workload = g.workload;
    m->regions[at].push_pop = g.push_pop;
    r->nregions = m->nregions;
    return true;
}

bool read_process(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    (void)epoch;
    process_info p;
    if (!mj_get_u32(r, e, "pid", &p.pid) || !mj_get_str(r, e, "name", false, p.name, sizeof p.name))
        return false;
    p.rank = p.world_size = p.local_rank = -1;
    p.host[0] = '\0';
    if (cJSON_HasObjectItem(e, "rank") && !(mj_get_int(r, e, "rank", 0, INT32_MAX, &p.rank) &&
                                            mj_get_int(r, e, "world_size", -1, INT32_MAX, &p.world_size) &&
                                            mj_get_int(r, e, "local_rank", -1, INT32_MAX, &p.local_rank)))
        return false;
    if (cJSON_HasObjectItem(e, "host") && !mj_get_str(r, e, "host", false, p.host, sizeof p.host))
        return false;
    if (!model_add_process(dst, p.pid, p.name))
        return mj_fail(r, NULL, "out of memory");
    model_set_process_rank(dst, p.pid, p.rank, p.world_size, p.local_rank, p.host);
    run_model *m = dst;
    bool cut = false;
    if (cJSON_HasObjectItem(e, "records_cut") && !mj_get_bool(r, e, "records_cut", &cut))
        return false;
    m->processes[m->nprocesses - 1].records_cut = cut;
    return true;
}

bool read_thread(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    (void)epoch;
    thread_info t;
    if (!mj_get_u32(r, e, "pid", &t.pid) || !mj_get_u32(r, e, "tid", &t.tid) ||
        !mj_get_str(r, e, "name", false, t.name, sizeof t.name))
        return false;
    return model_add_thread(dst, t.pid, t.tid, t.name) || mj_fail(r, NULL, "out of memory");
}
