/*
 * heffte_fft3d.cpp - times heFFTe's forward 3D FFT (FFTW backend) on an
 * N0 x N1 x N2 problem, for the comparison of bench/peers/:
 *
 *   mpirun -np P heffte_fft3d [-s N|N0xN1xN2] [-r REPEATS] [-k c2c|r2c]
 *                             [-d pencils|slabs] [-a ALGORITHM] [-t] [-S] [-O]
 *
 *   -s  the size (default 64: 64x64x64), FFTW's order: N2 contiguous
 *   -r  timed forward transforms (default 10)
 *   -k  c2c (default): heffte::fft3d in place, forward(data, data, workspace),
 *       as heFFTe's own speed3d_c2c runs it; r2c: heffte::fft3d_r2c, out of
 *       place (heFFTe has no in-place r2c), halving N2 like FFTW
 *   -d  the decomposition of the input and output and of heFFTe's reshapes
 *       (plan_options::use_pencils): pencils (heFFTe's default), whole along
 *       N2, on heffte::make_procgrid's P1 x P2 grid; slabs, split along N0
 *       like FFTW's MPI transforms
 *   -a  plan_options::algorithm: alltoallv (heFFTe's default), alltoall, p2p
 *       or p2p_plined
 *   -t  the output in the layout of the last 1D FFTs, saving heFFTe's last
 *       reshape (the counterpart of FFTW_MPI_TRANSPOSED_OUT): slabs split
 *       along N1, pencils whole along N0; default: the input's layout
 *   -S  strided 1D FFTs (use_reorder = false; heFFTe's default for FFTW is true)
 *   -O  c2c out of place (two arrays)
 *
 * It first checks one forward transform of a single mode, whose result is
 * known exactly, then times REPEATS forward transforms of a pseudo-random
 * input, each after a barrier, a repetition taking the slowest rank's time;
 * an untimed backward transform (scale::full) after each restores the input,
 * which is compared with the original at the end.  Prints '#' lines (the
 * setup, the local arrays, the checks' errors), then one line:
 *
 *   min_s median_s vmhwm_kib     (peak resident memory, largest rank)
 *
 * Exit status 1 if a check is off by more than 1e-9 relative, 2 on bad usage.
 *
 * heFFTe's FFTW backend plans with FFTW_ESTIMATE (fixed in heFFTe).  Its
 * box3d's x is the contiguous index, so FFTW's (i0, i1, i2) is heFFTe's
 * (z, y, x), and a grid of Px x Py x Pz ranks splits N2, N1, N0 in that order.
 */
#include <unistd.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <heffte.h>

#include "fft3d_common.h"

namespace {

using cplx = std::complex<double>;
using box = heffte::box3d<int>;

struct options {
    long n[3] = {64, 64, 64};
    int repeats = 10;
    bool r2c = false, slabs = false, transposed = false, strided = false, out_of_place = false;
    heffte::reshape_algorithm algorithm = heffte::reshape_algorithm::alltoallv;
    std::string algorithm_name = "alltoallv";
};

void usage(FILE *out)
{
    std::fprintf(out, "usage: heffte_fft3d [-s N|N0xN1xN2] [-r REPEATS] [-k c2c|r2c]"
                      " [-d pencils|slabs]\n"
                      "                    [-a alltoallv|alltoall|p2p|p2p_plined]"
                      " [-t] [-S] [-O]\n");
}

// 0 on success, else the exit status (2 for bad usage, 0 after -h).
int parse(int argc, char **argv, options &o, bool &stop)
{
    int c;
    stop = false;
    while ((c = getopt(argc, argv, "s:r:k:d:a:tSOh")) != -1) {
        std::string value = optarg ? optarg : "";
        switch (c) {
        case 's': if (!fft3d_parse_dims(optarg, o.n)) return 2; break;
        case 'r': o.repeats = std::atoi(optarg); if (o.repeats < 1) return 2; break;
        case 'k':
            if (value != "c2c" && value != "r2c") return 2;
            o.r2c = value == "r2c";
            break;
        case 'd':
            if (value != "slabs" && value != "pencils") return 2;
            o.slabs = value == "slabs";
            break;
        case 'a':
            o.algorithm_name = value;
            if (value == "alltoallv") o.algorithm = heffte::reshape_algorithm::alltoallv;
            else if (value == "alltoall") o.algorithm = heffte::reshape_algorithm::alltoall;
            else if (value == "p2p") o.algorithm = heffte::reshape_algorithm::p2p;
            else if (value == "p2p_plined") o.algorithm = heffte::reshape_algorithm::p2p_plined;
            else return 2;
            break;
        case 't': o.transposed = true; break;
        case 'S': o.strided = true; break;
        case 'O': o.out_of_place = true; break;
        case 'h': stop = true; return 0;
        default: return 2;
        }
    }
    if (optind != argc || (o.r2c && o.out_of_place)) return 2;
    return 0;
}

std::string grid_text(std::array<int, 3> const &g)
{
    return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

// Calls f(i0, i1, i2, l) for each point of b, l its index in the local
// array (x fastest: heFFTe's default order, that of split_world's boxes).
template <typename F> void for_each_point(box const &b, F f)
{
    long l = 0;
    for (int z = b.low[2]; z <= b.high[2]; z++)
        for (int y = b.low[1]; y <= b.high[1]; y++)
            for (int x = b.low[0]; x <= b.high[0]; x++)
                f(z, y, x, l++);
}

template <typename T> T make_value(double re, double im);
template <> double make_value<double>(double re, double) { return re; }
template <> cplx make_value<cplx>(double re, double im) { return cplx(re, im); }

// The checks and the timing, for heffte::fft3d (In = cplx) and fft3d_r2c
// (In = double); in == out for the in-place c2c transform.
template <typename Fft, typename In>
int run(Fft const &fft, options const &o, MPI_Comm comm, box const &inbox, box const &outbox,
        In *in, cplx *out, cplx *work, std::string const &setup)
{
    int me;
    MPI_Comm_rank(comm, &me);
    long const *n = o.n;
    double const total = double(n[0]) * n[1] * n[2];
    auto global = [n](long i0, long i1, long i2) { return uint64_t((i0 * n[1] + i1) * n[2] + i2); };

    // single mode: exp(2 pi i k.x/N) (c2c) or its real part (r2c)
    for_each_point(inbox, [&](long i0, long i1, long i2, long l) {
        double re, im;
        fft3d_mode_value(n, i0, i1, i2, &re, &im);
        in[l] = make_value<In>(re, im);
    });
    fft.forward(in, out, work);
    double mode_error = 0;
    for_each_point(outbox, [&](long k0, long k1, long k2, long l) {
        double expected = fft3d_mode_expected(n, o.r2c, k0, k1, k2);
        mode_error = std::max(mode_error, std::abs(out[l] - expected));
    });
    mode_error = fft3d_max(mode_error, comm) / total;

    // timed forward transforms, each undone by an untimed backward one
    for_each_point(inbox, [&](long i0, long i1, long i2, long l) {
        uint64_t g = global(i0, i1, i2);
        in[l] = make_value<In>(fft3d_input(g, 0), fft3d_input(g, 1));
    });
    std::vector<double> times(o.repeats);
    for (int r = 0; r < o.repeats; r++) {
        MPI_Barrier(comm);
        double start = MPI_Wtime();
        fft.forward(in, out, work);
        times[r] = MPI_Wtime() - start;
        fft.backward(out, in, work, heffte::scale::full);
    }
    double round_trip_error = 0;
    for_each_point(inbox, [&](long i0, long i1, long i2, long l) {
        uint64_t g = global(i0, i1, i2);
        round_trip_error = std::max(round_trip_error,
                                    std::abs(in[l] - make_value<In>(fft3d_input(g, 0),
                                                                    fft3d_input(g, 1))));
    });
    round_trip_error = fft3d_max(round_trip_error, comm); // the input's largest value is ~1

    double min_s, median_s;
    fft3d_summarise(times.data(), o.repeats, comm, &min_s, &median_s);
    long long peak_kib = fft3d_peak_kib(comm);
    bool ok = mode_error <= FFT3D_TOLERANCE && round_trip_error <= FFT3D_TOLERANCE;
    if (me == 0) {
        std::printf("%s", setup.c_str());
        std::printf("# checks: single mode %.1e, round trip %.1e (relative; tolerance %.0e)%s\n",
                    mode_error, round_trip_error, FFT3D_TOLERANCE, ok ? "" : ": FAILED");
        std::printf("# min_s median_s vmhwm_kib\n%.6e %.6e %lld\n", min_s, median_s, peak_kib);
        if (!ok)
            std::fprintf(stderr, "heffte_fft3d: wrong result (single mode %.1e, round trip %.1e)\n",
                         mode_error, round_trip_error);
    }
    return ok ? 0 : 1;
}

int benchmark(options const &o, MPI_Comm comm)
{
    int me, nprocs;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &nprocs);

    // heFFTe's (x, y, z) = FFTW's (N2, N1, N0)
    box const world({0, 0, 0}, {int(o.n[2]) - 1, int(o.n[1]) - 1, int(o.n[0]) - 1});
    std::array<int, 2> const pencil = heffte::make_procgrid(nprocs);
    std::array<int, 3> in_grid, out_grid;
    if (o.slabs) {
        in_grid = {1, 1, nprocs};
        out_grid = o.transposed ? std::array<int, 3>{1, nprocs, 1} : in_grid;
    } else {
        in_grid = {1, pencil[0], pencil[1]};
        out_grid = o.transposed ? std::array<int, 3>{pencil[0], pencil[1], 1} : in_grid;
    }
    box const world_out = o.r2c ? world.r2c(0) : world;
    box const inbox = heffte::split_world(world, in_grid)[me];
    box const outbox = heffte::split_world(world_out, out_grid)[me];

    heffte::plan_options plan = heffte::default_options<heffte::backend::fftw>();
    plan.use_pencils = !o.slabs;
    plan.use_reorder = !o.strided;
    plan.algorithm = o.algorithm;

    char text[1024];
    auto describe = [&](long in_count, long out_count, size_t in_bytes, size_t work_count) {
        double data_kib = o.out_of_place || o.r2c
                              ? (double(in_count) * in_bytes + double(out_count) * sizeof(cplx)) / 1024
                              : double(std::max(in_count, out_count)) * sizeof(cplx) / 1024;
        double work_kib = double(work_count) * sizeof(cplx) / 1024;
        std::snprintf(text, sizeof text,
                      "# heffte_fft3d: heFFTe %d.%d.%d, FFTW backend (FFTW_ESTIMATE); %s %s; "
                      "%ldx%ldx%ld on %d ranks\n"
                      "# %s: input grid %s, output grid %s (ranks along N2 x N1 x N0); %s; "
                      "%s 1D FFTs; %d repeats\n"
                      "# local arrays of the largest rank: data %.0f KiB, workspace %.0f KiB\n",
                      Heffte_VERSION_MAJOR, Heffte_VERSION_MINOR, Heffte_VERSION_PATCH,
                      o.r2c ? "r2c" : "c2c",
                      o.r2c || o.out_of_place ? "out of place" : "in place", o.n[0], o.n[1],
                      o.n[2], nprocs, o.slabs ? "slabs" : "pencils", grid_text(in_grid).c_str(),
                      grid_text(out_grid).c_str(), o.algorithm_name.c_str(),
                      o.strided ? "strided" : "contiguous", o.repeats,
                      fft3d_max(data_kib, comm), fft3d_max(work_kib, comm));
        return std::string(text);
    };

    if (o.r2c) {
        heffte::fft3d_r2c<heffte::backend::fftw> fft(inbox, outbox, 0, comm, plan);
        std::vector<double> in(fft.size_inbox());
        std::vector<cplx> out(fft.size_outbox()), work(fft.size_workspace());
        std::string setup = describe(fft.size_inbox(), fft.size_outbox(), sizeof(double),
                                     fft.size_workspace());
        return run(fft, o, comm, inbox, outbox, in.data(), out.data(), work.data(), setup);
    }
    heffte::fft3d<heffte::backend::fftw> fft(inbox, outbox, comm, plan);
    std::vector<cplx> data(o.out_of_place ? fft.size_inbox()
                                          : std::max(fft.size_inbox(), fft.size_outbox()));
    std::vector<cplx> out(o.out_of_place ? fft.size_outbox() : 0), work(fft.size_workspace());
    std::string setup = describe(fft.size_inbox(), fft.size_outbox(), sizeof(cplx),
                                 fft.size_workspace());
    return run(fft, o, comm, inbox, outbox, data.data(), o.out_of_place ? out.data() : data.data(),
               work.data(), setup);
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    options o;
    bool stop;
    opterr = me == 0; // one complaint, not one per rank
    int status = parse(argc, argv, o, stop);
    if (status != 0 || stop) {
        if (me == 0) usage(status ? stderr : stdout);
        MPI_Finalize();
        return status;
    }
    try {
        status = benchmark(o, MPI_COMM_WORLD);
    } catch (std::exception const &e) {
        // a rank that cannot go on would leave the others waiting
        std::fprintf(stderr, "heffte_fft3d: rank %d: %s\n", me, e.what());
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Finalize();
    return status;
}
