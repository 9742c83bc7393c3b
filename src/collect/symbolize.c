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
 * Inlined code (-i), as perf and gdb show it: without -i, addr2line names only the innermost
 * inlined scope of an address, and at -O2 that is often not the line of the function the code
 * lies in: the host function nvcc makes for each kernel, which a <<<>>> launch calls, is inlined
 * into the launching function, so the launching line was lost and the report named its caller's.
 * The frame keeps the innermost scope (what it read before, and what a reader of older run files
 * knows) and gains a node for the physical function at its line (host_frame.outer): a node, not
 * fields of the frame, so that the analysis can name it wherever it names a frame by its index
 * (a cause's user line, a call site).
 *
 * The offsets go through a temporary file rather than a pipe, so addr2line's output can never
 * fill while we are still writing its input (no deadlock, no poll loop).
 *
 * A module without line tables (no .debug_line, and no separate debug file it names) is named
 * in process from its symbol table instead (elf_symtab.h says why: addr2line walks the whole
 * table for each address there), demangled by libstdc++'s __cxa_demangle as addr2line -C does;
 * that runs while the other modules' addr2line processes do. */
#include "symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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
#include "thread_wait.h"

extern char **environ;
/* libstdc++'s demangler (the C++ ABI's; mmprof links libstdc++ for cuBLAS and CUPTI anyway). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYMBOLIZE_AT_ONCE 8 /* addr2line processes, and symbol-table threads, running together */
/* The same while the program runs: its cores are its own (a pass of 8 threads and 8 processes
 * can take every core of a small machine from it, and the pass's latency matters only after the
 * program's exit). */
#define SYMBOLIZE_WHILE_RUNNING 2
#define ADDR2LINE_SECONDS 1.0 /* from the start of naming to the last addr2line's answer */

/* The deadline for addr2line, in seconds: MMPROF_ADDR2LINE_SECONDS where set (perf has the same
 * knob, addr2line-timeout: a library with large DWARF tables keeps addr2line for many seconds). */
static double addr2line_seconds(void)
{
    const char *e = getenv("MMPROF_ADDR2LINE_SECONDS");
    char *end;
    double v = e ? strtod(e, &end) : 0;
    return e && end != e && !*end && v > 0 && v < 1e6 ? v : ADDR2LINE_SECONDS;
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

/* A module met by a pass, and what became of it (symbol_passes). */
struct symbol_module {
    char *module;
    bool unreadable, lines, slow; /* lines: some frame of it was given a source line */
    bool uncovered;               /* a frame of it no symbol covers (a stripped module's static function) */
    char *why;                    /* unreadable: why (elf_module_read's words) */
};

/* The module record of name in p, added where new; NULL when memory ran out. */
static struct symbol_module *module_of(symbol_passes *p, const char *name)
{
    for (int i = 0; i < p->nmods; i++)
        if (strcmp(p->mods[i].module, name) == 0)
            return &p->mods[i];
    struct symbol_module *g = realloc(p->mods, (size_t)(p->nmods + 1) * sizeof *g);
    char *own = strdup(name);
    if (!g || !own) {
        if (g)
            p->mods = g;
        free(own);
        return NULL;
    }
    p->mods = g;
    p->mods[p->nmods] = (struct symbol_module){.module = own};
    return &p->mods[p->nmods++];
}

/* One module's frames, idx[0..n) of h's, and how they are named. */
typedef struct {
    const char *module;
    const int *idx;
    int n;
    elf_module elf; /* its file: line tables, symbol tables (elf_symtab.h) */
    bool named;     /* named from its symbol tables */
} module_frames;

/* One module's addr2line, running: its frames, and the file its answers go to (a file, not a
 * pipe, so that it runs to its end while others are read, and can be given a deadline without a
 * reader that blocks). */
typedef struct {
    const module_frames *m;
    pid_t pid;
    FILE *out;
    double started; /* monotonic seconds */
} job;

/* Starts addr2line on m's module for its frames of h (their offsets are addresses of the file,
 * elf_symtab.h); false (with o said) when it could not. */
static bool start_module(const host_activity *h, const module_frames *m, symbol_passes *o, job *j)
{
    FILE *in = tmpfile(), *out = tmpfile();
    if (!in || !out) {
        if (in)
            fclose(in);
        if (out)
            fclose(out);
        return false;
    }
    for (int i = 0; i < m->n; i++)
        fprintf(in, "%llx\n", (unsigned long long)h->frames[m->idx[i]].offset);
    fflush(in);
    rewind(in);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* -i: every inlined scope holding the address, innermost first (finish_module); -a: each
     * address's answer opens with the address, so those of varying length are told apart. */
    char *argv[] = {"addr2line", "-i", "-a", "-f", "-C", "-e", (char *)m->module, NULL};
    int rc = posix_spawnp(&j->pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    fclose(in); /* the child has its own descriptor of the file */
    if (rc != 0) {
        o->no_tool = true;
        fclose(out);
        return false;
    }
    j->m = m;
    j->started = monotonic_seconds();
    j->out = out;
    return true;
}

/* Names frames idx[0..n) of h from the symbol tables of module (mod, elf_module_read's); false
 * where they could not be read (addr2line is then the one to ask). A frame no symbol covers loses
 * the name the stream gave too: it has none (dladdr's, from the same .dynsym, agrees under glibc),
 * and its words are then module+offset (host_frame_name). */
static bool name_from_symtab(host_activity *h, const char *module, const elf_module *mod, const int *idx, int n)
{
    char why[200];
    uint64_t *addr = malloc((size_t)n * sizeof *addr);
    char **names = calloc((size_t)n, sizeof *names);
    bool ok = addr && names;
    for (int i = 0; ok && i < n; i++)
        addr[i] = h->frames[idx[i]].offset;
    ok = ok && elf_symtab_names(module, mod, addr, n, names, why, sizeof why);
    for (int i = 0; ok && i < n; i++) {
        if (!names[i]) {
            free(h->frames[idx[i]].function);
            h->frames[idx[i]].function = NULL;
            continue;
        }
        int status = -1;
        char *plain = strncmp(names[i], "_Z", 2) == 0 ? __cxa_demangle(names[i], NULL, NULL, &status) : NULL;
        replace(&h->frames[idx[i]].function, status == 0 && plain ? plain : names[i]);
        free(plain);
    }
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(addr);
    return ok;
}

/* The in-process modules, shared among threads: each module's file is read from disk (the symbol
 * tables are no part of what the program loaded), so several are read at once, as several
 * addr2line processes read theirs. */
typedef struct {
    host_activity *h;
    const symbol_passes *o;
    module_frames *mods;
    int nmods;
    atomic_int next;
} symtab_pool;

static void *symtab_worker(void *p)
{
    symtab_pool *pool = p;
    for (int i; (i = atomic_fetch_add(&pool->next, 1)) < pool->nmods;) {
        module_frames *m = &pool->mods[i];
        if (!m->elf.symbols)
            continue;
        double t0 = monotonic_seconds();
        m->named = name_from_symtab(pool->h, m->module, &m->elf, m->idx, m->n);
        if (pool->o->last) /* the passes while the program runs say only their sums (profile.c) */
            stage_note("%s: %d frames from its symbol table, %.3f s", m->module, m->n, monotonic_seconds() - t0);
    }
    return NULL;
}

/* Whether s is the line addr2line -a opens an address's answer with ("0x" and hex digits), and
 * its address: never a function's line, as no identifier starts with a digit. */
static bool address_line(const char *s, uint64_t *addr)
{
    if (strncmp(s, "0x", 2) != 0 || !s[2] || s[2 + strspn(s + 2, "0123456789abcdefABCDEF")] != '\0')
        return false;
    *addr = strtoull(s + 2, NULL, 16);
    return true;
}

/* Frame k of h, its address in code inlined into another function, gets the node of that function
 * (fn) at its line of the outermost inlined call (loc, addr2line's last scope for the address):
 * the frame's own caller, module and offset, on no stack (host_frame.outer). Why the outermost
 * scope and not the next one out: nvcc's launch stub is inlined several scopes deep where the
 * host compiler inlines the whole of it (the runtime header's helper into __device_stub__, that
 * into the kernel's host function, that into the launching function), and only the outermost is
 * past all of them; the price is the line of a user's own inline function that launched, which
 * reads as its caller's line of the call. None where that scope has no line. */
static void add_outer(host_activity *h, int k, const char *fn, char *loc)
{
    char *file;
    int line;
    parse_location(loc, &file, &line);
    if (!file || line <= 0)
        return;
    const host_frame *f = &h->frames[k];
    host_frame o = {.pid = f->pid, .parent = f->parent, .kind = HOST_FRAME_NATIVE, .module = f->module,
                    .offset = f->offset, .file = file, .line = line,
                    .function = fn && strcmp(fn, "??") != 0 && fn[0] ? (char *)fn : NULL};
    int at = host_add_frame(h, &o); /* may move the frames: f is not used past it */
    if (at > 0)
        h->frames[k].outer = at;
}

/* Gives j's frames addr2line's answers: for each address, its line ("0x..."), then a function
 * line and a location line per scope, innermost first (more than one where the address lies in
 * inlined code); an answer out of step with the addresses asked ends the reading. True when some
 * frame was given a line. */
static bool read_answers(host_activity *h, const job *j)
{
    char *text = NULL, *fn = NULL, *outer_fn = NULL, *outer_loc = NULL;
    size_t cap = 0, fncap = 0;
    bool any_line = false, want_fn = true;
    int i = -1, scopes = 0; /* the frame being answered (j's), and its scopes read */
    rewind(j->out);
    for (;;) {
        ssize_t got = getline(want_fn ? &fn : &text, want_fn ? &fncap : &cap, j->out);
        char *s = want_fn ? fn : text;
        if (got > 0)
            s[strcspn(s, "\n")] = '\0';
        uint64_t addr = 0;
        if (got <= 0 || (want_fn && address_line(s, &addr))) { /* the last frame's answer is complete */
            if (i >= 0 && scopes > 1 && outer_fn && outer_loc)
                add_outer(h, j->m->idx[i], outer_fn, outer_loc);
            free(outer_fn);
            free(outer_loc);
            outer_fn = outer_loc = NULL;
            scopes = 0;
            if (got <= 0 || i + 1 >= j->m->n || addr != h->frames[j->m->idx[i + 1]].offset)
                break;
            i++;
            continue;
        }
        if (i < 0)
            break; /* a scope before any address: not addr2line -a's answer */
        if (want_fn) {
            want_fn = false;
            continue;
        }
        want_fn = true;
        if (scopes++ > 0) { /* a scope the code is inlined into: the outermost is kept */
            free(outer_fn);
            free(outer_loc);
            outer_fn = strdup(fn);
            outer_loc = strdup(text);
            continue;
        }
        host_frame *f = &h->frames[j->m->idx[i]];
        char *file;
        int line;
        parse_location(text, &file, &line);
        /* Without a line the function is the nearest symbol before the address, its size not
         * looked at (binutils' elf_find_function): where the symbol tables were read, theirs
         * (bounded by sizes) stands; with one, DWARF's function holds the address. */
        if (strcmp(fn, "??") != 0 && fn[0] && (file || !j->m->named))
            replace(&f->function, fn);
        if (file) {
            replace(&f->file, file);
            f->line = line;
            any_line = true;
        }
    }
    free(text);
    free(fn);
    return any_line;
}

/* Waits for a started addr2line until deadline (CLOCK_MONOTONIC seconds; while the program runs,
 * its own start's plus the seconds allowed, as the modules take their turns), killing it there,
 * and reads its answers into the frames. */
static void finish_module(host_activity *h, job *j, symbol_passes *o, double deadline)
{
    if (!o->last)
        deadline = j->started + addr2line_seconds();
    int status = 0;
    struct rusage ru;
    pid_t got;
    while ((got = wait4(j->pid, &status, WNOHANG, &ru)) == 0 && monotonic_seconds() < deadline)
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    bool late = got == 0;
    if (late) { /* its frames keep the names their symbol table gave */
        kill(j->pid, SIGKILL);
        while (wait4(j->pid, &status, 0, &ru) < 0 && errno == EINTR)
            ;
        struct symbol_module *sm = module_of(o, j->m->module);
        if (sm)
            sm->slow = true; /* not given addr2line again: a later pass would wait as long */
    }
    if (o->last || late)
        stage_note("%s: %d frames by addr2line, %.3f s of its CPU%s", j->m->module, j->m->n,
                   (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                       (double)ru.ru_stime.tv_usec * 1e-6,
                   late ? ", stopped at the deadline" : "");
    bool any_line = !late && read_answers(h, j);
    fclose(j->out);
    /* exec failed inside the child (posix_spawnp reports it as exit 127 on some libcs) */
    if (!late && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        o->no_tool = true;
    } else if (any_line) {
        struct symbol_module *sm = module_of(o, j->m->module);
        if (sm)
            sm->lines = true;
    }
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

/* Whether a frame of m's, its symbol tables read, was left without a name: no symbol covers it
 * (symbols_why says so; the report shows it as module+offset). */
static void note_uncovered(const host_activity *h, const module_frames *m, symbol_passes *o)
{
    for (int i = 0; m->named && i < m->n; i++) {
        const char *fn = h->frames[m->idx[i]].function;
        if (!fn || !fn[0]) {
            struct symbol_module *sm = module_of(o, m->module);
            if (sm)
                sm->uncovered = true;
            return;
        }
    }
}

void host_symbolize_new(host_activity *h, symbol_passes *o)
{
    int from = o->named_upto > 0 ? o->named_upto : 0;
    o->named_upto = h->nframes;
    int *idx = malloc((size_t)(h->nframes - from > 0 ? h->nframes - from : 1) * sizeof *idx);
    if (!idx)
        return;
    int n = 0;
    for (int i = from; i < h->nframes; i++)
        if (h->frames[i].kind == HOST_FRAME_NATIVE && h->frames[i].module && h->frames[i].module[0] &&
            !is_vdso(h->frames[i].module))
            idx[n++] = i;
    qsort_r(idx, (size_t)n, sizeof *idx, by_module, h->frames);
    double deadline = monotonic_seconds() + addr2line_seconds();
    int nmods = 0, nqueue = 0;
    module_frames *mods = malloc((size_t)(n > 0 ? n : 1) * sizeof *mods);
    int *queue = malloc((size_t)(n > 0 ? n : 1) * sizeof *queue); /* modules for addr2line, in order */
    for (int i = 0; mods && queue && i < n;) {
        int j = i + 1;
        while (j < n && strcmp(h->frames[idx[j]].module, h->frames[idx[i]].module) == 0)
            j++;
        module_frames *m = &mods[nmods++];
        *m = (module_frames){.module = h->frames[idx[i]].module, .idx = idx + i, .n = j - i};
        struct symbol_module *sm = module_of(o, m->module);
        char why[200];
        if (!elf_module_read(m->module, ELF_DEBUG_ROOT, &m->elf, why, sizeof why)) {
            if (sm && !sm->unreadable) {
                sm->unreadable = true;
                sm->why = strdup(why);
            }
        } else if ((m->elf.has_lines || !m->elf.symbols) && !(sm && sm->slow)) {
            queue[nqueue++] = nmods - 1;
        }
        i = j;
    }
    /* Every module's functions from its symbol tables, on up to SYMBOLIZE_AT_ONCE threads; those
     * with line tables also through addr2line, up to SYMBOLIZE_AT_ONCE processes at a time, whose
     * answers (lines, and the function where they give a line or the tables could not be read)
     * replace those once the threads are done: a big library takes most of the time, and a
     * PyTorch process has tens of modules, so one after another made the profile's exit wait for
     * their sum. addr2line is stopped at the deadline (Triton's library, with DWARF, took it
     * 7.2 s of CPU for 2 frames on the H200), and not given that module again in a later pass. */
    symtab_pool pool = {h, o, mods, nmods, 0};
    int at_once = o->last ? SYMBOLIZE_AT_ONCE : SYMBOLIZE_WHILE_RUNNING;
    pthread_t worker[SYMBOLIZE_AT_ONCE];
    int nworkers = 0;
    while (mods && nworkers < at_once && pthread_create(&worker[nworkers], NULL, symtab_worker, &pool) == 0)
        nworkers++;
    if (nworkers == 0)
        symtab_worker(&pool);
    job run[SYMBOLIZE_AT_ONCE];
    int first = 0, started = 0, next = 0;
    for (; next < nqueue && started < at_once && !o->no_tool; next++) {
        module_frames *m = &mods[queue[next]];
        started += start_module(h, m, o, &run[started % SYMBOLIZE_AT_ONCE]);
    }
    for (int w = 0; w < nworkers; w++)
        pthread_join(worker[w], NULL);
    for (int k = 0; k < nmods; k++) /* a symbol table the reader could not take after all: addr2line's */
        if (mods[k].elf.symbols && !mods[k].elf.has_lines && !mods[k].named)
            queue[nqueue++] = k;
    for (; next < nqueue && !o->no_tool; next++) {
        module_frames *m = &mods[queue[next]];
        if (started - first == at_once)
            finish_module(h, &run[first++ % SYMBOLIZE_AT_ONCE], o, deadline);
        started += start_module(h, m, o, &run[started % SYMBOLIZE_AT_ONCE]);
    }
    while (first < started)
        finish_module(h, &run[first++ % SYMBOLIZE_AT_ONCE], o, deadline);
    for (int k = 0; k < nmods; k++) {
        note_uncovered(h, &mods[k], o);
        elf_module_free(&mods[k].elf);
    }
    free(queue);
    free(mods);
    free(idx);
    o->named_upto = h->nframes; /* the outer nodes it added are named already */
    o->last_pass = monotonic_seconds();
}

/* What symbols_why counts modules by, besides line tables. */
enum { UNREAD, SLOW, UNCOVERED, NMARKS };

static bool has_mark(const struct symbol_module *m, int k)
{
    return k == UNREAD ? m->unreadable : k == SLOW ? m->slow : m->uncovered;
}

void symbol_passes_why(const symbol_passes *o, host_activity *h)
{
    h->symbols_why[0] = '\0';
    if (o->no_tool) {
        copy_str(h->symbols_why, sizeof h->symbols_why,
                 "addr2line (binutils) could not be run: native frames keep their module, offset and the function "
                 "their symbol table names, without lines");
        return;
    }
    /* Of several modules, the first by name is the one named: the same words whichever passes met
     * them (one pass takes its modules in name order). */
    int count[NMARKS] = {0}, no_lines = 0;
    const struct symbol_module *first[NMARKS] = {NULL};
    for (int i = 0; i < o->nmods; i++) {
        const struct symbol_module *m = &o->mods[i];
        for (int k = 0; k < NMARKS; k++) {
            if (!has_mark(m, k))
                continue;
            count[k]++;
            if (!first[k] || strcmp(m->module, first[k]->module) < 0)
                first[k] = m;
        }
        no_lines += !m->unreadable && !m->slow && !m->lines;
    }
    char unread[180] = "", nolines[72] = "", late[200] = "", bare[140] = "";
    if (count[UNREAD])
        snprintf(unread, sizeof unread, "%d of %d modules could not be read (%s)", count[UNREAD], o->nmods,
                 first[UNREAD]->why ? first[UNREAD]->why : "out of memory");
    if (no_lines)
        snprintf(nolines, sizeof nolines, "%d of %d modules have no line tables (built without -g)", no_lines, o->nmods);
    if (count[SLOW])
        snprintf(late, sizeof late,
                 "%d of %d modules kept addr2line past %.1f s (first: %.60s): symbol-table names, no lines "
                 "(MMPROF_ADDR2LINE_SECONDS)",
                 count[SLOW], o->nmods, addr2line_seconds(), first[SLOW]->module);
    if (count[UNCOVERED]) {
        const char *slash = strrchr(first[UNCOVERED]->module, '/');
        snprintf(bare, sizeof bare,
                 "%d of %d modules have frames no symbol covers (stripped: shown as module+0xoffset; first: %.50s)",
                 count[UNCOVERED], o->nmods, slash ? slash + 1 : first[UNCOVERED]->module);
    }
    const char *part[4] = {unread, nolines, bare, late};
    size_t at = 0;
    for (int i = 0; i < 4; i++)
        if (part[i][0] && at < sizeof h->symbols_why)
            at += (size_t)snprintf(h->symbols_why + at, sizeof h->symbols_why - at, "%s%s", at ? "; " : "", part[i]);
}

void symbol_passes_free(symbol_passes *o)
{
    for (int i = 0; o && i < o->nmods; i++) {
        free(o->mods[i].module);
        free(o->mods[i].why);
    }
    if (o)
        free(o->mods);
}

/* The pass after the program's exit (all of SYMBOLIZE_AT_ONCE, one deadline for the pass), then
 * symbols_why; o's records are freed (not o itself). */
static void last_pass_run(host_activity *h, symbol_passes *o)
{
    o->last = true;
    host_symbolize_new(h, o);
    symbol_passes_why(o, h);
    symbol_passes_free(o);
}

void host_symbolize(host_activity *h)
{
    symbol_passes o = {0};
    last_pass_run(h, &o);
}

/* The last pass, on its thread: the passes are its to free. */
typedef struct {
    host_activity *h;
    symbol_passes *o;
} last_pass;

static void *symbolize_thread(void *p)
{
    last_pass *job = p;
    double t0 = monotonic_seconds();
    last_pass_run(job->h, job->o);
    free(job->o);
    free(job);
    stage_note("native frames named on their thread: %.3f s", monotonic_seconds() - t0);
    return NULL;
}

void host_symbolize_start(host_activity *h, symbol_passes *o)
{
    last_pass *job = malloc(sizeof *job);
    if (!o && (o = calloc(1, sizeof *o)) == NULL) {
        free(job);
        host_symbolize(h); /* out of memory: named now, without a record of passes */
        return;
    }
    if (!job) { /* out of memory: named now */
        last_pass_run(h, o);
        free(o);
        return;
    }
    *job = (last_pass){h, o};
    pthread_t t;
    if (pthread_create(&t, NULL, symbolize_thread, job) != 0) {
        symbolize_thread(job);
        return;
    }
    if (!host_names_pending(h, t))
        pthread_join(t, NULL); /* out of memory: named now, as without a thread */
}
