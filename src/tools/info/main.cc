// stmpi_info: prints the version, the build options and every runtime
// parameter with its default and description. The tables live in libmpi,
// which exports one function to print them.
#include <cstdio>

extern "C" int stmpi_info_print(FILE* out);

int main() { return stmpi_info_print(stdout); }
