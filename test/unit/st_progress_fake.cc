// st_test's device progress engine: no transports, only the hooks
// (StreamWindow registers one for the host streams its epochs use), run
// when the test or the device rma code's waits call progress().
#include <cstddef>
#include <utility>
#include <vector>

#include "device/progress.h"

namespace stmpi::dev {
namespace {
std::vector<std::pair<ProgressHookFn, void*>> g_hooks;  // by id; fn null: removed
}  // namespace

int add_progress_hook(ProgressHookFn fn, void* arg) {
  g_hooks.emplace_back(fn, arg);
  return static_cast<int>(g_hooks.size() - 1);
}

void remove_progress_hook(int id) { g_hooks[static_cast<std::size_t>(id)] = {nullptr, nullptr}; }

void progress() {
  for (std::size_t i = 0; i < g_hooks.size(); ++i)
    if (g_hooks[i].first != nullptr) g_hooks[i].first(g_hooks[i].second);
}

// Hooks registered and not removed (st_test checks StreamWindow's).
int live_hooks() {
  int n = 0;
  for (const auto& hook : g_hooks) n += hook.first != nullptr;
  return n;
}

}  // namespace stmpi::dev
