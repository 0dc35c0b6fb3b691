#ifndef THUMBD_CSHAREDMEMORY_H
#define THUMBD_CSHAREDMEMORY_H

// Atomics on memory shared between processes (an mmap'd file), and open-file-description
// locks on that file, which Swift cannot reach directly: no logic here, only the calls.

#include <stdint.h>
#include <fcntl.h>
#include <sys/types.h>

// Linux's values; glibc shows them only under _GNU_SOURCE.
#ifndef F_OFD_SETLK
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif

static inline uint64_t cshm_load_relaxed(const uint64_t *address) {
    return __atomic_load_n(address, __ATOMIC_RELAXED);
}

static inline void cshm_store_relaxed(uint64_t *address, uint64_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELAXED);
}

static inline uint64_t cshm_add_relaxed(uint64_t *address, uint64_t value) {
    return __atomic_add_fetch(address, value, __ATOMIC_RELAXED);
}

static inline uint8_t cshm_load_byte_relaxed(const uint8_t *address) {
    return __atomic_load_n(address, __ATOMIC_RELAXED);
}

static inline void cshm_store_byte_relaxed(uint8_t *address, uint8_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELAXED);
}

/// An exclusive lock on one byte of the file, owned by the open file description, so closing
/// another descriptor of the same file elsewhere in the process does not drop it. Waits when
/// `wait` is non-zero. Returns fcntl's result (-1 with errno on failure).
static inline int cshm_lock_byte(int fd, off_t offset, int wait) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0 };
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
}

static inline int cshm_unlock_byte(int fd, off_t offset) {
    struct flock lock = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0 };
    return fcntl(fd, F_OFD_SETLK, &lock);
}

#endif
