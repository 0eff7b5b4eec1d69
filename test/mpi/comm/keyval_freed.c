/* A keyval freed while attributes still use it stays valid for those attributes until the last
 * one is deleted (MPI 4.1 7.7.2), for communicators and windows:
 * - MPI_*_get_attr still finds the value, MPI_*_delete_attr runs the delete callback;
 * - MPI_Comm_dup copies the attribute through the freed keyval's copy callback;
 * - freeing the keyval again while it is alive (a delete callback that frees its own keyval,
 *   as MPICH's keyval_double_free does) succeeds and changes nothing;
 * - a new MPI_*_set_attr with the freed keyval is MPI_ERR_KEYVAL, and once the last attribute
 *   is gone the handle is invalid (MPI_ERR_KEYVAL). */
#include "mtest.h"

static int comm_deletes, win_deletes;

static int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)value, (void)extra;
    comm_deletes++;
    int rc = MPI_Comm_free_keyval(&keyval); /* once per attribute */
    CHECK_SUCCESS(rc);
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)extra;
    CHECK(value == (void *)22, "window attribute value %p", value);
    win_deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    void *value = NULL;
    int flag = 0, rc;

    /* Communicators. */
    int key, key_copy;
    CHECK_SUCCESS(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, comm_delete, &key, NULL));
    key_copy = key;
    MPI_Comm a, b;
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    CHECK_SUCCESS(MPI_Comm_set_attr(a, key, (void *)11));
    CHECK_SUCCESS(MPI_Comm_free_keyval(&key));
    CHECK_INT(key, MPI_KEYVAL_INVALID);
    CHECK_SUCCESS(MPI_Comm_get_attr(a, key_copy, &value, &flag));
    CHECK(flag && value == (void *)11, "get after free_keyval: flag %d value %p", flag, value);
    CHECK_SUCCESS(MPI_Comm_dup(a, &b)); /* copies through the freed keyval */
    MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
    flag = 0;
    CHECK_SUCCESS(MPI_Comm_get_attr(b, key_copy, &value, &flag));
    CHECK(flag && value == (void *)11, "dup's copy: flag %d value %p", flag, value);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, key_copy, (void *)12);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_SUCCESS(MPI_Comm_delete_attr(a, key_copy)); /* callback frees the keyval again */
    CHECK_INT(comm_deletes, 1);
    CHECK_SUCCESS(MPI_Comm_get_attr(a, key_copy, &value, &flag));
    CHECK_INT(flag, 0);
    CHECK_SUCCESS(MPI_Comm_free(&b)); /* the last attribute: the keyval goes */
    CHECK_INT(comm_deletes, 2);
    rc = MPI_Comm_free_keyval(&key_copy);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_SUCCESS(MPI_Comm_free(&a));

    /* Windows. */
    int wkey, wkey_copy;
    MPI_Win win;
    CHECK_SUCCESS(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_SUCCESS(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &wkey, NULL));
    wkey_copy = wkey;
    CHECK_SUCCESS(MPI_Win_set_attr(win, wkey, (void *)22));
    CHECK_SUCCESS(MPI_Win_free_keyval(&wkey));
    CHECK_INT(wkey, MPI_KEYVAL_INVALID);
    flag = 0;
    CHECK_SUCCESS(MPI_Win_get_attr(win, wkey_copy, &value, &flag));
    CHECK(flag && value == (void *)22, "window get after free_keyval: flag %d value %p", flag,
          value);
    int again = wkey_copy;
    CHECK_SUCCESS(MPI_Win_free_keyval(&again)); /* still alive: no effect */
    rc = MPI_Win_set_attr(win, wkey_copy, (void *)23);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_SUCCESS(MPI_Win_delete_attr(win, wkey_copy));
    CHECK_INT(win_deletes, 1);
    rc = MPI_Win_get_attr(win, wkey_copy, &value, &flag);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_SUCCESS(MPI_Win_free(&win));
    return mtest_finish();
}
