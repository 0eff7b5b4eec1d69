/* Environment queries around MPI_Init/MPI_Finalize: Initialized, Finalized,
 * version, library version, processor name, Wtime/Wtick, thread queries. */
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int flag = -1, rank, size, rc;

    /* Queries valid before MPI_Init. */
    CHECK_SUCCESS(MPI_Initialized(&flag));
    CHECK_INT(flag, 0);
    flag = -1;
    CHECK_SUCCESS(MPI_Finalized(&flag));
    CHECK_INT(flag, 0);
    int version = -1, subversion = -1;
    CHECK_SUCCESS(MPI_Get_version(&version, &subversion));
    CHECK_INT(version, 4);
    CHECK_INT(subversion, 0);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen = -1;
    CHECK_SUCCESS(MPI_Get_library_version(lib, &liblen));
    CHECK(strstr(lib, "STMPI") != NULL, "library version \"%.80s\"", lib);

    rc = MPI_Init(&argc, &argv);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    flag = -1;
    CHECK_SUCCESS(MPI_Initialized(&flag));
    CHECK_INT(flag, 1);
    flag = -1;
    CHECK_SUCCESS(MPI_Finalized(&flag));
    CHECK_INT(flag, 0);

    CHECK_INT(MPI_VERSION, 4);
    CHECK_INT(MPI_SUBVERSION, 0);
    version = subversion = -1;
    CHECK_SUCCESS(MPI_Get_version(&version, &subversion));
    CHECK_INT(version, 4);
    CHECK_INT(subversion, 0);

    memset(lib, 0, sizeof lib);
    liblen = -1;
    CHECK_SUCCESS(MPI_Get_library_version(lib, &liblen));
    CHECK(strstr(lib, "STMPI") != NULL, "library version \"%.80s\"", lib);
    CHECK(liblen == (int)strlen(lib), "resultlen %d, strlen %d", liblen, (int)strlen(lib));
    CHECK(liblen > 0 && liblen < MPI_MAX_LIBRARY_VERSION_STRING, "resultlen %d", liblen);

    char name[MPI_MAX_PROCESSOR_NAME];
    int namelen = -1;
    memset(name, 'x', sizeof name);
    CHECK_SUCCESS(MPI_Get_processor_name(name, &namelen));
    CHECK(namelen > 0 && namelen < MPI_MAX_PROCESSOR_NAME, "namelen %d", namelen);
    if (namelen > 0 && namelen < MPI_MAX_PROCESSOR_NAME) {
        CHECK(name[namelen] == '\0', "name not terminated at resultlen %d", namelen);
        CHECK((int)strlen(name) == namelen, "strlen %d, resultlen %d", (int)strlen(name), namelen);
        /* Ranks on the same host (same gethostname) report the same name. */
        char root_name[MPI_MAX_PROCESSOR_NAME], host[256] = "", root_host[256];
        gethostname(host, sizeof host);
        host[sizeof host - 1] = '\0';
        memcpy(root_name, name, sizeof root_name);
        memcpy(root_host, host, sizeof root_host);
        MPI_Bcast(root_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Bcast(root_host, (int)sizeof root_host, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (strcmp(root_host, host) == 0)
            CHECK(strcmp(root_name, name) == 0, "rank 0 says \"%s\", this rank \"%s\"", root_name,
                  name);
    }

    /* Wtime: monotonic, advances across a sleep, Wtick positive and sane. */
    double tick = MPI_Wtick();
    CHECK(tick > 0.0 && tick <= 0.01, "MPI_Wtick() = %g", tick);
    double prev = MPI_Wtime(), first = prev;
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        if (now < prev) {
            CHECK(now >= prev, "Wtime went back from %.9f to %.9f", prev, now);
            break;
        }
        prev = now;
    }
    usleep(20000);
    double after = MPI_Wtime();
    CHECK(after - first >= 0.019 && after - first < 5.0, "20 ms sleep measured as %g s",
          after - first);

    int provided = -1;
    CHECK_SUCCESS(MPI_Query_thread(&provided));
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d",
          provided);
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
              MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
          "thread levels out of order");
    flag = -1;
    CHECK_SUCCESS(MPI_Is_thread_main(&flag));
    CHECK_INT(flag, 1);

    /* Sanity: a value travels between ranks. */
    int sum = 0, mine = rank + 1;
    CHECK_SUCCESS(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, size * (size + 1) / 2);

    int total = 0, before = mtest_errors;
    MPI_Reduce(&mtest_errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_Finalize());

    /* Queries valid after MPI_Finalize. */
    flag = -1;
    CHECK_SUCCESS(MPI_Initialized(&flag));
    CHECK_INT(flag, 1);
    flag = -1;
    CHECK_SUCCESS(MPI_Finalized(&flag));
    CHECK_INT(flag, 1);
    version = -1;
    CHECK_SUCCESS(MPI_Get_version(&version, &subversion));
    CHECK_INT(version, 4);
    memset(lib, 0, sizeof lib);
    CHECK_SUCCESS(MPI_Get_library_version(lib, &liblen));
    CHECK(strstr(lib, "STMPI") != NULL, "library version after finalize \"%.80s\"", lib);

    /* errors found after the reduction count only locally */
    if (rank == 0) {
        total += mtest_errors - before;
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    return mtest_errors == 0 && total == 0 ? 0 : 1;
}
