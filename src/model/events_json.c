/* The run file's event store: "events", element by element (one object per event), or a long
 * run's columns (event_columns.h); and the reader of a version 1 or 2 workload's own events. */
#include "model_json_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "event_columns.h"

/* ---------- writing ---------- */

static bool add_int3(cJSON *o, const char *k, const int v[3])
{
    return mj_ok_add(o, k, cJSON_CreateIntArray(v, 3));
}

/* The owner (event_owner in model.h) is written only where it is not the run, as most events of
 * a program or trace are: a file without "region" reads as owned by the run. */
static bool add_region(cJSON *o, int region)
{
    return region == 0 || mj_add_num(o, "region", region);
}

/* One writer per event type. */
static cJSON *kernel_json(const kernel_event *k, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "name", k->name) && mj_add_time(o, "start_ns", k->start_ns, epoch) &&
              mj_add_time(o, "end_ns", k->end_ns, epoch) && mj_add_num(o, "pid", k->pid) &&
              mj_add_num(o, "device", k->device) && mj_add_num(o, "stream", k->stream) &&
              mj_add_num(o, "correlation", k->correlation) && add_int3(o, "grid", k->grid) &&
              add_int3(o, "block", k->block);
    if (ok && k->has_resources)
        ok = mj_add_num(o, "registers", k->registers) && mj_add_num(o, "static_smem", k->static_smem) &&
             mj_add_num(o, "dynamic_smem", k->dynamic_smem) && mj_add_bool(o, "smem_optin", k->smem_optin) &&
             mj_add_num(o, "local_mem", k->local_mem);
    else if (ok)
        ok = mj_ok_add(o, "registers", cJSON_CreateNull()) && mj_ok_add(o, "static_smem", cJSON_CreateNull()) &&
             mj_ok_add(o, "dynamic_smem", cJSON_CreateNull());
    ok = ok && add_region(o, k->region);
    return mj_built(o, ok);
}

static cJSON *copy_json(const copy_event *c, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "dir", copy_dir_name(c->dir)) && mj_add_str(o, "src", mem_kind_name(c->src)) &&
              mj_add_str(o, "dst", mem_kind_name(c->dst)) && mj_add_num(o, "bytes", (double)c->bytes) &&
              mj_add_time(o, "start_ns", c->start_ns, epoch) && mj_add_time(o, "end_ns", c->end_ns, epoch) &&
              mj_add_num(o, "pid", c->pid) && mj_add_num(o, "device", c->device) &&
              mj_add_num(o, "stream", c->stream) && mj_add_num(o, "correlation", c->correlation);
    ok = ok && add_region(o, c->region);
    return mj_built(o, ok);
}

static cJSON *memset_json(const memset_event *s, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "mem", mem_kind_name(s->mem)) && mj_add_num(o, "bytes", (double)s->bytes) &&
              mj_add_time(o, "start_ns", s->start_ns, epoch) && mj_add_time(o, "end_ns", s->end_ns, epoch) &&
              mj_add_num(o, "pid", s->pid) && mj_add_num(o, "device", s->device) &&
              mj_add_num(o, "stream", s->stream) && mj_add_num(o, "correlation", s->correlation);
    ok = ok && add_region(o, s->region);
    return mj_built(o, ok);
}

static cJSON *api_json(const api_event *a, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "name", a->name) && mj_add_str(o, "kind", api_kind_name(a->kind)) &&
              mj_add_time(o, "start_ns", a->start_ns, epoch) && mj_add_time(o, "end_ns", a->end_ns, epoch) &&
              mj_add_num(o, "pid", a->pid) && mj_add_num(o, "thread", a->thread) &&
              mj_add_num(o, "correlation", a->correlation);
    ok = ok && add_region(o, a->region);
    return mj_built(o, ok);
}

static cJSON *sync_json(const sync_event *s, int64_t epoch)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && mj_add_str(o, "kind", sync_kind_name(s->kind)) && mj_add_time(o, "start_ns", s->start_ns, epoch) &&
              mj_add_time(o, "end_ns", s->end_ns, epoch) && mj_add_num(o, "pid", s->pid) &&
              mj_add_num(o, "thread", s->thread) && mj_add_num(o, "stream", s->stream) &&
              mj_add_num(o, "correlation", s->correlation);
    ok = ok && add_region(o, s->region);
    return mj_built(o, ok);
}

/* Element makers: ctx is the array the elements come from. */
static cJSON *make_kernel(const void *a, size_t i, int64_t e) { return kernel_json(&((const kernel_event *)a)[i], e); }
static cJSON *make_copy(const void *a, size_t i, int64_t e) { return copy_json(&((const copy_event *)a)[i], e); }
static cJSON *make_memset(const void *a, size_t i, int64_t e) { return memset_json(&((const memset_event *)a)[i], e); }
static cJSON *make_api(const void *a, size_t i, int64_t e) { return api_json(&((const api_event *)a)[i], e); }
static cJSON *make_sync(const void *a, size_t i, int64_t e) { return sync_json(&((const sync_event *)a)[i], e); }

bool write_events(json_writer *w, const event_list *e, int64_t epoch)
{
    if (event_columns_fit(e)) /* a long run: the compact form (event_columns.h) */
        return jw_open_object(w, "events") && event_columns_write(w, e, epoch) && jw_close(w);
    return jw_open_object(w, "events") && mj_write_array(w, "kernels", e->nkernels, make_kernel, e->kernels, epoch) &&
           mj_write_array(w, "copies", e->ncopies, make_copy, e->copies, epoch) &&
           mj_write_array(w, "memsets", e->nmemsets, make_memset, e->memsets, epoch) &&
           mj_write_array(w, "apis", e->napis, make_api, e->apis, epoch) &&
           mj_write_array(w, "syncs", e->nsyncs, make_sync, e->syncs, epoch) && jw_close(w);
}

/* ---------- reading ---------- */

static bool get_pid(mj_reader *r, const cJSON *o, uint32_t *pid)
{
    return mj_v1_default(r, o, "pid") || mj_get_u32(r, o, "pid", pid);
}

static bool get_int3(mj_reader *r, const cJSON *o, const char *key, int out[3])
{
    const cJSON *v = mj_field(r, o, key);
    if (!v)
        return false;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return mj_fail(r, key, "expected an array of 3 integers");
    for (int i = 0; i < 3; i++) {
        const cJSON *e = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > INT32_MAX)
            return mj_fail(r, key, "expected an array of 3 non-negative integers");
        out[i] = (int)e->valuedouble;
    }
    return true;
}

/* A kernel's or copy's device indexes run.devices: one beyond them would be read out of bounds
 * (and overflowed the trace's process ids), so it is refused where it is read. */
static bool device_known(mj_reader *r, uint32_t device)
{
    if (device < (uint32_t)r->ndevices)
        return true;
    if (r->ndevices == 0)
        return mj_fail(r, "device", "%u names no recorded device (the run has none)", device);
    return mj_fail(r, "device", "%u names no recorded device (expected 0 to %d)", device, r->ndevices - 1);
}

/* An event's owner: absent means the run; a region read before the events (the file's regions
 * come first, and a version 1 or 2 file's workload events are given theirs by the reader). */
static bool read_event_region(mj_reader *r, const cJSON *e, int *region)
{
    *region = 0;
    if (mj_absent(e, "region"))
        return true;
    if (!mj_get_int(r, e, "region", 0, INT32_MAX, region))
        return false;
    return *region < r->nregions ||
           mj_fail(r, "region", "is %d; the run has %d region%s", *region, r->nregions, r->nregions == 1 ? "" : "s");
}

/* Event readers: one per event type, each appending to an event_list. */
static bool read_kernel(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    kernel_event k;
    memset(&k, 0, sizeof k);
    if (!mj_read_interval(r, e, epoch, &k.start_ns, &k.end_ns) || !get_pid(r, e, &k.pid) ||
        !mj_get_u32(r, e, "device", &k.device) || !mj_get_u32(r, e, "stream", &k.stream) ||
        !mj_get_u32(r, e, "correlation", &k.correlation) || !get_int3(r, e, "grid", k.grid) ||
        !get_int3(r, e, "block", k.block))
        return false;
    if (!device_known(r, k.device) || !read_event_region(r, e, &k.region))
        return false;
    const cJSON *regs = mj_field(r, e, "registers");
    if (!regs)
        return false;
    k.has_resources = !cJSON_IsNull(regs);
    if (k.has_resources &&
        (!mj_get_int(r, e, "registers", 0, 65536, &k.registers) ||
         !mj_get_int(r, e, "static_smem", 0, 1 << 30, &k.static_smem) ||
         !mj_get_int(r, e, "dynamic_smem", 0, 1 << 30, &k.dynamic_smem) ||
         !mj_get_bool(r, e, "smem_optin", &k.smem_optin) || !mj_get_int(r, e, "local_mem", 0, 1 << 30, &k.local_mem)))
        return false;
    if (!mj_get_owned_str(r, e, "name", false, &k.name))
        return false;
    bool ok = events_add_kernel(dst, &k) || mj_fail(r, NULL, "out of memory");
    free(k.name);
    return ok;
}

static bool read_mem_kind(mj_reader *r, const cJSON *e, const char *key, mem_kind *out)
{
    char name[16];
    if (!mj_get_str(r, e, key, false, name, sizeof name))
        return false;
    return mem_kind_parse(name, out) || mj_fail(r, key, "unknown memory kind '%s'", name);
}

static bool read_copy(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    copy_event c;
    memset(&c, 0, sizeof c);
    char dir[16];
    if (!mj_get_str(r, e, "dir", false, dir, sizeof dir) || !read_mem_kind(r, e, "src", &c.src) ||
        !read_mem_kind(r, e, "dst", &c.dst) || !mj_get_u64(r, e, "bytes", &c.bytes) ||
        !mj_read_interval(r, e, epoch, &c.start_ns, &c.end_ns) || !get_pid(r, e, &c.pid) ||
        !mj_get_u32(r, e, "device", &c.device) || !mj_get_u32(r, e, "stream", &c.stream) ||
        !mj_get_u32(r, e, "correlation", &c.correlation))
        return false;
    if (!device_known(r, c.device) || !read_event_region(r, e, &c.region))
        return false;
    if (!copy_dir_parse(dir, &c.dir))
        return mj_fail(r, "dir", "expected HtoD, DtoH, DtoD, HtoH, PtoP or other, not '%s'", dir);
    return events_add_copy(dst, &c) || mj_fail(r, NULL, "out of memory");
}

static bool read_memset(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    memset_event m;
    memset(&m, 0, sizeof m);
    if (!read_mem_kind(r, e, "mem", &m.mem) || !mj_get_u64(r, e, "bytes", &m.bytes) ||
        !mj_read_interval(r, e, epoch, &m.start_ns, &m.end_ns) || !get_pid(r, e, &m.pid) ||
        !mj_get_u32(r, e, "device", &m.device) || !mj_get_u32(r, e, "stream", &m.stream) ||
        !mj_get_u32(r, e, "correlation", &m.correlation) || !read_event_region(r, e, &m.region))
        return false;
    return events_add_memset(dst, &m) || mj_fail(r, NULL, "out of memory");
}

static bool read_api(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    api_event a;
    memset(&a, 0, sizeof a);
    char kind[16];
    if (!mj_read_interval(r, e, epoch, &a.start_ns, &a.end_ns) || !get_pid(r, e, &a.pid) ||
        !mj_get_u32(r, e, "thread", &a.thread) || !mj_get_u32(r, e, "correlation", &a.correlation) ||
        !read_event_region(r, e, &a.region))
        return false;
    if (!mj_v1_default(r, e, "kind")) {
        if (!mj_get_str(r, e, "kind", false, kind, sizeof kind))
            return false;
        if (!api_kind_parse(kind, &a.kind))
            return mj_fail(r, "kind", "expected runtime or driver, not '%s'", kind);
    }
    if (!mj_get_owned_str(r, e, "name", false, &a.name))
        return false;
    bool ok = events_add_api(dst, &a) || mj_fail(r, NULL, "out of memory");
    free(a.name);
    return ok;
}

static bool read_sync(mj_reader *r, const cJSON *e, int64_t epoch, void *dst)
{
    sync_event y;
    memset(&y, 0, sizeof y);
    char kind[24];
    if (!mj_get_str(r, e, "kind", false, kind, sizeof kind) || !mj_read_interval(r, e, epoch, &y.start_ns, &y.end_ns) ||
        !get_pid(r, e, &y.pid) || !mj_get_u32(r, e, "thread", &y.thread) || !mj_get_u32(r, e, "stream", &y.stream) ||
        !mj_get_u32(r, e, "correlation", &y.correlation) || !read_event_region(r, e, &y.region))
        return false;
    if (!sync_kind_parse(kind, &y.kind))
        return mj_fail(r, "kind", "expected unknown, event, stream-wait-event, stream or context, not '%s'", kind);
    return events_add_sync(dst, &y) || mj_fail(r, NULL, "out of memory");
}

/* The event arrays of o (the run's "events", or a version 1 or 2 workload), appended to ev. What
 * was read stays in ev on failure, for the caller to free. memsets and syncs came with version 2. */
bool read_events(mj_reader *r, const cJSON *o, const char *api_key, int64_t epoch, event_list *ev)
{
    return mj_read_each(r, o, "kernels", epoch, ev, read_kernel, true) &&
           mj_read_each(r, o, "copies", epoch, ev, read_copy, true) &&
           (mj_v1_default(r, o, "memsets") || mj_read_each(r, o, "memsets", epoch, ev, read_memset, true)) &&
           mj_read_each(r, o, api_key, epoch, ev, read_api, true) &&
           (mj_v1_default(r, o, "syncs") || mj_read_each(r, o, "syncs", epoch, ev, read_sync, true));
}

/* A long run's events in columns (event_columns.h): the names table from the tree, each kind's
 * columns from the file's text (or, for a tree made in memory, from its printed form). */
static bool read_columns(mj_reader *r, const cJSON *ev, run_model *m)
{
    char form[16];
    if (!mj_get_str(r, ev, "form", false, form, sizeof form))
        return false;
    if (strcmp(form, "columns") != 0)
        return mj_fail(r, "form", "is '%s'; this mmprof reads \"columns\"", form);
    const cJSON *names = mj_get_array(r, ev, "names");
    if (!names)
        return false;
    int nn = cJSON_GetArraySize(names);
    const char **table = malloc((size_t)(nn ? nn : 1) * sizeof *table);
    if (!table)
        return mj_fail(r, NULL, "out of memory");
    int i = 0;
    for (const cJSON *e = names->child; e; e = e->next, i++)
        if (!cJSON_IsString(e)) {
            free(table);
            size_t s = mj_enter(r, "names", i);
            bool ok = mj_fail(r, NULL, "expected a string");
            mj_leave(r, s);
            return ok;
        } else {
            table[i] = e->valuestring;
        }
    event_column_limits lim = {.names = table, .nnames = (size_t)nn, .ndevices = r->ndevices,
                               .nregions = r->nregions, .epoch = m->epoch_ns};
    bool ok = true;
    for (int k = 0; ok && k < 5; k++) {
        const char *kind = event_column_kinds[k];
        const mj_split_array *sa = mj_split_find(r, kind);
        char *printed = NULL;
        const char *text = NULL;
        size_t len = 0;
        if (sa && sa->span) {
            text = r->split->buf + sa->el[0][0];
            len = sa->el[0][1] - sa->el[0][0];
        } else {
            const cJSON *o = mj_get_object(r, ev, kind);
            if (!o) {
                ok = false;
                break;
            }
            if (!(printed = cJSON_PrintUnformatted(o))) {
                ok = mj_fail(r, NULL, "out of memory");
                break;
            }
            text = printed, len = strlen(printed);
        }
        char why[256];
        ok = event_columns_read(k, text, len, &lim, &m->events, why, sizeof why) || mj_fail(r, NULL, "%s", why);
        free(printed);
    }
    free(table);
    return ok;
}

/* The run's own events: version 2 and 3's "events" (a version 1 file has none there). */
bool read_store(mj_reader *r, const cJSON *root, run_model *m)
{
    if (mj_v1_default(r, root, "events"))
        return true;
    const cJSON *ev = mj_get_object(r, root, "events");
    if (!ev)
        return false;
    size_t s = mj_enter_obj(r, "events");
    bool ok = cJSON_HasObjectItem(ev, "form") ? read_columns(r, ev, m) : read_events(r, ev, "apis", m->epoch_ns, &m->events);
    mj_leave(r, s);
    return ok;
}
