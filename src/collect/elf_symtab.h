/* Function names from an ELF file's own symbol table, in process, for modules without line
 * tables. addr2line finds the function of each address by a walk over the whole symbol table
 * there (binutils' elf_find_function, without DWARF): about 6 ms an address in a library of
 * 250 k symbols, 1.7 s for 278 frames of one module. Here the table is read once, in order, and
 * each symbol goes to the frame addresses it could name (a binary search among them); only the
 * names that win are read. Memory is that of the addresses, not of the table: PyTorch's
 * libraries hold millions of symbols, and their names hundreds of megabytes that no one loaded. */
#ifndef MMPROF_ELF_SYMTAB_H
#define MMPROF_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* For each of addr[0..n) (addresses of the file, as addr2line takes them), the name as stored
 * (mangled, malloc'd; NULL where no function starts at or before it) of the function addr2line
 * would give without line tables: the nearest function start at or before it (its size does not
 * bound it), and of several symbols there the largest, then the first in the table. Uses
 * .symtab, else .dynsym. *has_lines: the file has line tables (.debug_line) or names a separate
 * debug file (.gnu_debuglink, or its build id under /usr/lib/debug), which addr2line reads for
 * files and lines. n may be 0 (names NULL): the section headers alone are read. False with why
 * when path is not a 64-bit little-endian ELF file whose sections could be read, or memory ran
 * out. */
bool elf_symtab_names(const char *path, const uint64_t *addr, int n, char **names, bool *has_lines, char *why,
                      size_t len);

#endif
