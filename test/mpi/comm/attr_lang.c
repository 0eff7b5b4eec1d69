/* The libmpich entry points MPICH's Fortran library calls (MPII_*), used directly from C as that
 * library uses them, so that C and Fortran see each other's attributes as MPI 4.1 section 19.3.7
 * says and Fortran callbacks run through the binding's proxies:
 * - an INTEGER (type 3) or ADDRESS_KIND (type 1) attribute set through MPII_Comm_set_attr reads
 *   from C as a pointer to the value; a C pointer attribute reads from "Fortran" as the
 *   address-sized integer (its low INTEGER for type 3);
 * - predefined attributes read as values from Fortran, under their C numbers and their Fortran
 *   numbers (C number plus one), which are read-only too (MPI_ERR_KEYVAL);
 * - MPII_Keyval_set_proxy: MPI_Comm_dup and MPI_Comm_free, MPI_Type_dup call the proxies with the
 *   stored type and value, and a copy keeps the type; a C callback gets a pointer to an integer
 *   attribute's value;
 * - windows: MPI_WIN_SIZE / MPI_WIN_DISP_UNIT / MPI_WIN_BASE read as values from Fortran;
 * - MPII_Grequest_set_lang_f77: query/free/cancel called as Fortran subroutines (status as an
 *   INTEGER array, error in the last argument);
 * - an attribute type other than 0, 1, 3 is MPI_ERR_ARG. */
#include <stdint.h>

#include "mtest.h"

/* MPICH's prototypes (not in mpi.h). */
typedef int(CopyProxy)(MPI_Comm_copy_attr_function *, int, int, void *, int, void *, void **,
                       int *);
typedef int(DeleteProxy)(MPI_Comm_delete_attr_function *, int, int, int, void *, void *);
int MPII_Comm_set_attr(MPI_Comm, int, void *, int);
int MPII_Comm_get_attr(MPI_Comm, int, void *, int *, int);
int MPII_Type_set_attr(MPI_Datatype, int, void *, int);
int MPII_Type_get_attr(MPI_Datatype, int, void *, int *, int);
int MPII_Win_set_attr(MPI_Win, int, void *, int);
int MPII_Win_get_attr(MPI_Win, int, void *, int *, int);
void MPII_Keyval_set_proxy(int, CopyProxy *, DeleteProxy *);
void MPII_Grequest_set_lang_f77(MPI_Request);

enum { kPtr = 0, kAint = 1, kInt = 3 };

/* "Fortran" callbacks: everything by reference, the error in the last argument. */
typedef void(FCopy)(int *, int *, MPI_Aint *, MPI_Aint *, MPI_Aint *, int *, int *);
typedef void(FDelete)(int *, int *, MPI_Aint *, MPI_Aint *, int *);

static int fcopy_calls, fdelete_calls, proxy_last_type = -1;
static MPI_Aint fdelete_last;

static void f_copy(int *handle, int *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                   int *flag, int *ierr)
{
    (void)handle, (void)keyval;
    fcopy_calls++;
    CHECK(*extra == 7, "extra state %ld", (long)*extra);
    *out = *in + 1;
    *flag = 1;
    *ierr = MPI_SUCCESS;
}

static void f_delete(int *handle, int *keyval, MPI_Aint *value, MPI_Aint *extra, int *ierr)
{
    (void)handle, (void)keyval, (void)extra;
    fdelete_calls++;
    fdelete_last = *value;
    *ierr = MPI_SUCCESS;
}

/* The proxies, as a Fortran binding writes them. */
static int copy_proxy(MPI_Comm_copy_attr_function *fn, int handle, int keyval, void *extra,
                      int type, void *value, void **copy, int *flag)
{
    int ierr = 0;
    MPI_Aint in = (MPI_Aint)value, out = 0;
    proxy_last_type = type;
    ((FCopy *)(void *)fn)(&handle, &keyval, (MPI_Aint *)extra, &in, &out, flag, &ierr);
    *copy = (void *)out;
    return ierr;
}

static int delete_proxy(MPI_Comm_delete_attr_function *fn, int handle, int keyval, int type,
                        void *value, void *extra)
{
    int ierr = 0;
    MPI_Aint v = (MPI_Aint)value;
    proxy_last_type = type;
    ((FDelete *)(void *)fn)(&handle, &keyval, &v, (MPI_Aint *)extra, &ierr);
    return ierr;
}

/* A C copy callback on an attribute set from Fortran sees a pointer to the value. */
static int c_copy_seen;
static int c_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    c_copy_seen = *(int *)in;
    *(void **)out = (void *)(intptr_t)(c_copy_seen * 2);
    *flag = 1;
    return MPI_SUCCESS;
}

/* Fortran generalized-request callbacks. */
static int gq_calls, gf_calls, gc_calls, gc_complete = -1;
static void g_query(void *extra, int *status, int *ierr)
{
    gq_calls++;
    status[MPI_F_SOURCE] = *(int *)extra;
    status[MPI_F_TAG] = 77;
    status[MPI_F_ERROR] = MPI_SUCCESS;
    *ierr = MPI_SUCCESS;
}
static void g_free(void *extra, int *ierr)
{
    (void)extra;
    gf_calls++;
    *ierr = MPI_SUCCESS;
}
static void g_cancel(void *extra, int *complete, int *ierr)
{
    (void)extra;
    gc_calls++;
    gc_complete = *complete;
    *ierr = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank = 0, flag = 0, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* INTEGER attribute from Fortran, read from C and from Fortran. */
    int key = MPI_KEYVAL_INVALID;
    MPI_Aint extra = 7;
    CHECK_SUCCESS(MPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)(void *)f_copy,
                                         (MPI_Comm_delete_attr_function *)(void *)f_delete, &key,
                                         &extra));
    MPII_Keyval_set_proxy(key, copy_proxy, delete_proxy);
    CHECK_SUCCESS(MPII_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)(42 + rank), kInt));
    void *p = NULL;
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &p, &flag));
    CHECK_INT(flag, 1);
    CHECK(p != NULL && *(int *)p == 42 + rank, "C reads %d", p ? *(int *)p : -1);
    intptr_t v = -1;
    CHECK_SUCCESS(MPII_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag, kInt));
    CHECK_INT((int)v, 42 + rank);
    CHECK_SUCCESS(MPII_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag, kAint));
    CHECK_INT((int)v, 42 + rank);

    /* MPI_Comm_dup runs the Fortran copy callback through the proxy, with the type. */
    MPI_Comm dup = MPI_COMM_NULL;
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_INT(fcopy_calls, 1);
    CHECK_INT(proxy_last_type, kInt);
    CHECK_SUCCESS(MPII_Comm_get_attr(dup, key, &v, &flag, kInt));
    CHECK_INT(flag, 1);
    CHECK_INT((int)v, 43 + rank);
    CHECK_SUCCESS(MPI_Comm_get_attr(dup, key, &p, &flag)); /* the copy is INTEGER too */
    CHECK(flag && *(int *)p == 43 + rank, "dup's attribute from C: %d", flag ? *(int *)p : -1);
    CHECK_SUCCESS(MPI_Comm_free(&dup));
    CHECK_INT(fdelete_calls, 1);
    CHECK_INT((int)fdelete_last, 43 + rank);

    /* ADDRESS_KIND attribute: C reads a pointer to the whole MPI_Aint. */
    const MPI_Aint big = ((MPI_Aint)1 << 40) + rank;
    CHECK_SUCCESS(MPII_Comm_set_attr(MPI_COMM_WORLD, key, (void *)big, kAint));
    CHECK_INT(fdelete_calls, 2); /* the old value was deleted first */
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &p, &flag));
    CHECK(flag && *(MPI_Aint *)p == big, "C reads %ld", flag ? (long)*(MPI_Aint *)p : -1L);

    /* A C pointer attribute reads from Fortran as the address (low INTEGER for type 3). */
    static double target;
    CHECK_SUCCESS(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &target));
    CHECK_INT(proxy_last_type, kAint); /* the delete of the ADDRESS_KIND value */
    CHECK_SUCCESS(MPII_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag, kAint));
    CHECK(v == (intptr_t)&target, "AINT read %lx", (long)v);
    v = 0;
    CHECK_SUCCESS(MPII_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag, kInt));
    CHECK((int)v == (int)(intptr_t)&target, "INTEGER read %x", (int)v);
    CHECK_SUCCESS(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    CHECK_INT(proxy_last_type, kPtr);
    CHECK_INT(fdelete_calls, 4);
    CHECK_SUCCESS(MPI_Comm_free_keyval(&key));

    /* A C keyval's copy callback gets a pointer to an INTEGER attribute's value. */
    int ckey = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Comm_create_keyval(c_copy, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    CHECK_SUCCESS(MPII_Comm_set_attr(MPI_COMM_SELF, ckey, (void *)(intptr_t)21, kInt));
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    CHECK_INT(c_copy_seen, 21);
    CHECK_SUCCESS(MPII_Comm_get_attr(dup, ckey, &v, &flag, kInt));
    CHECK_INT((int)v, 42);
    CHECK_SUCCESS(MPI_Comm_free(&dup));
    CHECK_SUCCESS(MPI_Comm_delete_attr(MPI_COMM_SELF, ckey));
    CHECK_SUCCESS(MPI_Comm_free_keyval(&ckey));

    /* Predefined attributes: values from Fortran, C and Fortran numbers, read-only. */
    int *tag_ub = NULL;
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK_SUCCESS(MPII_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag, kInt));
    CHECK(flag && tag_ub && v == *tag_ub, "TAG_UB from Fortran %ld", (long)v);
    v = 0;
    CHECK_SUCCESS(MPII_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB + 1, &v, &flag, kAint));
    CHECK(flag && tag_ub && v == *tag_ub, "TAG_UB (Fortran number) %ld", (long)v);
    rc = MPII_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB + 1, (void *)1, kInt);
    CHECK_ERR_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPII_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag, 2);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);

    /* Datatypes: the copy through the proxy keeps the ADDRESS_KIND type. */
    int tkey = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Type_create_keyval((MPI_Type_copy_attr_function *)(void *)f_copy,
                                         (MPI_Type_delete_attr_function *)(void *)f_delete, &tkey,
                                         &extra));
    MPII_Keyval_set_proxy(tkey, copy_proxy, delete_proxy);
    MPI_Datatype t1 = MPI_DATATYPE_NULL, t2 = MPI_DATATYPE_NULL;
    CHECK_SUCCESS(MPI_Type_contiguous(2, MPI_INT, &t1));
    CHECK_SUCCESS(MPII_Type_set_attr(t1, tkey, (void *)(intptr_t)1000, kAint));
    CHECK_SUCCESS(MPI_Type_dup(t1, &t2));
    CHECK_SUCCESS(MPII_Type_get_attr(t2, tkey, &v, &flag, kAint));
    CHECK(flag && v == 1001, "type copy %ld", (long)v);
    CHECK_SUCCESS(MPI_Type_get_attr(t2, tkey, &p, &flag));
    CHECK(flag && *(MPI_Aint *)p == 1001, "type copy from C %ld", (long)*(MPI_Aint *)p);
    CHECK_SUCCESS(MPI_Type_free(&t2));
    CHECK_SUCCESS(MPI_Type_free(&t1));
    CHECK_SUCCESS(MPI_Type_free_keyval(&tkey));

    /* Windows: predefined attributes as values. */
    int buf[4];
    MPI_Win win = MPI_WIN_NULL;
    CHECK_SUCCESS(
        MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_SUCCESS(MPII_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag, kAint));
    CHECK(flag && v == (intptr_t)sizeof buf, "WIN_SIZE %ld", (long)v);
    CHECK_SUCCESS(MPII_Win_get_attr(win, MPI_WIN_DISP_UNIT + 1, &v, &flag, kAint));
    CHECK(flag && v == (intptr_t)sizeof(int), "WIN_DISP_UNIT %ld", (long)v);
    CHECK_SUCCESS(MPII_Win_get_attr(win, MPI_WIN_BASE, &v, &flag, kAint));
    CHECK(flag && v == (intptr_t)buf, "WIN_BASE %lx", (long)v);
    int wkey = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wkey, NULL));
    CHECK_SUCCESS(MPII_Win_set_attr(win, wkey, (void *)(intptr_t)-5, kInt));
    CHECK_SUCCESS(MPI_Win_get_attr(win, wkey, &p, &flag));
    CHECK(flag && *(int *)p == -5, "window INTEGER attribute from C %d", flag ? *(int *)p : 0);
    CHECK_SUCCESS(MPI_Win_free(&win));
    CHECK_SUCCESS(MPI_Win_free_keyval(&wkey));

    /* Generalized request with Fortran callbacks. */
    int source = 100 + rank;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_SUCCESS(MPI_Grequest_start((MPI_Grequest_query_function *)(void *)g_query,
                                     (MPI_Grequest_free_function *)(void *)g_free,
                                     (MPI_Grequest_cancel_function *)(void *)g_cancel, &source,
                                     &req));
    MPII_Grequest_set_lang_f77(req);
    CHECK_SUCCESS(MPI_Cancel(&req));
    CHECK_INT(gc_calls, 1);
    CHECK_INT(gc_complete, 0);
    CHECK_SUCCESS(MPI_Grequest_complete(req));
    MPI_Status st;
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK_INT(gq_calls, 1);
    CHECK_INT(gf_calls, 1);
    CHECK_INT(st.MPI_SOURCE, 100 + rank);
    CHECK_INT(st.MPI_TAG, 77);
    CHECK(req == MPI_REQUEST_NULL, "request not freed");

    return mtest_finish();
}
