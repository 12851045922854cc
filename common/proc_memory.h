/*
 * proc_memory.h - this process's memory as Linux reports it under /proc:
 * the one reader of /proc/self/status and /proc/meminfo that the benchmarks
 * (their "extra MiB") and the tests (their memory bounds) share, and the
 * reset of the peak that makes a peak belong to one call.
 *
 * A small file of its own, compiled into each program that needs it
 * (Makefile.am), because bench/ and tests/ share nothing else at that level.
 */
#ifndef PROC_MEMORY_H
#define PROC_MEMORY_H

/* A field of /proc/self/status ("VmHWM", "VmRSS", "VmData": peak and current
 * resident memory, private writable memory) in bytes; -1 where there is none. */
long long proc_status_bytes(const char *field);

/* Bytes of memory the machine could still give (MemAvailable); -1 if unknown. */
long long proc_mem_available(void);

/* Resets VmHWM to the current RSS (Linux >= 4.0); 1 if it did, 0 where the
 * kernel refuses. */
int proc_reset_peak(void);

#endif /* PROC_MEMORY_H */
