// Helpers of test/unit/stream_test's sources: a registered host stream.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include <mpi.h>

#include "stream/host_stream.h"
#include "stream/registry.h"

namespace stmpi::stream::test {

inline std::shared_ptr<HostStream> make_stream() {
  std::shared_ptr<HostStream> stream;
  EXPECT_EQ(create_host_stream(&stream), MPI_SUCCESS);
  return stream;
}

inline void free_stream(std::shared_ptr<HostStream>& stream) {
  const void* handle = stream->handle();
  stream.reset();
  EXPECT_EQ(free_host_stream(handle), MPI_SUCCESS);
}

}  // namespace stmpi::stream::test
