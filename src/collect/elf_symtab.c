/* See elf_symtab.h. By hand over <elf.h>'s structures: headers and a symbol table are arrays of
 * fixed records, and libelf (elfutils) is not on every machine mmprof runs on. Read with pread,
 * a piece at a time: the tables are not part of what the program loaded, so they come from disk. */
#include "elf_symtab.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYMBOLS_AT_ONCE 8192 /* symbols read per pread (192 KiB) */
#define NAME_MAX_BYTES 65536 /* a longer stored name is left unread */

static bool read_at(int fd, void *buf, size_t n, uint64_t at)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(at + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

/* A section's bytes, malloc'd with a NUL after them; NULL when they cannot be read. */
static char *read_section(int fd, const Elf64_Shdr *s, uint64_t file_len)
{
    if (s->sh_offset > file_len || s->sh_size > file_len - s->sh_offset)
        return NULL;
    char *b = malloc(s->sh_size + 1);
    if (b && !read_at(fd, b, s->sh_size, s->sh_offset)) {
        free(b);
        return NULL;
    }
    if (b)
        b[s->sh_size] = '\0';
    return b;
}

/* The GNU build id of a note section into m->build_id (build_id_len stays 0 without one). */
static void read_build_id(int fd, const Elf64_Shdr *note, uint64_t file_len, elf_module *m)
{
    if (note->sh_size > 4096)
        return;
    unsigned char *p = (unsigned char *)read_section(fd, note, file_len), *at = p;
    const unsigned char *end = p ? p + note->sh_size : NULL;
    while (p && at + sizeof(Elf64_Nhdr) <= end) {
        const Elf64_Nhdr *nh = (const Elf64_Nhdr *)at;
        const unsigned char *name = at + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
        unsigned char *next = (unsigned char *)desc + ((nh->n_descsz + 3) & ~3u);
        if (next > end || next <= at)
            break;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 && nh->n_descsz >= 2 &&
            nh->n_descsz <= sizeof m->build_id) {
            memcpy(m->build_id, desc, nh->n_descsz);
            m->build_id_len = (int)nh->n_descsz;
            break;
        }
        at = next;
    }
    free(p);
}

/* The file name a .gnu_debuglink section holds (before its CRC), malloc'd; NULL without one. */
static char *read_debuglink(int fd, const Elf64_Shdr *s, uint64_t file_len)
{
    char *b = s->sh_size <= PATH_MAX ? read_section(fd, s, file_len) : NULL;
    if (b && !b[0]) {
        free(b);
        return NULL;
    }
    return b;
}

/* Whether candidate is a debug file for m (its file stat'ed as self): an ELF file other than the
 * module itself (a debug link naming the module's own file name is met in its own directory),
 * whose build id, where it has one, is the module's. The CRC a debug link also holds is not
 * checked: that would read the whole file (hundreds of megabytes), and a build id says more. */
static bool debug_file_fits(const char *candidate, const struct stat *self, const elf_module *m)
{
    struct stat st;
    if (stat(candidate, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_dev == self->st_dev && st.st_ino == self->st_ino))
        return false;
    elf_module d;
    char why[200];
    bool ok = elf_module_read(candidate, NULL, &d, why, sizeof why) && d.symbols &&
              (d.build_id_len == 0 || m->build_id_len == 0 ||
               (d.build_id_len == m->build_id_len && memcmp(d.build_id, m->build_id, (size_t)d.build_id_len) == 0));
    elf_module_free(&d);
    return ok;
}

/* root/.build-id/NN/REST.debug for m's build id, malloc'd. */
static char *build_id_path(const char *root, const elf_module *m)
{
    char hex[2 * sizeof m->build_id + 2], *at = hex;
    for (int i = 0; i < m->build_id_len; i++) {
        at += sprintf(at, "%02x", m->build_id[i]);
        if (i == 0)
            *at++ = '/';
    }
    char *path;
    return asprintf(&path, "%s/.build-id/%s.debug", root, hex) < 0 ? NULL : path;
}

/* The places gdb and addr2line look for a debug link's file: the debug root's copy of the
 * module's directory, its directory's .debug/, its directory. */
static char *debuglink_path(const char *root, const char *dir, int dirlen, const char *link, int place)
{
    char *path;
    int n = place == 0   ? asprintf(&path, "%s%.*s/%s", root, dirlen, dir, link)
            : place == 1 ? asprintf(&path, "%.*s/.debug/%s", dirlen, dir, link)
                         : asprintf(&path, "%.*s/%s", dirlen, dir, link);
    return n < 0 ? NULL : path;
}

/* The module's separate debug file (elf_module.debug), malloc'd: by build id under root, else by
 * its debug link (link; NULL: none) in the usual places; NULL where none fits. */
static char *find_debug_file(const char *path, int fd, const char *root, const char *link, const elf_module *m)
{
    struct stat self;
    if (fstat(fd, &self) != 0)
        return NULL;
    char *c = m->build_id_len > 0 ? build_id_path(root, m) : NULL;
    if (c && debug_file_fits(c, &self, m))
        return c;
    free(c);
    /* The directory as the system names it (dladdr may give a path through a symbolic link,
     * /lib for /usr/lib): the debug root holds copies of the real ones. */
    char real[PATH_MAX];
    const char *dir = link && realpath(path, real) ? real : path;
    const char *slash = strrchr(dir, '/');
    int dirlen = slash ? (int)(slash - dir) : 1;
    if (!slash)
        dir = ".";
    for (int place = 0; link && place < 3; place++) {
        if (place == 0 && dir[0] != '/')
            continue; /* a relative directory has no copy under the root */
        c = debuglink_path(root, dir, dirlen, link, place);
        if (c && debug_file_fits(c, &self, m))
            return c;
        free(c);
    }
    return NULL;
}

/* One frame address, and the best function symbol of the table being read that covers it. */
typedef struct {
    uint64_t addr; /* an address of the file being read */
    int index;     /* in the caller's order */
    bool named;    /* by an earlier table: not offered again */
    bool any;
    uint64_t start, size;
    uint32_t name; /* offset in the string table */
} query;

static int by_query_addr(const void *a, const void *b)
{
    const query *x = a, *y = b;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* addr2line's preference between two symbols that could name an address: the later start, then
 * the larger size; the one met first (earlier in the table) otherwise. */
static bool better(const query *q, uint64_t start, uint64_t size)
{
    return !q->any || start > q->start || (start == q->start && size > q->size);
}

/* One past the last address a symbol covers. Its size bounds it: a stripped module keeps only its
 * exported functions (.dynsym), and the nearest of those before an address inside a static
 * function is some other function ("PyInit__stat" for much of python3.12). A symbol of size 0
 * covers its own address alone: such symbols are labels of assembly without a .size (crti's
 * _init), whose reach is unknown, and glibc's dladdr, which named the frame in the program
 * (inject_host.c), takes them so too; an address past it is left unnamed rather than guessed. */
static uint64_t cover_end(uint64_t start, uint64_t size)
{
    if (size == 0)
        return start + 1;
    return size > UINT64_MAX - start ? UINT64_MAX : start + size;
}

/* The first of q[0..n) (sorted by address) at or after addr. */
static int first_at(const query *q, int n, uint64_t addr)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (q[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The function symbols of a symbol table, each offered to the addresses it covers that no
 * earlier table named; true for a file without this table. */
static bool scan_symbols(int fd, const elf_symbols *t, uint64_t file_len, query *q, int n)
{
    if (t->size == 0)
        return true;
    if (t->entsize != sizeof(Elf64_Sym) || t->offset > file_len || t->size > file_len - t->offset)
        return false;
    /* Read ahead, the whole table: it is read once, in order, from disk. */
    posix_fadvise(fd, (off_t)t->offset, (off_t)t->size, POSIX_FADV_SEQUENTIAL);
    posix_fadvise(fd, (off_t)t->offset, (off_t)t->size, POSIX_FADV_WILLNEED);
    Elf64_Sym *sym = malloc(SYMBOLS_AT_ONCE * sizeof *sym);
    if (!sym)
        return false;
    size_t total = t->size / sizeof *sym;
    bool ok = true;
    for (size_t first = 0; ok && first < total; first += SYMBOLS_AT_ONCE) {
        size_t count = total - first < SYMBOLS_AT_ONCE ? total - first : SYMBOLS_AT_ONCE;
        ok = read_at(fd, sym, count * sizeof *sym, t->offset + first * sizeof *sym);
        for (size_t i = 0; ok && i < count; i++) {
            int type = ELF64_ST_TYPE(sym[i].st_info);
            uint64_t start = sym[i].st_value, size = sym[i].st_size, end = cover_end(start, size);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[i].st_shndx == SHN_UNDEF ||
                sym[i].st_shndx >= SHN_LORESERVE || start == 0 || sym[i].st_name == 0)
                continue;
            for (int k = first_at(q, n, start); k < n && q[k].addr < end; k++)
                if (!q[k].named && better(&q[k], start, size))
                    q[k] = (query){q[k].addr, q[k].index, false, true, start, size, sym[i].st_name};
        }
    }
    free(sym);
    return ok;
}

/* The NUL-terminated string at offset in a table's strings, malloc'd; NULL where it cannot be read. */
static char *read_name(int fd, const elf_symbols *t, uint32_t offset)
{
    if (offset >= t->str_size)
        return NULL;
    size_t room = t->str_size - offset, cap = 256;
    for (;;) {
        size_t want = cap < room ? cap : room;
        char *b = malloc(want + 1);
        if (!b || !read_at(fd, b, want, t->str_offset + offset)) {
            free(b);
            return NULL;
        }
        b[want] = '\0';
        if (strlen(b) < want || want == room)
            return b[0] ? b : (free(b), NULL);
        free(b);
        if (cap >= NAME_MAX_BYTES)
            return NULL;
        cap *= 4;
    }
}

/* The names of the addresses table t covered; those are then named, the rest offered to the
 * next table. */
static void take_names(int fd, const elf_symbols *t, query *q, int n, char **names)
{
    for (int i = 0; i < n; i++) {
        if (q[i].any && !q[i].named) {
            names[q[i].index] = read_name(fd, t, q[i].name);
            q[i].named = names[q[i].index] != NULL;
        }
        q[i].any = false;
    }
}

static bool all_named(const query *q, int n)
{
    for (int i = 0; i < n; i++)
        if (!q[i].named)
            return false;
    return true;
}

/* Names what is not named yet of q from the tables of file (f: its headers): .symtab first, then
 * .dynsym, which a module may have both of: a static function is in .symtab alone, and where both
 * name an address .symtab's name is the one addr2line gives. False where a table could not be read. */
static bool names_from_file(const char *file, const elf_module *f, query *q, int n, char **names)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    off_t end = lseek(fd, 0, SEEK_END);
    uint64_t file_len = end > 0 ? (uint64_t)end : 0;
    const elf_symbols *table[2] = {&f->symtab, &f->dynsym};
    bool ok = true;
    for (int t = 0; ok && t < 2 && !all_named(q, n); t++) {
        ok = scan_symbols(fd, table[t], file_len, q, n);
        if (ok)
            take_names(fd, table[t], q, n, names);
    }
    close(fd);
    return ok;
}

/* Names what the module's own tables did not from its debug file (m->debug), passed over where it
 * cannot be read. Its addresses are the module's as its own bias sets them: an address less the
 * module's bias is one of the debug file less the debug file's (the same where the debug file
 * was split off the module, as it is). */
static void names_from_debug(const elf_module *m, query *q, int n, char **names)
{
    elf_module d;
    char why[200];
    if (elf_module_read(m->debug, NULL, &d, why, sizeof why) && d.symbols) {
        for (int i = 0; i < n; i++)
            q[i].addr = q[i].addr - m->bias + d.bias;
        names_from_file(m->debug, &d, q, n, names);
    }
    elf_module_free(&d);
}

/* The lowest PT_LOAD's page-aligned p_vaddr (elf_module.bias); false where there is none. */
static bool load_bias(int fd, const Elf64_Ehdr *eh, uint64_t *bias)
{
    if (eh->e_phentsize != sizeof(Elf64_Phdr))
        return false;
    uint64_t lowest = UINT64_MAX;
    for (int i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        if (!read_at(fd, &ph, sizeof ph, eh->e_phoff + (uint64_t)i * sizeof ph))
            return false;
        if (ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
            lowest = ph.p_vaddr;
    }
    long page = sysconf(_SC_PAGESIZE);
    *bias = lowest & ~(uint64_t)(page > 0 ? page - 1 : 4095);
    return lowest != UINT64_MAX;
}

/* A symbol table section's place and that of its strings; none where its link is no string
 * table, as in no file the linkers write. */
static elf_symbols table_of(const Elf64_Shdr *sh, int nsh, const Elf64_Shdr *tab)
{
    if (!tab || tab->sh_link >= (uint32_t)nsh || sh[tab->sh_link].sh_type != SHT_STRTAB)
        return (elf_symbols){0};
    const Elf64_Shdr *str = &sh[tab->sh_link];
    return (elf_symbols){tab->sh_offset, tab->sh_size, tab->sh_entsize, str->sh_offset, str->sh_size};
}

/* The symbol tables, their strings, the build id and whether there are line tables, from the
 * section headers; *link gets the debug link's file name (malloc'd; NULL: none). */
static void read_sections(int fd, const Elf64_Ehdr *eh, uint64_t file_len, elf_module *m, char **link)
{
    Elf64_Shdr *sh = NULL;
    char *secnames = NULL;
    bool ok = eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shnum > 0 &&
              eh->e_shstrndx < eh->e_shnum && (sh = malloc(eh->e_shnum * sizeof *sh)) &&
              read_at(fd, sh, eh->e_shnum * sizeof *sh, eh->e_shoff) &&
              (secnames = read_section(fd, &sh[eh->e_shstrndx], file_len));
    const Elf64_Shdr *symtab = NULL, *dynsym = NULL;
    for (int i = 0; ok && i < eh->e_shnum; i++) {
        const Elf64_Shdr *s = &sh[i];
        const char *name = s->sh_name < sh[eh->e_shstrndx].sh_size ? secnames + s->sh_name : "";
        if (s->sh_type == SHT_SYMTAB)
            symtab = s;
        else if (s->sh_type == SHT_DYNSYM)
            dynsym = s;
        else if (strcmp(name, ".debug_line") == 0 || strcmp(name, ".zdebug_line") == 0)
            m->has_lines = true;
        else if (s->sh_type == SHT_NOTE && strcmp(name, ".note.gnu.build-id") == 0)
            read_build_id(fd, s, file_len, m);
        else if (strcmp(name, ".gnu_debuglink") == 0 && !*link)
            *link = read_debuglink(fd, s, file_len);
    }
    m->symbols = ok;
    if (ok) {
        m->symtab = table_of(sh, eh->e_shnum, symtab);
        m->dynsym = table_of(sh, eh->e_shnum, dynsym);
    }
    free(secnames);
    free(sh);
}

bool elf_module_read(const char *path, const char *debug_root, elf_module *m, char *why, size_t len)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return false;
    }
    off_t end = lseek(fd, 0, SEEK_END);
    Elf64_Ehdr eh;
    char *link = NULL;
    bool ok = read_at(fd, &eh, sizeof eh, 0) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
              eh.e_ident[EI_CLASS] == ELFCLASS64 && load_bias(fd, &eh, &m->bias);
    if (ok)
        read_sections(fd, &eh, end > 0 ? (uint64_t)end : 0, m, &link);
    else
        snprintf(why, len, "%s: not a 64-bit ELF file with loaded segments", path);
    if (ok && debug_root && m->symbols && (m->debug = find_debug_file(path, fd, debug_root, link, m)))
        m->has_lines = true; /* addr2line finds it too, in the same places */
    free(link);
    close(fd);
    return ok;
}

void elf_module_free(elf_module *m)
{
    free(m->debug);
    m->debug = NULL;
}

bool elf_symtab_names(const char *path, const elf_module *m, const uint64_t *addr, int n, char **names, char *why,
                      size_t len)
{
    for (int i = 0; i < n; i++)
        names[i] = NULL;
    if (!m->symbols || n == 0 || (m->symtab.size == 0 && m->dynsym.size == 0 && !m->debug))
        return m->symbols;
    query *q = malloc((size_t)n * sizeof *q);
    bool ok = q != NULL;
    for (int i = 0; ok && i < n; i++)
        q[i] = (query){.addr = addr[i], .index = i};
    if (ok) {
        qsort(q, (size_t)n, sizeof *q, by_query_addr);
        ok = names_from_file(path, m, q, n, names);
    }
    if (ok && m->debug && !all_named(q, n))
        names_from_debug(m, q, n, names);
    if (!ok) {
        for (int i = 0; i < n; i++) {
            free(names[i]);
            names[i] = NULL;
        }
        snprintf(why, len, "%s: its symbol tables could not be read", path);
    }
    free(q);
    return ok;
}
