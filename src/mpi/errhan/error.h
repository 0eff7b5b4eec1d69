// The MPI layer's names for the error codes with messages, which live below
// the device (util/error.h) so that the device and streams build them too.
#pragma once

#include "util/error.h"

namespace stmpi::mpi::errhan {

using util::class_string;
using util::error_class_of;
using util::error_string;
using util::kClassMask;
using util::kFirstUserClass;
using util::kLastUserClass;
using util::kSlotShift;
using util::kUserClassBit;
using util::kUserCodeBit;
using util::make_error;
using util::make_error_v;

}  // namespace stmpi::mpi::errhan
