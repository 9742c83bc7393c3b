/* mmprof store DB RUN...: run files into a database, read and analysed on as many threads as
 * there are processors while the main thread writes them in the order given, all in one
 * transaction: a file that cannot be read stores nothing, and says which. */
#include "store_cli.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "run_rows.h"
#include "run_store.h"
#include "schema.h"
#include "store.h"

static void usage(FILE *f)
{
    fputs("Usage: mmprof store DB RUN... [OPTIONS]\n"
          "\n"
          "Stores run files (mmprof --json, profile --json, import --json) in the database DB: an\n"
          "SQLite file, made when missing, or a PostgreSQL server named by its URL\n"
          "(postgresql://[user@]host[:port]/dbname, or postgresql:///dbname?host=/run/postgresql for\n"
          "a Unix socket; libpq's environment variables apply). Each run is keyed by its content, so\n"
          "storing a run again adds nothing. All the files are stored in one transaction: if one\n"
          "cannot be read, nothing is stored. docs/sql.md gives the tables and queries over them;\n"
          "`mmprof diff` and `mmprof history` read them.\n"
          "\n"
          "Options:\n"
          "      --jobs N            read and analyse N files at once (default: the processors)\n"
          "      --schema            print the tables (SQLite's SQL) and exit; no DB or RUN\n"
          "  -q, --quiet             no line per run\n"
          "  -h, --help              this help\n"
          "\n"
          "Exit status: 0 every run stored (or there already); 2 bad option or a run file that\n"
          "cannot be read; 4 the database cannot be opened or written (nothing stored).\n",
          f);
}

typedef struct {
    const char *path;
    run_rows rows;
    char err[640];
    int state; /* 0 pending, 1 ready, 2 failed */
} store_job;

typedef struct {
    store_job *jobs;
    int n, next, written, window;
    bool stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} store_queue;

static void *worker(void *arg)
{
    store_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        while (!q->stop && q->next < q->n && q->next - q->written >= q->window)
            pthread_cond_wait(&q->cond, &q->lock);
        if (q->stop || q->next >= q->n) {
            pthread_mutex_unlock(&q->lock);
            return NULL;
        }
        store_job *j = &q->jobs[q->next++];
        pthread_mutex_unlock(&q->lock);
        bool ok = run_rows_of_file(j->path, &j->rows, j->err, sizeof j->err);
        pthread_mutex_lock(&q->lock);
        j->state = ok ? 1 : 2;
        pthread_cond_broadcast(&q->cond);
        pthread_mutex_unlock(&q->lock);
    }
}

/* The files' rows written in order as the workers make them; false with why in err, and
 * *bad_file true when a run file (not the database) was the trouble. */
static bool store_files(db *d, store_queue *q, int njobs, bool quiet, FILE *out, char *err, size_t errlen,
                        bool *bad_file)
{
    pthread_t th[64];
    int started = 0;
    for (; started < njobs; started++)
        if (pthread_create(&th[started], NULL, worker, q) != 0)
            break;
    if (started == 0) {
        snprintf(err, errlen, "cannot start a thread");
        return false;
    }
    bool ok = true;
    int added = 0;
    for (int i = 0; ok && i < q->n; i++) {
        store_job *j = &q->jobs[i];
        pthread_mutex_lock(&q->lock);
        while (j->state == 0)
            pthread_cond_wait(&q->cond, &q->lock);
        pthread_mutex_unlock(&q->lock);
        if (j->state == 2) {
            snprintf(err, errlen, "%s", j->err);
            *bad_file = true;
            ok = false;
            break;
        }
        long long id;
        bool is_new;
        char real[PATH_MAX];
        ok = store_rows(d, &j->rows, realpath(j->path, real) ? real : j->path, &id, &is_new, err, errlen);
        if (ok && !quiet)
            fprintf(out, "%s: %s run %lld (key %.12s)\n", j->path, is_new ? "stored as" : "already there as", id,
                    j->rows.key);
        added += ok && is_new;
        run_rows_free(&j->rows);
        pthread_mutex_lock(&q->lock);
        q->written = i + 1;
        pthread_cond_broadcast(&q->cond);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_lock(&q->lock);
    q->stop = true;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    for (int i = 0; i < q->n; i++)
        if (q->jobs[i].state == 1)
            run_rows_free(&q->jobs[i].rows);
    if (ok && !quiet)
        fprintf(out, "%d run%s stored, %d already there, in %s\n", added, added == 1 ? "" : "s", q->n - added, d->name);
    return ok;
}

int store_main(int argc, char **argv, FILE *out, FILE *err)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, NULL, 'J'}, {"schema", no_argument, NULL, 'S'},
        {"quiet", no_argument, NULL, 'q'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    bool quiet = false, schema = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'J':
            if (!parse_positive(optarg, 64, &jobs)) {
                fprintf(err, "mmprof store: --jobs '%s': expected a whole number from 1 to 64\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'S': schema = true; break;
        case 'q': quiet = true; break;
        case 'h': usage(out); return EXIT_OK;
        case ':': fprintf(err, "mmprof store: option '%s' needs a value\n", argv[optind - 1]); return EXIT_USAGE;
        default:
            fprintf(err, "mmprof store: unknown option '%s' (try mmprof store --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (schema) {
        strbuf b;
        sb_init(&b);
        schema_sql(&b, DB_SQLITE);
        if (!b.oom)
            fputs(b.s, out);
        sb_free(&b);
        return b.oom ? EXIT_OUTPUT : EXIT_OK;
    }
    if (argc - optind < 2) {
        fprintf(err, "mmprof store: expected a database and at least one run file (mmprof store DB RUN...)\n");
        return EXIT_USAGE;
    }
    if (jobs < 1)
        jobs = 1;
    const char *name = argv[optind];
    int n = argc - optind - 1;
    for (int i = 0; i < n; i++)
        if (access(argv[optind + 1 + i], R_OK) != 0) {
            fprintf(err, "mmprof store: cannot read run file '%s'; nothing stored\n", argv[optind + 1 + i]);
            return EXIT_USAGE;
        }
    char msg[1024];
    db *d = db_open(name, true, msg, sizeof msg);
    if (!d) {
        fprintf(err, "mmprof store: %s\n", msg);
        return EXIT_OUTPUT;
    }
    store_queue q = {.n = n, .window = 2 * (int)jobs, .lock = PTHREAD_MUTEX_INITIALIZER,
                     .cond = PTHREAD_COND_INITIALIZER};
    q.jobs = calloc((size_t)n, sizeof *q.jobs);
    if (!q.jobs) {
        db_close(d);
        fprintf(err, "mmprof store: out of memory\n");
        return EXIT_OUTPUT;
    }
    for (int i = 0; i < n; i++)
        q.jobs[i].path = argv[optind + 1 + i];
    bool bad_file = false;
    int status = EXIT_OK;
    if (!store_begin(d, msg, sizeof msg)) {
        fprintf(err, "mmprof store: %s\n", msg);
        status = EXIT_OUTPUT;
    } else if (!store_files(d, &q, jobs > n ? n : (int)jobs, quiet, out, msg, sizeof msg, &bad_file) ||
               !store_commit(d, msg, sizeof msg)) {
        store_rollback(d);
        fprintf(err, "mmprof store: %s; nothing stored\n", msg);
        status = bad_file ? EXIT_USAGE : EXIT_OUTPUT;
    }
    free(q.jobs);
    db_close(d);
    return status;
}
