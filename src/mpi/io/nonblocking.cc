// The I/O thread and the nonblocking calls (nonblocking.h).
#include "mpi/io/nonblocking.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/collective.h"
#include "mpi/io/file.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/nonblocking_coll.h"
#include "mpi/io/shared.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::io {
namespace {

struct Job {
  const File* file = nullptr;
  Request* request = nullptr;
  IoJob run;
};

class IoThread {
 public:
  void post(Job job) {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) {
      stop_ = false;
      thread_ = std::thread([this] { loop(); });
    }
    ++pending_[job.file];
    queue_.push_back(std::move(job));
    work_.notify_one();
  }

  void drain(const File* file) {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return pending_.find(file) == pending_.end(); });
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (!thread_.joinable()) return;
      stop_ = true;
      work_.notify_one();
    }
    thread_.join();
  }

 private:
  void loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing is left
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      MPI_Status status;
      status_set_empty(&status);
      const int err = job.run(&status);
      if (job.request != nullptr) {  // else a task that reports its own end (post_task)
        status.MPI_ERROR = err;
        job.request->status = status;
        job.request->dev.done.store(true, std::memory_order_release);
      }
      // From here on the request belongs to the caller again.
      std::lock_guard lock(mutex_);
      if (auto it = pending_.find(job.file); it != pending_.end() && --it->second == 0)
        pending_.erase(it);
      idle_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_;  // the thread waits for jobs or stop
  std::condition_variable idle_;  // drain waits for a file's jobs to finish
  std::deque<Job> queue_;
  std::unordered_map<const File*, int> pending_;  // queued or running, per file
  bool stop_ = false;
  std::thread thread_;
};

IoThread& io_thread() {
  static IoThread* thread = new IoThread;  // never destroyed: finalize joins it
  return *thread;
}

}  // namespace

int post_job(File& file, const Datatype& type, IoJob job, MPI_Request* request) {
  Request* req = request_create(Request::Kind::kDone);
  // The request holds the datatype; request_free releases it.
  auto* held = const_cast<Datatype*>(&type);
  datatype_retain(held);
  req->user_type = held;
  req->file = file.handle();  // failures go to the file's error handler
  *request = req->handle;
  io_thread().post({&file, req, std::move(job)});
  return MPI_SUCCESS;
}

void post_task(File& file, IoJob task) { io_thread().post({&file, nullptr, std::move(task)}); }

void nonblocking_drain(File& file) { io_thread().drain(&file); }

void nonblocking_finalize() { io_thread().stop(); }

namespace {

using errhan::make_error;

// Queues a read or write of `count` `type` at `at` etypes.
int post_access(File& file, bool write, MPI_Offset at, void* buf, MPI_Count count,
                const Datatype& type, MPI_Request* request) {
  if (write)
    return post_job(
        file, type,
        [&file, at, buf, count, &type](MPI_Status* st) {
          return write_at(file, at, buf, count, type, st);
        },
        request);
  return post_job(
      file, type,
      [&file, at, buf, count, &type](MPI_Status* st) {
        return read_at(file, at, buf, count, type, st);
      },
      request);
}

// The individual-pointer forms move the pointer by the whole request now.
int post_individual(File& file, bool write, void* buf, MPI_Count count, const Datatype& type,
                    MPI_Request* request, const char* function) {
  if (int err = check_access(file, write, true, function); err != MPI_SUCCESS) return err;
  const MPI_Offset at = file.position;
  file.position += count * type.size / etype_size(file);
  return post_access(file, write, at, buf, count, type, request);
}

int post_explicit(File& file, bool write, MPI_Offset offset, void* buf, MPI_Count count,
                  const Datatype& type, MPI_Request* request, const char* function) {
  if (int err = check_access(file, write, true, function); err != MPI_SUCCESS) return err;
  if (offset < 0)
    return make_error(MPI_ERR_ARG, "%s: offset=%lld is negative", function,
                      static_cast<long long>(offset));
  return post_access(file, write, offset, buf, count, type, request);
}

// The shared-pointer forms take their place with one fetch-and-op now.
// The collective forms (iread_all & co.) run the two-phase path in the
// background (nonblocking_coll.cc); the individual pointer moves now.
int post_collective(File& file, bool write, bool individual, MPI_Offset offset, void* buf,
                    MPI_Count count, const Datatype& type, MPI_Request* request,
                    const char* function) {
  if (int err = check_access(file, write, true, function); err != MPI_SUCCESS) return err;
  if (individual) {
    offset = file.position;
    file.position += count * type.size / etype_size(file);
  }
  return start_nonblocking_collective(file, write, offset, buf, count, type, function, request);
}

int post_shared(File& file, bool write, void* buf, MPI_Count count, const Datatype& type,
                MPI_Request* request, const char* function) {
  if (int err = check_access(file, write, false, function); err != MPI_SUCCESS) return err;
  MPI_Offset at = 0;
  if (int err = shared_fetch_add(file, count * type.size / etype_size(file), &at);
      err != MPI_SUCCESS)
    return err;
  return post_access(file, write, at, buf, count, type, request);
}

}  // namespace
}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Datatype;
using mpi::io::File;
using mpi::io::post_collective;
using mpi::io::post_explicit;
using mpi::io::post_individual;
using mpi::io::post_shared;

int file_iread_any(File& fh, void* buf, MPI_Count count, Datatype& datatype, MPI_Request* request) {
  return post_individual(fh, false, buf, count, datatype, request, "MPI_File_iread");
}

int file_iwrite_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                    MPI_Request* request) {
  return post_individual(fh, true, const_cast<void*>(buf), count, datatype, request,
                         "MPI_File_iwrite");
}

int file_iread_at_any(File& fh, MPI_Offset offset, void* buf, MPI_Count count, Datatype& datatype,
                      MPI_Request* request) {
  return post_explicit(fh, false, offset, buf, count, datatype, request, "MPI_File_iread_at");
}

int file_iwrite_at_any(File& fh, MPI_Offset offset, const void* buf, MPI_Count count,
                       Datatype& datatype, MPI_Request* request) {
  return post_explicit(fh, true, offset, const_cast<void*>(buf), count, datatype, request,
                       "MPI_File_iwrite_at");
}

int file_iread_all_any(File& fh, void* buf, MPI_Count count, Datatype& datatype,
                       MPI_Request* request) {
  return post_collective(fh, false, true, 0, buf, count, datatype, request, "MPI_File_iread_all");
}

int file_iwrite_all_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                        MPI_Request* request) {
  return post_collective(fh, true, true, 0, const_cast<void*>(buf), count, datatype, request,
                         "MPI_File_iwrite_all");
}

int file_iread_at_all_any(File& fh, MPI_Offset offset, void* buf, MPI_Count count,
                          Datatype& datatype, MPI_Request* request) {
  return post_collective(fh, false, false, offset, buf, count, datatype, request,
                         "MPI_File_iread_at_all");
}

int file_iwrite_at_all_any(File& fh, MPI_Offset offset, const void* buf, MPI_Count count,
                           Datatype& datatype, MPI_Request* request) {
  return post_collective(fh, true, false, offset, const_cast<void*>(buf), count, datatype, request,
                         "MPI_File_iwrite_at_all");
}

int file_iread_shared_any(File& fh, void* buf, MPI_Count count, Datatype& datatype,
                          MPI_Request* request) {
  return post_shared(fh, false, buf, count, datatype, request, "MPI_File_iread_shared");
}

int file_iwrite_shared_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                           MPI_Request* request) {
  return post_shared(fh, true, const_cast<void*>(buf), count, datatype, request,
                     "MPI_File_iwrite_shared");
}

}  // namespace stmpi::impl
