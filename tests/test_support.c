/* Test helpers. See test_support.h. */
#include "test_support.h"

#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model_json.h"

extern char **environ;

const char *mmprof_bin(void)
{
    const char *b = getenv("MMPROF_BIN");
    return b && b[0] ? b : "build/mmprof";
}

const char *sample_path(void)
{
    const char *s = getenv("MMPROF_SAMPLE");
    return s && s[0] ? s : "samples/h200-2048.json";
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

const char *beside_bin(const char *rel)
{
    static char path[1024];
    const char *bin = mmprof_bin();
    const char *slash = strrchr(bin, '/');
    snprintf(path, sizeof path, "%.*s/%s", slash ? (int)(slash - bin) : 1, slash ? bin : ".", rel);
    return path;
}

bool gpu_usable(void)
{
    const char *argv[] = {mmprof_bin(), "--require-gpu", "--quiet", "--size", "16", "--workloads", "cuda-naive", NULL};
    cmd_result r = run_argv(argv, NULL);
    bool ok = r.status == 0;
    if (!ok)
        print_message("no usable GPU (mmprof --require-gpu exited %d: %s)\n", r.status, r.err);
    cmd_free(&r);
    return ok;
}

char *path_in(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

char *make_temp_dir(void)
{
    char tmpl[] = "/tmp/mmprof-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

void rm_rf(const char *dir)
{
    if (!dir || strncmp(dir, "/tmp/mmprof-test-", 17) != 0)
        return; /* never anything but our own temporary directories */
    const char *argv[] = {"rm", "-rf", dir, NULL};
    cmd_result r = run_argv(argv, NULL);
    cmd_free(&r);
}

int temp_dir_setup(void **state)
{
    *state = make_temp_dir();
    return *state ? 0 : -1;
}

int temp_dir_teardown(void **state)
{
    rm_rf(*state);
    free(*state);
    return 0;
}

cmd_result run_argv(const char *const *argv, const char *const *env)
{
    cmd_result r = {.status = -1};
    char outp[] = "/tmp/mmprof-out-XXXXXX", errp[] = "/tmp/mmprof-err-XXXXXX";
    int ofd = mkstemp(outp), efd = mkstemp(errp);
    if (ofd < 0 || efd < 0)
        return r;
    /* The child's environment: ours plus env. */
    size_t n = 0, extra = 0;
    while (environ[n])
        n++;
    while (env && env[extra])
        extra++;
    char **envp = calloc(n + extra + 1, sizeof *envp);
    for (size_t i = 0; i < n; i++)
        envp[i] = environ[i];
    for (size_t i = 0; i < extra; i++)
        envp[n + i] = (char *)env[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ofd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, efd, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (rc == 0) {
        int st;
        waitpid(pid, &st, 0);
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    close(ofd);
    close(efd);
    r.out = read_file(outp, NULL);
    r.err = read_file(errp, NULL);
    unlink(outp);
    unlink(errp);
    if (!r.out)
        r.out = strdup("");
    if (!r.err)
        r.err = strdup("");
    return r;
}

void cmd_free(cmd_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void load_run(const char *path, run_model *m)
{
    char err[512];
    if (!model_read_file(path, m, err, sizeof err))
        fail_msg("cannot load the run: %s", err);
}

void load_sample(run_model *m)
{
    load_run(sample_path(), m);
}

void assert_close_at(double got, double want, double rel, const char *what, const char *file, int line)
{
    double tol = rel * fabs(want);
    if (got == want || fabs(got - want) <= tol)
        return;
    print_error("%s is %.17g, expected %.17g (relative tolerance %g)\n", what, got, want, rel);
    _fail(file, line);
}
