/* Nothing lost, nothing clobbered, nothing hangs: the output rules of output_file.h, signals
 * and the watchdog, through the real binary (build/mmprof, or $MMPROF_BIN).
 *
 * Every case runs in a fresh temporary directory and checks what is on disk before and after:
 * a device stays a device, a symlink stays a link, a file keeps its mode and owner, a read-only
 * file is refused (root included: CI runs as root), a full disk or a closed pipe is exit 4 with a
 * message, an interrupted run leaves no temporary file and no output, and a workload past
 * --timeout is reported as an error while the rest of the report is still written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "test_support.h"

/* tmp/name in a static buffer of its own (up to 4 at once). */
static const char *at(const char *name)
{
    static char bufs[4][1024];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", test_tmp, name);
    return b;
}

static cmd_result run(const char *const *argv)
{
    cmd_result r = run_argv(argv, NULL);
    char cmd[2048] = "";
    for (int i = 0; argv[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s'%s'", i ? " " : "", argv[i]);
    print_message("$ %s\n  -> exit %d; stderr: %s\n", cmd, r.status, r.err[0] ? r.err : "(empty)\n");
    return r;
}

/* Runs a bash script with $1 = the binary and $2.. = args. */
static cmd_result bash(const char *script, const char *a2, const char *a3)
{
    const char *argv[] = {"/bin/bash", "-c", script, "bash", mmprof_bin(), a2 ? a2 : "", a3 ? a3 : "", NULL};
    return run(argv);
}

/* Files in test_tmp (. and .. aside), and how many are temporaries. */
static int entries(int *temporaries)
{
    return dir_entries(test_tmp, temporaries);
}

static void assert_json_run(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "schema")), "mmprof-run");
    cJSON_Delete(j);
}

static void assert_file_is(const char *path, const char *want)
{
    char *now = read_file(path, NULL);
    assert_non_null(now);
    assert_string_equal(now, want);
    free(now);
}

/* ---------- where outputs go ---------- */

/* '-' is standard output, with the text report left out, and no file named '-' appears. */
static void dash_is_stdout(void **state)
{
    (void)state;
    cmd_result r = bash("cd \"$2\" && \"$OLDPWD/$1\" report \"$OLDPWD/$3\" --json -", test_tmp, sample_path());
    assert_int_equal(r.status, 0);
    assert_json_run(r.out);
    assert_int_equal(entries(NULL), 0);
    cmd_free(&r);
}

/* An output named .gz, .zst or .xz is written compressed, and the run file reads back as it is. */
static void compressed_by_name(void **state)
{
    (void)state;
    const char *names[] = {"run.json.gz", "run.json.zst", "run.json.xz"};
    const unsigned char magic[][6] = {{0x1f, 0x8b}, {0x28, 0xb5, 0x2f, 0xfd}, {0xfd, '7', 'z', 'X', 'Z', 0}};
    const size_t nmagic[] = {2, 4, 6};
    for (int i = 0; i < 3; i++) {
        const char *path = at(names[i]);
        const char *argv[] = {mmprof_bin(), "report", sample_path(), "-q", "--json", path, NULL};
        cmd_result r = run(argv);
        assert_int_equal(r.status, 0);
        cmd_free(&r);
        size_t len = 0;
        char *bytes = read_file(path, &len);
        assert_non_null(bytes);
        assert_true(len > 6);
        assert_memory_equal(bytes, magic[i], nmagic[i]);
        free(bytes);
        const char *back[] = {mmprof_bin(), "report", path, "-q", "--json", "-", NULL};
        r = run(back);
        assert_int_equal(r.status, 0);
        assert_json_run(r.out);
        cmd_free(&r);
        unlink(path);
    }
}

/* A character device is written in place: /dev/null stays /dev/null; /dev/full is exit 4. */
static void devices_written_in_place(void **state)
{
    (void)state;
    const char *argv[] = {mmprof_bin(), "--size", "32", "--workloads", "cpu-openblas", "-q", "--json", "/dev/null", NULL};
    cmd_result r = run(argv);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));

    const char *full[] = {mmprof_bin(), "report", sample_path(), "-q", "--json", "/dev/full", NULL};
    r = run(full);
    assert_int_equal(r.status, EXIT_OUTPUT);
    assert_non_null(strstr(r.err, "'/dev/full'"));
    assert_non_null(strstr(r.err, "No space left"));
    cmd_free(&r);
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

/* A pipe from the shell's >(cmd) gets the whole document, in a run as in a report; a FIFO with
 * no reader is refused before the run instead of hanging it. */
static void pipes_and_fifos(void **state)
{
    (void)state;
    cmd_result r = bash("\"$1\" --size 32 --workloads cpu-openblas -q --json >(cat > \"$2\"); rc=$?; wait; "
                        "for i in $(seq 50); do [ -s \"$2\" ] && break; sleep 0.1; done; sleep 0.2; exit $rc",
                        at("piped.json"), NULL);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    char *piped = read_file(at("piped.json"), NULL);
    assert_non_null(piped);
    assert_json_run(piped);
    free(piped);

    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    const char *argv[] = {mmprof_bin(), "--size", "32", "--workloads", "cpu-openblas", "--json", at("fifo"), NULL};
    r = run(argv);
    assert_int_equal(r.status, EXIT_OUTPUT);
    assert_non_null(strstr(r.err, "no reader"));
    assert_string_equal(r.out, ""); /* refused before the run: no report */
    cmd_free(&r);
    struct stat st;
    assert_int_equal(lstat(at("fifo"), &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

/* A symlink stays a link; the file it names is replaced. A dangling one creates its target. */
static void symlinks_followed(void **state)
{
    (void)state;
    assert_true(write_text(at("real.json"), "old\n"));
    assert_int_equal(symlink("real.json", at("link.json")), 0);
    assert_int_equal(symlink("new.json", at("dangling.json")), 0);
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "-q", "--json", at("link.json"), NULL};
    cmd_result r = run(argv);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    const char *argv2[] = {mmprof_bin(), "report", sample_path(), "-q", "--trace", at("dangling.json"), NULL};
    r = run(argv2);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    struct stat st;
    assert_int_equal(lstat(at("link.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(at("dangling.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *real = read_file(at("real.json"), NULL);
    assert_json_run(real);
    free(real);
    char *made = read_file(at("new.json"), NULL);
    assert_non_null(made);
    assert_non_null(strstr(made, "traceEvents"));
    free(made);
    int temps;
    assert_int_equal(entries(&temps), 4);
    assert_int_equal(temps, 0);
}

/* A replaced file keeps its mode, and (as root, who can) its owner. */
static void mode_and_owner_kept(void **state)
{
    (void)state;
    const char *path = at("private.json");
    assert_true(write_text(path, "old\n"));
    assert_int_equal(chmod(path, 0600), 0);
    bool root = geteuid() == 0;
    if (root)
        assert_int_equal(chown(path, 65534, 65534), 0);
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "-q", "--json", path, NULL};
    cmd_result r = run(argv);
    assert_int_equal(r.status, 0);
    cmd_free(&r);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    if (root) {
        assert_int_equal(st.st_uid, 65534);
        assert_int_equal(st.st_gid, 65534);
    }
    char *now = read_file(path, NULL);
    assert_json_run(now);
    free(now);
}

/* A 0444 file is refused, root or not, before the run; it is left as it was. */
static void read_only_refused(void **state)
{
    (void)state;
    const char *path = at("ro.json");
    assert_true(write_text(path, "keep me\n"));
    assert_int_equal(chmod(path, 0444), 0);
    const char *argv[] = {mmprof_bin(), "--size", "32", "--workloads", "cpu-openblas", "--json", path, NULL};
    cmd_result r = run(argv);
    assert_int_equal(r.status, EXIT_OUTPUT);
    assert_non_null(strstr(r.err, "read-only"));
    assert_non_null(strstr(r.err, path));
    assert_string_equal(r.out, "");
    cmd_free(&r);
    assert_file_is(path, "keep me\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0444);
    int temps;
    entries(&temps);
    assert_int_equal(temps, 0);
}

/* Input and output the same file, however spelled: refused, the input untouched. */
static void same_file_by_inode(void **state)
{
    (void)state;
    char *text = read_file(sample_path(), NULL);
    assert_non_null(text);
    assert_true(write_text(at("in.json"), text));
    assert_int_equal(symlink("in.json", at("alias.json")), 0);
    char dotted[1100];
    snprintf(dotted, sizeof dotted, "%s/./in.json", test_tmp);
    const char *const cases[][8] = {
        {mmprof_bin(), "report", at("in.json"), "--json", dotted, NULL},
        {mmprof_bin(), "report", at("alias.json"), "--html", at("in.json"), NULL},
        {mmprof_bin(), "report", at("in.json"), "--trace", at("alias.json"), NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cmd_result r = run(cases[i]);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, "run file"));
        assert_string_equal(r.out, "");
        cmd_free(&r);
        assert_file_is(at("in.json"), text);
    }
    /* Two outputs that are one file. */
    const char *two[] = {mmprof_bin(), "report", sample_path(), "--json", at("in.json"), "--trace", at("alias.json"), NULL};
    cmd_result r = run(two);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "same file"));
    cmd_free(&r);
    assert_file_is(at("in.json"), text);
    free(text);
}

/* ---------- write errors ---------- */

/* Runs argv with its standard output the write end of a pipe whose read end is already closed. */
static int run_into_closed_pipe(const char *const *argv, char **err_text)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]);
    const char *errp = at("stderr.txt");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (e < 0 || dup2(p[1], STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
            _exit(125);
        signal(SIGPIPE, SIG_DFL); /* as a shell would leave it */
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    int st;
    waitpid(pid, &st, 0);
    *err_text = read_file(errp, NULL);
    unlink(errp);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Standard output full or closed: exit 4 and a message, for the text report and for '-'. */
static void stdout_errors(void **state)
{
    (void)state;
    cmd_result r = bash("\"$1\" report \"$2\" > /dev/full", sample_path(), NULL);
    assert_int_equal(r.status, EXIT_OUTPUT);
    assert_non_null(strstr(r.err, "standard output: write failed: No space left"));
    cmd_free(&r);
    r = bash("\"$1\" report \"$2\" --json - -q > /dev/full", sample_path(), NULL);
    assert_int_equal(r.status, EXIT_OUTPUT);
    assert_non_null(strstr(r.err, "No space left"));
    cmd_free(&r);

    const char *text[] = {mmprof_bin(), "report", sample_path(), NULL};
    char *err;
    assert_int_equal(run_into_closed_pipe(text, &err), EXIT_OUTPUT);
    assert_non_null(err);
    assert_non_null(strstr(err, "closed the pipe"));
    free(err);
    const char *dash[] = {mmprof_bin(), "report", sample_path(), "--json", "-", NULL};
    assert_int_equal(run_into_closed_pipe(dash, &err), EXIT_OUTPUT);
    assert_non_null(strstr(err, "closed the pipe"));
    free(err);
}

/* A nearly full disk (a 1 MiB tmpfs, where root may mount one): the 2.4 MB JSON does not fit;
 * exit 4 naming the free space, the old file kept, no temporary left. */
static void full_disk_keeps_old_file(void **state)
{
    (void)state;
    const char *mnt = at("small");
    assert_int_equal(mkdir(mnt, 0755), 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0) {
        print_message("cannot mount a small tmpfs here (%s): nothing to fill\n", strerror(errno));
        skip();
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", mnt);
    assert_true(write_text(path, "old run\n"));
    const char *argv[] = {mmprof_bin(), "report", sample_path(), "-q", "--json", path, NULL};
    cmd_result r = run(argv);
    int status = r.status;
    bool named = strstr(r.err, "free") != NULL;
    cmd_free(&r);
    char *kept = read_file(path, NULL);
    DIR *d = opendir(mnt);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.' || strncmp(e->d_name, ".mmprof-", 8) == 0;
    if (d)
        closedir(d);
    umount(mnt);
    assert_int_equal(status, EXIT_OUTPUT);
    assert_true(named);
    assert_string_equal(kept, "old run\n");
    free(kept);
    assert_int_equal(n, 1); /* run.json and nothing else */
}

/* A disk with room for a profile's run file once but not twice (a 2.5 MiB tmpfs for the torch
 * sample's 1.9 MB file): the JSON is warned about before the work, naming the scratch file its events go to
 * first (the text, as large as the file, is not). */
static void json_warns_of_its_scratch_space(void **state)
{
    (void)state;
    const char *mnt = at("room");
    assert_int_equal(mkdir(mnt, 0755), 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=2560k") != 0) {
        print_message("cannot mount a small tmpfs here (%s): nothing to fill\n", strerror(errno));
        skip();
    }
    char json[1100], text[1100];
    snprintf(json, sizeof json, "%s/run.json", mnt);
    snprintf(text, sizeof text, "%s/run.txt", mnt);
    const char *argv[] = {mmprof_bin(), "report", "samples/h200-profile-torch.json", "-q", "--json", json,
                          "--text", text, NULL};
    cmd_result r = run(argv);
    bool warned = strstr(r.err, "warning: --json") && strstr(r.err, "scratch file beside it");
    bool text_warned = strstr(r.err, "warning: --text") != NULL;
    cmd_free(&r);
    umount(mnt);
    assert_true(warned);
    assert_false(text_warned);
}

/* ---------- messages instead of silence ---------- */

static void silent_no_ops_are_named(void **state)
{
    (void)state;
    const char *dup[] = {mmprof_bin(), "--workloads", "cpu-openblas,cpu-openblas", NULL};
    cmd_result r = run(dup);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "'cpu-openblas' is named twice"));
    assert_string_equal(r.out, "");
    cmd_free(&r);
    const char *all[] = {mmprof_bin(), "--workloads", "all,cuda-naive", NULL};
    r = run(all);
    assert_int_equal(r.status, EXIT_USAGE);
    assert_non_null(strstr(r.err, "'cuda-naive' is named twice"));
    cmd_free(&r);
    const char *quiet[] = {mmprof_bin(), "--size", "16", "--workloads", "cpu-openblas", "-q", NULL};
    r = run(quiet);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "--quiet and no --json"));
    assert_string_equal(r.out, "");
    cmd_free(&r);
}

/* ---------- signals and the watchdog ---------- */

/* A run long enough to be inside its workloads after a second (n = 3000: ~0.6 s of FP64
 * reference, then seconds of products on this machine's cores). */
static void interrupted(int sig, int want)
{
    const char *json = at("T.json");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
            _exit(125);
        execl(mmprof_bin(), mmprof_bin(), "--size", "3000", "--workloads", "cpu-openblas", "--json", json,
              "--html", at("T.html"), (char *)NULL);
        _exit(127);
    }
    struct timespec ts = {1, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    assert_int_equal(kill(pid, sig), 0);
    int st;
    waitpid(pid, &st, 0);
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    print_message("signal %d -> exit %d\n", sig, status);
    assert_true(WIFEXITED(st)); /* handled, not killed */
    assert_int_equal(status, want);
    assert_int_equal(entries(NULL), 0); /* no output, no temporary */
}

static void sigint_and_sigterm(void **state)
{
    (void)state;
    interrupted(SIGINT, 130);
    interrupted(SIGTERM, 143);
}

/* A workload past --timeout: exit 1, a message naming it, and the report of the run still
 * written with the workload as an error; the whole in about the timeout, not the workload. */
static void watchdog_abandons_stuck_workload(void **state)
{
    (void)state;
    const char *json = at("t.json");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const char *argv[] = {mmprof_bin(), "--size", "3000", "--workloads", "cpu-openblas", "--repeat", "1000",
                          "--timeout", "1", "--json", json, "--color", "never", NULL};
    cmd_result r = run(argv);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("took %.2f s\n", s);
    assert_int_equal(r.status, EXIT_WORKLOAD_FAILED);
    assert_non_null(strstr(r.err, "cpu-openblas did not finish within --timeout 1 s"));
    assert_non_null(strstr(r.out, "did not finish within --timeout 1 s"));
    assert_true(s < 30.0); /* 1000 products of n = 3000 take many minutes on 2 cores */
    cmd_free(&r);
    char *text = read_file(json, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"error\""));
    free(text);

    /* Under the watchdog, a workload that finishes is reported whole: its thread got its
     * arguments before it started (a race here once ran it with n = 0), every time. */
    for (int i = 0; i < 8; i++) {
        const char *small[] = {mmprof_bin(), "--size", "48", "--workloads", "cpu-openblas", "--color", "never", NULL};
        r = run_argv(small, NULL);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\ncpu-openblas      host "));
        assert_non_null(strstr(r.out, "n = 48"));
        cmd_free(&r);
    }

    static const char *const bad[] = {"-1", "abc", "604801", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *b[] = {mmprof_bin(), "--timeout", bad[i], NULL};
        r = run(b);
        assert_int_equal(r.status, EXIT_USAGE);
        assert_non_null(strstr(r.err, "--timeout"));
        cmd_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(dash_is_stdout, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(compressed_by_name, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(devices_written_in_place, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(pipes_and_fifos, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(symlinks_followed, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(mode_and_owner_kept, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(read_only_refused, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(same_file_by_inode, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(stdout_errors, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(full_disk_keeps_old_file, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(json_warns_of_its_scratch_space, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(silent_no_ops_are_named, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(sigint_and_sigterm, test_tmp_setup, test_tmp_teardown),
        cmocka_unit_test_setup_teardown(watchdog_abandons_stuck_workload, test_tmp_setup, test_tmp_teardown),
    };
    return cmocka_run_group_tests_name("outputs", tests, NULL, NULL);
}
