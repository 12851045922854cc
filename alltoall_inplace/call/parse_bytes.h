/*
 * parse_bytes.h - sizes as people write them, for AIP_AUX_BYTES and for the
 * benchmarks' and tests' options alike (one parser, one syntax).
 */
#ifndef AIP_PARSE_BYTES_H
#define AIP_PARSE_BYTES_H

/* "65536", "64K", "16M", "1G" (binary multiples, optionally followed by "B"
 * or "iB") -> bytes; -1 if malformed, negative or too large. */
long long aip_parse_bytes(const char *text);

#endif /* AIP_PARSE_BYTES_H */
