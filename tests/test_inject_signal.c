/* The injection library's terminating-signal path (src/inject/inject_signal.c), in child
 * processes of this test: a process whose SIGTERM/SIGINT is at its default flushes first (here a
 * stand-in for inject_finish reports to a pipe) and then dies of the same signal; a program's own
 * disposition (ignored, or a handler) is left alone; a forked child, which inherits the handler
 * but not the thread that flushes, dies of the signal at once instead of hanging. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "inject.h"

/* The write end the stand-in for inject_finish reports to: "finish <wait_ms> <sig>". */
static int report_fd = -1;

static void stand_in_finish(long wait_ms, int sig)
{
    char line[64];
    int n = snprintf(line, sizeof line, "finish %ld %d\n", wait_ms, sig);
    if (report_fd >= 0 && write(report_fd, line, (size_t)n) != n)
        abort();
}

typedef enum { DISPOSITION_DEFAULT, DISPOSITION_IGNORED, DISPOSITION_OWN } disposition;

static void own_handler(int sig)
{
    (void)sig;
    _exit(7);
}

/* A child that sets sig's disposition, calls inject_catch_signals, says "ready" on the pipe and
 * waits; alarm() ends it if nothing else does, so a regression fails instead of hanging. */
static pid_t start_child(int sig, disposition d, int pipe_w)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid > 0)
        return pid;
    report_fd = pipe_w;
    /* DEFAULT is set, not assumed: a shell starts background jobs with SIGINT and SIGQUIT
     * ignored, and make test run that way would hand the child an ignored SIGINT. */
    if (d == DISPOSITION_DEFAULT)
        signal(sig, SIG_DFL);
    else if (d == DISPOSITION_IGNORED)
        signal(sig, SIG_IGN);
    else if (d == DISPOSITION_OWN)
        signal(sig, own_handler);
    inject_catch_signals(stand_in_finish);
    alarm(10);
    if (write(pipe_w, "ready\n", 6) != 6)
        _exit(90);
    for (;;)
        pause();
}

/* Reads what the child wrote until it closed the pipe (it died). */
static void read_all(int fd, char *buf, size_t len)
{
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
}

/* Starts a child, waits for "ready", sends sig, returns the wait status and what it reported. */
static int signal_child(int sig, disposition d, char *said, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = start_child(sig, d, p[1]);
    close(p[1]);
    char ready[7] = {0};
    assert_int_equal(read(p[0], ready, 6), 6);
    assert_string_equal(ready, "ready\n");
    assert_int_equal(kill(pid, sig), 0);
    if (d == DISPOSITION_IGNORED) { /* still alive a moment later: then end it ourselves */
        usleep(200 * 1000);
        assert_int_equal(waitpid(pid, NULL, WNOHANG), 0);
        kill(pid, SIGKILL);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    read_all(p[0], said, len);
    close(p[0]);
    return status;
}

static void default_sigterm_flushes_then_dies_of_it(void **state)
{
    (void)state;
    char said[128];
    int status = signal_child(SIGTERM, DISPOSITION_DEFAULT, said, sizeof said);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    char want[64];
    snprintf(want, sizeof want, "finish %d %d\n", INJECT_EXIT_FLUSH_MS, SIGTERM);
    assert_string_equal(said, want);
}

static void default_sigint_flushes_then_dies_of_it(void **state)
{
    (void)state;
    char said[128];
    int status = signal_child(SIGINT, DISPOSITION_DEFAULT, said, sizeof said);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
    assert_non_null(strstr(said, "finish"));
}

static void ignored_signal_stays_ignored(void **state)
{
    (void)state;
    char said[128];
    int status = signal_child(SIGTERM, DISPOSITION_IGNORED, said, sizeof said);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL); /* our SIGKILL, after SIGTERM changed nothing */
    assert_null(strstr(said, "finish"));
}

static void programs_own_handler_stays(void **state)
{
    (void)state;
    char said[128];
    int status = signal_child(SIGTERM, DISPOSITION_OWN, said, sizeof said);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    assert_null(strstr(said, "finish"));
}

/* A child that catches the signals, then forks a grandchild and sends it SIGTERM: the grandchild
 * must die of SIGTERM at once, without flushing (the flushing thread is the child's). The child
 * exits 0 when that held, else a code that says what went wrong. */
static void forked_child_dies_at_once(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(p[0]);
        report_fd = p[1];
        inject_catch_signals(stand_in_finish);
        alarm(10);
        pid_t grandchild = fork();
        if (grandchild == 0) {
            alarm(5);
            for (;;)
                pause();
        }
        usleep(100 * 1000);
        kill(grandchild, SIGTERM);
        int st = 0;
        if (waitpid(grandchild, &st, 0) != grandchild)
            _exit(91);
        _exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM ? 0 : WIFSIGNALED(st) ? 100 + WTERMSIG(st) : 92);
    }
    close(p[1]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    char said[128];
    read_all(p[0], said, sizeof said);
    close(p[0]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_null(strstr(said, "finish"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_sigterm_flushes_then_dies_of_it),
        cmocka_unit_test(default_sigint_flushes_then_dies_of_it),
        cmocka_unit_test(ignored_signal_stays_ignored),
        cmocka_unit_test(programs_own_handler_stays),
        cmocka_unit_test(forked_child_dies_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
