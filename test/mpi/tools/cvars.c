/* MPI_T control variables, categories, enumerations, events and sources.
 * Every control variable is read before MPI_Init, while MPI runs and after
 * MPI_Finalize, and written: the ones fixed at init refuse with
 * MPI_T_ERR_CVAR_SET_NEVER, the others take a new value (read back, used by
 * the library, then restored). Error paths: calls before MPI_T_init_thread,
 * bad indices, names, handles and arguments. The testlist sets
 * STMPI_SHM_CELLS=64, which MPI_T must show before MPI_Init already. */
#include <mpi.h>
#include <string.h>
#include "mtest.h"

#define MAX_NAME 256

static int cvar_index(const char *name)
{
    int index = -1;
    CHECK_INT(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS);
    return index;
}

static int read_int(int index)
{
    MPI_T_cvar_handle h;
    int count = 0, value = -12345;
    CHECK_INT(MPI_T_cvar_handle_alloc(index, NULL, &h, &count), MPI_SUCCESS);
    CHECK_INT(count, 1);
    CHECK_INT(MPI_T_cvar_read(h, &value), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    return value;
}

static void check_not_initialized(void)
{
    int n;
    MPI_T_pvar_session session;
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    CHECK_INT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_cvar_get_index("STMPI_SHM_CELLS", &n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_cvar_handle_alloc(0, NULL, &h, &n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_cvar_read(h, &n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_pvar_session_create(&session), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_category_changed(&n), MPI_T_ERR_NOT_INITIALIZED);
}

/* The string convention: length query, truncation, NULL length. */
static void check_strings(void)
{
    char name[MAX_NAME], small[4];
    int len = MAX_NAME, query = 0, small_len = 4;
    int index = cvar_index("STMPI_SHM_CELLS");
    CHECK_INT(MPI_T_cvar_get_info(index, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_SUCCESS);
    CHECK(strcmp(name, "STMPI_SHM_CELLS") == 0, "name %s", name);
    CHECK_INT(len, (int)strlen("STMPI_SHM_CELLS") + 1);
    CHECK_INT(MPI_T_cvar_get_info(index, NULL, &query, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_SUCCESS);
    CHECK_INT(query, (int)strlen("STMPI_SHM_CELLS") + 1);
    CHECK_INT(
        MPI_T_cvar_get_info(index, small, &small_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_SUCCESS);
    CHECK(strcmp(small, "STM") == 0 && small_len == 4, "truncated to '%s' (%d)", small, small_len);
    CHECK_INT(MPI_T_cvar_get_info(index, small, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_SUCCESS);
}

/* Reads every control variable; with `write`, writes every one as its scope allows. */
static void visit_all(int library_up, int write)
{
    int num = 0;
    CHECK_INT(MPI_T_cvar_get_num(&num), MPI_SUCCESS);
    CHECK(num >= 40, "only %d control variables", num);
    for (int i = 0; i < num; i++) {
        char name[MAX_NAME], desc[1024];
        int name_len = MAX_NAME, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
        MPI_Datatype type = MPI_DATATYPE_NULL;
        MPI_T_enum enumtype = MPI_T_ENUM_NULL;
        CHECK_INT(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc,
                                      &desc_len, &bind, &scope),
                  MPI_SUCCESS);
        CHECK(strncmp(name, "STMPI_", 6) == 0, "cvar %d name %s", i, name);
        CHECK(desc_len > 10, "%s: description of %d characters", name, desc_len);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL,
              "%s: verbosity %d", name, verbosity);
        CHECK_INT(bind, MPI_T_BIND_NO_OBJECT);
        /* MPI 4.0's binding for sessions exists, after MPI_T_BIND_MPI_INFO (MPICH's values). */
        CHECK_INT(MPI_T_BIND_MPI_SESSION, MPI_T_BIND_MPI_INFO + 1);
        CHECK_INT(MPI_T_BIND_MPI_SESSION, 9711);
        CHECK(scope == MPI_T_SCOPE_READONLY || scope == MPI_T_SCOPE_LOCAL ||
                  scope == MPI_T_SCOPE_ALL_EQ,
              "%s: scope %d", name, scope);
        CHECK(type == MPI_INT || type == MPI_UNSIGNED_LONG || type == MPI_CHAR, "%s: datatype 0x%x",
              name, (unsigned)type);
        int back = -1;
        CHECK_INT(MPI_T_cvar_get_index(name, &back), MPI_SUCCESS);
        CHECK_INT(back, i);

        MPI_T_cvar_handle h;
        int count = 0;
        CHECK_INT(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
        CHECK_INT(count, type == MPI_CHAR ? 256 : 1);
        union {
            int i;
            unsigned long ul;
            char s[256];
        } value, again, other;
        memset(&value, 0, sizeof value);
        CHECK_INT(MPI_T_cvar_read(h, &value), MPI_SUCCESS);
        if (type == MPI_CHAR)
            CHECK(memchr(value.s, 0, 256) != NULL, "%s: no NUL", name);
        if (enumtype != MPI_T_ENUM_NULL) {
            int items = 0, len = MAX_NAME;
            char ename[MAX_NAME];
            CHECK_INT(type, MPI_INT);
            CHECK_INT(MPI_T_enum_get_info(enumtype, &items, ename, &len), MPI_SUCCESS);
            CHECK(items >= 2, "%s: %d items", name, items);
            CHECK(value.i >= 0 && value.i < items, "%s: value %d of %d", name, value.i, items);
            CHECK_INT(MPI_T_enum_get_item(enumtype, items, &back, ename, &len),
                      MPI_T_ERR_INVALID_INDEX);
        }
        if (write) {
            int rc;
            other = value;
            if (enumtype != MPI_T_ENUM_NULL) {
                int items = 0;
                MPI_T_enum_get_info(enumtype, &items, NULL, NULL);
                other.i = (value.i + 1) % items;
            } else if (type == MPI_UNSIGNED_LONG) {
                other.ul = value.ul + 1;
            } else if (type == MPI_INT) {
                /* yes/no variables (PRINT_STATS) flip; numbers grow */
                if (strstr(name, "PRINT_STATS"))
                    other.i = !value.i;
                else
                    other.i = value.i + 1;
            } else {
                strcpy(other.s, value.s);
            }
            rc = MPI_T_cvar_write(h, &other);
            if (scope == MPI_T_SCOPE_READONLY) {
                CHECK(rc == MPI_T_ERR_CVAR_SET_NEVER, "%s: write of a fixed variable: %d", name,
                      rc);
            } else if (!library_up) {
                CHECK(rc == MPI_T_ERR_CVAR_SET_NOT_NOW, "%s: write before MPI_Init: %d", name, rc);
            } else {
                CHECK(rc == MPI_SUCCESS, "%s: write: %d", name, rc);
                memset(&again, 0, sizeof again);
                CHECK_INT(MPI_T_cvar_read(h, &again), MPI_SUCCESS);
                if (type == MPI_UNSIGNED_LONG)
                    CHECK(again.ul == other.ul, "%s: %lu", name, again.ul);
                else if (type == MPI_INT)
                    CHECK(again.i == other.i, "%s: %d, wrote %d", name, again.i, other.i);
                CHECK_INT(MPI_T_cvar_write(h, &value), MPI_SUCCESS); /* restore */
            }
            memset(&again, 0, sizeof again);
            CHECK_INT(MPI_T_cvar_read(h, &again), MPI_SUCCESS);
            size_t bytes = type == MPI_CHAR ? 256 : type == MPI_INT ? sizeof(int) : sizeof(long);
            CHECK(memcmp(&again, &value, bytes) == 0, "%s: value changed after the writes", name);
        }
        CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
        CHECK(h == MPI_T_CVAR_HANDLE_NULL, "%s: handle not reset", name);
    }
}

static void check_errors(void)
{
    int num = 0, index, count, value;
    MPI_T_cvar_handle h, freed;
    CHECK_INT(MPI_T_cvar_get_num(&num), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_cvar_get_index("STMPI_NO_SUCH_VARIABLE", &index), MPI_T_ERR_INVALID_NAME);
    CHECK_INT(MPI_T_cvar_get_index(NULL, &index), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_cvar_handle_alloc(num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_cvar_handle_alloc(0, NULL, NULL, &count), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_cvar_handle_alloc(0, NULL, &h, &count), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_read(h, NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_cvar_write(h, NULL), MPI_T_ERR_INVALID);
    freed = h;
    CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_read(freed, &value), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, &value), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_cvar_handle_free(&freed), MPI_T_ERR_INVALID_HANDLE);

    /* Values outside a variable's type or choices. */
    index = cvar_index("STMPI_COLL_BARRIER_ALGORITHM");
    CHECK_INT(MPI_T_cvar_handle_alloc(index, NULL, &h, &count), MPI_SUCCESS);
    value = 99;
    CHECK_INT(MPI_T_cvar_write(h, &value), MPI_T_ERR_INVALID);
    value = -1;
    CHECK_INT(MPI_T_cvar_write(h, &value), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    index = cvar_index("STMPI_RMA_PRINT_STATS");
    CHECK_INT(MPI_T_cvar_handle_alloc(index, NULL, &h, &count), MPI_SUCCESS);
    value = 2;
    CHECK_INT(MPI_T_cvar_write(h, &value), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    /* Enumerations. */
    MPI_T_enum e = MPI_T_ENUM_NULL;
    int items;
    CHECK_INT(MPI_T_enum_get_info(e, &items, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_cvar_get_info(cvar_index("STMPI_SHM_CELLS"), NULL, NULL, NULL, NULL, &e, NULL,
                                  NULL, NULL, NULL),
              MPI_SUCCESS);
    CHECK(e == MPI_T_ENUM_NULL, "a number has an enumeration");
    CHECK_INT(MPI_T_cvar_get_info(cvar_index("STMPI_COLL_BARRIER_ALGORITHM"), NULL, NULL, NULL,
                                  NULL, &e, NULL, NULL, NULL, NULL),
              MPI_SUCCESS);
    CHECK_INT(MPI_T_enum_get_info(e, NULL, NULL, NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_enum_get_item(e, -1, &value, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    char item[64];
    int len = sizeof item;
    CHECK_INT(MPI_T_enum_get_item(e, 0, &value, item, &len), MPI_SUCCESS);
    CHECK(strcmp(item, "auto") == 0 && value == 0, "item 0 is %s = %d", item, value);

    /* Categories: one per module; together they hold every variable once. */
    int ncat = 0, ncvar = 0, npvar = 0, seen_cvars = 0, seen_pvars = 0;
    CHECK_INT(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    MPI_T_pvar_get_num(&npvar);
    ncvar = num;
    CHECK(ncat >= 8, "%d categories", ncat);
    for (int c = 0; c < ncat; c++) {
        char cname[64];
        int cname_len = sizeof cname, nc = -1, np = -1, nsub = -1, back = -1, nev = -1;
        CHECK_INT(MPI_T_category_get_info(c, cname, &cname_len, NULL, NULL, &nc, &np, &nsub),
                  MPI_SUCCESS);
        CHECK_INT(MPI_T_category_get_index(cname, &back), MPI_SUCCESS);
        CHECK_INT(back, c);
        CHECK_INT(nsub, 0);
        CHECK_INT(MPI_T_category_get_num_events(c, &nev), MPI_SUCCESS);
        CHECK_INT(nev, 0);
        int indices[256];
        CHECK(nc <= 256 && np <= 256, "%s: %d cvars %d pvars", cname, nc, np);
        CHECK_INT(MPI_T_category_get_cvars(c, nc, indices), MPI_SUCCESS);
        for (int k = 0; k < nc; k++) {
            char vname[MAX_NAME], upper[64];
            int vlen = MAX_NAME;
            MPI_T_cvar_get_info(indices[k], vname, &vlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
            snprintf(upper, sizeof upper, "STMPI_%s", cname);
            for (char *p = upper; *p; p++)
                *p = (char)toupper((unsigned char)*p);
            CHECK(strncmp(vname, upper, strlen(upper)) == 0, "%s in category %s", vname, cname);
        }
        CHECK_INT(MPI_T_category_get_pvars(c, np, indices), MPI_SUCCESS);
        for (int k = 0; k < np; k++) {
            char vname[MAX_NAME];
            int vlen = MAX_NAME, cls;
            MPI_T_pvar_get_info(indices[k], vname, &vlen, NULL, &cls, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL);
            CHECK(strncmp(vname, cname, strlen(cname)) == 0 && vname[strlen(cname)] == '_',
                  "%s in category %s", vname, cname);
        }
        CHECK_INT(MPI_T_category_get_categories(c, 4, indices), MPI_SUCCESS);
        CHECK_INT(MPI_T_category_get_cvars(c, -1, indices), MPI_T_ERR_INVALID);
        seen_cvars += nc;
        seen_pvars += np;
    }
    CHECK_INT(seen_cvars, ncvar);
    CHECK_INT(seen_pvars, npvar);
    CHECK_INT(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_category_get_index("no_such_module", &index), MPI_T_ERR_INVALID_NAME);
    int stamp1 = -1, stamp2 = -2;
    CHECK_INT(MPI_T_category_changed(&stamp1), MPI_SUCCESS);
    CHECK_INT(MPI_T_category_changed(&stamp2), MPI_SUCCESS);
    CHECK_INT(stamp1, stamp2);

    /* No events and no sources. */
    int n = -1;
    MPI_Count ts;
    MPI_T_event_registration reg;
    CHECK_INT(MPI_T_event_get_num(&n), MPI_SUCCESS);
    CHECK_INT(n, 0);
    CHECK_INT(MPI_T_source_get_num(&n), MPI_SUCCESS);
    CHECK_INT(n, 0);
    CHECK_INT(
        MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_event_get_index("any", &n), MPI_T_ERR_INVALID_NAME);
    CHECK_INT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_event_handle_get_info(NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_event_read(NULL, 0, &n), MPI_T_ERR_INVALID_HANDLE);
}

/* Algorithm choices written through MPI_T are used by the next call and
 * give the right result, on every process alike (ALL_EQ). */
static void check_algorithms_apply(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int index = cvar_index("STMPI_COLL_ALLREDUCE_ALGORITHM"), count, items = 0, original;
    MPI_T_cvar_handle h;
    MPI_T_enum e;
    MPI_T_cvar_get_info(index, NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL, NULL);
    MPI_T_enum_get_info(e, &items, NULL, NULL);
    CHECK_INT(MPI_T_cvar_handle_alloc(index, NULL, &h, &count), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_read(h, &original), MPI_SUCCESS);
    for (int choice = 0; choice < items; choice++) {
        int got = -1;
        CHECK_INT(MPI_T_cvar_write(h, &choice), MPI_SUCCESS);
        CHECK_INT(MPI_T_cvar_read(h, &got), MPI_SUCCESS);
        CHECK_INT(got, choice);
        long in[3] = {rank, 1, 2 * rank}, out[3] = {0, 0, 0};
        CHECK_SUCCESS(MPI_Allreduce(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(out[0] == (long)size * (size - 1) / 2 && out[1] == size &&
                  out[2] == (long)size * (size - 1),
              "choice %d: %ld %ld %ld", choice, out[0], out[1], out[2]);
    }
    CHECK_INT(MPI_T_cvar_write(h, &original), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int provided = -1;
    check_not_initialized();
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    /* Nesting: a second init needs a second finalize. */
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK_INT(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_INT(read_int(cvar_index("STMPI_SHM_CELLS")), 64); /* the environment, before MPI_Init */
    visit_all(0, 1);
    check_strings();

    mtest_init(&argc, &argv);
    CHECK_INT(read_int(cvar_index("STMPI_SHM_CELLS")), 64);
    visit_all(1, 1);
    check_errors();
    check_algorithms_apply();
    int rc = mtest_finish();

    /* After MPI_Finalize the variables still read; writes wait for MPI_Init. */
    visit_all(0, 1);
    CHECK_INT(MPI_T_finalize(), MPI_SUCCESS);
    check_not_initialized();
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK_INT(read_int(cvar_index("STMPI_SHM_CELLS")), 64);
    CHECK_INT(MPI_T_finalize(), MPI_SUCCESS);
    if (mtest_errors) {
        fprintf(stderr, "%d errors after MPI_Finalize\n", mtest_errors);
        return 1;
    }
    return rc;
}
