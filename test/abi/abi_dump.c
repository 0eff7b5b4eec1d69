/*
 * abi_dump.c - print the compile-time ABI facts of an mpi.h, one
 * "NAME VALUE" per line. Built once against STMPI's header and once against
 * MPICH's; check_abi.sh diffs the two outputs. Calls no MPI function.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIZE(t)      printf("sizeof(%s) %zu\n", #t, sizeof(t))
#define SIGNED(t)    printf("signed(%s) %d\n", #t, (int)((t)-1 < (t)0))
#define OFF(t, f)    printf("offsetof(%s.%s) %zu\n", #t, #f, offsetof(t, f))
#define KIND(t)      printf("kind(%s) %s\n", #t, _Generic((t)0,            \
                        int: "int", long: "long", long long: "long long",  \
                        default: "other"))
#define I(c)         printf("%s %lld\n", #c, (long long)(c))
#define P(c)         printf("%s %#llx\n", #c, (unsigned long long)(uintptr_t)(c))
#define FNSIZE(c)    printf("sizeof(%s) %zu\n", #c, sizeof(c))

int main(void)
{
    /* ---- type sizes, signedness, underlying C type ---- */
    SIZE(MPI_Comm); SIZE(MPI_Group); SIZE(MPI_Datatype); SIZE(MPI_Op);
    SIZE(MPI_Request); SIZE(MPI_Message); SIZE(MPI_Win); SIZE(MPI_Session);
    SIZE(MPI_Info); SIZE(MPI_Errhandler); SIZE(MPI_File);
    SIZE(MPI_Aint); SIZE(MPI_Offset); SIZE(MPI_Count); SIZE(MPI_Fint);
    SIZE(MPI_Status); SIZE(MPI_F08_status);
    SIGNED(MPI_Aint); SIGNED(MPI_Offset); SIGNED(MPI_Count); SIGNED(MPI_Fint);
    KIND(MPI_Comm); KIND(MPI_Group); KIND(MPI_Datatype); KIND(MPI_Op);
    KIND(MPI_Request); KIND(MPI_Message); KIND(MPI_Win); KIND(MPI_Session);
    KIND(MPI_Info); KIND(MPI_Errhandler);
    KIND(MPI_Aint); KIND(MPI_Offset); KIND(MPI_Count); KIND(MPI_Fint);

    /* ---- MPI_Status layout ---- */
    OFF(MPI_Status, count_lo); OFF(MPI_Status, count_hi_and_cancelled);
    OFF(MPI_Status, MPI_SOURCE); OFF(MPI_Status, MPI_TAG);
    OFF(MPI_Status, MPI_ERROR);
    OFF(MPI_F08_status, count_lo); OFF(MPI_F08_status, count_hi_and_cancelled);
    OFF(MPI_F08_status, MPI_SOURCE); OFF(MPI_F08_status, MPI_TAG);
    OFF(MPI_F08_status, MPI_ERROR);
    SIZE(((MPI_Status *)0)->MPI_SOURCE);

    /* ---- version ---- */
    I(MPI_VERSION); I(MPI_SUBVERSION);

    /* ---- null and predefined handles ---- */
    I(MPI_COMM_NULL); I(MPI_OP_NULL); I(MPI_GROUP_NULL); I(MPI_DATATYPE_NULL);
    I(MPI_REQUEST_NULL); I(MPI_ERRHANDLER_NULL); I(MPI_MESSAGE_NULL);
    I(MPI_MESSAGE_NO_PROC); I(MPI_INFO_NULL); I(MPI_WIN_NULL);
    I(MPI_SESSION_NULL); P(MPI_FILE_NULL);
    I(MPI_COMM_WORLD); I(MPI_COMM_SELF); I(MPI_GROUP_EMPTY); I(MPI_INFO_ENV);
    I(MPI_ERRORS_ARE_FATAL); I(MPI_ERRORS_RETURN); I(MPI_ERRORS_ABORT);

    /* ---- datatypes ---- */
    I(MPI_CHAR); I(MPI_SIGNED_CHAR); I(MPI_UNSIGNED_CHAR); I(MPI_BYTE);
    I(MPI_WCHAR); I(MPI_SHORT); I(MPI_UNSIGNED_SHORT); I(MPI_INT);
    I(MPI_UNSIGNED); I(MPI_LONG); I(MPI_UNSIGNED_LONG); I(MPI_FLOAT);
    I(MPI_DOUBLE); I(MPI_LONG_DOUBLE); I(MPI_LONG_LONG_INT); I(MPI_LONG_LONG);
    I(MPI_UNSIGNED_LONG_LONG); I(MPI_PACKED); I(MPI_LB); I(MPI_UB);
    I(MPI_FLOAT_INT); I(MPI_DOUBLE_INT); I(MPI_LONG_INT); I(MPI_SHORT_INT);
    I(MPI_2INT); I(MPI_LONG_DOUBLE_INT);
    I(MPI_COMPLEX); I(MPI_DOUBLE_COMPLEX); I(MPI_LOGICAL); I(MPI_REAL);
    I(MPI_DOUBLE_PRECISION); I(MPI_INTEGER); I(MPI_2INTEGER); I(MPI_2REAL);
    I(MPI_2DOUBLE_PRECISION); I(MPI_CHARACTER);
    I(MPI_REAL4); I(MPI_REAL8); I(MPI_REAL16); I(MPI_COMPLEX8);
    I(MPI_COMPLEX16); I(MPI_COMPLEX32); I(MPI_INTEGER1); I(MPI_INTEGER2);
    I(MPI_INTEGER4); I(MPI_INTEGER8); I(MPI_INTEGER16);
    I(MPI_INT8_T); I(MPI_INT16_T); I(MPI_INT32_T); I(MPI_INT64_T);
    I(MPI_UINT8_T); I(MPI_UINT16_T); I(MPI_UINT32_T); I(MPI_UINT64_T);
    I(MPI_C_BOOL); I(MPI_C_FLOAT_COMPLEX); I(MPI_C_COMPLEX);
    I(MPI_C_DOUBLE_COMPLEX); I(MPI_C_LONG_DOUBLE_COMPLEX);
    I(MPI_AINT); I(MPI_OFFSET); I(MPI_COUNT);
    I(MPI_CXX_BOOL); I(MPI_CXX_FLOAT_COMPLEX); I(MPI_CXX_DOUBLE_COMPLEX);
    I(MPI_CXX_LONG_DOUBLE_COMPLEX);
    I(MPI_TYPECLASS_REAL); I(MPI_TYPECLASS_INTEGER); I(MPI_TYPECLASS_COMPLEX);

    /* ---- combiners, orders, distributions ---- */
    I(MPI_COMBINER_NAMED); I(MPI_COMBINER_DUP); I(MPI_COMBINER_CONTIGUOUS);
    I(MPI_COMBINER_VECTOR); I(MPI_COMBINER_HVECTOR_INTEGER);
    I(MPI_COMBINER_HVECTOR); I(MPI_COMBINER_INDEXED);
    I(MPI_COMBINER_HINDEXED_INTEGER); I(MPI_COMBINER_HINDEXED);
    I(MPI_COMBINER_INDEXED_BLOCK); I(MPI_COMBINER_STRUCT_INTEGER);
    I(MPI_COMBINER_STRUCT); I(MPI_COMBINER_SUBARRAY); I(MPI_COMBINER_DARRAY);
    I(MPI_COMBINER_F90_REAL); I(MPI_COMBINER_F90_COMPLEX);
    I(MPI_COMBINER_F90_INTEGER); I(MPI_COMBINER_RESIZED);
    I(MPI_COMBINER_HINDEXED_BLOCK);
    I(MPI_ORDER_C); I(MPI_ORDER_FORTRAN); I(MPI_DISTRIBUTE_BLOCK);
    I(MPI_DISTRIBUTE_CYCLIC); I(MPI_DISTRIBUTE_NONE);
    I(MPI_DISTRIBUTE_DFLT_DARG);

    /* ---- operations ---- */
    I(MPI_MAX); I(MPI_MIN); I(MPI_SUM); I(MPI_PROD); I(MPI_LAND); I(MPI_BAND);
    I(MPI_LOR); I(MPI_BOR); I(MPI_LXOR); I(MPI_BXOR); I(MPI_MINLOC);
    I(MPI_MAXLOC); I(MPI_REPLACE); I(MPI_NO_OP);

    /* ---- ranks, tags, special pointers ---- */
    I(MPI_PROC_NULL); I(MPI_ANY_SOURCE); I(MPI_ROOT); I(MPI_ANY_TAG);
    I(MPI_UNDEFINED); I(MPI_KEYVAL_INVALID);
    P(MPI_BOTTOM); P(MPI_IN_PLACE); P(MPI_STATUS_IGNORE);
    P(MPI_STATUSES_IGNORE); P(MPI_ERRCODES_IGNORE); P(MPI_ARGV_NULL);
    P(MPI_ARGVS_NULL);
    FNSIZE(MPI_UNWEIGHTED); FNSIZE(MPI_WEIGHTS_EMPTY);
    FNSIZE(MPI_F_STATUS_IGNORE); FNSIZE(MPI_F_STATUSES_IGNORE);
    I(MPI_F_STATUS_SIZE); I(MPI_F_SOURCE); I(MPI_F_TAG); I(MPI_F_ERROR);

    /* ---- limits ---- */
    I(MPI_MAX_PROCESSOR_NAME); I(MPI_MAX_LIBRARY_VERSION_STRING);
    I(MPI_MAX_ERROR_STRING); I(MPI_MAX_PORT_NAME); I(MPI_MAX_OBJECT_NAME);
    I(MPI_MAX_STRINGTAG_LEN); I(MPI_MAX_PSET_NAME_LEN); I(MPI_MAX_INFO_KEY);
    I(MPI_MAX_INFO_VAL); I(MPI_MAX_DATAREP_STRING); I(MPI_BSEND_OVERHEAD);

    /* ---- comparison, topology, split types, threads ---- */
    I(MPI_IDENT); I(MPI_CONGRUENT); I(MPI_SIMILAR); I(MPI_UNEQUAL);
    I(MPI_GRAPH); I(MPI_CART); I(MPI_DIST_GRAPH);
    I(MPI_COMM_TYPE_SHARED); I(MPI_COMM_TYPE_HW_GUIDED);
    I(MPI_COMM_TYPE_HW_UNGUIDED);
    I(MPI_THREAD_SINGLE); I(MPI_THREAD_FUNNELED); I(MPI_THREAD_SERIALIZED);
    I(MPI_THREAD_MULTIPLE);

    /* ---- attribute keyvals ---- */
    I(MPI_TAG_UB); I(MPI_HOST); I(MPI_IO); I(MPI_WTIME_IS_GLOBAL);
    I(MPI_UNIVERSE_SIZE); I(MPI_LASTUSEDCODE); I(MPI_APPNUM);
    I(MPI_WIN_BASE); I(MPI_WIN_SIZE); I(MPI_WIN_DISP_UNIT);
    I(MPI_WIN_CREATE_FLAVOR); I(MPI_WIN_MODEL);

    /* ---- one-sided ---- */
    I(MPI_WIN_FLAVOR_CREATE); I(MPI_WIN_FLAVOR_ALLOCATE);
    I(MPI_WIN_FLAVOR_DYNAMIC); I(MPI_WIN_FLAVOR_SHARED);
    I(MPI_WIN_SEPARATE); I(MPI_WIN_UNIFIED);
    I(MPI_LOCK_EXCLUSIVE); I(MPI_LOCK_SHARED);
    I(MPI_MODE_NOCHECK); I(MPI_MODE_NOSTORE); I(MPI_MODE_NOPUT);
    I(MPI_MODE_NOPRECEDE); I(MPI_MODE_NOSUCCEED);

    /* ---- file I/O ---- */
    I(MPI_MODE_CREATE); I(MPI_MODE_RDONLY); I(MPI_MODE_WRONLY);
    I(MPI_MODE_RDWR); I(MPI_MODE_DELETE_ON_CLOSE); I(MPI_MODE_UNIQUE_OPEN);
    I(MPI_MODE_EXCL); I(MPI_MODE_APPEND); I(MPI_MODE_SEQUENTIAL);
    I(MPI_DISPLACEMENT_CURRENT); I(MPI_SEEK_SET); I(MPI_SEEK_CUR);
    I(MPI_SEEK_END);

    /* ---- error classes ---- */
    I(MPI_SUCCESS); I(MPI_ERR_BUFFER); I(MPI_ERR_COUNT); I(MPI_ERR_TYPE);
    I(MPI_ERR_TAG); I(MPI_ERR_COMM); I(MPI_ERR_RANK); I(MPI_ERR_ROOT);
    I(MPI_ERR_GROUP); I(MPI_ERR_OP); I(MPI_ERR_TOPOLOGY); I(MPI_ERR_DIMS);
    I(MPI_ERR_ARG); I(MPI_ERR_UNKNOWN); I(MPI_ERR_TRUNCATE); I(MPI_ERR_OTHER);
    I(MPI_ERR_INTERN); I(MPI_ERR_IN_STATUS); I(MPI_ERR_PENDING);
    I(MPI_ERR_REQUEST); I(MPI_ERR_ACCESS); I(MPI_ERR_AMODE);
    I(MPI_ERR_BAD_FILE); I(MPI_ERR_CONVERSION); I(MPI_ERR_DUP_DATAREP);
    I(MPI_ERR_FILE_EXISTS); I(MPI_ERR_FILE_IN_USE); I(MPI_ERR_FILE);
    I(MPI_ERR_IO); I(MPI_ERR_NO_SPACE); I(MPI_ERR_NO_SUCH_FILE);
    I(MPI_ERR_READ_ONLY); I(MPI_ERR_UNSUPPORTED_DATAREP); I(MPI_ERR_INFO);
    I(MPI_ERR_INFO_KEY); I(MPI_ERR_INFO_VALUE); I(MPI_ERR_INFO_NOKEY);
    I(MPI_ERR_NAME); I(MPI_ERR_NO_MEM); I(MPI_ERR_NOT_SAME); I(MPI_ERR_PORT);
    I(MPI_ERR_QUOTA); I(MPI_ERR_SERVICE); I(MPI_ERR_SPAWN);
    I(MPI_ERR_UNSUPPORTED_OPERATION); I(MPI_ERR_WIN); I(MPI_ERR_BASE);
    I(MPI_ERR_LOCKTYPE); I(MPI_ERR_KEYVAL); I(MPI_ERR_RMA_CONFLICT);
    I(MPI_ERR_RMA_SYNC); I(MPI_ERR_SIZE); I(MPI_ERR_DISP); I(MPI_ERR_ASSERT);
    I(MPI_ERR_RMA_RANGE); I(MPI_ERR_RMA_ATTACH); I(MPI_ERR_RMA_SHARED);
    I(MPI_ERR_RMA_FLAVOR);
    I(MPI_T_ERR_MEMORY); I(MPI_T_ERR_NOT_INITIALIZED); I(MPI_T_ERR_CANNOT_INIT);
    I(MPI_T_ERR_INVALID_INDEX); I(MPI_T_ERR_INVALID_ITEM);
    I(MPI_T_ERR_INVALID_HANDLE); I(MPI_T_ERR_OUT_OF_HANDLES);
    I(MPI_T_ERR_OUT_OF_SESSIONS); I(MPI_T_ERR_INVALID_SESSION);
    I(MPI_T_ERR_CVAR_SET_NOT_NOW); I(MPI_T_ERR_CVAR_SET_NEVER);
    I(MPI_T_ERR_PVAR_NO_STARTSTOP); I(MPI_T_ERR_PVAR_NO_WRITE);
    I(MPI_T_ERR_PVAR_NO_ATOMIC); I(MPI_T_ERR_INVALID_NAME);
    I(MPI_T_ERR_INVALID); I(MPI_ERR_SESSION); I(MPI_ERR_PROC_ABORTED);
    I(MPI_ERR_VALUE_TOO_LARGE); I(MPI_T_ERR_NOT_SUPPORTED);
    I(MPI_ERR_LASTCODE);

    /* ---- predefined callbacks (null ones by value, dup ones by type) ---- */
    P(MPI_NULL_COPY_FN); P(MPI_NULL_DELETE_FN);
    P(MPI_COMM_NULL_COPY_FN); P(MPI_COMM_NULL_DELETE_FN);
    P(MPI_TYPE_NULL_COPY_FN); P(MPI_TYPE_NULL_DELETE_FN);
    P(MPI_WIN_NULL_COPY_FN); P(MPI_WIN_NULL_DELETE_FN);
    P(MPI_CONVERSION_FN_NULL); P(MPI_CONVERSION_FN_NULL_C);
    FNSIZE(MPI_COMM_DUP_FN); FNSIZE(MPI_TYPE_DUP_FN); FNSIZE(MPI_WIN_DUP_FN);
    FNSIZE(&MPI_DUP_FN);

    /* ---- callback typedefs exist with the expected shape ---- */
    FNSIZE(MPI_User_function *); FNSIZE(MPI_User_function_c *);
    FNSIZE(MPI_Comm_copy_attr_function *);
    FNSIZE(MPI_Comm_delete_attr_function *);
    FNSIZE(MPI_Type_copy_attr_function *);
    FNSIZE(MPI_Type_delete_attr_function *);
    FNSIZE(MPI_Win_copy_attr_function *);
    FNSIZE(MPI_Win_delete_attr_function *);
    FNSIZE(MPI_Copy_function *); FNSIZE(MPI_Delete_function *);
    FNSIZE(MPI_Handler_function *); FNSIZE(MPI_Comm_errhandler_function *);
    FNSIZE(MPI_File_errhandler_function *);
    FNSIZE(MPI_Win_errhandler_function *);
    FNSIZE(MPI_Session_errhandler_function *);
    FNSIZE(MPI_Comm_errhandler_fn *); FNSIZE(MPI_File_errhandler_fn *);
    FNSIZE(MPI_Win_errhandler_fn *); FNSIZE(MPI_Session_errhandler_fn *);
    FNSIZE(MPI_Grequest_query_function *);
    FNSIZE(MPI_Grequest_free_function *);
    FNSIZE(MPI_Grequest_cancel_function *);
    FNSIZE(MPI_Datarep_conversion_function *);
    FNSIZE(MPI_Datarep_conversion_function_c *);
    FNSIZE(MPI_Datarep_extent_function *);

    /* ---- Fortran handle conversion ---- */
    I(MPI_Comm_c2f(MPI_COMM_WORLD)); I(MPI_Comm_f2c(0x44000001));
    I(MPI_Type_c2f(MPI_DOUBLE)); I(MPI_Type_f2c(0x4c000405));
    I(MPI_Group_c2f(MPI_GROUP_EMPTY)); I(MPI_Info_c2f(MPI_INFO_ENV));
    I(MPI_Request_c2f(MPI_REQUEST_NULL)); I(MPI_Op_c2f(MPI_SUM));
    I(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)); I(MPI_Win_c2f(MPI_WIN_NULL));
    I(MPI_Message_c2f(MPI_MESSAGE_NO_PROC));
    I(MPI_Session_c2f(MPI_SESSION_NULL));
    return 0;
}
