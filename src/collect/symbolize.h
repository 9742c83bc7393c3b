/* Native frames named by source line: after the profiled program ended, the launcher gives each
 * native frame of host_activity (a module and an offset from the injection library's dladdr) its
 * function, source file and line from the module's symbol table and DWARF line tables. */
#ifndef MMPROF_SYMBOLIZE_H
#define MMPROF_SYMBOLIZE_H

#include "host_activity.h"

/* What naming has done so far, where frames are named in passes: while the program runs (its
 * modules loaded, the launcher idle) each pass names the frames read since the last, and the last
 * pass after its exit names the rest. Zero-initialised. */
struct symbol_module;
typedef struct {
    int named_upto;   /* frames of h before this index have been through a pass */
    double last_pass; /* when the last pass ended, monotonic seconds (thread_wait.h) */
    struct symbol_module *mods; /* the modules met, each counted once in symbols_why, and one whose
                                   addr2line ran out of time is not given it again */
    int nmods;
    bool no_tool;    /* addr2line could not be run */
    bool last;       /* the pass after the exit: MMPROF_TIMINGS notes each module's way and time */
} symbol_passes;

/* Names h's native frames from o->named_upto on, in place: function (demangled) where a symbol
 * of the module's tables covers the address (read in process, elf_symtab.h), none where the
 * tables were read and none does (the report then shows module+offset), file and line where its
 * line tables cover it (addr2line, stopped MMPROF_ADDR2LINE_SECONDS, default 1, after the pass
 * began), those of the innermost inlined scope where the address lies in inlined code, with a
 * node appended to h for the function it lies in, at its line of the call (host_frame.outer);
 * frames of a module that cannot be read keep what the stream gave. */
void host_symbolize_new(host_activity *h, symbol_passes *o);
/* h->symbols_why from o: in words what could not be had (no addr2line, a module gone or
 * unreadable, modules without line tables, modules with frames no symbol covers, modules
 * addr2line did not finish in time); "" when nothing was missing. */
void symbol_passes_why(const symbol_passes *o, host_activity *h);
void symbol_passes_free(symbol_passes *o);

/* Every native frame of h named in one pass, symbols_why said. */
void host_symbolize(host_activity *h);
/* The last pass (o: the passes so far, heap-allocated and handed over; NULL: none) on a thread of
 * its own, handed to h (host_names_wait joins it); where no thread can be started, here. */
void host_symbolize_start(host_activity *h, symbol_passes *o);

#endif
