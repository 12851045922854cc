/*
 * proc_memory.c - memory readings from /proc (see proc_memory.h).
 */
#include <stdio.h>
#include <string.h>

#include "proc_memory.h"

/* The number after "field:" in a /proc file of "Name:   value kB" lines. */
static long long field_kib(const char *file, const char *field)
{
    FILE *f = fopen(file, "r");
    char line[256];
    long long kib = -1;
    size_t length = strlen(field);

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, length) == 0 && line[length] == ':') {
            if (sscanf(line + length + 1, "%lld", &kib) != 1)
                kib = -1;
            break;
        }
    fclose(f);
    return kib;
}

static long long kib_to_bytes(long long kib)
{
    return kib < 0 ? -1 : kib * 1024;
}

long long proc_status_bytes(const char *field)
{
    return kib_to_bytes(field_kib("/proc/self/status", field));
}

long long proc_mem_available(void)
{
    return kib_to_bytes(field_kib("/proc/meminfo", "MemAvailable"));
}

int proc_reset_peak(void)
{
    FILE *clear_refs = fopen("/proc/self/clear_refs", "w");
    if (!clear_refs)
        return 0;
    int written = fputs("5", clear_refs) >= 0;
    return fclose(clear_refs) == 0 && written; /* the write happens at fclose */
}
