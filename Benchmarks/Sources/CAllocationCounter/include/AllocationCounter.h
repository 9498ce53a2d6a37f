#ifndef TIP_ALLOCATION_COUNTER_H
#define TIP_ALLOCATION_COUNTER_H

// Counts heap allocations (malloc, calloc, realloc, aligned_alloc, memalign, posix_memalign) made on any
// thread while counting is on. The benchmark executable defines these functions itself and forwards them
// to glibc's, so every allocation of the process (Swift runtime included) goes through here: no
// LD_PRELOAD needed.

/// Starts counting from zero.
void tip_allocation_counting_start(void);

/// Stops counting and returns the allocations made since the start.
unsigned long long tip_allocation_counting_stop(void);

#endif
