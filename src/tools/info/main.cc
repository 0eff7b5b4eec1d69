// stmpi_info: prints the version, the build options and every runtime
// parameter with its default and description; with --markdown, the
// parameter page docs/user/parameters.md (no version or build options, so
// the page is the same for every build). The tables live in libmpi, which
// exports the two printers.
#include <cstdio>
#include <cstring>

extern "C" int stmpi_info_print(FILE* out);
extern "C" int stmpi_info_print_markdown(FILE* out);

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0)
    return stmpi_info_print_markdown(stdout);
  if (argc > 1) {
    std::fprintf(stderr, "usage: %s [--markdown]\n", argv[0]);
    return 2;
  }
  return stmpi_info_print(stdout);
}
