/* An error code returned by an attribute callback reaches the caller (MPICH's attr/attrerrtype):
 * - datatype calls have no communicator, so their errors go to MPI_COMM_SELF's handler; while the
 *   program has set none there, MPI_COMM_WORLD's serves (as in MPICH, for programs written before
 *   MPI 4.0): with MPI_ERRORS_RETURN on MPI_COMM_WORLD only, the calls return the error;
 * - the returned code has the class the callback returned (MPI_ERR_ARG here, MPI_ERR_OTHER for a
 *   value that is not an MPI error class);
 * - a failed delete keeps the attribute (MPI_Type_delete_attr, MPI_Type_set_attr);
 * - a failed copy makes MPI_Type_dup / MPI_Comm_dup fail;
 * - once a handler is set on MPI_COMM_SELF, it is the one called. */
#include "mtest.h"

static int fail_delete = 1, deletes, self_handler_calls;

static int copy_bomb(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)type, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 1;
    return MPI_ERR_ARG;
}

static int delete_bomb(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type, (void)keyval, (void)value, (void)extra;
    deletes++;
    return fail_delete ? MPI_ERR_ARG : MPI_SUCCESS;
}

static int comm_copy_bomb(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return -7; /* not an MPI error code */
}

static void self_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    self_handler_calls++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* not on MPI_COMM_SELF */
    int rank = 0, flag = 0, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Datatype type = MPI_DATATYPE_NULL, copy = MPI_DATATYPE_NULL;
    CHECK_SUCCESS(MPI_Type_contiguous(3, MPI_INT, &type));
    int key = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Type_create_keyval(copy_bomb, delete_bomb, &key, NULL));
    CHECK_SUCCESS(MPI_Type_set_attr(type, key, (void *)1));

    rc = MPI_Type_set_attr(type, key, (void *)2); /* the delete of value 1 fails */
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    void *value = NULL;
    CHECK_SUCCESS(MPI_Type_get_attr(type, key, &value, &flag));
    CHECK(flag && value == (void *)1, "value after failed replace: %p", value);

    rc = MPI_Type_delete_attr(type, key);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_SUCCESS(MPI_Type_get_attr(type, key, &value, &flag));
    CHECK_INT(flag, 1);

    rc = MPI_Type_dup(type, &copy);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK(copy == MPI_DATATYPE_NULL, "MPI_Type_dup gave a type after a failed copy");
    CHECK_INT(deletes, 2);

    /* A communicator copy callback returning a non-MPI code: MPI_ERR_OTHER. */
    int ckey = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Comm_create_keyval(comm_copy_bomb, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    CHECK_SUCCESS(MPI_Comm_set_attr(MPI_COMM_WORLD, ckey, (void *)3));
    MPI_Comm dup = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
    CHECK_ERR_STRING_INT(rc, -7);
    if (dup != MPI_COMM_NULL)
        MPI_Comm_free(&dup);
    CHECK_SUCCESS(MPI_Comm_delete_attr(MPI_COMM_WORLD, ckey));
    CHECK_SUCCESS(MPI_Comm_free_keyval(&ckey));

    /* With a handler on MPI_COMM_SELF, that handler is called for the datatype's error. */
    MPI_Errhandler eh;
    CHECK_SUCCESS(MPI_Comm_create_errhandler(self_handler, &eh));
    CHECK_SUCCESS(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    CHECK_SUCCESS(MPI_Errhandler_free(&eh));
    rc = MPI_Type_delete_attr(type, key);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_INT(self_handler_calls, 1);

    fail_delete = 0;
    CHECK_SUCCESS(MPI_Type_free(&type));
    CHECK_INT(deletes, 4);
    CHECK_SUCCESS(MPI_Type_free_keyval(&key));
    return mtest_finish();
}
