/* See module_map.h. */
#include "module_map.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    uintptr_t lo, hi, bias;
    int name; /* index into names */
} range;

static range *ranges;
static size_t nranges, cap;
static char **names;
static size_t nnames, names_cap;
/* The loader's counts of loads and unloads when the table was read: a miss rereads the table only
 * when they moved (otherwise the address is in no module, and stays so). */
static unsigned long long seen_adds, seen_subs;
static bool read_once;

static const char *exe_path(void)
{
    static char path[PATH_MAX];
    static bool done;
    if (!done) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        path[n > 0 ? n : 0] = '\0';
        done = true;
    }
    return path;
}

static int counts_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    unsigned long long *c = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c[0] = info->dlpi_adds;
        c[1] = info->dlpi_subs;
    }
    return 1; /* the counts are the same on every module: the first is enough */
}

static int add_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    bool *oom = data;
    /* the main program is the one with no name; the vDSO keeps its own */
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe_path();
    if (nnames == names_cap) {
        size_t n = names_cap ? 2 * names_cap : 64;
        char **g = realloc(names, n * sizeof *g);
        if (!g)
            return *oom = true, 1;
        names = g, names_cap = n;
    }
    char *copy = strdup(path);
    if (!copy)
        return *oom = true, 1;
    names[nnames] = copy;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
            continue;
        if (nranges == cap) {
            size_t n = cap ? 2 * cap : 256;
            range *g = realloc(ranges, n * sizeof *g);
            if (!g)
                return *oom = true, 1;
            ranges = g, cap = n;
        }
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        ranges[nranges++] = (range){lo, lo + ph->p_memsz, info->dlpi_addr, (int)nnames};
    }
    nnames++;
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    uintptr_t x = ((const range *)a)->lo, y = ((const range *)b)->lo;
    return x < y ? -1 : x > y;
}

static void reread(void)
{
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    nnames = nranges = 0;
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(counts_cb, c);
    bool oom = false;
    dl_iterate_phdr(add_cb, &oom);
    qsort(ranges, nranges, sizeof *ranges, by_lo);
    seen_adds = c[0], seen_subs = c[1];
    read_once = true;
}

static const range *lookup(uintptr_t addr)
{
    size_t lo = 0, hi = nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr < ranges[lo - 1].hi ? &ranges[lo - 1] : NULL;
}

bool module_map_find(uintptr_t addr, const char **path, uintptr_t *bias)
{
    const range *r = read_once ? lookup(addr) : NULL;
    if (!r) {
        unsigned long long c[2] = {0, 0};
        if (read_once)
            dl_iterate_phdr(counts_cb, c);
        if (!read_once || c[0] != seen_adds || c[1] != seen_subs) {
            reread();
            r = lookup(addr);
        }
    }
    if (!r)
        return false;
    *path = names[r->name];
    *bias = r->bias;
    return true;
}

/* ---- a frame's dynamic symbol ---- */

/* The dynamic symbol covering an address, as dladdr finds it (the nearest defined symbol at or
 * below it whose size covers it, or a sized-zero one), read from the module's own dynamic section
 * in memory inside dl_iterate_phdr's callback: the loader's write lock, held there, keeps the
 * module from being unloaded while it is read, and a dlopen under way does not hold it. A linear
 * walk, as dladdr's: once per new frame. */
typedef struct {
    uintptr_t addr;
    char name[256];
    bool found;
} sym_query;

/* A dynamic entry's address: glibc relocates most in place (l_addr added); the vDSO's and those of
 * a read-only dynamic section are left as linked. */
static uintptr_t dyn_addr(uintptr_t v, uintptr_t bias, uintptr_t lo) { return v < lo ? v + bias : v; }

/* The number of symbols a GNU hash table covers: past the last bucket's chain. */
static size_t gnu_hash_count(const uint32_t *h)
{
    uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
    const uint32_t *buckets = h + 4 + bloom * (sizeof(ElfW(Addr)) / 4), *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nbuckets; b++)
        if (buckets[b] > last)
            last = buckets[b];
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1))
        last++;
    return (size_t)last + 1;
}

static int symbol_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    sym_query *q = data;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t lo = UINTPTR_MAX;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        holds |= q->addr >= a && q->addr < a + ph->p_memsz;
    }
    if (!holds)
        return 0;
    if (!dyn)
        return 1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    size_t nsyms = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        uintptr_t v = dyn_addr((uintptr_t)d->d_un.d_ptr, info->dlpi_addr, lo);
        if (d->d_tag == DT_SYMTAB)
            symtab = (const ElfW(Sym) *)v;
        else if (d->d_tag == DT_STRTAB)
            strtab = (const char *)v;
        else if (d->d_tag == DT_HASH && !nsyms)
            nsyms = ((const uint32_t *)v)[1]; /* nchain: one per symbol */
        else if (d->d_tag == DT_GNU_HASH)
            nsyms = gnu_hash_count((const uint32_t *)v);
    }
    if (!symtab || !strtab)
        return 1;
    const ElfW(Sym) *best = NULL;
    uintptr_t best_at = 0;
    for (size_t k = 0; k < nsyms; k++) {
        const ElfW(Sym) *sym = &symtab[k];
        if (sym->st_shndx == SHN_UNDEF || sym->st_value == 0 || ELF64_ST_TYPE(sym->st_info) == STT_TLS)
            continue;
        uintptr_t at = info->dlpi_addr + sym->st_value;
        if (at > q->addr || (sym->st_size && q->addr >= at + sym->st_size))
            continue;
        if (!best || at > best_at || (at == best_at && sym->st_size && !best->st_size)) {
            best = sym;
            best_at = at;
        }
    }
    if (best) {
        snprintf(q->name, sizeof q->name, "%s", strtab + best->st_name);
        q->found = true;
    }
    return 1;
}

const char *module_map_symbol(uintptr_t addr)
{
    static sym_query q;
    q.addr = addr;
    q.found = false;
    dl_iterate_phdr(symbol_cb, &q);
    return q.found ? q.name : NULL;
}
