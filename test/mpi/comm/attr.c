/* Communicator attributes: predefined attributes on MPI_COMM_WORLD, user
 * keyvals whose copy callbacks run on MPI_Comm_dup and whose delete
 * callbacks run on overwrite, delete and free; MPI_COMM_DUP_FN and
 * MPI_COMM_NULL_COPY_FN; error classes for bad keyvals. */
#include "mtest.h"

static int copies = 0, deletes = 0;
static void *last_deleted = NULL;
static int extra_seen = 0;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    copies++;
    if (extra == (void *)&extra_seen)
        extra_seen++;
    /* The copy is the value plus 1000. */
    *(void **)out = (void *)((char *)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    deletes++;
    last_deleted = value;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    int rank, size, flag, rc;
    void *value;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Predefined attributes: pointers to ints. */
    int *ip = NULL;
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag));
    CHECK(flag && ip != NULL && *ip == (1 << 28) - 1, "MPI_TAG_UB: flag %d value %d", flag,
          ip ? *ip : -1);
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag));
    CHECK(flag && *ip == MPI_PROC_NULL, "MPI_HOST");
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag));
    CHECK(flag && *ip == MPI_ANY_SOURCE, "MPI_IO");
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag));
    CHECK(flag && *ip == 0, "MPI_WTIME_IS_GLOBAL");
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag));
    CHECK(flag && *ip == size, "MPI_UNIVERSE_SIZE %d", flag ? *ip : -1);
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag));
    CHECK(flag && *ip == 0, "MPI_APPNUM");
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &rank);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);

    /* User keyval with callbacks. */
    int key = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra_seen));
    CHECK(key != MPI_KEYVAL_INVALID, "no keyval");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    CHECK_SUCCESS(MPI_Comm_get_attr(comm, key, &value, &flag));
    CHECK_INT(flag, 0);
    char base[1];
    void *v1 = (void *)(base + 1), *v2 = (void *)(base + 2);
    CHECK_SUCCESS(MPI_Comm_set_attr(comm, key, v1));
    CHECK_SUCCESS(MPI_Comm_get_attr(comm, key, &value, &flag));
    CHECK(flag && value == v1, "get after set: flag %d", flag);
    CHECK_INT(deletes, 0);
    /* Overwriting deletes the old value. */
    CHECK_SUCCESS(MPI_Comm_set_attr(comm, key, v2));
    CHECK_INT(deletes, 1);
    CHECK(last_deleted == v1, "overwrite deleted the wrong value");

    /* Dup runs the copy callback with extra_state. */
    MPI_Comm copy;
    CHECK_SUCCESS(MPI_Comm_dup(comm, &copy));
    CHECK_INT(copies, 1);
    CHECK_INT(extra_seen, 1);
    CHECK_SUCCESS(MPI_Comm_get_attr(copy, key, &value, &flag));
    CHECK(flag && value == (char *)v2 + 1000, "copied value wrong (flag %d)", flag);
    /* The original keeps its value. */
    CHECK_SUCCESS(MPI_Comm_get_attr(comm, key, &value, &flag));
    CHECK(flag && value == v2, "original changed");

    /* Explicit delete. */
    CHECK_SUCCESS(MPI_Comm_delete_attr(copy, key));
    CHECK_INT(deletes, 2);
    CHECK(last_deleted == (char *)v2 + 1000, "delete passed the wrong value");
    CHECK_SUCCESS(MPI_Comm_get_attr(copy, key, &value, &flag));
    CHECK_INT(flag, 0);
    MPI_Comm_free(&copy);
    CHECK_INT(deletes, 2);

    /* MPI_COMM_DUP_FN copies the value as is; MPI_COMM_NULL_COPY_FN drops it. */
    int dupkey, nullkey;
    CHECK_SUCCESS(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dupkey, NULL));
    CHECK_SUCCESS(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &nullkey, NULL));
    CHECK_SUCCESS(MPI_Comm_set_attr(comm, dupkey, v1));
    CHECK_SUCCESS(MPI_Comm_set_attr(comm, nullkey, v1));
    CHECK_SUCCESS(MPI_Comm_dup(comm, &copy));
    CHECK_INT(copies, 2);
    CHECK_SUCCESS(MPI_Comm_get_attr(copy, dupkey, &value, &flag));
    CHECK(flag && value == v1, "MPI_COMM_DUP_FN: flag %d", flag);
    CHECK_SUCCESS(MPI_Comm_get_attr(copy, nullkey, &value, &flag));
    CHECK_INT(flag, 0);
    CHECK_SUCCESS(MPI_Comm_get_attr(copy, key, &value, &flag));
    CHECK(flag && value == (char *)v2 + 1000, "copied value wrong");

    /* Free runs delete callbacks of every attribute (key and nothing else
     * with a delete function on `copy`). */
    int before = deletes;
    CHECK_SUCCESS(MPI_Comm_free(&copy));
    CHECK_INT(deletes, before + 1);

    /* Freeing a keyval while attributes use it: the attribute stays usable
     * through the communicator until deleted; the handle is reset. */
    int key_copy = key;
    CHECK_SUCCESS(MPI_Comm_free_keyval(&key));
    CHECK_INT(key, MPI_KEYVAL_INVALID);
    flag = 0;
    CHECK_SUCCESS(MPI_Comm_get_attr(comm, key_copy, &value, &flag));
    CHECK(flag && value == v2, "attribute of a freed keyval: flag %d value %p", flag, value);
    before = deletes;
    CHECK_SUCCESS(MPI_Comm_free(&comm)); /* deletes key (v2) and nullkey (v1) */
    CHECK_INT(deletes, before + 2);

    /* A failing copy callback makes MPI_Comm_dup fail. */
    int failkey;
    CHECK_SUCCESS(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &failkey, NULL));
    CHECK_SUCCESS(MPI_Comm_set_attr(MPI_COMM_SELF, failkey, v1));
    MPI_Comm nope = MPI_COMM_WORLD; /* must come back as MPI_COMM_NULL */
    rc = MPI_Comm_dup(MPI_COMM_SELF, &nope);
    CHECK(rc != MPI_SUCCESS, "dup with a failing copy callback succeeded");
    CHECK(nope == MPI_COMM_NULL, "newcomm is 0x%x after a failing copy callback, not MPI_COMM_NULL",
          (unsigned)nope);
    CHECK_SUCCESS(MPI_Comm_delete_attr(MPI_COMM_SELF, failkey));
    CHECK_SUCCESS(MPI_Comm_free_keyval(&failkey));

    /* Bad keyvals. */
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, v1);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Comm_free_keyval(&key_copy);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    int tag_ub = MPI_TAG_UB;
    rc = MPI_Comm_free_keyval(&tag_ub);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);

    MPI_Comm_free_keyval(&dupkey);
    MPI_Comm_free_keyval(&nullkey);
    return mtest_finish();
}
