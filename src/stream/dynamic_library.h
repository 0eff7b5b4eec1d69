// Loading a GPU runtime with dlopen: libmpi links no GPU library, so it
// loads on machines without one. Libraries stay loaded until exit (unloading
// a GPU runtime at exit is a classic source of crashes).
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace stmpi::stream {

// The first of `names` that loads, or null with every dlerror() in `why`.
inline void* open_first_library(std::initializer_list<const char*> names, std::string* why) {
  why->clear();
  for (const char* name : names) {
    if (void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return library;
    const char* error = dlerror();
    if (!why->empty()) *why += "; ";
    *why += error != nullptr ? error : name;
  }
  return nullptr;
}

// Sets *fn to the symbol; on failure adds its name to `missing`.
template <class Fn>
void load_symbol(void* library, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (*fn != nullptr) return;
  if (!missing->empty()) *missing += ", ";
  *missing += name;
}

}  // namespace stmpi::stream
