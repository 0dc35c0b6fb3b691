#ifndef THUMBD_CLINUX_H
#define THUMBD_CLINUX_H

// Linux system calls glibc has no wrapper for, which Swift cannot reach through the variadic
// syscall(2), and Linux headers Swift's Glibc module leaves out (epoll, extended attributes): no logic here, only the
// calls.

#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/epoll.h>
#include <linux/openat2.h>
#include <sys/prctl.h>
#include <sys/xattr.h>

// Linux's value; glibc shows it only under _GNU_SOURCE.
#ifndef O_PATH
#define O_PATH 010000000
#endif

/// openat2(2) (Linux 5.6+): -1 with errno ENOSYS on an older kernel.
static inline int clinux_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve) {
    struct open_how how = { .flags = flags, .mode = 0, .resolve = resolve };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

/// accept4(2) with SOCK_CLOEXEC: accept and close-on-exec in one call (glibc declares accept4
/// only under _GNU_SOURCE, and sys/socket.h here would take its names from Swift's Glibc).
/// Linux gives SOCK_CLOEXEC the value of O_CLOEXEC.
static inline int clinux_accept_cloexec(int socket) {
    return (int)syscall(SYS_accept4, socket, (void *)0, (void *)0, O_CLOEXEC);
}

/// Names the calling thread (prctl(2) PR_SET_NAME, which Swift cannot call: it is variadic).
/// The kernel keeps the first 15 bytes.
static inline int clinux_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

#endif
