/* --db: a run's rows stored whole or not at all. */
#include "run_store.h"

#include <stdio.h>

#include "analyze.h"
#include "model_json.h"
#include "run_rows.h"
#include "store.h"

bool run_store(db *d, const analysis *a, const char *file, FILE *say, char *err, size_t errlen)
{
    run_rows r;
    if (!run_rows_from_analysis(a, &r)) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    long long id;
    bool added = false;
    bool ok = store_begin(d, err, errlen);
    if (ok && !(store_rows(d, &r, file, &id, &added, err, errlen) && store_commit(d, err, errlen))) {
        store_rollback(d);
        ok = false;
    }
    if (ok && say)
        fprintf(say, "mmprof: %s run %lld (key %.12s) in %s\n", added ? "stored as" : "already stored as", id, r.key,
                d->name);
    run_rows_free(&r);
    return ok;
}

bool run_rows_of_file(const char *path, run_rows *out, char *err, size_t errlen)
{
    run_model m;
    char msg[512];
    if (!model_read_file(path, &m, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        return false;
    }
    analysis a;
    bool ok = analysis_fits(&m, msg, sizeof msg);
    if (!ok)
        snprintf(err, errlen, "'%s': %s", path, msg);
    else if (!(ok = analyze(&m, &a)))
        snprintf(err, errlen, "out of memory while analysing '%s'", path);
    if (ok) {
        if (!(ok = run_rows_from_analysis(&a, out)))
            snprintf(err, errlen, "out of memory while storing '%s'", path);
        analysis_free(&a);
    }
    model_free(&m);
    return ok;
}

