/* Function names from an ELF file's own symbol table, in process, for modules without line
 * tables: addr2line finds the function of each address by a walk over the whole symbol table
 * (binutils' elf_find_function, where there is no DWARF), which for a library of 250 k symbols is
 * about 6 ms an address: 1.7 s for 278 frames of one module, most of a PyTorch profile's time
 * from its exit to its report. Sorted once here, each address is a binary search. */
#ifndef MMPROF_ELF_SYMTAB_H
#define MMPROF_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t addr, size;
    const char *name; /* into the mapped file */
    size_t order;     /* in the symbol table */
} elf_function;

typedef struct {
    void *map;
    size_t len;
    elf_function *fn; /* by address */
    size_t n;
    bool has_lines; /* line tables in the file (.debug_line) or a separate debug file it names:
                       addr2line's to read */
} elf_symtab;

/* Maps path and sorts its function symbols (.symtab, else .dynsym). False with why when it is not
 * a 64-bit little-endian ELF file that could be read. */
bool elf_symtab_open(const char *path, elf_symtab *t, char *why, size_t len);

/* The function that addr (an address of the file, as addr2line takes) falls in, its name as
 * stored (mangled), chosen as addr2line chooses without line tables: the nearest function start
 * at or before addr, and of several symbols there the largest, then the first in the table;
 * NULL where no function starts at or before it. Valid until elf_symtab_close. */
const char *elf_symtab_find(const elf_symtab *t, uint64_t addr);

void elf_symtab_close(elf_symtab *t);

#endif
