/* Native symbolisation (src/collect/symbolize.c): a program built here with -g takes a return
 * address's module offset through dladdr1, as libmmprof_inject.so does (the address less its link
 * map's l_addr: an address of the file), and the frame made of it must come back named by the
 * program's function, source file and the line of the call, both as a PIE executable (its offset
 * from the load base, as a shared library's) and as a classic executable at 0x400000 (its address
 * as linked). Without line tables the function still comes from the symbol table and
 * symbols_why says which modules had none; a module that is gone, and no addr2line at all, are
 * said in symbols_why with the frames left as they were; the vDSO is no file and not a fault.
 * On an ELF file the test writes itself (sized_symbols), a symbol names only the addresses its
 * size covers, .symtab before .dynsym before a separate debug file. */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "elf_symtab.h"
#include "host_where.h"
#include "strbuf.h"
#include "symbolize.h"
#include "test_support.h"

/* The probes' first 12 lines: where() prints its return address's offset in its module. */
#define WHERE_SRC                                                                   \
    "#define _GNU_SOURCE\n"                                                         \
    "#include <dlfcn.h>\n"                                                          \
    "#include <link.h>\n"                                                           \
    "#include <stdio.h>\n"                                                          \
    "__attribute__((noinline)) static void where(void)\n"                           \
    "{\n"                                                                           \
    "    char *ra = (char *)__builtin_return_address(0) - 1;\n"                     \
    "    Dl_info di;\n"                                                             \
    "    struct link_map *map;\n"                                                   \
    "    if (dladdr1(ra, &di, (void **)&map, RTLD_DL_LINKMAP))\n"                   \
    "        printf(\"%llu\\n\", (unsigned long long)(ra - (char *)map->l_addr));\n" \
    "}\n"

static const char *probe_src =
    WHERE_SRC
    "int main(void)\n"
    "{\n"
    "    where(); /* the call site */\n"
    "    return 0;\n"
    "}\n";
#define CALL_LINE 15

/* A static inline function, inlined into a function the compiler may not inline (nor clone,
 * which would rename it), calls where() (WHERE_SRC): at -O2 the return address lies in the
 * caller, in the inlined function's code. The asm after the call keeps it from being a tail call. */
static const char *inline_src =
    WHERE_SRC
    "static inline void launch(void)\n"
    "{\n"
    "    where(); /* the call, in inlined code */\n"
    "    __asm__ volatile(\"\" ::: \"memory\");\n"
    "}\n"
    "__attribute__((noinline, noclone)) static void caller(void)\n"
    "{\n"
    "    launch(); /* the call inlined */\n"
    "    __asm__ volatile(\"\" ::: \"memory\");\n"
    "}\n"
    "int main(void)\n"
    "{\n"
    "    caller();\n"
    "    return 0;\n"
    "}\n";
#define INLINED_LINE 15 /* where() in launch */
#define INLINED_AT 20   /* launch() in caller */

/* Builds source (as test_tmp/file) with flags into test_tmp/name and returns the offset it printed. */
static uint64_t build_and_run_src(const char *name, const char *flags, const char *file, const char *source)
{
    char *src = path_in(test_tmp, file);
    assert_true(write_text(src, source));
    cmd_result r = run_shell("cc %s -o '%s/%s' '%s' -ldl && '%s/%s'", flags, test_tmp, name, src, test_tmp, name);
    if (r.status != 0)
        fail_msg("building the probe: %s", r.err);
    uint64_t offset = strtoull(r.out, NULL, 10);
    cmd_free(&r);
    free(src);
    assert_true(offset > 0);
    return offset;
}

/* Builds the probe with flags into test_tmp/name and returns the offset it printed. */
static uint64_t build_and_run(const char *name, const char *flags)
{
    return build_and_run_src(name, flags, "probe.c", probe_src);
}

/* One native frame of module at offset, under a Python frame the symboliser must leave alone. */
static void one_frame(host_activity *h, const char *module, uint64_t offset)
{
    memset(h, 0, sizeof *h);
    host_frame py = {.pid = 1, .parent = -1, .kind = HOST_FRAME_PY, .function = "run", .file = "x.py", .line = 4};
    host_frame nat = {.pid = 1, .parent = 0, .kind = HOST_FRAME_NATIVE, .module = (char *)module, .offset = offset,
                      .function = "dynsym"};
    assert_int_equal(host_add_frame(h, &py), 0);
    assert_int_equal(host_add_frame(h, &nat), 1);
}

static void assert_named(const host_activity *h)
{
    const host_frame *f = &h->frames[1];
    assert_non_null(f->file);
    if (!strstr(f->file, "probe.c"))
        fail_msg("file %s", f->file);
    assert_int_equal(f->line, CALL_LINE);
    assert_string_equal(f->function, "main");
    assert_string_equal(h->symbols_why, "");
    assert_string_equal(h->frames[0].file, "x.py"); /* a Python frame is not touched */
    assert_int_equal(h->frames[0].line, 4);
    assert_int_equal(f->outer, 0); /* not inlined code: no node added */
    assert_int_equal(h->nframes, 2);
}

/* Frame k of h is in launch()'s code inlined into caller(): it reads as launch's line, and its
 * outer node, after it, as caller's line of the call, with the frame's caller, module and offset. */
static void assert_inlined(const host_activity *h, int k)
{
    const host_frame *f = &h->frames[k];
    assert_string_equal(f->function, "launch");
    assert_int_equal(f->line, INLINED_LINE);
    assert_true(f->outer > k && f->outer < h->nframes);
    const host_frame *o = &h->frames[f->outer];
    assert_int_equal(o->kind, HOST_FRAME_NATIVE);
    assert_int_equal(o->outer, 0);
    assert_int_equal(o->pid, f->pid);
    assert_int_equal(o->parent, f->parent);
    assert_string_equal(o->module, f->module);
    assert_true(o->offset == f->offset);
    char words[HOST_NAME], want[64];
    host_frame_name(o, true, words, sizeof words);
    snprintf(want, sizeof want, "inline.c:%d (caller)", INLINED_AT);
    assert_string_equal(words, want);
    host_frame_name(f, true, words, sizeof words);
    snprintf(want, sizeof want, "inline.c:%d (launch)", INLINED_LINE);
    assert_string_equal(words, want);
}

/* addr2line -i: an address in code the compiler inlined (a static inline function in a noinline
 * caller, -O2 -g, as nvcc's host function of a kernel is inlined into the launching function)
 * keeps its innermost scope's name and line, and gets a node naming the function it lies in at
 * its line of the call (host_frame.outer). In passes (as while a program runs) the node is named
 * once: a later pass does not take it for a new frame and name it as its inlined code. */
static void inlined_code_names_its_caller(void **state)
{
    (void)state;
    uint64_t at = build_and_run_src("inline", "-g -O2 -fPIE -pie", "inline.c", inline_src);
    char *exe = path_in(test_tmp, "inline");
    host_activity h;
    one_frame(&h, exe, at);
    host_symbolize(&h);
    assert_inlined(&h, 1);
    assert_string_equal(h.symbols_why, "");
    assert_int_equal(h.nframes, 3);
    host_activity_free(&h);

    one_frame(&h, exe, at);
    symbol_passes o = {0};
    host_symbolize_new(&h, &o);
    assert_int_equal(o.named_upto, 3);
    host_frame again = {.pid = 1, .parent = 0, .kind = HOST_FRAME_NATIVE, .module = exe, .offset = at,
                        .function = "dynsym"};
    assert_int_equal(host_add_frame(&h, &again), 3);
    host_symbolize_new(&h, &o);
    symbol_passes_free(&o);
    assert_int_equal(h.nframes, 5);
    assert_inlined(&h, 1);
    assert_inlined(&h, 3);
    host_activity_free(&h);
    free(exe);
}


static void pie_and_classic_executables(void **state)
{
    (void)state;
    const char *builds[][2] = {{"pie", "-g -O0 -fPIE -pie"}, {"classic", "-g -O0 -fno-pie -no-pie"}};
    for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++) {
        host_activity h;
        char *exe = path_in(test_tmp, builds[i][0]);
        one_frame(&h, exe, build_and_run(builds[i][0], builds[i][1]));
        host_symbolize(&h);
        assert_named(&h);
        host_activity_free(&h);
        free(exe);
    }
}

static void what_could_not_be_had(void **state)
{
    (void)state;
    host_activity h;
    /* No -g: the symbol table names the function, no line. */
    char *bare = path_in(test_tmp, "bare");
    one_frame(&h, bare, build_and_run("bare", "-g0 -O0"));
    host_symbolize(&h);
    assert_string_equal(h.frames[1].function, "main");
    assert_null(h.frames[1].file);
    assert_int_equal(h.frames[1].line, 0);
    assert_non_null(strstr(h.symbols_why, "1 of 1 modules have no line tables"));
    host_activity_free(&h);

    /* A module that is gone. */
    one_frame(&h, "/nonexistent/libgone.so", 4096);
    host_symbolize(&h);
    assert_string_equal(h.frames[1].function, "dynsym");
    assert_null(h.frames[1].file);
    assert_non_null(strstr(h.symbols_why, "1 of 1 modules could not be read (/nonexistent/libgone.so: No such file"));
    host_activity_free(&h);

    /* The kernel's vDSO is no file: left as dladdr named it, and nothing to say. */
    one_frame(&h, "linux-vdso.so.1", 2048);
    host_symbolize(&h);
    assert_string_equal(h.frames[1].function, "dynsym");
    assert_string_equal(h.symbols_why, "");
    host_activity_free(&h);

    /* No addr2line on PATH: a module with line tables gets its function from its symbol table (in
     * process, elf_symtab.h) but no line, and that is said; one without is named all the same. */
    char *lined = path_in(test_tmp, "lined");
    uint64_t lined_at = build_and_run("lined", "-g -O0");
    uint64_t bare_at = build_and_run("bare", "-g0 -O0");
    char *old = strdup(getenv("PATH"));
    setenv("PATH", test_tmp, 1);
    one_frame(&h, lined, lined_at);
    host_symbolize(&h);
    assert_string_equal(h.frames[1].function, "main");
    assert_null(h.frames[1].file);
    assert_non_null(strstr(h.symbols_why, "addr2line (binutils) could not be run"));
    host_activity_free(&h);
    one_frame(&h, bare, bare_at);
    host_symbolize(&h);
    setenv("PATH", old, 1);
    free(old);
    assert_string_equal(h.frames[1].function, "main");
    assert_non_null(strstr(h.symbols_why, "1 of 1 modules have no line tables"));
    host_activity_free(&h);
    free(bare);
    free(lined);
}

/* An addr2line that never answers (a library of large DWARF tables kept the real one 7 s on the
 * H200) first on PATH, and a deadline of seconds for it; the PATH before, for restore_path. */
static char *slow_addr2line_first(const char *seconds)
{
    char *fake = path_in(test_tmp, "addr2line");
    assert_true(write_text(fake, "#!/bin/sh\nexec sleep 30\n"));
    cmd_result r = run_shell("chmod +x '%s'", fake);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    free(fake);
    char *old = strdup(getenv("PATH")), *path = NULL;
    assert_true(asprintf(&path, "%s:%s", test_tmp, old) > 0);
    setenv("PATH", path, 1);
    free(path);
    setenv("MMPROF_ADDR2LINE_SECONDS", seconds, 1);
    return old;
}

static void restore_path(char *old)
{
    setenv("PATH", old, 1);
    unsetenv("MMPROF_ADDR2LINE_SECONDS");
    free(old);
}

/* An addr2line that does not answer in time (a library of large DWARF tables kept the real one
 * 7 s on the H200) is stopped at the deadline: the frame keeps the function its symbol table
 * names, without a line, that is said, and the naming returns soon after the deadline. */
static void slow_addr2line_stopped(void **state)
{
    (void)state;
    char *lined = path_in(test_tmp, "lined");
    uint64_t at = build_and_run("lined", "-g -O0");
    char *old = slow_addr2line_first("0.3");
    host_activity h;
    one_frame(&h, lined, at);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    host_symbolize(&h);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    restore_path(old);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (took > 5)
        fail_msg("naming took %.2f s with a 0.3 s deadline", took);
    assert_string_equal(h.frames[1].function, "main");
    assert_null(h.frames[1].file);
    assert_int_equal(h.frames[1].line, 0);
    assert_non_null(strstr(h.symbols_why, "1 of 1 modules kept addr2line past 0.3 s (first: "));
    host_activity_free(&h);
    free(lined);
}

/* A module without line tables is named in process (elf_symtab.c): every function of a C++
 * program with namespaces, templates, static and extern "C" functions and an alias (two symbols at
 * one address: addr2line takes the first in the table), at its entry and inside it, named as
 * addr2line -f -C names it from the same file; except a byte past a symbol's size (the C
 * runtime's _init and frame_dummy have size 0), which addr2line gives the symbol before it and
 * no symbol covers here: that frame is left without a name. */
static void symbol_table_names_as_addr2line(void **state)
{
    (void)state;
    char *src = path_in(test_tmp, "many.cc");
    assert_true(write_text(src, "#include <cstdio>\n"
                                "namespace outer { namespace inner {\n"
                                "template <typename T> struct box { __attribute__((noinline)) T twice(T v) { return v + v; } };\n"
                                "__attribute__((noinline)) int plain(int a) { return a * 3; }\n"
                                "} }\n"
                                "static __attribute__((noinline)) int hidden(int a) { return a - 1; }\n"
                                "extern \"C\" __attribute__((noinline)) int c_name(int a) { return a ^ 5; }\n"
                                "extern \"C\" int c_alias(int) __attribute__((alias(\"c_name\")));\n"
                                "int main(int argc, char **) {\n"
                                "    auto f = [](int v) { return v * 7; };\n"
                                "    outer::inner::box<double> b; outer::inner::box<long> l;\n"
                                "    std::printf(\"%d\\n\", (int)b.twice(argc) + (int)l.twice(argc) + outer::inner::plain(argc) +\n"
                                "                hidden(argc) + c_name(argc) + f(argc));\n"
                                "}\n"));
    /* Each function's symbol-table address, and one a few bytes inside it. */
    cmd_result r = run_shell("cd '%s' && c++ -g0 -O1 -fPIE -pie -o many many.cc && readelf -sW many | "
                             "awk '$4 == \"FUNC\" && $2 !~ /^0+$/ {print $2, $3}' | sort -u",
                             test_tmp);
    if (r.status != 0)
        fail_msg("building: %s", r.err);
    host_activity h;
    memset(&h, 0, sizeof h);
    char *exe = path_in(test_tmp, "many");
    strbuf want_in;
    sb_init(&want_in);
    int nframes = 0, uncovered = 0;
    bool covered[256];
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        char *end;
        uint64_t at = strtoull(line, &end, 16), size = strtoull(end, NULL, 0);
        for (int k = 0; k < 2 && nframes < 256; k++) {
            covered[nframes] = k == 0 || size > (uint64_t)k;
            uncovered += !covered[nframes];
            host_frame nat = {.pid = 1, .parent = -1, .kind = HOST_FRAME_NATIVE, .module = exe, .offset = at + (uint64_t)k,
                              .function = "dynsym"};
            assert_true(host_add_frame(&h, &nat) >= 0);
            sb_printf(&want_in, "%llx\n", (unsigned long long)(at + (uint64_t)k));
            nframes++;
        }
    }
    cmd_free(&r);
    assert_true(nframes >= 20); /* main, plain, hidden, c_name, two twice, and the C runtime's */
    char *offsets = path_in(test_tmp, "offsets");
    assert_true(write_text(offsets, want_in.s));
    sb_free(&want_in);
    r = run_shell("addr2line -f -C -e '%s' <'%s' | awk 'NR %% 2 == 1'", exe, offsets);
    assert_int_equal(r.status, 0);
    host_symbolize(&h);
    int i = 0, named = 0;
    for (char *want = strtok(r.out, "\n"); want; want = strtok(NULL, "\n"), i++) {
        assert_true(i < nframes);
        const char *got = h.frames[i].function;
        if (strcmp(want, "??") == 0 || !covered[i]) {
            if (got)
                fail_msg("frame %d at %llx: '%s', no symbol covers it", i, (unsigned long long)h.frames[i].offset, got);
            continue;
        }
        if (!got || strcmp(got, want) != 0)
            fail_msg("frame %d at %llx: '%s', addr2line '%s'", i, (unsigned long long)h.frames[i].offset,
                     got ? got : "(none)", want);
        named += strstr(got, "outer::inner::") != NULL;
    }
    assert_int_equal(i, nframes);
    assert_true(named >= 6); /* plain and both twice, at entry and inside */
    assert_non_null(strstr(h.symbols_why, "1 of 1 modules have no line tables"));
    if (uncovered > 0 && !strstr(h.symbols_why, "1 of 1 modules have frames no symbol covers"))
        fail_msg("symbols_why: %s", h.symbols_why);
    cmd_free(&r);
    host_activity_free(&h);
    free(offsets);
    free(exe);
    free(src);
}

/* More modules than addr2line processes and symbol-table threads run at once (symbolize.c runs
 * several together and reads them in turn): 19 copies of the probe, every third one built
 * without line tables (named in process, on threads), 2 frames each (the call line and the
 * function's entry, each under its own Python frame), one module that is gone among them; every
 * frame gets its own module's answer. */
static void many_modules(void **state)
{
    (void)state;
    uint64_t off = build_and_run("pie", "-g -O0 -fPIE -pie");
    uint64_t bare_off = build_and_run("bare", "-g0 -O0 -fPIE -pie");
    host_activity h;
    memset(&h, 0, sizeof h);
    enum { COPIES = 19, GONE = 7 };
    char *paths[COPIES];
    for (int c = 0; c < COPIES; c++) {
        char name[32];
        snprintf(name, sizeof name, c == GONE ? "gone-%02d" : "copy-%02d", c);
        paths[c] = path_in(test_tmp, name);
        if (c != GONE) {
            cmd_result r = run_shell("cp '%s/%s' '%s'", test_tmp, c % 3 == 0 ? "bare" : "pie", paths[c]);
            assert_int_equal(r.status, 0);
            cmd_free(&r);
        }
        for (int k = 0; k < 2; k++) {
            host_frame py = {.pid = 1, .parent = -1, .kind = HOST_FRAME_PY, .function = "run", .file = "x.py", .line = c};
            int parent = host_add_frame(&h, &py);
            host_frame nat = {.pid = 1, .parent = parent, .kind = HOST_FRAME_NATIVE, .module = paths[c],
                              .offset = k == 0 ? (c % 3 == 0 ? bare_off : off) : 1, .function = "dynsym"};
            assert_true(host_add_frame(&h, &nat) >= 0);
        }
    }
    host_symbolize(&h);
    for (int c = 0; c < COPIES; c++) {
        const host_frame *call = &h.frames[4 * c + 1], *py = &h.frames[4 * c];
        assert_int_equal(py->line, c); /* a Python frame is not touched */
        if (c == GONE) {
            assert_string_equal(call->function, "dynsym");
            assert_null(call->file);
            continue;
        }
        assert_string_equal(call->module, paths[c]);
        assert_string_equal(call->function, "main");
        assert_int_equal(call->line, c % 3 == 0 ? 0 : CALL_LINE);
    }
    assert_non_null(strstr(h.symbols_why, "1 of 19 modules could not be read"));
    assert_non_null(strstr(h.symbols_why, "7 of 19 modules have no line tables"));
    host_activity_free(&h);
    for (int c = 0; c < COPIES; c++)
        free(paths[c]);
}


static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Frames named in passes, as the launcher names them while the program runs (each pass the
 * frames read since the last): the names and symbols_why are those of one pass over all of them;
 * a module whose addr2line ran out of time in one pass is not given it again in the next (that
 * pass takes no deadline's wait), and is counted once. */
static void naming_in_passes(void **state)
{
    (void)state;
    uint64_t at = build_and_run("lined", "-g -O0 -fPIE -pie");
    uint64_t bare_at = build_and_run("bare", "-g0 -O0 -fPIE -pie");
    char *lined = path_in(test_tmp, "lined"), *bare = path_in(test_tmp, "bare");
    host_activity one, two;
    memset(&one, 0, sizeof one);
    memset(&two, 0, sizeof two);
    symbol_passes o = {0};
    /* lined, bare, a module gone; lined, bare, another gone, first by name: the second pass meets
     * both again, and the gone module symbols_why names is the first by name either way. */
    char *gone_z = path_in(test_tmp, "z-gone.so"), *gone_a = path_in(test_tmp, "a-gone.so");
    for (int k = 0; k < 6; k++) {
        host_frame nat = {.pid = 1, .parent = -1, .kind = HOST_FRAME_NATIVE,
                          .module = k % 3 == 2 ? (k < 3 ? gone_z : gone_a) : k % 3 ? bare : lined,
                          .offset = k % 3 == 1 ? bare_at : at, .function = "dynsym"};
        assert_true(host_add_frame(&one, &nat) >= 0);
        assert_true(host_add_frame(&two, &nat) >= 0);
        if (k == 2)
            host_symbolize_new(&two, &o);
    }
    assert_int_equal(o.named_upto, 3);
    host_symbolize_new(&two, &o);
    assert_int_equal(o.named_upto, 6);
    symbol_passes_why(&o, &two);
    symbol_passes_free(&o);
    host_symbolize(&one);
    for (int k = 0; k < 6; k++) {
        assert_string_equal(two.frames[k].function, one.frames[k].function);
        assert_string_equal(two.frames[k].function, k % 3 == 2 ? "dynsym" : "main");
        assert_int_equal(two.frames[k].line, k % 3 ? 0 : CALL_LINE);
    }
    assert_string_equal(two.symbols_why, one.symbols_why);
    if (!strstr(two.symbols_why, "2 of 4 modules could not be read (") || !strstr(two.symbols_why, "a-gone.so") ||
        !strstr(two.symbols_why, "1 of 4 modules have no line tables (built without -g)"))
        fail_msg("symbols_why: %s", two.symbols_why);
    host_activity_free(&one);
    host_activity_free(&two);
    free(gone_a);
    free(gone_z);

    /* An addr2line that never answers: the first pass waits for the deadline, the second not. */
    char *old = slow_addr2line_first("0.5");
    host_activity h;
    memset(&h, 0, sizeof h);
    o = (symbol_passes){0};
    host_frame nat = {.pid = 1, .parent = -1, .kind = HOST_FRAME_NATIVE, .module = lined, .offset = at,
                      .function = "dynsym"};
    assert_true(host_add_frame(&h, &nat) >= 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    host_symbolize_new(&h, &o);
    double first = seconds_since(&t0);
    nat.offset = at + 1;
    assert_true(host_add_frame(&h, &nat) >= 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    host_symbolize_new(&h, &o);
    double second = seconds_since(&t0);
    symbol_passes_why(&o, &h);
    symbol_passes_free(&o);
    restore_path(old);
    if (first < 0.5 || second >= 0.5)
        fail_msg("passes took %.3f s and %.3f s: the second should not wait for the 0.5 s deadline", first, second);
    assert_string_equal(h.frames[1].function, "main"); /* from the symbol table */
    assert_null(h.frames[1].file);
    assert_non_null(strstr(h.symbols_why, "1 of 1 modules kept addr2line past 0.5 s (first: "));
    host_activity_free(&h);
    free(lined);
    free(bare);
}

/* ---- A module the test writes: a 64-bit little-endian ELF file of sized function symbols ---- */

/* A function symbol: name, start, size. */
typedef struct {
    const char *name;
    uint64_t at, size;
} synth_fn;

/* A synthetic module: its .symtab and .dynsym (lists ending in a NULL name; NULL: no such table),
 * its build id (hex; NULL: none), debug link (NULL: none), and whether it has a .debug_line (empty:
 * enough for addr2line to be asked). One PT_LOAD at 0: offsets are addresses, as in a shared
 * library. */
typedef struct {
    const synth_fn *symtab, *dynsym;
    const char *build_id, *debuglink;
    bool lines;
} synth_elf;

typedef struct {
    unsigned char b[16384];
    size_t n;
} bytes;

/* Appends n bytes of p at an 8-byte boundary; their offset. */
static uint64_t put(bytes *o, const void *p, size_t n)
{
    o->n = (o->n + 7) & ~(size_t)7;
    assert_true(o->n + n <= sizeof o->b);
    memcpy(o->b + o->n, p, n);
    o->n += n;
    return o->n - n;
}

/* The sections of a synthetic module, in this order. */
enum { S_NULL, S_TEXT, S_SYMTAB, S_STRTAB, S_DYNSYM, S_DYNSTR, S_NOTE, S_LINK, S_LINES, S_SHSTRTAB, S_COUNT };

/* A symbol table of fns (in section .text) and its strings into o, their headers at sh[0] and
 * sh[1]; absent (SHT_NULL) where fns is NULL. */
static void put_symbols(bytes *o, const synth_fn *fns, uint32_t type, uint32_t strndx, Elf64_Shdr *sh)
{
    char str[1024] = "";
    Elf64_Sym sym[32] = {{0}};
    uint32_t nstr = 1, n = 1;
    for (const synth_fn *f = fns; f && f->name; f++, n++) {
        assert_true(n < 32 && nstr + strlen(f->name) + 1 <= sizeof str);
        sym[n] = (Elf64_Sym){.st_name = nstr, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = S_TEXT,
                             .st_value = f->at, .st_size = f->size};
        memcpy(str + nstr, f->name, strlen(f->name) + 1);
        nstr += (uint32_t)strlen(f->name) + 1;
    }
    sh[0] = (Elf64_Shdr){.sh_type = fns ? type : SHT_NULL, .sh_offset = put(o, sym, n * sizeof *sym),
                         .sh_size = n * sizeof *sym, .sh_link = strndx, .sh_info = 1, .sh_entsize = sizeof *sym};
    sh[1] = (Elf64_Shdr){.sh_type = fns ? SHT_STRTAB : SHT_NULL, .sh_offset = put(o, str, nstr), .sh_size = nstr};
}

/* The GNU build-id note of hex into o (section header *sh); absent where hex is NULL. */
static void put_build_id(bytes *o, const char *hex, Elf64_Shdr *sh)
{
    unsigned char note[64] = {0};
    size_t len = hex ? strlen(hex) / 2 : 0;
    Elf64_Nhdr nh = {.n_namesz = 4, .n_descsz = (uint32_t)len, .n_type = NT_GNU_BUILD_ID};
    memcpy(note, &nh, sizeof nh);
    memcpy(note + sizeof nh, "GNU", 4);
    for (size_t i = 0; i < len; i++)
        sscanf(hex + 2 * i, "%2hhx", &note[sizeof nh + 4 + i]);
    size_t size = sizeof nh + 4 + ((len + 3) & ~(size_t)3);
    *sh = (Elf64_Shdr){.sh_type = hex ? SHT_NOTE : SHT_NULL, .sh_offset = put(o, note, size),
                       .sh_size = hex ? size : 0};
}

static void write_synth_elf(const char *path, const synth_elf *e)
{
    static bytes o; /* 16 KiB: off the stack */
    memset(&o, 0, sizeof o);
    o.n = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
    Elf64_Shdr sh[S_COUNT] = {{0}};
    sh[S_TEXT] = (Elf64_Shdr){.sh_type = SHT_NOBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = 0x1000,
                              .sh_offset = 0x1000, .sh_size = 0x1000};
    put_symbols(&o, e->symtab, SHT_SYMTAB, S_STRTAB, &sh[S_SYMTAB]);
    put_symbols(&o, e->dynsym, SHT_DYNSYM, S_DYNSTR, &sh[S_DYNSYM]);
    put_build_id(&o, e->build_id, &sh[S_NOTE]);
    char link[64] = ""; /* the name, NUL, padding to 4, and a CRC (0: not checked) */
    size_t nlink = e->debuglink ? ((strlen(e->debuglink) + 4) & ~(size_t)3) + 4 : 0;
    if (e->debuglink)
        memcpy(link, e->debuglink, strlen(e->debuglink));
    sh[S_LINK] = (Elf64_Shdr){.sh_type = SHT_PROGBITS, .sh_offset = put(&o, link, nlink), .sh_size = nlink};
    sh[S_LINES] = (Elf64_Shdr){.sh_type = SHT_PROGBITS, .sh_offset = o.n};
    const char *const names[S_COUNT] = {"",         ".text",   ".symtab", ".strtab",
                                        ".dynsym",  ".dynstr", ".note.gnu.build-id", ".gnu_debuglink",
                                        e->lines ? ".debug_line" : ".comment", ".shstrtab"};
    char shstr[256];
    uint32_t at = 0;
    for (int i = 0; i < S_COUNT; i++) {
        sh[i].sh_name = at;
        memcpy(shstr + at, names[i], strlen(names[i]) + 1);
        at += (uint32_t)strlen(names[i]) + 1;
    }
    sh[S_SHSTRTAB] = (Elf64_Shdr){.sh_name = sh[S_SHSTRTAB].sh_name, .sh_type = SHT_STRTAB,
                                  .sh_offset = put(&o, shstr, at), .sh_size = at};
    uint64_t shoff = put(&o, sh, sizeof sh);
    Elf64_Ehdr eh = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
                     .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                     .e_phoff = sizeof eh, .e_shoff = shoff, .e_ehsize = sizeof eh, .e_phentsize = sizeof(Elf64_Phdr),
                     .e_phnum = 1, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = S_COUNT, .e_shstrndx = S_SHSTRTAB};
    Elf64_Phdr ph = {.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = o.n, .p_memsz = 0x3000, .p_align = 0x1000};
    memcpy(o.b, &eh, sizeof eh);
    memcpy(o.b + sizeof eh, &ph, sizeof ph);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(o.b, 1, o.n, f), o.n);
    assert_int_equal(fclose(f), 0);
}

/* An address of a synthetic module and the name it must get (NULL: none). */
typedef struct {
    uint64_t addr;
    const char *name;
} want_name;

/* elf_symtab_names on module (debug files under root) gives each of want[0..n) its name. */
static void assert_names(const char *module, const char *root, const want_name *want, int n)
{
    elf_module m;
    char why[200];
    if (!elf_module_read(module, root, &m, why, sizeof why))
        fail_msg("%s", why);
    uint64_t addr[16];
    char *names[16];
    assert_true(n <= 16);
    for (int i = 0; i < n; i++)
        addr[i] = want[i].addr;
    if (!elf_symtab_names(module, &m, addr, n, names, why, sizeof why))
        fail_msg("%s", why);
    for (int i = 0; i < n; i++) {
        if (want[i].name ? !names[i] || strcmp(names[i], want[i].name) != 0 : names[i] != NULL)
            fail_msg("%s at 0x%llx: %s, want %s", module, (unsigned long long)want[i].addr,
                     names[i] ? names[i] : "(none)", want[i].name ? want[i].name : "(none)");
        free(names[i]);
    }
    elf_module_free(&m);
}

static void make_dirs(const char *path)
{
    cmd_result r = run_shell("mkdir -p '%s'", path);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
}

/* A symbol names the addresses its size covers and no other: an address in the gap between two
 * functions, or past a symbol of size 0, is no function's (the nearest start before it named it
 * once: "PyInit__stat" for much of a stripped python3.12). Of a module's tables .symtab is read
 * first, then .dynsym, then its separate debug file, found by build id under the debug root, or by
 * its debug link where that file's build id is the module's. Such a frame loses the stream's name,
 * reads module+0xoffset, and symbols_why says why. */
static void sized_symbols(void **state)
{
    (void)state;
    static const synth_fn symtab[] = {{"fn_a", 0x1000, 0x100}, {"fn_b", 0x1200, 0x80}, {"static_c", 0x1400, 0x40},
                                      {"zero_d", 0x1500, 0},   {NULL, 0, 0}};
    static const synth_fn dynsym[] = {{"dyn_a", 0x1000, 0x100}, {"fn_b", 0x1200, 0x80}, {"dyn_only", 0x1600, 0x20},
                                      {NULL, 0, 0}};
    static const synth_fn debug[] = {{"debug_a", 0x1000, 0x100}, {"debug_e", 0x1700, 0x40}, {NULL, 0, 0}};
    want_name want[] = {
        {0x1000, "fn_a"},     /* .symtab's, not .dynsym's dyn_a nor the debug file's debug_a */
        {0x10ff, "fn_a"},     /* its last byte */
        {0x1100, NULL},       /* the gap: past fn_a's end, before fn_b */
        {0x11f0, NULL},       /* (the debug file has none there either) */
        {0x1210, "fn_b"},     /* in both tables */
        {0x1420, "static_c"}, /* in .symtab alone */
        {0x1500, "zero_d"},   /* a symbol of size 0 names its own address */
        {0x1501, NULL},       /* and no other */
        {0x1610, "dyn_only"}, /* .dynsym, where no symbol of .symtab covers it */
        {0x1710, "debug_e"},  /* the debug file, where the module has none */
        {0x1800, NULL},       /* past every function */
    };
    int n = (int)(sizeof want / sizeof want[0]);
    char *lib = path_in(test_tmp, "libsynth.so"), *root = path_in(test_tmp, "debug");
    char *dir = path_in(root, ".build-id/ab"), *dbg = path_in(dir, "cdef0123.debug");
    write_synth_elf(lib, &(synth_elf){symtab, dynsym, "abcdef0123", NULL, false});
    make_dirs(dir);
    write_synth_elf(dbg, &(synth_elf){debug, NULL, "abcdef0123", NULL, false});
    assert_names(lib, root, want, n);
    elf_module m;
    char why[200];
    assert_true(elf_module_read(lib, root, &m, why, sizeof why));
    assert_string_equal(m.debug, dbg);
    assert_true(m.has_lines); /* addr2line's to read, for lines */
    elf_module_free(&m);
    /* No debug file under another root: its function is no one's. */
    want[9].name = NULL;
    assert_names(lib, test_tmp, want, n);

    /* By debug link, in the module's directory's .debug/: passed over while its build id is
     * another module's. */
    char *linked = path_in(test_tmp, "liblink.so"), *dot = path_in(test_tmp, ".debug");
    char *by_link = path_in(dot, "liblink.debug");
    make_dirs(dot);
    write_synth_elf(linked, &(synth_elf){NULL, dynsym, "1234", "liblink.debug", false});
    write_synth_elf(by_link, &(synth_elf){debug, NULL, "5678", NULL, false});
    want_name linked_want[] = {{0x1000, "dyn_a"}, {0x1100, NULL}, {0x1420, NULL}, {0x1710, NULL}};
    assert_names(linked, root, linked_want, 4);
    write_synth_elf(by_link, &(synth_elf){debug, NULL, "1234", NULL, false});
    linked_want[3].name = "debug_e";
    assert_names(linked, root, linked_want, 4);

    /* Through the symboliser: the frame in the gap loses the name the stream gave ("dynsym"),
     * reads as module+0xoffset, and symbols_why says why; also where the module has line tables,
     * which addr2line is asked for, and it names the gap by the symbol before it (fn_a, without
     * a line): that name is not taken. */
    char *lined = path_in(test_tmp, "liblined.so");
    write_synth_elf(lined, &(synth_elf){symtab, dynsym, NULL, NULL, true});
    host_activity h;
    memset(&h, 0, sizeof h);
    const char *modules[] = {lib, lined};
    const uint64_t at[] = {0x1100, 0x1010};
    for (int k = 0; k < 4; k++) {
        host_frame nat = {.pid = 1, .parent = -1, .kind = HOST_FRAME_NATIVE, .module = (char *)modules[k / 2],
                          .offset = at[k % 2], .function = "dynsym"};
        assert_int_equal(host_add_frame(&h, &nat), k);
    }
    host_symbolize(&h);
    for (int k = 0; k < 4; k++) {
        const host_frame *f = &h.frames[k];
        if (k % 2 ? !f->function || strcmp(f->function, "fn_a") != 0 : f->function != NULL)
            fail_msg("%s+0x%llx: %s", f->module, (unsigned long long)f->offset, f->function ? f->function : "(none)");
    }
    char words[HOST_NAME];
    host_frame_name(&h.frames[0], true, words, sizeof words);
    assert_string_equal(words, "libsynth.so+0x1100");
    if (strstr(h.symbols_why, "could not be run") ||
        !strstr(h.symbols_why, "2 of 2 modules have frames no symbol covers (stripped: shown as module+0xoffset; "
                               "first: liblined.so)"))
        fail_msg("symbols_why: %s", h.symbols_why);
    host_activity_free(&h);
    free(lined);
    free(by_link);
    free(dot);
    free(linked);
    free(dbg);
    free(dir);
    free(root);
    free(lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(many_modules, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(pie_and_classic_executables, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(inlined_code_names_its_caller, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(what_could_not_be_had, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(symbol_table_names_as_addr2line, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(slow_addr2line_stopped, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(naming_in_passes, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(sized_symbols, test_tmp_setup, test_tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
