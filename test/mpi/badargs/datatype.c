/* Bad arguments to datatype constructors, queries and packing: negative
 * counts and block lengths, NULL arrays and outputs, NULL, freed and
 * predefined-where-not-allowed handles, sizes and bounds that overflow. */
#include <stdint.h>
#include "badargs.h"

int main(int argc, char **argv)
{
    ba_init(&argc, &argv);
    MPI_Datatype t = MPI_DATATYPE_NULL, freed;
    MPI_Type_contiguous(2, MPI_INT, &freed);
    MPI_Type_free(&freed);
    int lens[2] = {1, 1}, displs[2] = {0, 4}, neg[2] = {1, -1};
    MPI_Aint hdispls[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Count big = (MPI_Count)1 << 40;

    EXPECT(MPI_ERR_COUNT, "count", MPI_Type_contiguous(-1, MPI_INT, &t));
    EXPECT(MPI_ERR_TYPE, "oldtype", MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t));
    EXPECT(MPI_ERR_TYPE, "oldtype", MPI_Type_contiguous(2, freed, &t));
    EXPECT(MPI_ERR_ARG, "newtype", MPI_Type_contiguous(2, MPI_INT, NULL));
    EXPECT(MPI_ERR_COUNT, "count", MPI_Type_vector(-2, 1, 1, MPI_INT, &t));
    EXPECT(MPI_ERR_COUNT, "blocklength", MPI_Type_vector(2, -1, 1, MPI_INT, &t));
    EXPECT(MPI_ERR_COUNT, "blocklength", MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t));
    EXPECT(MPI_ERR_ARG, "array_of_blocklengths", MPI_Type_indexed(2, NULL, displs, MPI_INT, &t));
    EXPECT(MPI_ERR_ARG, "array_of_displacements", MPI_Type_indexed(2, lens, NULL, MPI_INT, &t));
    EXPECT(MPI_ERR_COUNT, "array_of_blocklengths", MPI_Type_indexed(2, neg, displs, MPI_INT, &t));
    EXPECT(MPI_ERR_COUNT, "array_of_blocklengths",
           MPI_Type_create_hindexed(2, neg, hdispls, MPI_INT, &t));
    EXPECT(MPI_ERR_COUNT, "blocklength", MPI_Type_create_indexed_block(2, -4, displs, MPI_INT, &t));
    EXPECT(MPI_ERR_ARG, "array_of_displacements",
           MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &t));
    EXPECT(MPI_ERR_ARG, "array_of_types", MPI_Type_create_struct(2, lens, hdispls, NULL, &t));
    types[1] = MPI_DATATYPE_NULL;
    EXPECT(MPI_ERR_TYPE, "array_of_types", MPI_Type_create_struct(2, lens, hdispls, types, &t));
    types[1] = freed;
    EXPECT(MPI_ERR_TYPE, "array_of_types", MPI_Type_create_struct(2, lens, hdispls, types, &t));
    types[1] = MPI_DOUBLE;
    EXPECT(MPI_ERR_COUNT, "array_of_blocklengths",
           MPI_Type_create_struct(2, neg, hdispls, types, &t));
    EXPECT(MPI_ERR_TYPE, "oldtype", MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t));
    EXPECT(MPI_ERR_TYPE, "oldtype", MPI_Type_dup(freed, &t));
    /* Sizes and bounds that overflow are refused at creation. */
    MPI_Datatype huge;
    MPI_Type_contiguous_c(big, MPI_DOUBLE, &huge); /* 8 TiB: fine */
    EXPECT(MPI_ERR_COUNT, "MPI_Count", MPI_Type_contiguous_c(big, huge, &t));
    EXPECT(MPI_ERR_COUNT, "MPI_Count", MPI_Type_vector_c(big, 1, 1, huge, &t));
    EXPECT(MPI_ERR_ARG, "MPI_Aint", MPI_Type_vector_c(4, 1, (MPI_Count)1 << 61, MPI_DOUBLE, &t));
    EXPECT(MPI_ERR_ARG, "MPI_Aint", MPI_Type_create_resized(MPI_INT, INT64_MAX - 2, 8, &t));
    {
        MPI_Aint far[2] = {INT64_MIN + 1, INT64_MAX - 1};
        EXPECT(MPI_ERR_ARG, "MPI_Aint", MPI_Type_create_hindexed(2, lens, far, MPI_INT, &t));
    }
    int size;
    MPI_Count size_c;
    MPI_Type_commit(&huge);
    EXPECT_OK(VALUE(MPI_Type_size(huge, &size), size, MPI_UNDEFINED));
    EXPECT_OK(VALUE(MPI_Type_size_c(huge, &size_c), size_c, big * 8));
    EXPECT_OK(VALUE(MPI_Type_size_x(huge, &size_c), size_c, big * 8));
    EXPECT(MPI_ERR_COUNT, "incount", MPI_Pack_size_c(big, huge, MPI_COMM_WORLD, &size_c));

    /* Life cycle and queries */
    EXPECT(MPI_ERR_ARG, "datatype", MPI_Type_commit(NULL));
    t = freed;
    EXPECT(MPI_ERR_TYPE, "datatype", MPI_Type_commit(&t));
    t = MPI_INT;
    EXPECT(MPI_ERR_TYPE, "datatype", MPI_Type_free(&t));
    t = MPI_DATATYPE_NULL;
    EXPECT(MPI_ERR_TYPE, "datatype", MPI_Type_free(&t));
    EXPECT(MPI_ERR_ARG, "size", MPI_Type_size(MPI_INT, NULL));
    EXPECT(MPI_ERR_TYPE, "datatype", MPI_Type_size(freed, &size));
    MPI_Aint lb, extent;
    EXPECT(MPI_ERR_ARG, "lb", MPI_Type_get_extent(MPI_INT, NULL, &extent));
    EXPECT(MPI_ERR_ARG, "true_extent", MPI_Type_get_true_extent(MPI_INT, &lb, NULL));
    EXPECT(MPI_ERR_ARG, "type_name", MPI_Type_set_name(MPI_INT, NULL));
    EXPECT(MPI_ERR_TYPE, "datatype",
           MPI_Type_get_name(freed, (char[MPI_MAX_OBJECT_NAME]){0}, &size));

    /* Packing */
    char packbuf[64];
    int in[4] = {1, 2, 3, 4}, position = 0;
    EXPECT(MPI_ERR_TRUNCATE, "outsize",
           MPI_Pack(in, 4, MPI_INT, packbuf, 8, &position, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_ARG, "position", MPI_Pack(in, 1, MPI_INT, packbuf, 64, NULL, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COUNT, "incount",
           MPI_Pack(in, -1, MPI_INT, packbuf, 64, &position, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, "inbuf",
           MPI_Pack(NULL, 1, MPI_INT, packbuf, 64, &position, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_BUFFER, "outbuf",
           MPI_Pack(in, 1, MPI_INT, MPI_IN_PLACE, 64, &position, MPI_COMM_WORLD));
    position = 60;
    EXPECT(MPI_ERR_TRUNCATE, "insize",
           MPI_Unpack(packbuf, 64, &position, in, 2, MPI_INT, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Pack_size(1, MPI_INT, MPI_COMM_NULL, &size));
    EXPECT(MPI_ERR_ARG, "address", MPI_Get_address(in, NULL));

    MPI_Type_free(&huge);
    return ba_finish();
}
