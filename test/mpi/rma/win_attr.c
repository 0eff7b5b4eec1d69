/* Windows as MPI objects: predefined attributes (MPI_WIN_BASE, _SIZE,
 * _DISP_UNIT, _CREATE_FLAVOR, _MODEL) for every flavor; user keyvals with
 * delete callbacks run by MPI_Win_free; names; MPI_Win_get_group; info hints
 * through MPI_Win_create/set_info/get_info; error handlers (a user handler
 * sees the window and the error code; MPI_Win_call_errhandler); and the
 * MPI_Info calls themselves. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int deleted = 0;
static int delete_fn(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win;
  (void)keyval;
  (void)extra;
  deleted += *(int *)value;
  return MPI_SUCCESS;
}

static MPI_Win handler_win = MPI_WIN_NULL;
static int handler_code = MPI_SUCCESS, handler_calls = 0;
static void handler(MPI_Win *win, int *code, ...) {
  handler_win = *win;
  handler_code = *code;
  ++handler_calls;
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor) {
  void *b;
  MPI_Aint *s;
  int *d, *f, *m, flag;
  CHECK_SUCCESS(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
  CHECK(flag && b == base, "MPI_WIN_BASE");
  CHECK_SUCCESS(MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &flag));
  CHECK(flag && *s == size, "MPI_WIN_SIZE %ld", (long)*s);
  CHECK_SUCCESS(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &d, &flag));
  CHECK(flag && *d == disp_unit, "MPI_WIN_DISP_UNIT");
  CHECK_SUCCESS(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag));
  CHECK(flag && *f == flavor, "MPI_WIN_CREATE_FLAVOR %d vs %d", *f, flavor);
  CHECK_SUCCESS(MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &flag));
  CHECK(flag && *m == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Info objects. */
  MPI_Info info, dup;
  char key[MPI_MAX_INFO_KEY + 1], value[64];
  int flag, nkeys, len;
  CHECK_SUCCESS(MPI_Info_create(&info));
  CHECK_SUCCESS(MPI_Info_set(info, "no_locks", "true"));
  CHECK_SUCCESS(MPI_Info_set(info, "accumulate_ordering", "none"));
  CHECK_SUCCESS(MPI_Info_set(info, "mykey", "myvalue"));
  CHECK_SUCCESS(MPI_Info_set(info, "mykey", "changed"));
  CHECK_SUCCESS(MPI_Info_get_nkeys(info, &nkeys));
  CHECK_INT(nkeys, 3);
  CHECK_SUCCESS(MPI_Info_get_nthkey(info, 2, key));
  CHECK(strcmp(key, "mykey") == 0, "nthkey(2) = %s", key);
  CHECK_SUCCESS(MPI_Info_get_valuelen(info, "mykey", &len, &flag));
  CHECK(flag && len == 7, "valuelen %d", len);
  len = 4;
  CHECK_SUCCESS(MPI_Info_get_string(info, "mykey", &len, value, &flag));
  CHECK(flag && len == 8 && strcmp(value, "cha") == 0, "get_string truncates: %s %d", value, len);
  CHECK_SUCCESS(MPI_Info_dup(info, &dup));
  CHECK_SUCCESS(MPI_Info_delete(dup, "mykey"));
  CHECK_ERR_CLASS(MPI_Info_delete(dup, "mykey"), MPI_ERR_INFO_NOKEY);
  CHECK_SUCCESS(MPI_Info_get(dup, "mykey", 63, value, &flag));
  CHECK(!flag, "deleted key is gone from the dup");
  CHECK_SUCCESS(MPI_Info_get(info, "mykey", 63, value, &flag));
  CHECK(flag && strcmp(value, "changed") == 0, "original keeps the key");
  CHECK_ERR_CLASS(MPI_Info_get_nthkey(info, 3, key), MPI_ERR_ARG);
  CHECK_SUCCESS(MPI_Info_free(&dup));
  CHECK(dup == MPI_INFO_NULL, "freed info is MPI_INFO_NULL");
  CHECK_ERR_CLASS(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);

  /* A window with hints. */
  int *base;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(40, 4, info, MPI_COMM_WORLD, &base, &win));
  MPI_Info_free(&info);
  MPI_Info used;
  CHECK_SUCCESS(MPI_Win_get_info(win, &used));
  CHECK_SUCCESS(MPI_Info_get(used, "no_locks", 63, value, &flag));
  CHECK(flag && strcmp(value, "true") == 0, "no_locks hint %s", value);
  CHECK_SUCCESS(MPI_Info_get(used, "accumulate_ordering", 63, value, &flag));
  CHECK(flag && strcmp(value, "none") == 0, "accumulate_ordering hint %s", value);
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "accumulate_ordering", "rar,raw");
  CHECK_SUCCESS(MPI_Win_set_info(win, info));
  MPI_Info_free(&info);
  CHECK_SUCCESS(MPI_Win_get_info(win, &used));
  CHECK_SUCCESS(MPI_Info_get(used, "accumulate_ordering", 63, value, &flag));
  CHECK(flag && strcmp(value, "rar,raw") == 0, "accumulate_ordering after set_info: %s", value);
  MPI_Info_free(&used);
  check_attrs(win, base, 40, 4, MPI_WIN_FLAVOR_ALLOCATE);

  /* Names and the group. */
  char name[MPI_MAX_OBJECT_NAME];
  CHECK_SUCCESS(MPI_Win_get_name(win, name, &len));
  CHECK_INT(len, 0);
  CHECK_SUCCESS(MPI_Win_set_name(win, "my window"));
  CHECK_SUCCESS(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "my window") == 0 && len == 9, "window name %s", name);
  MPI_Group g, world;
  int cmp;
  CHECK_SUCCESS(MPI_Win_get_group(win, &g));
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_compare(g, world, &cmp);
  CHECK_INT(cmp, MPI_IDENT);
  MPI_Group_free(&g);
  MPI_Group_free(&world);

  /* User keyval: the delete callback runs at MPI_Win_free. */
  int keyval, v1 = 1, v2 = 10, *got;
  CHECK_SUCCESS(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &keyval, NULL));
  CHECK_SUCCESS(MPI_Win_set_attr(win, keyval, &v1));
  CHECK_SUCCESS(MPI_Win_set_attr(win, keyval, &v2)); /* replaces: deletes v1 */
  CHECK_INT(deleted, 1);
  CHECK_SUCCESS(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(flag && got == &v2, "user attribute");

  /* Error handlers: default fatal; a user handler sees window and code. */
  MPI_Errhandler eh, current;
  CHECK_SUCCESS(MPI_Win_get_errhandler(win, &current));
  CHECK(current == MPI_ERRORS_ARE_FATAL, "windows start with MPI_ERRORS_ARE_FATAL");
  MPI_Errhandler_free(&current);
  CHECK_SUCCESS(MPI_Win_create_errhandler(handler, &eh));
  CHECK_SUCCESS(MPI_Win_set_errhandler(win, eh));
  int rc = MPI_Put(&v1, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* no epoch */
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
  CHECK(handler_calls == 1 && handler_win == win && handler_code == rc,
        "user handler called with the window and code");
  CHECK_SUCCESS(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "MPI_Win_call_errhandler");
  CHECK_ERR_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG);
  CHECK_SUCCESS(MPI_Errhandler_free(&eh));
  CHECK_SUCCESS(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_ERR_CLASS(MPI_Win_set_attr(win, MPI_WIN_BASE, &v1), MPI_ERR_KEYVAL);
  CHECK_SUCCESS(MPI_Win_free(&win));
  CHECK_INT(deleted, 11);
  CHECK_SUCCESS(MPI_Win_free_keyval(&keyval));

  /* Attributes of the other flavors. */
  int *user = malloc(64);
  CHECK_SUCCESS(MPI_Win_create(user, 64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attrs(win, user, 64, 8, MPI_WIN_FLAVOR_CREATE);
  CHECK_SUCCESS(MPI_Win_free(&win));
  MPI_Comm node; /* shared memory needs one node */
  CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CHECK_SUCCESS(MPI_Win_allocate_shared(16, 1, MPI_INFO_NULL, node, &base, &win));
  check_attrs(win, base, 16, 1, MPI_WIN_FLAVOR_SHARED);
  CHECK_SUCCESS(MPI_Win_free(&win));
  MPI_Comm_free(&node);
  CHECK_SUCCESS(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attrs(win, NULL, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(user);
  return mtest_finish();
}
