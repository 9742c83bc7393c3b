/* A program for the profile tests that needs no GPU: NVTX ranges (push/pop in the default
 * domain and a named one, a registered string, start/end across threads' lifetimes) around
 * busy work, in this process and, with "fork", in a forked child too. "crash" ends it by SIGSEGV
 * inside an open range, "exit" through _exit (no atexit handlers), as multiprocessing workers do.
 * Without NVTX_INJECTION64_PATH every NVTX call is a no-op, so it also runs unprofiled. */
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void ranges(const char *who)
{
    nvtxDomainHandle_t dom = nvtxDomainCreateA("demo-domain");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "registered step");
    nvtxRangePushA(who);
    nvtxRangeId_t id = nvtxRangeStartA("start-end");
    for (int i = 0; i < 2; i++) {
        nvtxRangePushA("inner\tstep"); /* a tab in a name must survive the stream */
        usleep(2000);
        nvtxRangePop();
    }
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    nvtxDomainRangePushEx(dom, &a);
    usleep(1000);
    nvtxDomainRangePop(dom);
    nvtxRangeEnd(id);
    nvtxRangePop();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "fork") == 0) {
        pid_t child = fork();
        if (child == 0) {
            ranges("child");
            _exit(0);
        }
        int st;
        waitpid(child, &st, 0);
    }
    ranges("main");
    if (strcmp(mode, "crash") == 0) {
        nvtxRangePushA("crashing");
        raise(SIGSEGV);
    }
    if (strcmp(mode, "exit") == 0) {
        nvtxRangePushA("left open");
        _exit(3);
    }
    printf("nvtx_demo done\n");
    return 0;
}
