/*
 * bcast_stream.c - the user's buffer as a stream of bytes, cut into chunks.
 *
 * A chunk boundary falls at the same byte of the stream on every rank, but
 * ranks may describe the data with different datatypes of one signature (a
 * vector on the root, doubles elsewhere), so a boundary may cut an element
 * of this rank's type.  Bytewise types (datatype.c's dense ones, laid out
 * without gaps between elements) are simply memcpy'd.  Other types are packed
 * a run of whole elements at a time with MPI_Pack; an element cut by a
 * boundary is packed whole into `partial` and copied in part, and on the
 * receiving side gathered there until complete, then unpacked.  That needs
 * MPI's packed format to be the plain bytes (true of MPICH and Open MPI on
 * one architecture, and checked: MPI_Pack_size of an element must be its
 * size), and `partial` costs one element: an element larger than the budget
 * is left to MPI_Bcast.
 */
#include <string.h>

#include "bcast/bcast.h"

int aip_bcast_stream_begin(aip_bcast_stream *stream, aip_call *call, void *buf, int count,
                           MPI_Datatype type, long long budget)
{
    int packed;

    memset(stream, 0, sizeof *stream);
    stream->buf = buf;
    stream->count = count;
    stream->type = type;
    stream->comm = call->comm;
    if (!aip_call_type_info(call, type, &stream->info, "datatype"))
        return 0;
    stream->bytewise =
        stream->info.dense && (count <= 1 || stream->info.extent == (MPI_Aint)stream->info.size);
    if (stream->bytewise || stream->info.size == 0)
        return 1;
    if (MPI_Pack_size(1, type, call->comm, &packed) != MPI_SUCCESS) {
        aip_call_error(call, MPI_ERR_TYPE, "datatype cannot be packed (not committed?)");
        return 0;
    }
    return packed == stream->info.size && stream->info.size <= budget;
}

int aip_bcast_stream_reserve(aip_bcast_stream *stream)
{
    if (stream->bytewise || stream->info.size == 0)
        return MPI_SUCCESS;
    stream->partial = aip_malloc((size_t)stream->info.size);
    return stream->partial ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void aip_bcast_stream_end(aip_bcast_stream *stream)
{
    free(stream->partial);
    stream->partial = NULL;
}

static char *element(const aip_bcast_stream *stream, MPI_Count i)
{
    return stream->buf + (MPI_Aint)i * stream->info.extent;
}

int aip_bcast_stream_pack(aip_bcast_stream *stream, MPI_Count from, size_t bytes, char *to)
{
    const MPI_Count size = stream->info.size;
    int err = MPI_SUCCESS;

    if (stream->bytewise) {
        memcpy(to, stream->buf + stream->info.true_lb + from, bytes);
        return MPI_SUCCESS;
    }
    while (bytes > 0 && err == MPI_SUCCESS) {
        MPI_Count i = from / size, within = from % size;
        size_t taken;
        int position = 0;
        if (within == 0 && bytes >= (size_t)size) {
            MPI_Count whole = (MPI_Count)bytes / size;
            taken = (size_t)(whole * size);
            err = MPI_Pack(element(stream, i), (int)whole, stream->type, to, (int)taken, &position,
                           stream->comm);
        } else {
            taken = (size_t)(size - within) < bytes ? (size_t)(size - within) : bytes;
            err = MPI_Pack(element(stream, i), 1, stream->type, stream->partial, (int)size,
                           &position, stream->comm);
            memcpy(to, stream->partial + within, taken);
        }
        from += (MPI_Count)taken;
        to += taken;
        bytes -= taken;
    }
    return err;
}

int aip_bcast_stream_unpack(aip_bcast_stream *stream, MPI_Count from, size_t bytes,
                            const char *from_bytes)
{
    const MPI_Count size = stream->info.size;
    int err = MPI_SUCCESS;

    if (stream->bytewise) {
        memcpy(stream->buf + stream->info.true_lb + from, from_bytes, bytes);
        return MPI_SUCCESS;
    }
    while (bytes > 0 && err == MPI_SUCCESS) {
        MPI_Count i = from / size, within = from % size;
        size_t taken;
        int position = 0;
        if (within == 0 && bytes >= (size_t)size) {
            MPI_Count whole = (MPI_Count)bytes / size;
            taken = (size_t)(whole * size);
            err = MPI_Unpack(from_bytes, (int)taken, &position, element(stream, i), (int)whole,
                             stream->type, stream->comm);
        } else {
            taken = (size_t)(size - within) < bytes ? (size_t)(size - within) : bytes;
            memcpy(stream->partial + within, from_bytes, taken);
            if (within + (MPI_Count)taken == size) /* the element is complete */
                err = MPI_Unpack(stream->partial, (int)size, &position, element(stream, i), 1,
                                 stream->type, stream->comm);
        }
        from += (MPI_Count)taken;
        from_bytes += taken;
        bytes -= taken;
    }
    return err;
}
