/* Native frames named by source line: after the profiled program ended, the launcher gives each
 * native frame of host_activity (a module and an offset from the injection library's dladdr) its
 * function, source file and line from the module's symbol table and DWARF line tables. */
#ifndef MMPROF_SYMBOLIZE_H
#define MMPROF_SYMBOLIZE_H

#include "host_activity.h"

/* Symbolises h's native frames in place: function (demangled) where the module's symbol table
 * names one (read in process, elf_symtab.h), file and line where its line tables do (addr2line,
 * stopped MMPROF_ADDR2LINE_SECONDS, default 1, after naming began); frames the tables do not
 * cover keep what the stream gave. h->symbols_why says in words what could not be had (no
 * addr2line, a module gone or unreadable, modules without line tables, modules addr2line did not
 * finish in time); "" when nothing was missing. */
void host_symbolize(host_activity *h);
/* host_symbolize on a thread of its own, handed to h (host_names_wait joins it); where no thread
 * can be started, host_symbolize itself. */
void host_symbolize_start(host_activity *h);

#endif
