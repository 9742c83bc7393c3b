/* See elf_symtab.h. By hand over <elf.h>'s structures: a symbol table is an array of fixed
 * records, and libelf (elfutils) is not on every machine mmprof runs on. */
#include "elf_symtab.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A section header of the mapped file, or NULL past its end. */
static const Elf64_Shdr *section(const elf_symtab *t, const Elf64_Ehdr *eh, size_t i)
{
    uint64_t at = eh->e_shoff + i * (uint64_t)eh->e_shentsize;
    return i < eh->e_shnum && at + sizeof(Elf64_Shdr) <= t->len ? (const Elf64_Shdr *)((const char *)t->map + at)
                                                                 : NULL;
}

/* Whether the section's bytes lie inside the file. */
static bool inside(const elf_symtab *t, const Elf64_Shdr *s)
{
    return s->sh_type == SHT_NOBITS || (s->sh_offset <= t->len && s->sh_size <= t->len - s->sh_offset);
}

/* A debug file that addr2line would find by the build id: /usr/lib/debug/.build-id/NN/REST.debug. */
static bool build_id_debug_file(const elf_symtab *t, const Elf64_Shdr *note)
{
    const unsigned char *p = (const unsigned char *)t->map + note->sh_offset, *end = p + note->sh_size;
    while (p + sizeof(Elf64_Nhdr) <= end) {
        const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
        const unsigned char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
        const unsigned char *next = desc + ((nh->n_descsz + 3) & ~3u);
        if (next > end || next < p)
            return false;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 && nh->n_descsz >= 2 &&
            nh->n_descsz <= 64) {
            char path[256] = "/usr/lib/debug/.build-id/";
            size_t at = strlen(path);
            for (uint32_t i = 0; i < nh->n_descsz; i++) {
                at += (size_t)snprintf(path + at, sizeof path - at, "%02x", desc[i]);
                if (i == 0)
                    path[at++] = '/';
            }
            snprintf(path + at, sizeof path - at, ".debug");
            return access(path, R_OK) == 0;
        }
        p = next;
    }
    return false;
}

static int by_addr(const void *a, const void *b)
{
    const elf_function *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order); /* aliases at one address: table order */
}

/* The function symbols of one symbol table section into t->fn. */
static bool read_symbols(elf_symtab *t, const Elf64_Ehdr *eh, const Elf64_Shdr *symtab)
{
    const Elf64_Shdr *str = section(t, eh, symtab->sh_link);
    if (!str || !inside(t, str) || str->sh_type != SHT_STRTAB || symtab->sh_entsize != sizeof(Elf64_Sym))
        return false;
    const Elf64_Sym *sym = (const Elf64_Sym *)((const char *)t->map + symtab->sh_offset);
    const char *names = (const char *)t->map + str->sh_offset;
    size_t n = symtab->sh_size / sizeof *sym;
    t->fn = malloc((n ? n : 1) * sizeof *t->fn);
    if (!t->fn)
        return false;
    for (size_t i = 0; i < n; i++) {
        int type = ELF64_ST_TYPE(sym[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[i].st_shndx == SHN_UNDEF ||
            sym[i].st_shndx >= SHN_LORESERVE || sym[i].st_value == 0 || sym[i].st_name >= str->sh_size)
            continue;
        const char *name = names + sym[i].st_name;
        if (!memchr(name, '\0', str->sh_size - sym[i].st_name) || !name[0])
            continue;
        t->fn[t->n++] = (elf_function){sym[i].st_value, sym[i].st_size, name, i};
    }
    qsort(t->fn, t->n, sizeof *t->fn, by_addr);
    return true;
}

bool elf_symtab_open(const char *path, elf_symtab *t, char *why, size_t len)
{
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    t->len = (size_t)st.st_size;
    t->map = t->len >= sizeof(Elf64_Ehdr) ? mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (t->map == MAP_FAILED) {
        t->map = NULL;
        snprintf(why, len, "%s: %s", path, t->len < sizeof(Elf64_Ehdr) ? "too short for an ELF file" : strerror(errno));
        return false;
    }
    const Elf64_Ehdr *eh = t->map;
    const Elf64_Shdr *names = NULL;
    bool ok = memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
              eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_shentsize == sizeof(Elf64_Shdr) &&
              (names = section(t, eh, eh->e_shstrndx)) && inside(t, names);
    const Elf64_Shdr *symtab = NULL, *dynsym = NULL;
    for (size_t i = 0; ok && i < eh->e_shnum; i++) {
        const Elf64_Shdr *s = section(t, eh, i);
        if (!s || !inside(t, s) || s->sh_name >= names->sh_size) {
            ok = false;
            break;
        }
        const char *name = (const char *)t->map + names->sh_offset + s->sh_name;
        size_t room = names->sh_size - s->sh_name;
        if (s->sh_type == SHT_SYMTAB)
            symtab = s;
        else if (s->sh_type == SHT_DYNSYM)
            dynsym = s;
        else if (strncmp(name, ".debug_line", room) == 0 || strncmp(name, ".zdebug_line", room) == 0 ||
                 strncmp(name, ".gnu_debuglink", room) == 0 ||
                 (s->sh_type == SHT_NOTE && strncmp(name, ".note.gnu.build-id", room) == 0 && build_id_debug_file(t, s)))
            t->has_lines = true;
    }
    if (!ok || ((symtab || dynsym) && !read_symbols(t, eh, symtab ? symtab : dynsym))) {
        snprintf(why, len, "%s: not a 64-bit little-endian ELF file whose sections could be read", path);
        elf_symtab_close(t);
        return false;
    }
    return true;
}

const char *elf_symtab_find(const elf_symtab *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n; /* the first function starting after addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->fn[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    /* addr2line's choice (binutils' elf_find_function): a function's size does not bound it, so
     * an address past the end of the nearest (padding, a split-off cold part) is still its. */
    uint64_t start = t->fn[lo - 1].addr;
    const elf_function *best = &t->fn[lo - 1];
    for (size_t i = lo - 1; i-- > 0 && t->fn[i].addr == start;)
        if (t->fn[i].size >= best->size)
            best = &t->fn[i]; /* walking back: an equal size here is earlier in the table */
    return best->name;
}

void elf_symtab_close(elf_symtab *t)
{
    if (t->map)
        munmap(t->map, t->len);
    free(t->fn);
    memset(t, 0, sizeof *t);
}
