/* A duplicate of MPI_COMM_WORLD with an MPIX_Stream attached that names the
 * STMPI host stream `host` (MPICH's info keys: type, and value set with
 * MPIX_Info_set_hex); the stream is left in *stream for MPIX_Stream_free. */
#ifndef STMPI_TEST_STREAM_COMM_H
#define STMPI_TEST_STREAM_COMM_H

#include "mtest.h"

static MPI_Comm host_stream_comm(MPIX_Host_stream host, MPIX_Stream *stream)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "MPIX_Host_stream");
    CHECK_SUCCESS(MPIX_Info_set_hex(info, "value", &host, sizeof host));
    CHECK_SUCCESS(MPIX_Stream_create(info, stream));
    MPI_Info_free(&info);
    MPI_Comm comm;
    CHECK_SUCCESS(MPIX_Stream_comm_create(MPI_COMM_WORLD, *stream, &comm));
    return comm;
}

#endif
