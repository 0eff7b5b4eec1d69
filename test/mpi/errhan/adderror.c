/* MPI_Add_error_class / MPI_Add_error_code / MPI_Add_error_string round trip,
 * MPI_LASTUSEDCODE, and user codes passed through error handlers. */
#include "mtest.h"

static int seen_code = -1;
static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    seen_code = *code;
}

int main(int argc, char **argv)
{
    int rank, rc;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int *lastused = NULL, flag = 0;
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK_INT(flag, 1);
    int last0 = flag ? *lastused : 0;
    /* MPI 4.1 section 9.5: the value is always >= MPI_ERR_LASTCODE */
    CHECK(last0 >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d < MPI_ERR_LASTCODE %d", last0,
          MPI_ERR_LASTCODE);

    /* New classes: distinct, above the predefined ones, their own class. */
    enum { NCLASS = 3, NCODE = 2 };
    int cls[NCLASS], code[NCLASS][NCODE];
    for (int i = 0; i < NCLASS; i++) {
        cls[i] = -1;
        CHECK_SUCCESS(MPI_Add_error_class(&cls[i]));
        CHECK(cls[i] > MPI_ERR_VALUE_TOO_LARGE, "new class %d", cls[i]);
        for (int j = 0; j < i; j++)
            CHECK(cls[i] != cls[j], "class %d returned twice", cls[i]);
        int c = -1;
        CHECK_SUCCESS(MPI_Error_class(cls[i], &c));
        CHECK_INT(c, cls[i]);
        CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
        CHECK(flag && *lastused >= cls[i], "MPI_LASTUSEDCODE %d < class %d", flag ? *lastused : -1,
              cls[i]);
    }
    /* Codes in each class. */
    for (int i = 0; i < NCLASS; i++)
        for (int j = 0; j < NCODE; j++) {
            code[i][j] = -1;
            CHECK_SUCCESS(MPI_Add_error_code(cls[i], &code[i][j]));
            int c = -1;
            CHECK_SUCCESS(MPI_Error_class(code[i][j], &c));
            CHECK(c == cls[i], "code %d is in class %d, expected %d", code[i][j], c, cls[i]);
            for (int k = 0; k < NCLASS; k++)
                CHECK(code[i][j] != cls[k], "code %d equals class %d", code[i][j], cls[k]);
        }
    /* A code may also be added to a predefined class. */
    int other_code = -1, c = -1;
    CHECK_SUCCESS(MPI_Add_error_code(MPI_ERR_OTHER, &other_code));
    CHECK_SUCCESS(MPI_Error_class(other_code, &c));
    CHECK_INT(c, MPI_ERR_OTHER);

    /* Strings: set, read back, replace. */
    char text[MPI_MAX_ERROR_STRING], want[MPI_MAX_ERROR_STRING];
    int len;
    for (int i = 0; i < NCLASS; i++) {
        snprintf(want, sizeof want, "test class %d on rank %d", i, rank);
        CHECK_SUCCESS(MPI_Add_error_string(cls[i], want));
        len = -1;
        CHECK_SUCCESS(MPI_Error_string(cls[i], text, &len));
        CHECK(strcmp(text, want) == 0, "string \"%s\", expected \"%s\"", text, want);
        CHECK_INT(len, strlen(want));
        for (int j = 0; j < NCODE; j++) {
            snprintf(want, sizeof want, "test code %d.%d rank %d", i, j, rank);
            CHECK_SUCCESS(MPI_Add_error_string(code[i][j], want));
            CHECK_SUCCESS(MPI_Error_string(code[i][j], text, &len));
            CHECK(strcmp(text, want) == 0, "string \"%s\", expected \"%s\"", text, want);
            CHECK_INT(len, strlen(want));
        }
    }
    CHECK_SUCCESS(MPI_Add_error_string(cls[0], "replaced"));
    CHECK_SUCCESS(MPI_Error_string(cls[0], text, &len));
    CHECK(strcmp(text, "replaced") == 0, "string \"%s\" after replacing", text);
    snprintf(want, sizeof want, "test code 0.0 rank %d", rank);
    CHECK_SUCCESS(MPI_Error_string(code[0][0], text, &len));
    CHECK(strcmp(text, want) == 0, "code string changed to \"%s\"", text);

    /* The predefined strings are untouched. */
    CHECK_SUCCESS(MPI_Error_string(MPI_ERR_TAG, text, &len));
    CHECK(len > 0 && strstr(text, "test c") == NULL, "MPI_ERR_TAG string \"%s\"", text);
    /* An added code without a string of its own reads as the empty string (MPI 4.1 9.5). */
    CHECK_SUCCESS(MPI_Error_string(other_code, text, &len));
    CHECK(len == 0 && text[0] == '\0', "string of a new MPI_ERR_OTHER code: \"%s\" len %d", text,
          len);

    /* User codes travel through an error handler unchanged. */
    MPI_Errhandler eh;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK_SUCCESS(MPI_Comm_create_errhandler(handler, &eh));
    CHECK_SUCCESS(MPI_Comm_set_errhandler(dup, eh));
    CHECK_SUCCESS(MPI_Comm_call_errhandler(dup, code[1][1]));
    CHECK_INT(seen_code, code[1][1]);
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);

    /* MPI_LASTUSEDCODE is the current maximum error class (adding codes does not
     * change it), and never below MPI_ERR_LASTCODE. */
    int maxcls = cls[0];
    for (int i = 1; i < NCLASS; i++)
        if (cls[i] > maxcls)
            maxcls = cls[i];
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    CHECK(flag && *lastused == maxcls, "MPI_LASTUSEDCODE %d after adding codes, largest class %d",
          flag ? *lastused : -1, maxcls);
    CHECK(flag && *lastused >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d < MPI_ERR_LASTCODE %d",
          flag ? *lastused : -1, MPI_ERR_LASTCODE);
    (void)rc;

    /* Every rank added the same number of classes and codes in the same order:
     * the values agree across ranks. */
    int mine[NCLASS * (NCODE + 1)], root[NCLASS * (NCODE + 1)];
    for (int i = 0; i < NCLASS; i++) {
        mine[i * (NCODE + 1)] = cls[i];
        for (int j = 0; j < NCODE; j++)
            mine[i * (NCODE + 1) + 1 + j] = code[i][j];
    }
    memcpy(root, mine, sizeof mine);
    MPI_Bcast(root, NCLASS * (NCODE + 1), MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < NCLASS * (NCODE + 1); i++)
        CHECK(root[i] == mine[i], "value %d: rank 0 has %d, this rank %d", i, root[i], mine[i]);

    return mtest_finish();
}
