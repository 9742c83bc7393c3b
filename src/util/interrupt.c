/* Interrupted runs. See interrupt.h. */
#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static void (*cleanup_hook)(void);
static volatile sig_atomic_t received;
static volatile sig_atomic_t deferred;

static void say(int sig)
{
    /* write(2) only: stdio is not async-signal-safe. */
    const char *msg = sig == SIGINT ? "mmprof: interrupted by SIGINT\n"
                                    : "mmprof: terminated by SIGTERM\n";
    ssize_t r = write(STDERR_FILENO, msg, strlen(msg));
    (void)r;
}

static void on_signal(int sig)
{
    bool again = received != 0;
    received = sig;
    if (cleanup_hook)
        cleanup_hook();
    if (deferred && !again)
        return;
    say(sig);
    _exit(128 + sig);
}

void interrupt_install(void (*cleanup)(void))
{
    cleanup_hook = cleanup;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void interrupt_defer(bool on)
{
    deferred = on;
    /* A signal that came while deferred and is no longer: end now, as the handler would have. */
    if (!on && received) {
        say(received);
        _exit(128 + received);
    }
}

int interrupt_pending(void)
{
    return received;
}

int interrupt_status(void)
{
    return received ? 128 + received : 0;
}
