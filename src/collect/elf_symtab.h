/* A module's ELF file, read in process for naming native frames (symbolize.c): where its offsets
 * start, whether it has line tables, and the function names of its own symbol tables and of a
 * separate debug file installed for it.
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

/* Where separate debug files are installed: .build-id/NN/REST.debug and copies of the modules'
 * directories under it (gdb's and addr2line's default). */
#define ELF_DEBUG_ROOT "/usr/lib/debug"

/* One symbol table of a file and its strings; size 0 where the file has none. */
typedef struct {
    uint64_t offset, size, entsize, str_offset, str_size;
} elf_symbols;

typedef struct {
    /* The first PT_LOAD's page-aligned p_vaddr (0 for a shared library or PIE executable;
     * 0x400000 for a classic non-PIE executable): where the file's addresses start. A frame's
     * offset needs none of it (inject_host.c writes the address less the link map's l_addr,
     * already an address of the file, which addr2line and elf_symtab_names take); a debug file
     * whose own differs has its addresses moved by the difference. */
    uint64_t bias;
    /* Line tables in the file (.debug_line), or a separate debug file found for it (debug):
     * addr2line's to read, for files and lines. */
    bool has_lines;
    /* The section headers could be read (64-bit little-endian); the tables are then those found
     * (each possibly empty: a stripped library has .dynsym alone). */
    bool symbols;
    elf_symbols symtab, dynsym;
    /* The NT_GNU_BUILD_ID note's bytes (build_id_len 0: none): a debug file must carry the same. */
    unsigned char build_id[64];
    int build_id_len;
    /* The separate debug file found for it (malloc'd; NULL: none): by build id under the debug
     * root, else by its .gnu_debuglink name in the root's copy of its directory, its
     * directory's .debug/ or its directory, where that file's build id, if any, is the module's. */
    char *debug;
} elf_module;

/* Reads path's ELF header, program headers and section headers (a few kilobytes) into *m, and
 * looks for its separate debug file under debug_root (ELF_DEBUG_ROOT; a test's own directory;
 * NULL: none looked for, as for a debug file itself). False with why when it is not a 64-bit ELF
 * file with loaded segments, or cannot be opened. elf_module_free releases it either way. */
bool elf_module_read(const char *path, const char *debug_root, elf_module *m, char *why, size_t len);
void elf_module_free(elf_module *m);

/* For each of addr[0..n) (addresses of the file), the name as stored (mangled, malloc'd; NULL
 * where no function symbol covers it) of the function symbol that covers it: from .symtab, else
 * .dynsym, else the debug file's tables; within one table the innermost (latest start), then the
 * largest, then the first in the table, as addr2line chooses. A symbol covers
 * [st_value, st_value + st_size), and one of size 0 only its own address (elf_symtab.c says why).
 * m is path's (elf_module_read), with symbols. False with why when the module's tables could not
 * be read, or memory ran out (a debug file that cannot be read is passed over). */
bool elf_symtab_names(const char *path, const elf_module *m, const uint64_t *addr, int n, char **names, char *why,
                      size_t len);

#endif
