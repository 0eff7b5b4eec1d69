#include "binding/f08/cdesc.h"

#include <cstring>

#include "binding/fortran/gen/sentinels.h"  // mpipriv1_, defined by the f77 glue

extern "C" {
// The sentinels of MPICH's own mpi_f08 module, so that a program built with
// Debian's mpifort.mpich passes sentinels this glue recognises.
__attribute__((visibility("default"))) MPI_Fint MPIR_F08_MPI_BOTTOM;
__attribute__((visibility("default"))) MPI_Fint MPIR_F08_MPI_IN_PLACE;
__attribute__((visibility("default"))) MPI_Status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
__attribute__((visibility("default"))) MPI_Status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];

__attribute__((visibility("default"))) int stmpi_f08_status_ignored(CFI_cdesc_t* status) {
  const void* p = status->base_addr;
  return p == &MPIR_F08_MPI_STATUS_IGNORE_OBJ || p == MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
}
}

namespace stmpi::binding::f08 {
namespace {

bool is_bottom(const void* p) { return p == &mpipriv1_.bottom || p == &MPIR_F08_MPI_BOTTOM; }
bool is_in_place(const void* p) { return p == &mpipriv1_.in_place || p == &MPIR_F08_MPI_IN_PLACE; }

MPI_Count elements(const CFI_cdesc_t* d) {
  MPI_Count n = 1;
  for (int i = 0; i < d->rank; ++i) n *= d->dim[i].extent;
  return n;
}

bool contiguous(const CFI_cdesc_t* d) {
  CFI_index_t expect = static_cast<CFI_index_t>(d->elem_len);
  for (int i = 0; i < d->rank; ++i) {
    if (d->dim[i].extent > 1 && d->dim[i].sm != expect) return false;
    expect *= d->dim[i].extent;
  }
  return true;
}

// Byte offset of element `index` (Fortran array element order) of the section.
CFI_index_t offset_of(const CFI_cdesc_t* d, MPI_Count index) {
  CFI_index_t off = 0;
  for (int i = 0; i < d->rank; ++i) {
    off += (index % d->dim[i].extent) * d->dim[i].sm;
    index /= d->dim[i].extent;
  }
  return off;
}

// Copies between the section and a packed buffer, element by element.
void copy_section(const CFI_cdesc_t* d, char* packed, bool to_packed) {
  MPI_Count n = elements(d);
  char* base = static_cast<char*>(d->base_addr);
  for (MPI_Count k = 0; k < n; ++k) {
    char* elem = base + offset_of(d, k);
    char* p = packed + k * d->elem_len;
    if (to_packed) {
      std::memcpy(p, elem, d->elem_len);
    } else {
      std::memcpy(elem, p, d->elem_len);
    }
  }
}

// The first `m` elements of the section, each of type `elem`.
int section_type(const CFI_cdesc_t* d, MPI_Count m, MPI_Datatype elem, MPI_Datatype* out) {
  MPI_Datatype t = elem;
  int rc = MPI_SUCCESS;
  if (m == elements(d)) {
    for (int i = 0; i < d->rank && rc == MPI_SUCCESS; ++i) {
      MPI_Datatype next;
      rc = PMPI_Type_create_hvector_c(d->dim[i].extent, 1, d->dim[i].sm, t, &next);
      if (t != elem) PMPI_Type_free(&t);
      t = next;
    }
  } else {
    std::vector<MPI_Count> displs(static_cast<size_t>(m));
    for (MPI_Count k = 0; k < m; ++k) displs[k] = offset_of(d, k);
    rc = PMPI_Type_create_hindexed_block_c(m, 1, displs.data(), elem, &t);
  }
  if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&t);
  *out = t;
  return rc;
}

}  // namespace

Choice::Choice(CFI_cdesc_t* desc, MPI_Count count, MPI_Datatype datatype, Dir dir, bool may_copy)
    : desc_(desc), dir_(dir) {
  ptr_ = desc->base_addr;
  if (is_bottom(ptr_)) {
    ptr_ = MPI_BOTTOM;
  } else if (is_in_place(ptr_)) {
    ptr_ = MPI_IN_PLACE;
  } else if (count > 0 && !contiguous(desc)) {
    retype(count, datatype, may_copy);
  }
}

void Choice::copy_in() {
  // Copied in even for an output buffer: with MPI_IN_PLACE elsewhere in
  // the call, an output buffer is an input too.
  temp_.resize(static_cast<size_t>(elements(desc_)) * desc_->elem_len);
  copy_section(desc_, temp_.data(), true);
  ptr_ = temp_.data();
}

Choice::Choice(CFI_cdesc_t* desc, Mode mode, Dir dir) : desc_(desc), dir_(dir) {
  ptr_ = desc->base_addr;
  if (is_bottom(ptr_)) {
    ptr_ = MPI_BOTTOM;
  } else if (is_in_place(ptr_)) {
    ptr_ = MPI_IN_PLACE;
  } else if (mode != Mode::kAddress && !contiguous(desc)) {
    if (mode == Mode::kContiguous) {
      error_ = MPI_ERR_BUFFER;
      return;
    }
    copy_in();
  }
}

void Choice::retype(MPI_Count count, MPI_Datatype datatype, bool may_copy) {
  // The section's elements, in array element order, are the "contiguous"
  // memory the count and datatype describe. Dense datatypes only (no gaps,
  // lower bound 0): then the message is the first count * size bytes.
  MPI_Count size = 0, lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (PMPI_Type_size_c(datatype, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent_c(datatype, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_c(datatype, &true_lb, &true_extent) != MPI_SUCCESS) {
    error_ = MPI_ERR_TYPE;
    return;
  }
  if (size == 0) return;
  if (size != extent || size != true_extent || lb != 0 || true_lb != 0) {
    if (may_copy) {
      copy_in();
    } else {
      error_ = MPI_ERR_TYPE;
    }
    return;
  }
  MPI_Count elem_len = static_cast<MPI_Count>(desc_->elem_len);
  MPI_Datatype elem = datatype;
  MPI_Count m = 0;
  bool own_elem = false;
  if (elem_len % size == 0 && count % (elem_len / size) == 0) {
    MPI_Count k = elem_len / size;
    m = count / k;
    if (k > 1) {
      PMPI_Type_contiguous_c(k, datatype, &elem);
      own_elem = true;
    }
  } else if ((count * size) % elem_len == 0) {
    m = count * size / elem_len;
    PMPI_Type_contiguous_c(elem_len, MPI_BYTE, &elem);
    own_elem = true;
  } else {
    error_ = MPI_ERR_TYPE;
    return;
  }
  if (m > elements(desc_)) {
    error_ = MPI_ERR_BUFFER;
  } else if (section_type(desc_, m, elem, &type_) != MPI_SUCCESS) {
    error_ = MPI_ERR_TYPE;
  } else {
    retyped_ = true;
  }
  if (own_elem) PMPI_Type_free(&elem);
}

void Choice::finish(int rc) {
  if (!temp_.empty() && rc == MPI_SUCCESS && dir_ != Dir::kIn) {
    copy_section(desc_, temp_.data(), false);
  }
}

Choice::~Choice() {
  // Freeing a datatype does not affect the operations that use it.
  if (retyped_) PMPI_Type_free(&type_);
}

int first_error(std::initializer_list<const Choice*> buffers) {
  for (const Choice* b : buffers) {
    if (b->error() != MPI_SUCCESS) return b->error();
  }
  return MPI_SUCCESS;
}

MPI_Status* status_in(MPI_Status* status) {
  if (static_cast<void*>(status) == static_cast<void*>(mpipriv1_.status_ignore) ||
      status == &MPIR_F08_MPI_STATUS_IGNORE_OBJ) {
    return MPI_STATUS_IGNORE;
  }
  return status;
}

int Raise::fail(int err) const {
  switch (what_) {
    case 1: PMPI_Win_call_errhandler(handle_, err); break;
    case 2: PMPI_File_call_errhandler(PMPI_File_f2c(handle_), err); break;
    default: PMPI_Comm_call_errhandler(handle_, err); break;
  }
  return err;
}

}  // namespace stmpi::binding::f08
