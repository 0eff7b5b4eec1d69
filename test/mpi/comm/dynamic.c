/* Dynamic process management is not provided yet: the calls link and fail
 * with MPI_ERR_SPAWN / MPI_ERR_UNSUPPORTED_OPERATION and a message, and
 * MPI_Comm_get_parent is MPI_COMM_NULL. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm parent = (MPI_Comm)1, inter;
    CHECK_SUCCESS(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a parent exists");
    int errcodes[2] = {0, 0};
    CHECK_ERR_CLASS(MPI_Comm_spawn("true", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                   &inter, errcodes),
                    MPI_ERR_SPAWN);
    CHECK_INT(mtest_err_class(errcodes[1]), MPI_ERR_SPAWN);
    CHECK_ERR_STRING(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                    &inter, MPI_ERRCODES_IGNORE),
                     "not provided");
    char *cmds[1] = {"true"};
    int np[1] = {1};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    CHECK_ERR_CLASS(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_WORLD,
                                            &inter, MPI_ERRCODES_IGNORE),
                    MPI_ERR_SPAWN);
    char port[MPI_MAX_PORT_NAME];
    CHECK_ERR_CLASS(MPI_Open_port(MPI_INFO_NULL, port), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Close_port("x"), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Comm_accept("x", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter),
                    MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Comm_connect("x", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter),
                    MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Publish_name("svc", MPI_INFO_NULL, "x"), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Unpublish_name("svc", MPI_INFO_NULL, "x"), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Lookup_name("svc", MPI_INFO_NULL, port), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPI_Comm_join(0, &inter), MPI_ERR_UNSUPPORTED_OPERATION);
    return mtest_finish();
}
