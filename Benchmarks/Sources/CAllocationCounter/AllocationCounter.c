#define _GNU_SOURCE
#include "AllocationCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)

// glibc's own entry points, which its public malloc & co. call too.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_int counting;
static atomic_ullong allocations;

static inline void note(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) { note(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { note(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { note(); return __libc_realloc(pointer, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { note(); return __libc_memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    note();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void tip_allocation_counting_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}

unsigned long long tip_allocation_counting_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}

#else

// Elsewhere nothing is interposed: the count stays at zero (the benchmark says so).
void tip_allocation_counting_start(void) {}
unsigned long long tip_allocation_counting_stop(void) { return 0; }

#endif
