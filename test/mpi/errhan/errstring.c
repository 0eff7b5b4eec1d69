/* MPI_Error_string and MPI_Error_class of every predefined error class:
 * each class is its own class, has a non-empty string that fits in
 * MPI_MAX_ERROR_STRING, and distinct classes have distinct strings. */
#include "mtest.h"

#define E(name)     \
    {               \
        name, #name \
    }
static const struct {
    int value;
    const char *name;
} classes[] = {
    E(MPI_SUCCESS),
    E(MPI_ERR_BUFFER),
    E(MPI_ERR_COUNT),
    E(MPI_ERR_TYPE),
    E(MPI_ERR_TAG),
    E(MPI_ERR_COMM),
    E(MPI_ERR_RANK),
    E(MPI_ERR_ROOT),
    E(MPI_ERR_GROUP),
    E(MPI_ERR_OP),
    E(MPI_ERR_TOPOLOGY),
    E(MPI_ERR_DIMS),
    E(MPI_ERR_ARG),
    E(MPI_ERR_UNKNOWN),
    E(MPI_ERR_TRUNCATE),
    E(MPI_ERR_OTHER),
    E(MPI_ERR_INTERN),
    E(MPI_ERR_IN_STATUS),
    E(MPI_ERR_PENDING),
    E(MPI_ERR_REQUEST),
    E(MPI_ERR_ACCESS),
    E(MPI_ERR_AMODE),
    E(MPI_ERR_BAD_FILE),
    E(MPI_ERR_CONVERSION),
    E(MPI_ERR_DUP_DATAREP),
    E(MPI_ERR_FILE_EXISTS),
    E(MPI_ERR_FILE_IN_USE),
    E(MPI_ERR_FILE),
    E(MPI_ERR_IO),
    E(MPI_ERR_NO_SPACE),
    E(MPI_ERR_NO_SUCH_FILE),
    E(MPI_ERR_READ_ONLY),
    E(MPI_ERR_UNSUPPORTED_DATAREP),
    E(MPI_ERR_INFO),
    E(MPI_ERR_INFO_KEY),
    E(MPI_ERR_INFO_VALUE),
    E(MPI_ERR_INFO_NOKEY),
    E(MPI_ERR_NAME),
    E(MPI_ERR_NO_MEM),
    E(MPI_ERR_NOT_SAME),
    E(MPI_ERR_PORT),
    E(MPI_ERR_QUOTA),
    E(MPI_ERR_SERVICE),
    E(MPI_ERR_SPAWN),
    E(MPI_ERR_UNSUPPORTED_OPERATION),
    E(MPI_ERR_WIN),
    E(MPI_ERR_BASE),
    E(MPI_ERR_LOCKTYPE),
    E(MPI_ERR_KEYVAL),
    E(MPI_ERR_RMA_CONFLICT),
    E(MPI_ERR_RMA_SYNC),
    E(MPI_ERR_SIZE),
    E(MPI_ERR_DISP),
    E(MPI_ERR_ASSERT),
    E(MPI_ERR_RMA_RANGE),
    E(MPI_ERR_RMA_ATTACH),
    E(MPI_ERR_RMA_SHARED),
    E(MPI_ERR_RMA_FLAVOR),
    E(MPI_T_ERR_MEMORY),
    E(MPI_T_ERR_NOT_INITIALIZED),
    E(MPI_T_ERR_CANNOT_INIT),
    E(MPI_T_ERR_INVALID_INDEX),
    E(MPI_T_ERR_INVALID_ITEM),
    E(MPI_T_ERR_INVALID_HANDLE),
    E(MPI_T_ERR_OUT_OF_HANDLES),
    E(MPI_T_ERR_OUT_OF_SESSIONS),
    E(MPI_T_ERR_INVALID_SESSION),
    E(MPI_T_ERR_CVAR_SET_NOT_NOW),
    E(MPI_T_ERR_CVAR_SET_NEVER),
    E(MPI_T_ERR_PVAR_NO_STARTSTOP),
    E(MPI_T_ERR_PVAR_NO_WRITE),
    E(MPI_T_ERR_PVAR_NO_ATOMIC),
    E(MPI_T_ERR_INVALID_NAME),
    E(MPI_T_ERR_INVALID),
    E(MPI_ERR_SESSION),
    E(MPI_ERR_PROC_ABORTED),
    E(MPI_ERR_VALUE_TOO_LARGE),
    E(MPI_T_ERR_NOT_SUPPORTED),
};
#define NCLASSES ((int)(sizeof classes / sizeof classes[0]))

int main(int argc, char **argv)
{
    static char text[NCLASSES][MPI_MAX_ERROR_STRING + 16];
    mtest_init(&argc, &argv);

    for (int i = 0; i < NCLASSES; i++) {
        int cls = -1, len = -1;
        char *t = text[i];
        memset(t, 'Z', MPI_MAX_ERROR_STRING + 16);
        CHECK_SUCCESS(MPI_Error_class(classes[i].value, &cls));
        CHECK(cls == classes[i].value, "%s (%d) has class %d", classes[i].name, classes[i].value,
              cls);
        CHECK_SUCCESS(MPI_Error_string(classes[i].value, t, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "%s: resultlen %d", classes[i].name, len);
        if (len >= 0 && len < MPI_MAX_ERROR_STRING) {
            CHECK(t[len] == '\0', "%s: no terminating NUL at resultlen %d", classes[i].name, len);
            CHECK((int)strlen(t) == len, "%s: strlen %d, resultlen %d", classes[i].name,
                  (int)strlen(t), len);
        }
        /* nothing written past MPI_MAX_ERROR_STRING */
        for (int k = MPI_MAX_ERROR_STRING; k < MPI_MAX_ERROR_STRING + 16; k++)
            if (t[k] != 'Z') {
                CHECK(t[k] == 'Z', "%s: byte %d past MPI_MAX_ERROR_STRING written", classes[i].name,
                      k);
                break;
            }
        t[MPI_MAX_ERROR_STRING - 1] = '\0';
    }
    /* distinct classes, distinct messages (each class reported once) */
    for (int i = 0; i < NCLASSES; i++)
        for (int j = 0; j < NCLASSES; j++)
            if (j != i && strcmp(text[i], text[j]) == 0) {
                CHECK(0, "%s shares its string \"%s\" with %s", classes[i].name, text[i],
                      classes[j].name);
                break;
            }
    /* the values are distinct and increasing up to MPI_ERR_LASTCODE */
    for (int i = 1; i < NCLASSES; i++)
        CHECK(classes[i].value > 0 && classes[i].value <= MPI_ERR_LASTCODE, "%s = %d",
              classes[i].name, classes[i].value);
    return mtest_finish();
}
