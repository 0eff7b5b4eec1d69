/* Datatype attributes: MPI_Type_create_keyval, _set_attr, _get_attr,
 * _delete_attr, _free_keyval; copy on MPI_Type_dup through MPI_TYPE_DUP_FN,
 * a user callback and MPI_TYPE_NULL_COPY_FN; delete callbacks on replace,
 * delete and MPI_Type_free (also after the keyval was freed); a failing
 * copy callback fails the dup; attributes on predefined types; the values
 * seen by every rank are compared across ranks; errors: a communicator or
 * window keyval used on a type, a freed keyval, MPI_KEYVAL_INVALID. */
#include "mtest.h"

static int deletes = 0; /* delete callback calls */
static void *last_deleted = NULL;

static int count_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)type;
    (void)keyval;
    CHECK(extra == &deletes, "extra_state not passed to the delete callback");
    deletes++;
    last_deleted = value;
    return MPI_SUCCESS;
}

/* Copies value + 1000 (pointer-sized integer arithmetic). */
static int plus_1000(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)type;
    (void)keyval;
    (void)extra;
    *(void **)out = (void *)((MPI_Aint)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Datatype type, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)type;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static MPI_Aint get(MPI_Datatype t, int keyval, int *flag)
{
    void *v = NULL;
    *flag = -1;
    CHECK_SUCCESS(MPI_Type_get_attr(t, keyval, &v, flag));
    return (MPI_Aint)v;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int kdup, kplus, knull;
    CHECK_SUCCESS(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, count_delete, &kdup, &deletes));
    CHECK_SUCCESS(MPI_Type_create_keyval(plus_1000, count_delete, &kplus, &deletes));
    CHECK_SUCCESS(
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL));
    MPI_Datatype t, t2;
    MPI_Type_contiguous(3, MPI_INT, &t);

    /* not set yet */
    get(t, kdup, &flag);
    CHECK_INT(flag, 0);
    const MPI_Aint base = 100 * (rank + 1);
    CHECK_SUCCESS(MPI_Type_set_attr(t, kdup, (void *)base));
    CHECK_SUCCESS(MPI_Type_set_attr(t, kplus, (void *)(base + 1)));
    CHECK_SUCCESS(MPI_Type_set_attr(t, knull, (void *)(base + 2)));
    CHECK_INT((long)get(t, kdup, &flag), (long)base);
    CHECK_INT(flag, 1);
    CHECK_INT((long)get(t, kplus, &flag), (long)base + 1);

    /* replacing a value runs the delete callback on the old one */
    deletes = 0;
    CHECK_SUCCESS(MPI_Type_set_attr(t, kplus, (void *)(base + 5)));
    CHECK_INT(deletes, 1);
    CHECK_INT((long)(MPI_Aint)last_deleted, (long)base + 1);

    /* dup: MPI_TYPE_DUP_FN copies, plus_1000 transforms, NULL_COPY_FN drops */
    CHECK_SUCCESS(MPI_Type_dup(t, &t2));
    CHECK_INT((long)get(t2, kdup, &flag), (long)base);
    CHECK_INT(flag, 1);
    CHECK_INT((long)get(t2, kplus, &flag), (long)base + 1005);
    CHECK_INT(flag, 1);
    get(t2, knull, &flag);
    CHECK_INT(flag, 0);

    /* values are per process: every rank sees its own */
    MPI_Aint mine = get(t2, kplus, &flag), *all = malloc(sizeof(MPI_Aint) * size);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
        CHECK_INT((long)all[r], 100L * (r + 1) + 1005);
    free(all);

    /* delete_attr runs the callback once; a second delete is a no-op */
    deletes = 0;
    CHECK_SUCCESS(MPI_Type_delete_attr(t2, kdup));
    CHECK_INT(deletes, 1);
    CHECK_SUCCESS(MPI_Type_delete_attr(t2, kdup));
    CHECK_INT(deletes, 1);
    get(t2, kdup, &flag);
    CHECK_INT(flag, 0);

    /* freeing a type deletes its attributes (kplus on t2; kdup and kplus on t) */
    deletes = 0;
    CHECK_SUCCESS(MPI_Type_free(&t2));
    CHECK_INT(deletes, 1);
    CHECK_INT((long)(MPI_Aint)last_deleted, (long)base + 1005);

    /* a keyval freed while t still uses it: the attribute stays until t is freed */
    int kdup_copy = kdup;
    void *v0;
    CHECK_SUCCESS(MPI_Type_free_keyval(&kdup));
    CHECK(kdup == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    int rc = MPI_Type_set_attr(t, kdup_copy, (void *)1);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_ERR_STRING(rc, "freed");
    /* ...and can still be read and deleted through the old handle */
    CHECK_INT((long)get(t, kdup_copy, &flag), (long)base);
    CHECK_INT(flag, 1);
    MPI_Datatype t3;
    MPI_Type_contiguous(2, MPI_INT, &t3);
    flag = 1; /* t3 never had it: the keyval is still alive, so not set (as on communicators) */
    CHECK_SUCCESS(MPI_Type_get_attr(t3, kdup_copy, &v0, &flag));
    CHECK_INT(flag, 0);
    int kdup_again = kdup_copy; /* freeing again while alive changes nothing */
    CHECK_SUCCESS(MPI_Type_free_keyval(&kdup_again));
    CHECK_INT((long)get(t, kdup_copy, &flag), (long)base);
    MPI_Type_free(&t3);
    deletes = 0;
    CHECK_SUCCESS(MPI_Type_delete_attr(t, kdup_copy));
    CHECK_INT(deletes, 1);
    rc = MPI_Type_delete_attr(t, kdup_copy); /* gone with its last attribute */
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    deletes = 0;
    CHECK_SUCCESS(MPI_Type_free(&t));
    CHECK_INT(deletes, 1);

    /* a failing copy callback fails the dup and leaves no type */
    int kfail;
    MPI_Type_create_keyval(failing_copy, MPI_TYPE_NULL_DELETE_FN, &kfail, NULL);
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &t);
    MPI_Type_set_attr(t, kfail, (void *)7);
    t2 = (MPI_Datatype)0x1234;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Type_dup(t, &t2);
    CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
    CHECK_ERR_STRING(rc, "copy callback");
    CHECK(t2 == MPI_DATATYPE_NULL, "a failed dup returned a type");
    MPI_Type_free(&t);
    MPI_Type_free_keyval(&kfail);

    /* attributes on a predefined type */
    CHECK_SUCCESS(MPI_Type_set_attr(MPI_INT, kplus, (void *)42));
    CHECK_INT((long)get(MPI_INT, kplus, &flag), 42);
    deletes = 0;
    CHECK_SUCCESS(MPI_Type_delete_attr(MPI_INT, kplus));
    CHECK_INT(deletes, 1);

    /* keyvals of other objects are refused, and type keyvals elsewhere */
    int kcomm, kwin;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kwin, NULL);
    rc = MPI_Type_set_attr(MPI_INT, kcomm, (void *)1);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_ERR_STRING(rc, "communicators");
    void *v;
    rc = MPI_Type_get_attr(MPI_INT, kwin, &v, &flag);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_ERR_STRING(rc, "windows");
    rc = MPI_Type_delete_attr(MPI_INT, kcomm);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, kplus, (void *)1);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Type_free_keyval(&kcomm);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Type_get_attr(MPI_INT, MPI_KEYVAL_INVALID, &v, &flag);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, kplus, (void *)1);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    MPI_Comm_free_keyval(&kcomm);
    MPI_Win_free_keyval(&kwin);
    CHECK_SUCCESS(MPI_Type_free_keyval(&kplus));
    rc = MPI_Type_free_keyval(&kplus);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_SUCCESS(MPI_Type_free_keyval(&knull));
    return mtest_finish();
}
