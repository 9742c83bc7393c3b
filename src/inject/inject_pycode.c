/* Code objects: their names and lines for the code cache (inject_host.c), through Python's API
 * under the GIL, or read as memory without it. See inject_py.h and docs/host-sampling.md.
 *
 * Under the GIL the cache takes a reference to each code object it names (held: never freed).
 * Without it no reference can be taken (a reference count changes only under the GIL), so a code
 * object named then may be freed later and another made at its address: its entry keeps a tag
 * (the addresses of the object's name strings), checked against the object at that address each
 * time the entry is used without the GIL, and named anew where it differs. What is read without
 * the GIL goes through py_peek: the thread running Python may free the object while the sampler
 * reads it, which then gives a refused read or wrong text, never a crash:
 *  - names: co_qualname and co_filename, where they are compact ASCII strings (PyUnicode_Type's,
 *    their characters right after the header); others are named under the GIL (their UTF-8 form
 *    may not exist yet, and making it allocates);
 *  - lines: the code's location table (co_linetable, a PyBytes_Type object) decoded as
 *    PyCode_Addr2Line decodes it (CPython's Objects/locations.md; 3.11 and 3.12 alike).
 * Where these fields are in the objects is found on the live interpreter under the GIL, and the
 * reads are checked against Python's own answers on every code object on the stacks then
 * (py_check_code_reads); where they do not match, code objects are named under the GIL only, and
 * lines are PyCode_Addr2Line's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject_py.h"

#define STATE_OFFSET 32   /* PyASCIIObject's state bits (compact 0x20, ascii 0x40), 3.11 and 3.12 */
#define LENGTH_OFFSET 16  /* PyASCIIObject's length */
#define MAX_TABLE (1 << 20) /* a location table longer than this is not read */

/* Where a code object's names and line table are (offsets in the code object), and where the
 * characters of a compact ASCII string and the bytes of a bytes object start in theirs. */
static struct {
    bool found;           /* the offsets */
    bool names, lines;    /* and reading names, or lines, gave Python's answers */
    size_t qualname, filename, chars;
    size_t linetable, firstlineno, bytes;
} at_;

/* An object's first words: reference count, type, and size (a variable-size object's). */
typedef struct {
    intptr_t refcnt;
    const void *type;
    intptr_t size;
} object_head;

/* ---- through Python's API (the GIL is held) ---- */

/* A string attribute of obj as UTF-8 in out ("" where it has none). */
static void attr_text(pyobj *obj, const char *attr, char *out, size_t len)
{
    pyobj *s = py.GetAttrString(obj, attr);
    const char *u = s ? py.UnicodeAsUTF8(s) : NULL;
    snprintf(out, len, "%s", u ? u : "");
    if (s)
        py.DecRef(s);
    py.ErrClear();
}

/* A code object's name (co_qualname where Python has it, else co_name) and file. */
static void code_names(pyobj *code, char *function, size_t flen, char *file, size_t plen)
{
    attr_text(code, "co_qualname", function, flen);
    if (!function[0])
        attr_text(code, "co_name", function, flen);
    attr_text(code, "co_filename", file, plen);
}

bool py_hold_codes(const raw_frame *f, int n)
{
    bool all = true;
    for (int i = 0; i < n; i++) {
        pyobj *code = (pyobj *)(uintptr_t)f[i].code;
        uint64_t tag = 1;
        bool cached = inject_host_code_tag(f[i].code, &tag);
        if (cached && tag == 0)
            continue;
        /* new, or named without a reference (the object named then may have been freed and this
         * one made at its address): named by Python now */
        char function[256], file[1024];
        code_names(code, function, sizeof function, file, sizeof file);
        if (cached ? inject_host_code_rename(f[i].code, 0, function, file) : inject_host_code_add(f[i].code, 0, function, file))
            py.IncRef(code);
        else
            all = false;
    }
    return all;
}

/* ---- as memory ---- */

uint64_t py_code_tag(const void *code)
{
    if (!at_.names)
        return 0;
    return ((uint64_t)(uintptr_t)py_at(code, at_.qualname) * 31 ^ (uint64_t)(uintptr_t)py_at(code, at_.filename)) | 1;
}

size_t py_code_head_span(void)
{
    size_t span = sizeof(object_head);
    if (at_.names && at_.qualname + sizeof(void *) > span)
        span = at_.qualname + sizeof(void *);
    if (at_.names && at_.filename + sizeof(void *) > span)
        span = at_.filename + sizeof(void *);
    return span;
}

/* A compact ASCII string's text into out (cap bytes with its NUL), through py_peek. */
static bool peek_ascii(const void *str, char *out, size_t cap)
{
    struct {
        object_head h; /* its size is the string's length (LENGTH_OFFSET) */
        intptr_t hash;
        uint32_t state;
    } s;
    if (!str || !py_peek(str, 0, &s, sizeof s) || s.h.type != py.unicode_type || (s.state & 0x60) != 0x60 ||
        s.h.size < 0 || (size_t)s.h.size >= cap || !py_peek(str, at_.chars, out, (size_t)s.h.size))
        return false;
    out[s.h.size] = '\0';
    return true;
}

/* A code object's names and tag, read as memory. */
static bool peek_names(const void *code, char *function, size_t flen, char *file, size_t plen, uint64_t *tag)
{
    void *w[512 / sizeof(void *)];
    size_t span = py_code_head_span();
    if (!at_.found || span > sizeof w || !py_peek(code, 0, w, span) || ((object_head *)w)->type != py.code_type)
        return false;
    *tag = ((uint64_t)(uintptr_t)py_at(w, at_.qualname) * 31 ^ (uint64_t)(uintptr_t)py_at(w, at_.filename)) | 1;
    return peek_ascii(py_at(w, at_.qualname), function, flen) && peek_ascii(py_at(w, at_.filename), file, plen);
}

/* A signed varint of a location table at t[i] (6 bits a byte, 0x40: more; the lowest bit the
 * sign); 0 where the table ends first. */
static int signed_varint(const uint8_t *t, size_t len, size_t i)
{
    unsigned val = 0, shift = 0, read;
    do {
        if (i >= len || shift > 24)
            return 0;
        read = t[i++];
        val |= (read & 63u) << shift;
        shift += 6;
    } while (read & 64);
    return (val & 1) ? -(int)(val >> 1) : (int)(val >> 1);
}

/* The line of the instruction at offset lasti (bytes) from a location table: entries of a first
 * byte 1CCCCLLL (code C; L + 1 code units) and more bytes without the top bit; the line moves by
 * the entry's delta (codes 13 and 14: a signed varint; 10 to 12: 0 to 2); code 15 has no line
 * (-1). PyCode_Addr2Line's answer, -1 past the table. */
static int table_line(const uint8_t *t, size_t len, int first, int lasti)
{
    if (lasti < 0)
        return first;
    int line = first;
    long end = 0;
    for (size_t i = 0; i < len;) {
        uint8_t b = t[i];
        int code = (b >> 3) & 15;
        line += code == 13 || code == 14 ? signed_varint(t, len, i + 1) : code >= 10 && code <= 12 ? code - 10 : 0;
        end += ((b & 7) + 1) * 2;
        if (lasti < end)
            return code == 15 ? -1 : line;
        for (i++; i < len && !(t[i] & 128); i++)
            ;
    }
    return -1;
}

/* A code object's line at lasti from its location table, read as memory; 0 where it cannot be. */
static int peek_line(const void *code, int lasti)
{
    void *table = NULL;
    int first = 0;
    object_head h;
    if (!py_peek(code, at_.linetable, &table, sizeof table) || !py_peek(code, at_.firstlineno, &first, sizeof first) ||
        !py_peek(table, 0, &h, sizeof h) || h.type != py.bytes_type || h.size < 0 || h.size > MAX_TABLE)
        return 0;
    uint8_t small[4096];
    uint8_t *t = (size_t)h.size <= sizeof small ? small : malloc((size_t)h.size);
    int line = t && py_peek(table, at_.bytes, t, (size_t)h.size) ? table_line(t, (size_t)h.size, first, lasti) : 0;
    if (t != small)
        free(t);
    return line;
}

int inject_py_key_line(const host_key *k)
{
    if (at_.lines)
        return peek_line((const void *)(uintptr_t)k->a, (int)k->b);
    return py.CodeAddr2Line((pyobj *)(uintptr_t)k->a, (int)k->b);
}

bool py_code_reads_ok(void) { return at_.names && at_.lines; }

/* Why names or lines are not read as memory, in words (for the sampler line); NULL where they are,
 * or before the check. */
static char reads_why[160];

const char *py_code_reads_why(void) { return reads_why[0] ? reads_why : NULL; }

bool py_name_codes(const raw_frame *f, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t cached, tag = f[i].tag;
        bool known = inject_host_code_tag(f[i].code, &cached);
        if (known && cached == 0)
            continue; /* held */
        if (known && tag && tag == cached)
            continue; /* the object named then */
        const void *code = (const void *)(uintptr_t)f[i].code;
        char function[256], file[1024];
        if (!at_.names || !peek_names(code, function, sizeof function, file, sizeof file, &tag))
            return false;
        if (known && tag == cached)
            continue;
        if (!(known ? inject_host_code_rename(f[i].code, tag, function, file) : inject_host_code_add(f[i].code, tag, function, file)))
            return false;
    }
    return true;
}

bool py_codes_cached(const raw_frame *f, int n, bool held)
{
    for (int i = 0; i < n; i++) {
        uint64_t tag;
        if (!inject_host_code_tag(f[i].code, &tag) || (held && tag != 0))
            return false;
    }
    return true;
}

/* ---- the check (the GIL is held) ---- */

/* The first word at or after 16 and before the code's instructions holding value, other than the
 * word at not (0: none). */
static size_t word_holding(const void *code, const void *value, size_t not)
{
    for (size_t off = 16; off + sizeof(void *) <= py_layout.code_start; off += sizeof(void *))
        if (py_at(code, off) == value && off != not)
            return off;
    return 0;
}

/* The offsets, from one code object whose names are ASCII, and a first line that holds for all. */
static void find_offsets(const raw_frame *f, int n)
{
    for (int i = 0; i < n && !at_.found; i++) {
        pyobj *code = (pyobj *)(uintptr_t)f[i].code;
        pyobj *q = py.GetAttrString(code, "co_qualname"), *p = py.GetAttrString(code, "co_filename");
        pyobj *t = py.GetAttrString(code, "co_linetable"), *nm = py.GetAttrString(code, "co_name");
        const char *qu = q ? py.UnicodeAsUTF8(q) : NULL, *pu = p ? py.UnicodeAsUTF8(p) : NULL;
        const char *tb = t ? py.BytesAsString(t) : NULL;
        py.ErrClear();
        /* a function's qualified name is often the very object of its name (co_name, a field of
         * its own): not that one */
        at_.qualname = word_holding(code, q, nm ? word_holding(code, nm, 0) : 0);
        at_.filename = word_holding(code, p, 0);
        at_.linetable = word_holding(code, t, 0);
        at_.chars = qu ? (size_t)(qu - (const char *)q) : 0;
        at_.bytes = tb ? (size_t)(tb - (const char *)t) : 0;
        at_.found = qu && pu && tb && at_.qualname && at_.filename && at_.linetable && at_.chars < 128 &&
                    at_.chars == (size_t)(pu - (const char *)p) && at_.bytes < 128;
        pyobj *held[] = {q, p, t, nm};
        for (size_t k = 0; k < sizeof held / sizeof held[0]; k++)
            if (held[k])
                py.DecRef(held[k]);
    }
    /* co_firstlineno: a C int; the first place where every code object of f has its own */
    for (size_t off = 16; at_.found && !at_.firstlineno && off + sizeof(int) <= py_layout.code_start; off += sizeof(int)) {
        bool all = true;
        for (int i = 0; i < n && all; i++) {
            pyobj *code = (pyobj *)(uintptr_t)f[i].code, *l = py.GetAttrString(code, "co_firstlineno");
            long first = l ? py.LongAsLong(l) : -1;
            py.ErrClear();
            if (l)
                py.DecRef(l);
            all = *(const int *)((const char *)code + off) == first;
        }
        if (all)
            at_.firstlineno = off;
    }
    at_.found = at_.found && at_.firstlineno;
}

void py_check_code_reads(const raw_frame *f, int n)
{
    static bool tried;
    if (n <= 0 || !py.code_type || !py.unicode_type || !py.bytes_type || !py.BytesAsString || !py.LongAsLong)
        return;
    if (!tried) {
        find_offsets(f, n);
        tried = true;
        at_.names = at_.lines = at_.found;
        if (!at_.found)
            snprintf(reads_why, sizeof reads_why, "code objects' names and line tables were not found in them");
    }
    for (int i = 0; i < n && (at_.names || at_.lines); i++) {
        pyobj *code = (pyobj *)(uintptr_t)f[i].code;
        char function[256], file[1024], pf[256], pp[1024];
        uint64_t tag;
        code_names(code, function, sizeof function, file, sizeof file);
        /* a name that is not ASCII is not read this way: only those that are are compared */
        if (peek_names(code, pf, sizeof pf, pp, sizeof pp, &tag) &&
            (strcmp(pf, function) != 0 || strcmp(pp, file) != 0 || tag != py_code_tag(code)))
            at_.names = false, snprintf(reads_why, sizeof reads_why, "the names of %.60s read as memory were not Python's", function);
        if (peek_line(code, (int)f[i].b) != py.CodeAddr2Line(code, (int)f[i].b))
            at_.lines = false, snprintf(reads_why, sizeof reads_why, "the lines of %.60s read as memory were not Python's", function);
    }
}
