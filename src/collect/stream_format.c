/* Writing the record stream's lines. See stream_format.h; stream_read.c reads them, and the
 * tests check that the two agree field by field. */
#include "stream_format.h"

#include <string.h>

void stream_escape(strbuf *b, const char *s)
{
    if (!s)
        return;
    const char *run = s;
    for (; *s; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
        if (!esc)
            continue;
        sb_addn(b, run, (size_t)(s - run));
        sb_add(b, esc);
        run = s + 1;
    }
    sb_addn(b, run, (size_t)(s - run));
}

void stream_unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (*s != '\\' || !s[1]) {
            *out++ = *s;
            continue;
        }
        s++;
        *out++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
    }
    *out = '\0';
}

void stream_format_events(strbuf *b, const event_list *e)
{
    for (size_t i = 0; i < e->nkernels; i++) {
        const kernel_event *k = &e->kernels[i];
        sb_printf(b, "kernel\t%lld\t%lld\t%u\t%u\t%u\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t",
                  (long long)k->start_ns, (long long)k->end_ns, k->device, k->stream, k->correlation, k->grid[0],
                  k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->registers, k->static_smem,
                  k->dynamic_smem, k->smem_optin ? 1 : 0, k->local_mem);
        stream_escape(b, k->name);
        sb_add(b, "\n");
    }
    for (size_t i = 0; i < e->ncopies; i++) {
        const copy_event *c = &e->copies[i];
        sb_printf(b, "copy\t%lld\t%lld\t%u\t%u\t%u\t%d\t%d\t%d\t%llu\n", (long long)c->start_ns, (long long)c->end_ns,
                  c->device, c->stream, c->correlation, (int)c->dir, (int)c->src, (int)c->dst,
                  (unsigned long long)c->bytes);
    }
    for (size_t i = 0; i < e->nmemsets; i++) {
        const memset_event *s = &e->memsets[i];
        sb_printf(b, "memset\t%lld\t%lld\t%u\t%u\t%u\t%d\t%llu\n", (long long)s->start_ns, (long long)s->end_ns,
                  s->device, s->stream, s->correlation, (int)s->mem, (unsigned long long)s->bytes);
    }
    for (size_t i = 0; i < e->napis; i++) {
        const api_event *a = &e->apis[i];
        sb_printf(b, "api\t%lld\t%lld\t%d\t%u\t%u\t", (long long)a->start_ns, (long long)a->end_ns, (int)a->kind,
                  a->thread, a->correlation);
        stream_escape(b, a->name);
        sb_add(b, "\n");
    }
    for (size_t i = 0; i < e->nsyncs; i++) {
        const sync_event *s = &e->syncs[i];
        sb_printf(b, "sync\t%lld\t%lld\t%d\t%u\t%u\n", (long long)s->start_ns, (long long)s->end_ns, (int)s->kind,
                  s->stream, s->correlation);
    }
}

void stream_format_device(strbuf *b, const device_info *d)
{
    sb_printf(b, "device\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%llu\t%llu\t%llu\t%llu\t%d\t%llu\t%d\t",
              d->index, d->cc_major, d->cc_minor, d->sm_count, d->clock_khz, d->mem_clock_khz, d->bus_width_bits,
              d->l2_bytes, d->max_threads_per_block, d->max_threads_per_sm, d->max_blocks_per_sm, d->regs_per_sm,
              d->regs_per_block, (unsigned long long)d->smem_per_sm, (unsigned long long)d->smem_per_block,
              (unsigned long long)d->smem_per_block_optin, (unsigned long long)d->reserved_smem_per_block,
              d->warp_size, (unsigned long long)d->total_mem, d->driver_version);
    stream_escape(b, d->pci_bus_id);
    sb_add(b, "\t");
    stream_escape(b, d->name);
    sb_add(b, "\n");
}

void stream_format_capture(strbuf *b, int64_t ts, bool begin, int window, const char *reason, uint64_t calls,
                           const char *detail)
{
    sb_printf(b, "capture\t%lld\t%s\t%d\t", (long long)ts, begin ? "begin" : "end", window);
    stream_escape(b, reason);
    sb_printf(b, "\t%llu\t", (unsigned long long)calls);
    stream_escape(b, detail);
    sb_add(b, "\n");
}

void stream_format_frame(strbuf *b, uint64_t id, uint64_t parent, const host_frame *f)
{
    /* Python gives -1 for an instruction of no line (PyCode_Addr2Line; a location entry of code
     * 15): the stream's unknown line is 0. */
    sb_printf(b, "frame\t%llu\t%llu\t%s\t%d\t%llu\t", (unsigned long long)id, (unsigned long long)parent,
              host_frame_kind_name(f->kind), f->line < 0 ? 0 : f->line, (unsigned long long)f->offset);
    stream_escape(b, f->function);
    sb_add(b, "\t");
    stream_escape(b, f->file);
    sb_add(b, "\t");
    stream_escape(b, f->module);
    sb_add(b, "\n");
}

/* Decimal digits of v ending at end; returns where they start. */
static char *digits(char *end, uint64_t v)
{
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

/* Written on every launch (the injection library's call sites): two numbers by hand, not through
 * printf's format parser. */
void stream_format_site(strbuf *b, uint32_t correlation, uint64_t node)
{
    char line[48], *end = line + sizeof line;
    char *p = digits(end - 1, node);
    end[-1] = '\n';
    *--p = '\t';
    p = digits(p, correlation);
    p -= 5;
    memcpy(p, "site\t", 5);
    sb_addn(b, p, (size_t)(end - p));
}

void stream_format_sample(strbuf *b, int64_t ts, uint32_t tid, uint64_t node, host_sample_source source, char state)
{
    sb_printf(b, "sample\t%lld\t%u\t%llu\t%s\t%c\n", (long long)ts, tid, (unsigned long long)node,
              host_sample_source_name(source), state ? state : '-');
}

void stream_format_hspan(strbuf *b, int64_t start, int64_t end, uint32_t tid, uint64_t node, const char *name)
{
    sb_printf(b, "hspan\t%lld\t%lld\t%u\t%llu\t", (long long)start, (long long)end, tid, (unsigned long long)node);
    stream_escape(b, name);
    sb_add(b, "\n");
}

void stream_format_sampler(strbuf *b, double hz, const char *mechanism, const char *detail)
{
    sb_printf(b, "sampler\t%g\t", hz);
    stream_escape(b, mechanism);
    sb_add(b, "\t");
    stream_escape(b, detail);
    sb_add(b, "\n");
}

void stream_format_host_stats(strbuf *b, const host_collect_stats *st)
{
    if (st->has_sites)
        sb_printf(b, "sitestat\t%llu\t%llu\t%llu\n", (unsigned long long)st->sites_taken,
                  (unsigned long long)st->sites_skipped, (unsigned long long)st->sites_off_ns);
    if (st->has_looks)
        sb_printf(b, "samplestat\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)st->looks_nogil,
                  (unsigned long long)st->looks_gil, (unsigned long long)st->samples_left_out,
                  (unsigned long long)st->samples_torn);
}

void stream_format_memory(strbuf *b, const memory_activity *m)
{
    for (size_t i = 0; i < m->nevents; i++) {
        const mem_event *e = &m->events[i];
        sb_printf(b, "mem\t%lld\t%s\t%d\t%u\t%u\t%u\t%llu\t%llu\t%llu\t%lld\t", (long long)e->ts_ns,
                  mem_op_name((mem_op)e->op), (int)e->kind, e->device, e->stream, e->correlation,
                  (unsigned long long)e->address, (unsigned long long)e->bytes, (unsigned long long)e->pool,
                  (long long)e->pool_size);
        stream_escape(b, memory_name_of(m, e->allocator));
        sb_add(b, "\n");
    }
    for (int i = 0; i < m->npools; i++) {
        const mem_pool_event *p = &m->pools[i];
        sb_printf(b, "mempool\t%lld\t%s\t%u\t%u\t%llu\t%llu\t%llu\t%llu\t%d\n", (long long)p->ts_ns,
                  mem_pool_op_name((mem_pool_op)p->op), p->device, p->correlation, (unsigned long long)p->address,
                  (unsigned long long)p->size, (unsigned long long)p->utilized,
                  (unsigned long long)p->release_threshold, p->managed ? 1 : 0);
    }
}

void stream_format_memfail(strbuf *b, const mem_failure *f, const char *api, const char *errname)
{
    sb_printf(b, "memfail\t%lld\t%u\t%u\t%u\t%d\t%llu\t%d\t%llu\t%llu\t%llu\t", (long long)f->ts_ns, f->tid,
              f->device, f->correlation, (int)f->kind, (unsigned long long)f->bytes, f->error,
              (unsigned long long)f->live_count, (unsigned long long)f->live_bytes, (unsigned long long)f->untracked);
    stream_escape(b, api);
    sb_add(b, "\t");
    stream_escape(b, errname);
    sb_add(b, "\n");
}

void stream_format_memlive(strbuf *b, uint32_t correlation, uint64_t node, uint32_t device, int kind, uint64_t count,
                           uint64_t bytes)
{
    sb_printf(b, "memlive\t%u\t%llu\t%u\t%d\t%llu\t%llu\n", correlation, (unsigned long long)node, device, kind,
              (unsigned long long)count, (unsigned long long)bytes);
}

void stream_format_memnvml(strbuf *b, int64_t ts, uint32_t device, uint64_t used, uint64_t total)
{
    sb_printf(b, "memnvml\t%lld\t%u\t%llu\t%llu\n", (long long)ts, device, (unsigned long long)used,
              (unsigned long long)total);
}
