// MPI_File: one file opened collectively by the processes of a communicator,
// and the interface the parts of the I/O chapter share.
//
// A File holds a private duplicate of the communicator it was opened on (for
// the chapter's internal traffic), the access mode, the driver of the open
// file (driver.h), the current view, the individual file pointer, the atomic
// mode, the hints in effect and the slot of the shared file pointer
// (shared.h). The functions below the class are the building blocks the
// collective, shared-pointer and nonblocking parts use:
//   map_view                 file byte runs of a range of the view
//   read_at / write_at       the whole independent path (sieving, vector I/O,
//                            atomic mode), offsets in etypes of the view
//   read_runs / write_runs   raw byte runs to or from one contiguous buffer
// Interface changes are noted here, with the date.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "mpi/io/driver.h"

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Errhandler;
}  // namespace stmpi::mpi

namespace stmpi::mpi::io {

struct SharedPointer;  // shared.h
struct Datarep;        // datarep.h

// A run of file bytes.
struct Run {
  MPI_Offset offset;
  MPI_Count length;
};

// Hints accepted by open/set_view/set_info (reported back by MPI_File_get_info
// with these values). enable|disable|automatic switches:
enum class Switch { kEnable, kDisable, kAutomatic };

struct Hints {
  MPI_Count cb_buffer_size = 16 * 1024 * 1024;     // cb_buffer_size
  int cb_nodes = 0;                                // cb_nodes: aggregators; 0 = one per node
  Switch cb_read = Switch::kAutomatic;             // romio_cb_read
  Switch cb_write = Switch::kAutomatic;            // romio_cb_write
  Switch ds_read = Switch::kAutomatic;             // romio_ds_read
  Switch ds_write = Switch::kAutomatic;            // romio_ds_write
  MPI_Count ind_rd_buffer_size = 4 * 1024 * 1024;  // ind_rd_buffer_size
  MPI_Count ind_wr_buffer_size = 512 * 1024;       // ind_wr_buffer_size
  int striping_factor = 0;                         // striping_factor (0: file system's)
  MPI_Count striping_unit = 0;                     // striping_unit (0: file system's)
};

// A filetype flattened into the file byte runs of one instance (offsets
// from the instance's origin, in type order, adjacent runs merged) and the
// data offset at which each run starts (for lookups by data position).
struct FlatType {
  std::vector<Run> runs;
  std::vector<MPI_Count> data_start;
  MPI_Count size = 0;       // data bytes per instance
  MPI_Aint extent = 0;      // instances tile the file every `extent` bytes
  bool contiguous = false;  // one run at 0 covering the extent
};

// The view (MPI_File_set_view). etype and filetype are retained.
struct View {
  MPI_Offset disp = 0;
  Datatype* etype = nullptr;
  Datatype* filetype = nullptr;
  std::string datarep = "native";
  const Datarep* rep = nullptr;          // nullptr: native
  MPI_Count etype_size = 1;              // in memory: etypes moved = memory bytes / etype_size
  MPI_Count etype_file_size = 1;         // in the file (differs in external32 for MPI_LONG, ...)
  std::shared_ptr<const FlatType> flat;  // the filetype's runs, kept on the filetype
};

class File {
 public:
  File();
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  MPI_File handle() const { return reinterpret_cast<MPI_File>(const_cast<File*>(this)); }
  Comm& comm() const { return *comm_; }  // private duplicate
  int amode() const { return amode_; }
  const std::string& name() const { return name_; }
  Driver& driver() const { return *driver_; }
  const View& view() const { return view_; }
  View& view() { return view_; }
  bool atomic() const { return atomic_; }
  void set_atomic(bool on) { atomic_ = on; }
  const Hints& hints() const { return hints_; }
  Hints& hints() { return hints_; }
  Errhandler* errhandler() const { return errhandler_; }
  void set_errhandler(Errhandler* eh);  // retains eh, releases the old one

  // Individual file pointer, in etypes of the current view.
  MPI_Offset position = 0;
  // IO-COLL's shared file pointer state (created by shared_open).
  std::unique_ptr<SharedPointer> shared;
  int fortran_index = -1;  // MPI_File_c2f

  // Set up by the open (file.cc).
  Comm* comm_ = nullptr;
  int amode_ = 0;
  std::string name_;
  std::unique_ptr<Driver> driver_;
  View view_;
  bool atomic_ = false;
  Hints hints_;
  Errhandler* errhandler_ = nullptr;
  std::vector<std::pair<std::string, std::string>> extra_info_;  // hints we keep but do not use
};

// The File of a handle, or nullptr (MPI_FILE_NULL, closed, unknown).
File* file_get(MPI_File handle);
// Raises `code` through the file's error handler (MPI_FILE_NULL's when
// file is nullptr); returns what the MPI function returns.
int file_raise(File* file, int code, const char* function);

// IO-COLL (shared.cc): called by the collective open once the file exists
// on every process, and by close before the communicator goes.
int shared_open(File& file);
void shared_close(File& file);
// Added after the first version: called by MPI_File_set_view (on every
// process, before an agreement) to reset the shared file pointer to zero.
int shared_set_view(File& file);

// File byte runs, in view order, of `bytes` bytes of data starting at view
// position `etype_offset` (in etypes). Adjacent runs are merged. `bytes`
// counts file bytes: in a representation whose sizes differ from memory's,
// stream_bytes (internal.h) gives them for a memory type.
void map_view(const File& file, MPI_Offset etype_offset, MPI_Count bytes, std::vector<Run>& out);
// Added after the first version: the same for a copy of a view (a nonblocking
// access started before MPI_File_set_view changed the file's view; copying
// a View keeps its flattened filetype alive, not its datatypes).
void map_view(const View& view, MPI_Offset etype_offset, MPI_Count bytes, std::vector<Run>& out);

// Independent blocking access at `offset` etypes into the view; `status`
// (may be MPI_STATUS_IGNORE) gets the exact byte count. A read past the end
// of the file gives a short count.
int read_at(File& file, MPI_Offset offset, void* buf, MPI_Count count, const Datatype& type,
            MPI_Status* status);
int write_at(File& file, MPI_Offset offset, const void* buf, MPI_Count count, const Datatype& type,
             MPI_Status* status);

// Raw runs to or from one contiguous buffer holding the runs' bytes in
// order. read_runs stores the bytes read in *done if not null (short at EOF;
// bytes past EOF are left as they were).
int read_runs(File& file, const std::vector<Run>& runs, void* contiguous,
              MPI_Count* done = nullptr);
int write_runs(File& file, const std::vector<Run>& runs, const void* contiguous);

// Sets `status` (unless MPI_STATUS_IGNORE) for `bytes` bytes of `type`.
void set_status(MPI_Status* status, MPI_Count bytes);

}  // namespace stmpi::mpi::io
