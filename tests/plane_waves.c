/*
 * plane_waves.c - a 3D r2c input with a known transform (plane_waves.h).
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "plane_waves.h"

enum { WAVES = 3 };

typedef struct wave {
    ptrdiff_t freq[3]; /* a, b, c */
    double amplitude, phase;
} wave;

/* Three waves at frequencies spread over each dimension (a fixed
 * pseudo-random choice), with different amplitudes and phases. */
static void choose_waves(const ptrdiff_t n[3], wave waves[WAVES])
{
    for (int k = 0; k < WAVES; k++) {
        for (int d = 0; d < 3; d++) {
            uint64_t z = (uint64_t)(3 * k + d + 1) * 0x9e3779b97f4a7c15ULL;
            z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
            waves[k].freq[d] = (ptrdiff_t)((z ^ (z >> 29)) % (uint64_t)n[d]);
        }
        waves[k].amplitude = 1 + k;
        waves[k].phase = 0.7 * (k + 1);
    }
}

/* e^{2 pi i f k / n} for k < n: the exponentials factor over dimensions. */
static double complex *phases(ptrdiff_t n, ptrdiff_t f)
{
    double complex *table = malloc((size_t)n * sizeof *table);
    if (!table)
        abort();
    for (ptrdiff_t k = 0; k < n; k++)
        table[k] = cexp(2 * M_PI * I * (double)((f * k) % n) / (double)n);
    return table;
}

void plane_waves_fill(double *data, const ptrdiff_t n[3], ptrdiff_t local_n0, ptrdiff_t x0)
{
    wave waves[WAVES];
    double complex *table[WAVES][3];
    ptrdiff_t padded = 2 * (n[2] / 2 + 1);

    choose_waves(n, waves);
    for (int k = 0; k < WAVES; k++)
        for (int d = 0; d < 3; d++)
            table[k][d] = phases(n[d], waves[k].freq[d]);
    for (ptrdiff_t x = 0; x < local_n0; x++)
        for (ptrdiff_t y = 0; y < n[1]; y++) {
            double complex row_factor[WAVES];
            for (int k = 0; k < WAVES; k++)
                row_factor[k] = waves[k].amplitude * cexp(I * waves[k].phase) *
                                table[k][0][x0 + x] * table[k][1][y];
            double *row = data + (x * n[1] + y) * padded;
            for (ptrdiff_t z = 0; z < padded; z++) {
                double value = 0;
                for (int k = 0; z < n[2] && k < WAVES; k++)
                    value += creal(row_factor[k] * table[k][2][z]);
                row[z] = value;
            }
        }
    for (int k = 0; k < WAVES; k++)
        for (int d = 0; d < 3; d++)
            free(table[k][d]);
}

double plane_waves_error(const double *data, const ptrdiff_t n[3], ptrdiff_t local_n0,
                         ptrdiff_t x0)
{
    wave waves[WAVES];
    ptrdiff_t nc = n[2] / 2 + 1, peak[2 * WAVES][3];
    double complex peak_value[2 * WAVES];
    double total = (double)n[0] * (double)n[1] * (double)n[2], amplitudes = 0, error = 0;
    const double complex *out = (const double complex *)data;

    /* the 2 WAVES coefficients that are not zero, where they are */
    choose_waves(n, waves);
    for (int k = 0; k < WAVES; k++) {
        for (int sign = 0; sign < 2; sign++) {
            for (int d = 0; d < 3; d++)
                peak[2 * k + sign][d] = sign ? (n[d] - waves[k].freq[d]) % n[d] : waves[k].freq[d];
            peak_value[2 * k + sign] =
                total * waves[k].amplitude / 2 * cexp((sign ? -I : I) * waves[k].phase);
        }
        amplitudes += waves[k].amplitude;
    }
    for (ptrdiff_t x = 0; x < local_n0; x++)
        for (ptrdiff_t y = 0; y < n[1]; y++) {
            const double complex *row = out + (x * n[1] + y) * nc;
            int in_row[2 * WAVES], hits = 0; /* the peaks of this row */
            for (int h = 0; h < 2 * WAVES; h++)
                if (peak[h][0] == x0 + x && peak[h][1] == y && peak[h][2] < nc)
                    in_row[hits++] = h;
            for (ptrdiff_t w = 0; w < nc; w++) {
                double complex expected = 0;
                for (int h = 0; h < hits; h++)
                    if (peak[in_row[h]][2] == w)
                        expected += peak_value[in_row[h]];
                error = fmax(error, cabs(row[w] - expected));
            }
        }
    return error / (total * amplitudes);
}
