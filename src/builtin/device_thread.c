/* The single-device run's GPU thread: one task at a time, handed over through a slot guarded by
 * a mutex and two condition variables. See device_thread.h. */
#include "device_thread.h"
#include "thread_wait.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t posted, finished;
    pthread_t thread;
    bool running, hung, stop;
    device_task task; /* the task waiting or running, NULL when idle */
    void *arg;
    unsigned long done; /* tasks finished so far */
} dt = {.lock = PTHREAD_MUTEX_INITIALIZER, .posted = PTHREAD_COND_INITIALIZER, .finished = PTHREAD_COND_INITIALIZER};

static void *loop(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&dt.lock);
    for (;;) {
        while (!dt.task && !dt.stop)
            pthread_cond_wait(&dt.posted, &dt.lock);
        if (!dt.task)
            break;
        device_task task = dt.task;
        void *arg = dt.arg;
        pthread_mutex_unlock(&dt.lock);
        task(arg);
        pthread_mutex_lock(&dt.lock);
        dt.task = NULL;
        dt.done++;
        pthread_cond_broadcast(&dt.finished);
    }
    pthread_mutex_unlock(&dt.lock);
    return NULL;
}

bool device_thread_start(void)
{
    if (dt.running)
        return true;
    /* Signals stay with the main thread, whose handler the runner relies on. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    dt.stop = dt.hung = false;
    dt.running = pthread_create(&dt.thread, NULL, loop, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return dt.running;
}

bool device_thread_call(device_task task, void *arg, int timeout_s)
{
    if (!dt.running) {
        task(arg);
        return true;
    }
    pthread_mutex_lock(&dt.lock);
    if (dt.hung) {
        pthread_mutex_unlock(&dt.lock);
        return false;
    }
    dt.task = task;
    dt.arg = arg;
    unsigned long ticket = dt.done + 1;
    pthread_cond_signal(&dt.posted);
    struct timespec at = realtime_after_ms(timeout_s * 1000L);
    int rc = 0;
    while (dt.done < ticket && rc != ETIMEDOUT)
        rc = timeout_s > 0 ? pthread_cond_timedwait(&dt.finished, &dt.lock, &at)
                           : pthread_cond_wait(&dt.finished, &dt.lock);
    bool returned = dt.done >= ticket;
    if (!returned)
        dt.hung = true;
    pthread_mutex_unlock(&dt.lock);
    return returned;
}

bool device_thread_hung(void)
{
    pthread_mutex_lock(&dt.lock);
    bool hung = dt.hung;
    pthread_mutex_unlock(&dt.lock);
    return hung;
}

void device_thread_stop(void)
{
    if (!dt.running || device_thread_hung())
        return;
    pthread_mutex_lock(&dt.lock);
    dt.stop = true;
    pthread_cond_signal(&dt.posted);
    pthread_mutex_unlock(&dt.lock);
    pthread_join(dt.thread, NULL);
    dt.running = false;
}
