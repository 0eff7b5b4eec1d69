/* MPI_Info_create_env before MPI_Init (with and without argc/argv) and
 * after it: command and argv from the arguments, maxprocs = the job size,
 * wdir = the working directory, host, arch, the same keys and values after
 * init (no thread_level: nothing requested one at launch); the
 * info is a normal info (dup, free). MPI_Pcontrol at any level returns
 * MPI_SUCCESS. Run with arguments "alpha beta". */
#include "mtest.h"

#include <unistd.h>

static int get(MPI_Info info, const char *key, char *value)
{
    int flag = 0;
    value[0] = '\0';
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    return flag;
}

int main(int argc, char **argv)
{
    char value[MPI_MAX_INFO_VAL + 1], cwd[4096];
    MPI_Info before, bare;
    int rc_before = MPI_Info_create_env(argc, argv, &before);
    int rc_bare = MPI_Info_create_env(0, NULL, &bare);
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_SUCCESS(rc_before);
    CHECK_SUCCESS(rc_bare);
    CHECK(get(before, "command", value) && strcmp(value, argv[0]) == 0, "command '%s'", value);
    CHECK(get(before, "argv", value) && strcmp(value, "alpha beta") == 0, "argv '%s'", value);
    CHECK(get(before, "maxprocs", value) && atoi(value) == size, "maxprocs '%s', size %d", value,
          size);
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    CHECK(get(before, "wdir", value) && strcmp(value, cwd) == 0, "wdir '%s'", value);
    CHECK(get(before, "host", value) && value[0] != '\0', "host missing");
    CHECK(get(before, "arch", value) && value[0] != '\0', "arch missing");
    CHECK(!get(bare, "command", value), "command without argv: '%s'", value);
    CHECK(get(bare, "maxprocs", value) && atoi(value) == size, "maxprocs without argv '%s'", value);

    MPI_Info after, copy;
    CHECK_SUCCESS(MPI_Info_create_env(argc, argv, &after));
    CHECK(!get(after, "thread_level", value), "thread_level '%s' (nothing requested one)", value);
    {
        const char *keys[] = {"command", "argv", "maxprocs", "host", "arch", "wdir"};
        for (int k = 0; k < 6; k++) {
            char other[MPI_MAX_INFO_VAL + 1];
            int had = get(before, keys[k], value), has = get(after, keys[k], other);
            CHECK(had == has && strcmp(value, other) == 0, "%s: '%s' before MPI_Init, '%s' after",
                  keys[k], value, other);
        }
    }
    CHECK_SUCCESS(MPI_Info_dup(after, &copy));
    CHECK(get(copy, "argv", value) && strcmp(value, "alpha beta") == 0, "dup: argv '%s'", value);
    /* every rank reports the same job size */
    int maxprocs = get(after, "maxprocs", value) ? atoi(value) : -1, agree = 0;
    MPI_Allreduce(&maxprocs, &agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK_INT(agree, size);
    int rc = MPI_Info_create_env(argc, argv, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    MPI_Info_free(&copy);
    MPI_Info_free(&after);
    MPI_Info_free(&before);
    MPI_Info_free(&bare);

    CHECK_SUCCESS(MPI_Pcontrol(0));
    CHECK_SUCCESS(MPI_Pcontrol(1));
    CHECK_SUCCESS(MPI_Pcontrol(2, "extra", 3));
    return mtest_finish();
}
