/* MPI_Error_string of an added error class or code with no string set is the
 * empty string (MPI 4.1 9.5); once MPI_Add_error_string sets one, that is read. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    char text[MPI_MAX_ERROR_STRING];
    int len = -1, cls = 0, code = 0, code2 = 0;

    CHECK_SUCCESS(MPI_Add_error_class(&cls));
    strcpy(text, "not touched");
    CHECK_SUCCESS(MPI_Error_string(cls, text, &len));
    CHECK_INT(len, 0);
    CHECK(text[0] == '\0', "class string is \"%s\"", text);

    CHECK_SUCCESS(MPI_Add_error_code(cls, &code));
    strcpy(text, "not touched");
    CHECK_SUCCESS(MPI_Error_string(code, text, &len));
    CHECK_INT(len, 0);
    CHECK(text[0] == '\0', "code string is \"%s\"", text);

    /* An added code of a predefined class has no string either. */
    CHECK_SUCCESS(MPI_Add_error_code(MPI_ERR_OTHER, &code2));
    CHECK_SUCCESS(MPI_Error_string(code2, text, &len));
    CHECK_INT(len, 0);

    CHECK_SUCCESS(MPI_Add_error_string(cls, "my class"));
    CHECK_SUCCESS(MPI_Error_string(cls, text, &len));
    CHECK(strcmp(text, "my class") == 0, "class string is \"%s\"", text);
    CHECK_INT(len, 8);
    /* The code still has none. */
    CHECK_SUCCESS(MPI_Error_string(code, text, &len));
    CHECK_INT(len, 0);

    /* Predefined classes keep their text. */
    CHECK_SUCCESS(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len));
    CHECK(len > 0, "MPI_ERR_TRUNCATE has an empty string");
    return mtest_finish();
}
