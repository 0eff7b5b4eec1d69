/* The deprecated MPI-1 attribute calls (MPI_Keyval_create/free,
 * MPI_Attr_put/get/delete) and the predefined callbacks: MPI_DUP_FN,
 * MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_COMM_DUP_FN, MPI_COMM_NULL_*,
 * MPI_TYPE_DUP_FN, MPI_WIN_DUP_FN, MPI_WIN_NULL_*: copied (or not) by
 * MPI_Comm_dup, values compared across ranks; interplay with the MPI-2
 * names; errors: freed keyval, a datatype keyval on a communicator,
 * predefined keyvals are read-only. */
#include "mtest.h"

static int deletes = 0;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    CHECK(extra == &deletes, "extra_state not passed");
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int kdup, knull;
    CHECK_SUCCESS(MPI_Keyval_create(MPI_DUP_FN, count_delete, &kdup, &deletes));
    CHECK_SUCCESS(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &knull, NULL));
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int value = 10 * rank + 3, other = -rank;
    CHECK_SUCCESS(MPI_Attr_put(comm, kdup, &value));
    CHECK_SUCCESS(MPI_Attr_put(comm, knull, &other));
    int *got = NULL;
    CHECK_SUCCESS(MPI_Attr_get(comm, kdup, &got, &flag));
    CHECK(flag && got == &value, "MPI_Attr_get: flag %d", flag);
    /* the MPI-2 calls see the same attribute */
    got = NULL;
    CHECK_SUCCESS(MPI_Comm_get_attr(comm, kdup, &got, &flag));
    CHECK(flag && got == &value, "MPI_Comm_get_attr after MPI_Attr_put");

    /* dup: MPI_DUP_FN copies the pointer, MPI_NULL_COPY_FN drops it */
    MPI_Comm copy;
    CHECK_SUCCESS(MPI_Comm_dup(comm, &copy));
    got = NULL;
    CHECK_SUCCESS(MPI_Attr_get(copy, kdup, &got, &flag));
    CHECK(flag && got == &value, "MPI_DUP_FN did not copy (flag %d)", flag);
    CHECK_SUCCESS(MPI_Attr_get(copy, knull, &got, &flag));
    CHECK_INT(flag, 0);
    /* each rank's value through the copy, across ranks */
    int mine = *(int *)got, *all = malloc(sizeof(int) * size);
    CHECK_SUCCESS(MPI_Attr_get(copy, kdup, &got, &flag));
    mine = *got;
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, copy);
    for (int r = 0; r < size; ++r)
        CHECK_INT(all[r], 10 * r + 3);
    free(all);

    /* delete runs the delete callback; freeing the communicators too */
    deletes = 0;
    CHECK_SUCCESS(MPI_Attr_delete(copy, kdup));
    CHECK_INT(deletes, 1);
    CHECK_SUCCESS(MPI_Attr_get(copy, kdup, &got, &flag));
    CHECK_INT(flag, 0);
    MPI_Comm_free(&copy);
    CHECK_INT(deletes, 1);
    MPI_Comm_free(&comm);
    CHECK_INT(deletes, 2);

    /* MPI_COMM_DUP_FN and MPI_COMM_NULL_COPY_FN through the MPI-2 calls */
    int kc, kn;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kn, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kc, (void *)(MPI_Aint)(rank + 77));
    MPI_Comm_set_attr(MPI_COMM_WORLD, kn, (void *)1);
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    void *v = NULL;
    MPI_Comm_get_attr(copy, kc, &v, &flag);
    CHECK(flag && (MPI_Aint)v == rank + 77, "MPI_COMM_DUP_FN: flag %d value %ld", flag,
          (long)(MPI_Aint)v);
    MPI_Comm_get_attr(copy, kn, &v, &flag);
    CHECK_INT(flag, 0);
    MPI_Comm_free(&copy);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kc);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kn);
    MPI_Comm_free_keyval(&kc);
    MPI_Comm_free_keyval(&kn);

    /* The type and window "dup" callbacks copy the value and set flag. */
    void *out = NULL;
    flag = 0;
    CHECK_SUCCESS(MPI_TYPE_DUP_FN(MPI_INT, 0, NULL, (void *)0x5678, &out, &flag));
    CHECK(flag == 1 && out == (void *)0x5678, "MPI_TYPE_DUP_FN");
    flag = 0;
    out = NULL;
    CHECK_SUCCESS(MPI_WIN_DUP_FN(MPI_WIN_NULL, 0, NULL, (void *)0x9abc, &out, &flag));
    CHECK(flag == 1 && out == (void *)0x9abc, "MPI_WIN_DUP_FN");
    CHECK(MPI_WIN_NULL_COPY_FN == NULL && MPI_WIN_NULL_DELETE_FN == NULL &&
              MPI_TYPE_NULL_COPY_FN == NULL && MPI_TYPE_NULL_DELETE_FN == NULL,
          "the NULL callbacks are null pointers");

    /* errors */
    int saved = kdup;
    CHECK_SUCCESS(MPI_Keyval_free(&kdup));
    CHECK_INT(kdup, MPI_KEYVAL_INVALID);
    int rc = MPI_Attr_put(MPI_COMM_WORLD, saved, &value);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_ERR_STRING(rc, "MPI_Attr_put: keyval");
    rc = MPI_Attr_get(MPI_COMM_WORLD, saved, &got, &flag);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Keyval_free(&saved);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_ERR_STRING(rc, "MPI_Keyval_free");
    int ktype;
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &ktype, NULL);
    rc = MPI_Attr_put(MPI_COMM_WORLD, ktype, &value);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Keyval_free(&ktype);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    MPI_Type_free_keyval(&ktype);
    rc = MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, &value);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Attr_delete(MPI_COMM_WORLD, MPI_TAG_UB);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Attr_put(MPI_COMM_NULL, knull, &value);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    /* predefined attributes read through MPI_Attr_get */
    int *tag_ub = NULL;
    CHECK_SUCCESS(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && tag_ub != NULL && *tag_ub >= 32767, "MPI_TAG_UB through MPI_Attr_get");
    MPI_Keyval_free(&knull);
    return mtest_finish();
}
