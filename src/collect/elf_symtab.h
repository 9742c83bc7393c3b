/* A module's ELF file, read in process for naming native frames (symbolize.c): where its offsets
 * start, whether it has line tables, and the function names of its own symbol tables.
 *
 * Names from the symbol table, not from addr2line, for every module: addr2line finds the function
 * of each address by a walk over the whole symbol table where there is no DWARF (binutils'
 * elf_find_function), about 6 ms an address in a library of 250 k symbols, 1.7 s for 278 frames
 * of one module. Here the table is read once, in order, and each symbol goes to the frame
 * addresses it covers (a binary search among them); only the names that win are read.
 * Memory is that of the addresses, not of the table: PyTorch's libraries hold millions of
 * symbols, and their names hundreds of megabytes that no one loaded. */
#ifndef MMPROF_ELF_SYMTAB_H
#define MMPROF_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One symbol table of a file and its strings; size 0 where the file has none. */
typedef struct {
    uint64_t offset, size, entsize, str_offset, str_size;
} elf_symbols;

typedef struct {
    /* What a module's offset (from dladdr's dli_fbase, the start of its first loaded segment)
     * adds to be an address of the file, which addr2line and elf_symtab_names take: the first
     * PT_LOAD's page-aligned p_vaddr (0 for a shared library or PIE executable; 0x400000 for a
     * classic non-PIE executable). */
    uint64_t bias;
    /* Line tables in the file (.debug_line) or a separate debug file it names (.gnu_debuglink,
     * or its build id under /usr/lib/debug): addr2line's to read, for files and lines. */
    bool has_lines;
    /* The section headers could be read (64-bit little-endian); the tables are then those found
     * (each possibly empty: a stripped library has .dynsym alone). */
    bool symbols;
    elf_symbols symtab, dynsym;
} elf_module;

/* Reads path's ELF header, program headers and section headers (a few kilobytes) into *m. False
 * with why when it is not a 64-bit ELF file with loaded segments, or cannot be opened. */
bool elf_module_read(const char *path, elf_module *m, char *why, size_t len);

/* For each of addr[0..n) (addresses of the file), the name as stored (mangled, malloc'd; NULL
 * where no function symbol covers it) of the function symbol that covers it: from .symtab, else
 * .dynsym; within one table the innermost (latest start), then the
 * largest, then the first in the table, as addr2line chooses. A symbol covers
 * [st_value, st_value + st_size), and one of size 0 only its own address (elf_symtab.c says why).
 * m is path's (elf_module_read), with symbols. False with why when the tables could not be read,
 * or memory ran out. */
bool elf_symtab_names(const char *path, const elf_module *m, const uint64_t *addr, int n, char **names, char *why,
                      size_t len);

#endif
