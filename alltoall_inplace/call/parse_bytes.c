/*
 * parse_bytes.c - "64K" -> 65536 (see parse_bytes.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "parse_bytes.h"

long long aip_parse_bytes(const char *text)
{
    char *end;
    int shift = 0;

    if (!text || !isdigit((unsigned char)*text)) /* strtoll would take spaces and signs */
        return -1;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno)
        return -1;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift && toupper((unsigned char)*end) == 'I') /* KiB, MiB, GiB */
        end++;
    if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end || value > (LLONG_MAX >> shift))
        return -1;
    return value << shift;
}
