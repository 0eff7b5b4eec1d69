#include "device/progress.h"

#include <vector>

namespace stmpi::dev {

// The transports' part of progress (device.cc).
int poll_transports();

namespace {

struct Hook {
  ProgressHookFn fn = nullptr;  // nullptr: a free slot
  void* arg = nullptr;
};

std::vector<Hook> g_hooks;  // by id
int g_live_hooks = 0;

}  // namespace

int add_progress_hook(ProgressHookFn fn, void* arg) {
  for (std::size_t id = 0; id < g_hooks.size(); ++id) {
    if (g_hooks[id].fn == nullptr) {
      g_hooks[id] = Hook{fn, arg};
      ++g_live_hooks;
      return static_cast<int>(id);
    }
  }
  g_hooks.push_back(Hook{fn, arg});
  ++g_live_hooks;
  return static_cast<int>(g_hooks.size() - 1);
}

void remove_progress_hook(int id) {
  if (id < 0 || static_cast<std::size_t>(id) >= g_hooks.size() || g_hooks[id].fn == nullptr) return;
  g_hooks[id] = Hook{};
  --g_live_hooks;
}

void progress() {
  poll_transports();
  if (g_live_hooks == 0) return;
  // By index: a hook may add hooks (the vector may grow) or remove any.
  for (std::size_t id = 0; id < g_hooks.size(); ++id) {
    const Hook hook = g_hooks[id];
    if (hook.fn != nullptr) hook.fn(hook.arg);
  }
}

}  // namespace stmpi::dev
