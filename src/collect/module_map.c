/* See module_map.h. */
#include "module_map.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
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

/* The vDSO's functions (clock_gettime, gettimeofday): the kernel's shared object is no file the
 * symbolizer could read after the run, so its dynamic symbols are read here, from the image the
 * kernel maps (its section headers included), once. */
typedef struct {
    uintptr_t lo, hi;
    const char *name; /* in the mapped image, which lives as long as the process */
} vdso_sym;

static vdso_sym vsyms[64];
static int nvsyms = -1;

static void read_vdso(void)
{
    nvsyms = 0;
    const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    if (!base || memcmp(base, ELFMAG, SELFMAG) != 0 || base[EI_CLASS] != ELFCLASS64)
        return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    uintptr_t bias = 0;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            bias = (uintptr_t)base - (uintptr_t)ph[i].p_vaddr;
            break;
        }
    if (!eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr))
        return;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
        const char *str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
        size_t n = sh[i].sh_size / sizeof *sym;
        for (size_t k = 0; k < n && nvsyms < (int)(sizeof vsyms / sizeof vsyms[0]); k++)
            if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_value && sym[k].st_size)
                vsyms[nvsyms++] = (vdso_sym){bias + sym[k].st_value, bias + sym[k].st_value + sym[k].st_size,
                                             str + sym[k].st_name};
    }
}

const char *module_map_vdso_symbol(uintptr_t addr)
{
    if (nvsyms < 0)
        read_vdso();
    for (int i = 0; i < nvsyms; i++)
        if (addr >= vsyms[i].lo && addr < vsyms[i].hi)
            return vsyms[i].name;
    return NULL;
}
