// MPI_T_init_thread / MPI_T_finalize (a nesting count), the variable and
// category lists, the category calls, and the event and source calls: this
// library defines no events and so no sources (MPI_T_event_get_num and
// MPI_T_source_get_num return 0; every index is invalid, and no event
// registration or instance handle can exist).
#include <algorithm>
#include <cstring>

#include "mpi/init/state.h"
#include "mpi/tools/impl_tools.h"
#include "mpi/tools/tools.h"

namespace stmpi::mpi::tools {
namespace {

int g_nesting = 0;  // MPI_T_init_thread calls not yet finalized

struct Lists {
  std::vector<Cvar> cvars;
  std::vector<Pvar> pvars;
  std::vector<Category> categories;
};

int category_of(std::vector<Category>& categories, const char* module) {
  for (std::size_t i = 0; i < categories.size(); ++i)
    if (categories[i].name == module) return static_cast<int>(i);
  categories.push_back(Category{module, {}, {}});
  return static_cast<int>(categories.size() - 1);
}

// Built on first use from the tables registered at static initialization;
// never changes afterwards.
const Lists& lists() {
  static const Lists built = [] {
    Lists l;
    for (const util::ParamTable* table : util::tables()) {
      for (const util::Param& param : table->params) {
        const int category = category_of(l.categories, table->module);
        l.categories[category].cvars.push_back(static_cast<int>(l.cvars.size()));
        l.cvars.push_back(Cvar{table, &param, util::env_name(table->module, param.name), category});
      }
    }
    for (const util::PvarTable* table : util::pvar_tables()) {
      for (const util::Pvar& pvar : table->pvars) {
        const int category = category_of(l.categories, table->module);
        l.categories[category].pvars.push_back(static_cast<int>(l.pvars.size()));
        l.pvars.push_back(
            Pvar{table, &pvar, std::string(table->module) + "_" + pvar.name, category});
      }
    }
    return l;
  }();
  return built;
}

const Category* category_at(int index) {
  const std::vector<Category>& all = lists().categories;
  if (index < 0 || static_cast<std::size_t>(index) >= all.size()) return nullptr;
  return &all[static_cast<std::size_t>(index)];
}

// Copies up to `len` entries of `from` into `indices`.
int copy_indices(const std::vector<int>& from, int len, int indices[]) {
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  const std::size_t n = std::min(from.size(), static_cast<std::size_t>(len));
  std::copy_n(from.begin(), n, indices);
  return MPI_SUCCESS;
}

}  // namespace

const std::vector<Cvar>& cvars() { return lists().cvars; }
const std::vector<Pvar>& pvars() { return lists().pvars; }
const std::vector<Category>& categories() { return lists().categories; }

std::mutex& mutex() {
  static std::mutex m;
  return m;
}

bool initialized() { return g_nesting > 0; }

void copy_string(const std::string& text, char* buffer, int* length) {
  if (length == nullptr) return;
  const int needed = static_cast<int>(text.size()) + 1;
  if (buffer == nullptr || *length <= 0) {
    *length = needed;
    return;
  }
  const int n = std::min(needed - 1, *length - 1);
  std::memcpy(buffer, text.data(), static_cast<std::size_t>(n));
  buffer[n] = '\0';
  *length = n + 1;
}

}  // namespace stmpi::mpi::tools

namespace stmpi::impl {

using mpi::tools::initialized;
using mpi::tools::mutex;

int t_init_thread(int required, int* provided) {
  std::lock_guard<std::mutex> lock(mutex());
  if (provided == nullptr) return MPI_T_ERR_INVALID;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_T_ERR_INVALID;
  // The MPI_T calls serialize themselves: every level is provided.
  *provided = required;
  if (++mpi::tools::g_nesting == 1) {
    (void)mpi::tools::cvars();  // builds the lists
    // Before MPI_Init the control variables show what MPI_Init will use:
    // the defaults and the environment (MPI_Init loads them again and
    // reports a malformed value).
    if (!mpi::g_process_state.library_up) {
      std::string ignored;
      (void)util::load_all(&ignored);
    }
  }
  return MPI_SUCCESS;
}

int t_finalize() {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (--mpi::tools::g_nesting == 0) {
    mpi::tools::free_cvar_handles();
    mpi::tools::free_pvar_sessions();
  }
  return MPI_SUCCESS;
}

int t_category_get_num(int* num_cat) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_cat == nullptr) return MPI_T_ERR_INVALID;
  *num_cat = static_cast<int>(mpi::tools::categories().size());
  return MPI_SUCCESS;
}

int t_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len,
                        int* num_cvars, int* num_pvars, int* num_categories) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const mpi::tools::Category* category = mpi::tools::category_at(cat_index);
  if (category == nullptr) return MPI_T_ERR_INVALID_INDEX;
  mpi::tools::copy_string(category->name, name, name_len);
  mpi::tools::copy_string("the " + category->name +
                              " module: its runtime parameters and statistics, as stmpi_info "
                              "lists them",
                          desc, desc_len);
  if (num_cvars != nullptr) *num_cvars = static_cast<int>(category->cvars.size());
  if (num_pvars != nullptr) *num_pvars = static_cast<int>(category->pvars.size());
  if (num_categories != nullptr) *num_categories = 0;  // modules have no subcategories
  return MPI_SUCCESS;
}

int t_category_get_index(const char* name, int* cat_index) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || cat_index == nullptr) return MPI_T_ERR_INVALID;
  const std::vector<mpi::tools::Category>& all = mpi::tools::categories();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) {
      *cat_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int t_category_get_cvars(int cat_index, int len, int indices[]) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const mpi::tools::Category* category = mpi::tools::category_at(cat_index);
  if (category == nullptr) return MPI_T_ERR_INVALID_INDEX;
  return mpi::tools::copy_indices(category->cvars, len, indices);
}

int t_category_get_pvars(int cat_index, int len, int indices[]) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const mpi::tools::Category* category = mpi::tools::category_at(cat_index);
  if (category == nullptr) return MPI_T_ERR_INVALID_INDEX;
  return mpi::tools::copy_indices(category->pvars, len, indices);
}

int t_category_get_categories(int cat_index, int len, int indices[]) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (mpi::tools::category_at(cat_index) == nullptr) return MPI_T_ERR_INVALID_INDEX;
  return mpi::tools::copy_indices({}, len, indices);
}

int t_category_get_events(int cat_index, int len, int indices[]) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (mpi::tools::category_at(cat_index) == nullptr) return MPI_T_ERR_INVALID_INDEX;
  return mpi::tools::copy_indices({}, len, indices);
}

int t_category_get_num_events(int cat_index, int* num_events) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (mpi::tools::category_at(cat_index) == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (num_events == nullptr) return MPI_T_ERR_INVALID;
  *num_events = 0;
  return MPI_SUCCESS;
}

int t_category_changed(int* update_number) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (update_number == nullptr) return MPI_T_ERR_INVALID;
  *update_number = 0;  // the lists are fixed for the life of the process
  return MPI_SUCCESS;
}

// Events and sources: none exist.

int t_source_get_num(int* num_sources) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_sources == nullptr) return MPI_T_ERR_INVALID;
  *num_sources = 0;
  return MPI_SUCCESS;
}

int t_source_get_info(int, char*, int*, char*, int*, MPI_T_source_order*, MPI_Count*, MPI_Count*,
                      MPI_Info*) {
  std::lock_guard<std::mutex> lock(mutex());
  return initialized() ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED;
}

int t_source_get_timestamp(int, MPI_Count*) {
  std::lock_guard<std::mutex> lock(mutex());
  return initialized() ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED;
}

int t_event_get_num(int* num_events) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_events == nullptr) return MPI_T_ERR_INVALID;
  *num_events = 0;
  return MPI_SUCCESS;
}

int t_event_get_info(int, char*, int*, int*, MPI_Datatype[], MPI_Aint[], int*, MPI_T_enum*,
                     MPI_Info*, char*, int*, int*) {
  std::lock_guard<std::mutex> lock(mutex());
  return initialized() ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED;
}

int t_event_get_index(const char* name, int* event_index) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || event_index == nullptr) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_INVALID_NAME;
}

int t_event_handle_alloc(int, void*, MPI_Info, MPI_T_event_registration*) {
  std::lock_guard<std::mutex> lock(mutex());
  return initialized() ? MPI_T_ERR_INVALID_INDEX : MPI_T_ERR_NOT_INITIALIZED;
}

// The calls on an event registration or instance: no valid one exists.
namespace {
int no_event_handle() {
  std::lock_guard<std::mutex> lock(mutex());
  return initialized() ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
}
}  // namespace

int t_event_handle_free(MPI_T_event_registration, void*, MPI_T_event_free_cb_function*) {
  return no_event_handle();
}
int t_event_handle_get_info(MPI_T_event_registration, MPI_Info*) { return no_event_handle(); }
int t_event_handle_set_info(MPI_T_event_registration, MPI_Info) { return no_event_handle(); }
int t_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*) {
  return no_event_handle();
}
int t_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  return no_event_handle();
}
int t_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                              MPI_T_event_cb_function*) {
  return no_event_handle();
}
int t_event_set_dropped_handler(MPI_T_event_registration, MPI_T_event_dropped_cb_function*) {
  return no_event_handle();
}
int t_event_copy(MPI_T_event_instance, void*) { return no_event_handle(); }
int t_event_read(MPI_T_event_instance, int, void*) { return no_event_handle(); }
int t_event_get_source(MPI_T_event_instance, int*) { return no_event_handle(); }
int t_event_get_timestamp(MPI_T_event_instance, MPI_Count*) { return no_event_handle(); }

}  // namespace stmpi::impl
