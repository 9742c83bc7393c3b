/* libFuzzer target: Nsight Systems SQLite exports, through import_nsys_sqlite (see fuzz_import.h).
 * The seeds are small exports of both styles (with and without the ENUM_ tables; new_style and
 * old_style are the .sql files of tests/data/nsys run through sqlite3); SQLite itself
 * must refuse what is not a database, and the importer what is not an export. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_import(import_nsys_sqlite, data, size);
}
