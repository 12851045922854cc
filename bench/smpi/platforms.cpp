/*
 * platforms.cpp - the two machines of Hofmann & Ruenger's FFT experiment
 * (EuroMPI 2013, Sect. 4), as SimGrid platforms for bench/fftw_smpi.sh.
 * Built as a shared object that smpirun loads (-platform platforms.so,
 * load_platform below); the machine and its size come from the environment:
 *
 *   FFTW_SMPI_PLATFORM  juropa | juqueen
 *   FFTW_SMPI_NODES     nodes the job needs (the platform may have more)
 *   FFTW_SMPI_SCALE_LINKS, FFTW_SMPI_SCALE_MEMORY  factors (default 1) on the
 *                       links' bandwidth and the nodes' copy bandwidth, to
 *                       see how the results move when a figure below is off
 *
 * Hosts are nodes (node-0, node-1, ...), with the cores of the machine's
 * nodes; a hostfile puts the ranks on them.  Computation is charged by the
 * harness (sim_charge.h), not simulated from flops: the hosts' speed is
 * 1 Gflop/s = smpi/host-speed, and their property core_copy_bandwidth tells
 * the harness how fast one core of the machine copies memory while all
 * cores of its node do (STREAM's convention, bytes read plus written).
 *
 * Why C++ and not a <cluster> in XML: a cluster's loopback link is FATPIPE,
 * every flow within a node at full speed whatever the others do (8 flows of
 * 5 GB/s moved 40 GB/s in a trial).  Messages within a node are copies
 * through memory, which its cores share: here the loopback is SHARED, at
 * half the node's STREAM copy bandwidth (each byte is read and written once).
 *
 * JuRoPA (Juelich, 2009-2015): 2208 nodes of two quad-core Xeon X5570
 * (Nehalem-EP, 2.93 GHz), 24 GiB, Mellanox QDR InfiniBand in a fat tree of
 * Sun switches; ParaStation MPI (MPICH-based), 8 ranks per node in the
 * paper.  Figures used:
 *   - link: QDR 4x carries 32 Gb/s of data (40 Gb/s signalling, 8b/10b); an
 *     HCA on PCIe 2.0 x8 delivers about 3.2 GB/s to MPI: 3.2 GB/s per
 *     direction, 0.1 us per link (four links and three switch chips between
 *     two leaves' nodes; with the MPI overheads of fftw_smpi.sh about 1.5 us
 *     of small-message latency, QDR's typical figure);
 *   - topology: a two-level non-blocking fat tree of 36-port switch chips,
 *     18 nodes per leaf, 18 uplinks per leaf (the M9's internal Clos);
 *   - memory: 2 sockets x 3 channels of DDR3, about 32 GB/s of STREAM copy
 *     per node: 4 GB/s per core, 16 GB/s of message payload within a node.
 *
 * Juqueen (Juelich, 2012-2018): IBM Blue Gene/Q, nodes of 16 PowerPC A2 cores
 * (1.6 GHz) and 16 GiB, a 5D torus of 2 GB/s links (10 per node); an MPICH-
 * based MPI, 16 ranks per node in the paper.  Figures used:
 *   - link: 2 GB/s per direction raw, 1.8 GB/s to MPI payload (the packet
 *     headers); 50 ns per hop;
 *   - torus: the smallest block of the node count with E = 2, as BG/Q
 *     partitions are (1 node; 8 = 2x2x1x1x2; 64 = 4x2x2x2x2);
 *   - memory: 42.6 GB/s peak (DDR3-1333, two controllers), about 28 GB/s of
 *     STREAM copy: 1.75 GB/s per core, 14 GB/s of payload within a node.
 * These are the machines' published figures, rounded; docs/results.md gives how
 * much the results move when they are off by 2x.
 */
#include <simgrid/s4u.hpp>

#include "machines.h"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Machine {
    int cores;
    double link_bandwidth, link_latency; /* bytes/s per direction, s */
    double node_copy_bandwidth;          /* STREAM copy of a whole node, bytes/s */
};

const Machine juropa = { JUROPA_CORES, JUROPA_LINK_BANDWIDTH, JUROPA_LINK_LATENCY,
                         JUROPA_NODE_COPY_BANDWIDTH };
const Machine juqueen = { JUQUEEN_CORES, JUQUEEN_LINK_BANDWIDTH, JUQUEEN_LINK_LATENCY,
                          JUQUEEN_NODE_COPY_BANDWIDTH };

unsigned long nodes_wanted()
{
    const char *text = std::getenv("FFTW_SMPI_NODES");
    long nodes = text ? std::atol(text) : 0;
    if (nodes < 1)
        throw std::invalid_argument("platforms.so: set FFTW_SMPI_NODES to the number of nodes");
    return (unsigned long)nodes;
}

double scale(const char *variable)
{
    const char *text = std::getenv(variable);
    double factor = text ? std::atof(text) : 1;
    if (!(factor > 0))
        throw std::invalid_argument(std::string("platforms.so: ") + variable + " must be positive");
    return factor;
}

/* The machine's figures, scaled as the environment asks. */
Machine scaled(Machine m)
{
    m.link_bandwidth *= scale("FFTW_SMPI_SCALE_LINKS");
    m.node_copy_bandwidth *= scale("FFTW_SMPI_SCALE_MEMORY");
    return m;
}

sg4::ClusterCallbacks node_callbacks(const Machine &m)
{
    auto node = [m](sg4::NetZone *zone, const std::vector<unsigned long> &,
                    unsigned long id) -> std::pair<simgrid::kernel::routing::NetPoint *,
                                                   simgrid::kernel::routing::NetPoint *> {
        sg4::Host *host = zone->create_host("node-" + std::to_string(id), 1e9);
        host->set_core_count(m.cores);
        host->set_property("core_copy_bandwidth", std::to_string(m.node_copy_bandwidth / m.cores));
        host->seal();
        return { host->get_netpoint(), nullptr };
    };
    auto memory = [m](sg4::NetZone *zone, const std::vector<unsigned long> &,
                      unsigned long id) -> sg4::Link * {
        return zone->create_link("memory-" + std::to_string(id), m.node_copy_bandwidth / 2)
            ->set_latency(0.3e-6)
            ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
            ->seal();
    };
    return sg4::ClusterCallbacks(node, memory, {});
}

void build_juropa(unsigned long nodes)
{
    const Machine m = scaled(juropa);
    unsigned int leaves = (unsigned int)((nodes + JUROPA_LEAF_NODES - 1) / JUROPA_LEAF_NODES);
    sg4::FatTreeParams tree(2, { JUROPA_LEAF_NODES, leaves }, { 1, JUROPA_SPINES }, { 1, 1 });
    sg4::create_fatTree_zone("juropa", nullptr, tree, node_callbacks(m), m.link_bandwidth,
                             m.link_latency,
                             sg4::Link::SharingPolicy::SPLITDUPLEX)
        ->seal();
}

void build_juqueen(unsigned long nodes)
{
    const Machine m = scaled(juqueen);
    unsigned long dims[JUQUEEN_TORUS_DIMENSIONS];
    juqueen_torus(nodes, dims);
    std::vector<unsigned long> used; /* SimGrid declares a dimension of 1 twice */
    for (unsigned long d : dims)
        if (d > 1)
            used.push_back(d);
    if (used.empty())
        used.push_back(1);
    sg4::create_torus_zone("juqueen", nullptr, used, node_callbacks(m), m.link_bandwidth,
                           m.link_latency,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
        ->seal();
}

} // namespace

extern "C" void load_platform(const sg4::Engine &)
{
    const char *name = std::getenv("FFTW_SMPI_PLATFORM");
    std::string which = name ? name : "";
    if (which == "juropa")
        build_juropa(nodes_wanted());
    else if (which == "juqueen")
        build_juqueen(nodes_wanted());
    else
        throw std::invalid_argument("platforms.so: FFTW_SMPI_PLATFORM must be juropa or juqueen");
}
