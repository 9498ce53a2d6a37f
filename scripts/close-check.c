// Loaded with LD_PRELOAD by scripts/close-check: records every close(2) of a descriptor that is not open (EBADF),
// with a backtrace, in the file named by TIP_CLOSE_CHECK_LOG. Such a close is a double close, and a double close
// can close a descriptor another thread opened under the same number in between (an event loop's epoll descriptor,
// a socket), which fails far from the bug.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static int real_close(int fd) {
    static int (*next)(int) = NULL;
    if (!next) next = (int (*)(int))dlsym(RTLD_NEXT, "close");
    return next(fd);
}

static void report(int fd) {
    const char *path = getenv("TIP_CLOSE_CHECK_LOG");
    if (!path) return;
    pthread_mutex_lock(&report_lock);
    int log = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (log >= 0) {
        char line[128];
        int length = snprintf(line, sizeof line, "close(%d) of a descriptor that is not open, in process %d:\n", fd,
                              (int)getpid());
        if (length > 0) (void)!write(log, line, (size_t)length);
        void *frames[32];
        backtrace_symbols_fd(frames, backtrace(frames, 32), log);
        (void)!write(log, "\n", 1);
        real_close(log);
    }
    pthread_mutex_unlock(&report_lock);
}

int close(int fd) {
    int result = real_close(fd);
    if (result == -1 && errno == EBADF && fd >= 0) {
        int saved = errno;
        report(fd);
        errno = saved;
    }
    return result;
}
