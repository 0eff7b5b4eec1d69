/* Bad arguments to info objects, error handlers and error codes, and the
 * environment calls: NULL and freed handles, keys too long or empty, an
 * nth key out of range, error codes and classes that do not exist. */
#include "badargs.h"

static void handler(MPI_Comm *comm, int *code, ...) { (void)comm, (void)code; }

/* One case, so that --case runs both halves. */
static int alloc_then_free(void)
{
    void *mem = NULL;
    int rc = MPI_Alloc_mem(64, MPI_INFO_NULL, &mem);
    return rc != MPI_SUCCESS ? rc : MPI_Free_mem(mem);
}

int main(int argc, char **argv)
{
    int flag, len, result;
    ba_init(&argc, &argv);
    MPI_Info info, freed_info;
    MPI_Info_create(&info);
    MPI_Info_create(&freed_info);
    MPI_Info freed_copy = freed_info;
    MPI_Info_free(&freed_info);
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 8];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0'; /* longer than MPI_MAX_INFO_KEY */

    /* Info */
    EXPECT(MPI_ERR_ARG, "info", MPI_Info_create(NULL));
    EXPECT(MPI_ERR_INFO, "info", MPI_Info_set(MPI_INFO_NULL, "a", "b"));
    EXPECT(MPI_ERR_INFO, "info", MPI_Info_set(freed_copy, "a", "b"));
    EXPECT(MPI_ERR_ARG, "key", MPI_Info_set(info, NULL, "b"));
    EXPECT(MPI_ERR_INFO_KEY, "key", MPI_Info_set(info, key, "b"));
    EXPECT(MPI_ERR_INFO_KEY, "key", MPI_Info_set(info, "", "b"));
    EXPECT(MPI_ERR_ARG, "value", MPI_Info_set(info, "a", NULL));
    EXPECT(MPI_ERR_INFO_KEY, "key", MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
    EXPECT(MPI_ERR_ARG, "valuelen", MPI_Info_get(info, "a", -1, value, &flag));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Info_get_valuelen(info, "a", &len, NULL));
    EXPECT(MPI_ERR_ARG, "n", MPI_Info_get_nthkey(info, 0, key));
    EXPECT(MPI_ERR_ARG, "n", MPI_Info_get_nthkey(info, -1, key));
    EXPECT(MPI_ERR_INFO_NOKEY, "key", MPI_Info_delete(info, "absent"));
    EXPECT(MPI_ERR_ARG, "newinfo", MPI_Info_dup(info, NULL));
    EXPECT(MPI_ERR_INFO, "info", MPI_Info_get_nkeys(freed_copy, &result));
    MPI_Info null_info = MPI_INFO_NULL;
    EXPECT(MPI_ERR_INFO, "info", MPI_Info_free(&null_info));
    EXPECT(MPI_ERR_ARG, "info", MPI_Info_free(NULL));

    EXPECT(MPI_ERR_ARG, "buflen", MPI_Info_get_string(info, "a", NULL, value, &flag));
    EXPECT(MPI_ERR_INFO, "info", MPI_Info_dup(MPI_INFO_NULL, &freed_info));

    /* Error handlers and codes */
    MPI_Errhandler eh;
    EXPECT(MPI_ERR_ARG, "errhandler", MPI_Comm_create_errhandler(handler, NULL));
    EXPECT(MPI_ERR_ARG, "comm_errhandler_fn", MPI_Comm_create_errhandler(NULL, &eh));
    EXPECT(MPI_ERR_ARG, "errhandler", MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL));
    EXPECT(MPI_ERR_ARG, "errhandler",
           MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x54abcdef));
    EXPECT(MPI_ERR_ARG, "errhandler", MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_get_errhandler(MPI_COMM_NULL, &eh));
    MPI_Errhandler null_eh = MPI_ERRHANDLER_NULL;
    EXPECT(MPI_ERR_ARG, "errhandler", MPI_Errhandler_free(&null_eh));
    EXPECT(MPI_ERR_ARG, "errhandler", MPI_Errhandler_free(NULL));
    char text[MPI_MAX_ERROR_STRING];
    EXPECT(MPI_ERR_ARG, "errorcode", MPI_Error_string(987654321, text, &len));
    EXPECT(MPI_ERR_ARG, "string", MPI_Error_string(MPI_ERR_COMM, NULL, &len));
    EXPECT(MPI_ERR_ARG, "errorcode", MPI_Error_class(-5, &result));
    EXPECT(MPI_ERR_ARG, "errorclass", MPI_Add_error_code(424242, &result));
    EXPECT(MPI_ERR_ARG, "errorcode", MPI_Add_error_string(MPI_ERR_COMM, "mine"));
    EXPECT(MPI_ERR_ARG, "errorclass", MPI_Add_error_class(NULL));

    /* Environment */
    EXPECT(MPI_ERR_ARG, "resultlen", MPI_Get_processor_name(text, NULL));
    EXPECT(MPI_ERR_ARG, "provided", MPI_Query_thread(NULL));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Is_thread_main(NULL));
    EXPECT(MPI_ERR_ARG, "baseptr", MPI_Alloc_mem(64, MPI_INFO_NULL, NULL));
    void *mem;
    EXPECT(MPI_ERR_SIZE, "size", MPI_Alloc_mem(-64, MPI_INFO_NULL, &mem));
    EXPECT(MPI_ERR_BASE, "base", MPI_Free_mem((void *)0x12345));
    EXPECT(MPI_ERR_BASE, "base", MPI_Free_mem(&len));
    EXPECT_OK(alloc_then_free());

    MPI_Info_free(&info);
    return ba_finish();
}
