/* See symbolize.h.
 *
 * Why binutils' addr2line as a subprocess, one per module, offsets on its standard input: the
 * machines mmprof runs on have gcc, so they have binutils, and addr2line reads every DWARF
 * version and compression gcc and clang emit, demangles C++ (-C), and falls back to the symbol
 * table where there is no debug information. elfutils' libdw does the same in-process but is not
 * installed everywhere mmprof runs (a dlopen'ed optional library with a second code path), and a
 * DWARF line-table reader of our own would be a large parser of a format others keep up to date.
 * Without addr2line the frames keep the module, offset and exported symbol dladdr gave, and
 * symbols_why says so; the run never fails for it.
 *
 * The offsets go through a temporary file rather than a pipe, so addr2line's output can never
 * fill while we are still writing its input (no deadlock, no poll loop).
 *
 * A module without line tables (no .debug_line, and no separate debug file it names) is named
 * in process from its symbol table instead (elf_symtab.h says why: addr2line walks the whole
 * table for each address there), demangled by libstdc++'s __cxa_demangle as addr2line -C does;
 * that runs while the other modules' addr2line processes do. */
#include "symbolize.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf_symtab.h"
#include "model.h"
#include "stage_times.h"

extern char **environ;
/* libstdc++'s demangler (the C++ ABI's; mmprof links libstdc++ for cuBLAS and CUPTI anyway). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYMBOLIZE_AT_ONCE 8 /* addr2line processes running together */

/* What a module's offset (from dladdr's dli_fbase, the start of its first loaded segment) is as
 * an address of the ELF file, which addr2line takes: the first PT_LOAD's page-aligned p_vaddr
 * added (0 for a shared library or PIE executable; 0x400000 for a classic non-PIE executable).
 * False with why when the file cannot be read as a 64-bit ELF file. */
static bool load_bias(const char *path, uint64_t *bias, char *why, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return false;
    }
    Elf64_Ehdr eh;
    bool ok = fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
              eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr);
    uint64_t lowest = UINT64_MAX;
    for (int i = 0; ok && i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        ok = fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof ph), SEEK_SET) == 0 && fread(&ph, sizeof ph, 1, f) == 1;
        if (ok && ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
            lowest = ph.p_vaddr;
    }
    fclose(f);
    if (!ok || lowest == UINT64_MAX) {
        snprintf(why, len, "%s: not a 64-bit ELF file with loaded segments", path);
        return false;
    }
    long page = sysconf(_SC_PAGESIZE);
    *bias = lowest & ~(uint64_t)(page > 0 ? page - 1 : 4095);
    return true;
}

/* "file:line" or "file:line (discriminator N)"; "??:0" or "??:?" is unknown. */
static void parse_location(char *s, char **file, int *line)
{
    *file = NULL;
    *line = 0;
    char *space = strstr(s, " (discriminator");
    if (space)
        *space = '\0';
    char *colon = strrchr(s, ':');
    if (!colon || strncmp(s, "??", 2) == 0)
        return;
    *colon = '\0';
    *file = s;
    *line = atoi(colon + 1);
}

static void replace(char **dst, const char *src)
{
    char *c = strdup(src);
    if (!c)
        return; /* out of memory: the frame keeps what it had */
    free(*dst);
    *dst = c;
}

typedef struct {
    int modules, unreadable, no_lines;
    char first[120]; /* the first unreadable module's reason */
    bool no_tool;
} outcome;

/* One module's addr2line, running: its frames idx[0..n) of h, and its output's read end. */
typedef struct {
    const char *module;
    const int *idx;
    int n;
    pid_t pid;
    int fd;
} job;

/* Starts addr2line on module for frames idx[0..n) of h; false (with o said) when it could not. */
static bool start_module(const host_activity *h, const char *module, const int *idx, int n, outcome *o, job *j)
{
    uint64_t bias;
    char why[200];
    if (!load_bias(module, &bias, why, sizeof why)) {
        if (!o->unreadable++)
            copy_str(o->first, sizeof o->first, why);
        return false;
    }
    FILE *in = tmpfile();
    int out[2] = {-1, -1};
    if (!in || pipe2(out, O_CLOEXEC) != 0) { /* kept out of the addr2line processes started later */
        if (in)
            fclose(in);
        return false;
    }
    for (int i = 0; i < n; i++)
        fprintf(in, "%llx\n", (unsigned long long)(h->frames[idx[i]].offset + bias));
    fflush(in);
    rewind(in);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"addr2line", "-f", "-C", "-e", (char *)module, NULL};
    int rc = posix_spawnp(&j->pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    fclose(in); /* the child has its own descriptor of the file */
    if (rc != 0) {
        o->no_tool = true;
        close(out[0]);
        return false;
    }
    j->module = module;
    j->idx = idx;
    j->n = n;
    j->fd = out[0];
    return true;
}

/* Names frames idx[0..n) of h from the module's symbol table, where it has no line tables; false
 * where addr2line is the one to ask (line tables, or a file this reader could not take). */
static bool name_from_symtab(host_activity *h, const char *module, const int *idx, int n)
{
    uint64_t bias;
    char why[200];
    bool has_lines = true;
    uint64_t *addr = malloc((size_t)n * sizeof *addr);
    char **names = calloc((size_t)n, sizeof *names);
    bool ok = addr && names && load_bias(module, &bias, why, sizeof why);
    for (int i = 0; ok && i < n; i++)
        addr[i] = h->frames[idx[i]].offset + bias;
    ok = ok && elf_symtab_names(module, addr, n, names, &has_lines, why, sizeof why) && !has_lines;
    for (int i = 0; ok && i < n; i++) {
        if (!names[i])
            continue;
        int status = -1;
        char *plain = strncmp(names[i], "_Z", 2) == 0 ? __cxa_demangle(names[i], NULL, NULL, &status) : NULL;
        replace(&h->frames[idx[i]].function, status == 0 && plain ? plain : names[i]);
        free(plain);
    }
    for (int i = 0; names && addr && i < n; i++)
        free(names[i]);
    free(names);
    free(addr);
    return ok;
}

/* One module's frames, idx[0..n) of h's, and how they are named. */
typedef struct {
    const char *module;
    const int *idx;
    int n;
    bool in_process; /* no line tables: from its symbol table (name_from_symtab), else addr2line */
    bool named;      /* in_process and done */
} module_frames;

/* The in-process modules, shared among threads: each module's file is read from disk (the symbol
 * tables are no part of what the program loaded), so several are read at once, as several
 * addr2line processes read theirs. */
typedef struct {
    host_activity *h;
    module_frames *mods;
    int nmods;
    atomic_int next;
} symtab_pool;

static void *symtab_worker(void *p)
{
    symtab_pool *pool = p;
    for (int i; (i = atomic_fetch_add(&pool->next, 1)) < pool->nmods;) {
        module_frames *m = &pool->mods[i];
        if (!m->in_process)
            continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        m->named = name_from_symtab(pool->h, m->module, m->idx, m->n);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        stage_note("%s: %d frames from its symbol table, %.3f s", m->module, m->n,
                   (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    }
    return NULL;
}

/* Reads a started addr2line's answers into the frames and waits for it. */
static void finish_module(host_activity *h, job *j, outcome *o)
{
    FILE *r = fdopen(j->fd, "r");
    char *fn = NULL, *loc = NULL;
    size_t fncap = 0, loccap = 0;
    bool any_line = false;
    for (int i = 0; r && i < j->n; i++) {
        ssize_t a = getline(&fn, &fncap, r), b = a > 0 ? getline(&loc, &loccap, r) : -1;
        if (a <= 0 || b <= 0)
            break;
        fn[strcspn(fn, "\n")] = '\0';
        loc[strcspn(loc, "\n")] = '\0';
        host_frame *f = &h->frames[j->idx[i]];
        if (strcmp(fn, "??") != 0 && fn[0])
            replace(&f->function, fn);
        char *file;
        int line;
        parse_location(loc, &file, &line);
        if (file) {
            replace(&f->file, file);
            f->line = line;
            any_line = true;
        }
    }
    free(fn);
    free(loc);
    if (r)
        fclose(r);
    else
        close(j->fd);
    int status;
    struct rusage ru;
    while (wait4(j->pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    stage_note("%s: %d frames by addr2line, %.3f s of its CPU", j->module, j->n,
               (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                   (double)ru.ru_stime.tv_usec * 1e-6);
    /* exec failed inside the child (posix_spawnp reports it as exit 127 on some libcs) */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        o->no_tool = true;
    else if (!any_line)
        o->no_lines++;
}

static int by_module(const void *a, const void *b, void *frames)
{
    const host_frame *f = frames;
    return strcmp(f[*(const int *)a].module, f[*(const int *)b].module);
}

/* The kernel's virtual shared object: mapped into every process, never a file to read (dladdr
 * names it linux-vdso.so.1, linux-gate.so.1 on 32-bit x86); its frames keep dladdr's symbol. */
static bool is_vdso(const char *module)
{
    return strncmp(module, "linux-vdso", 10) == 0 || strncmp(module, "linux-gate", 10) == 0;
}

void host_symbolize(host_activity *h)
{
    h->symbols_why[0] = '\0';
    int *idx = malloc((size_t)(h->nframes > 0 ? h->nframes : 1) * sizeof *idx);
    if (!idx)
        return;
    int n = 0;
    for (int i = 0; i < h->nframes; i++)
        if (h->frames[i].kind == HOST_FRAME_NATIVE && h->frames[i].module && h->frames[i].module[0] &&
            !is_vdso(h->frames[i].module))
            idx[n++] = i;
    qsort_r(idx, (size_t)n, sizeof *idx, by_module, h->frames);
    outcome o = {0};
    int nmods = 0;
    module_frames *mods = malloc((size_t)(n > 0 ? n : 1) * sizeof *mods);
    for (int i = 0; mods && i < n;) {
        int j = i + 1;
        while (j < n && strcmp(h->frames[idx[j]].module, h->frames[idx[i]].module) == 0)
            j++;
        module_frames *m = &mods[nmods++];
        *m = (module_frames){h->frames[idx[i]].module, idx + i, j - i, false, false};
        char why[200];
        bool has_lines = true; /* section headers only: reads a few kilobytes */
        m->in_process = elf_symtab_names(m->module, NULL, 0, NULL, &has_lines, why, sizeof why) && !has_lines;
        i = j;
    }
    o.modules = nmods;
    /* Modules without line tables on up to SYMBOLIZE_AT_ONCE threads, while the others go to
     * addr2line, up to SYMBOLIZE_AT_ONCE processes at a time, answers read in the order started:
     * a big library's symbol table takes most of the time, and a PyTorch process has tens of
     * modules, so one after another made the profile's exit wait for their sum. */
    symtab_pool pool = {h, mods, nmods, 0};
    pthread_t worker[SYMBOLIZE_AT_ONCE];
    int nworkers = 0;
    while (mods && nworkers < SYMBOLIZE_AT_ONCE && pthread_create(&worker[nworkers], NULL, symtab_worker, &pool) == 0)
        nworkers++;
    if (nworkers == 0)
        symtab_worker(&pool);
    job run[SYMBOLIZE_AT_ONCE];
    int first = 0, started = 0;
    for (int pass = 0; pass < 2; pass++) { /* the second: modules the symbol-table reader could not take */
        if (pass == 1)
            for (int w = 0; w < nworkers; w++)
                pthread_join(worker[w], NULL);
        for (int k = 0; k < nmods && !o.no_tool; k++) {
            module_frames *m = &mods[k];
            if (pass == 0 ? m->in_process : !m->in_process || m->named)
                continue;
            if (started - first == SYMBOLIZE_AT_ONCE)
                finish_module(h, &run[first++ % SYMBOLIZE_AT_ONCE], &o);
            if (start_module(h, m->module, m->idx, m->n, &o, &run[started % SYMBOLIZE_AT_ONCE]))
                started++;
        }
    }
    while (first < started)
        finish_module(h, &run[first++ % SYMBOLIZE_AT_ONCE], &o);
    for (int k = 0; k < nmods; k++)
        o.no_lines += mods[k].named;
    free(mods);
    free(idx);
    if (o.no_tool)
        copy_str(h->symbols_why, sizeof h->symbols_why,
                 "addr2line (binutils) could not be run: native frames keep their module, offset and exported symbol");
    else if (o.unreadable || o.no_lines) {
        char unread[180] = "", nolines[72] = "";
        if (o.unreadable)
            snprintf(unread, sizeof unread, "%d of %d modules could not be read (%s)", o.unreadable, o.modules, o.first);
        if (o.no_lines)
            snprintf(nolines, sizeof nolines, "%d of %d modules have no line tables (built without -g)", o.no_lines,
                     o.modules);
        snprintf(h->symbols_why, sizeof h->symbols_why, "%s%s%s", unread, o.unreadable && o.no_lines ? "; " : "",
                 nolines);
    }
}
