// util::ShmSegment: names, permissions, exclusive creation, refusal of
// foreign objects, and a clear error when /dev/shm has no room.
#include "util/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <string>

#include <gtest/gtest.h>

namespace stmpi::util {
namespace {

std::string job() { return "unit_" + std::to_string(getpid()); }

TEST(ShmSegment, NameIsPrefixedAndRandom) {
  ShmSegment a;
  ShmSegment b;
  std::string error;
  ASSERT_TRUE(a.create(job(), "node", 4096, &error)) << error;
  ASSERT_TRUE(b.create(job(), "node", 4096, &error)) << error;
  const std::regex form("/stmpi-" + job() + "-node-[0-9a-f]{16}");
  EXPECT_TRUE(std::regex_match(a.name(), form)) << a.name();
  EXPECT_TRUE(std::regex_match(b.name(), form)) << b.name();
  EXPECT_NE(a.name(), b.name());
  EXPECT_EQ(shm_segment_prefix(job()), "stmpi-" + job() + "-");
  EXPECT_EQ(a.name().rfind("/" + shm_segment_prefix(job()), 0), 0u);
}

TEST(ShmSegment, CreatedPrivateZeroedAndRemoved) {
  ShmSegment a;
  std::string error;
  const mode_t old_mask = umask(0);  // the mode must not depend on the umask
  const bool created = a.create(job(), "win1.2", 3 * 4096 + 5, &error);
  umask(old_mask);
  ASSERT_TRUE(created) << error;
  struct stat st {};
  ASSERT_EQ(stat(("/dev/shm" + a.name()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, geteuid());
  // every page is reserved, not a sparse file
  EXPECT_GE(static_cast<std::size_t>(st.st_blocks) * 512, std::size_t{3 * 4096 + 5});
  for (std::size_t i = 0; i < a.bytes(); ++i) ASSERT_EQ(a.base()[i], 0) << i;
  a.base()[a.bytes() - 1] = 7;

  ShmSegment b;
  ASSERT_TRUE(b.open(a.name(), a.bytes(), &error)) << error;
  EXPECT_EQ(b.base()[b.bytes() - 1], 7);
  const std::string path = "/dev/shm" + a.name();
  a.unlink();
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  EXPECT_EQ(b.base()[b.bytes() - 1], 7);  // the mappings outlive the name
}

TEST(ShmSegment, DestructorRemovesTheName) {
  std::string path;
  {
    ShmSegment a;
    std::string error;
    ASSERT_TRUE(a.create(job(), "node", 4096, &error)) << error;
    path = "/dev/shm" + a.name();
    EXPECT_EQ(access(path.c_str(), F_OK), 0);
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0);
}

TEST(ShmSegment, OpenRefusesForeignObjects) {
  const std::string name = "/stmpi-" + job() + "-planted";
  const std::string path = "/dev/shm" + name;
  std::string error;
  ShmSegment s;

  // group- or world-accessible: someone else could have made or read it
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchmod(fd, 0644), 0);
  ASSERT_EQ(ftruncate(fd, 8192), 0);
  close(fd);
  EXPECT_FALSE(s.open(name, 4096, &error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("mode 0600"), std::string::npos) << error;

  // too small for what the job expects
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  EXPECT_FALSE(s.open(name, 16384, &error));
  EXPECT_TRUE(s.open(name, 8192, &error)) << error;
  s.unmap();
  shm_unlink(name.c_str());

  // a symbolic link is never followed
  ASSERT_EQ(symlink("/dev/null", path.c_str()), 0);
  EXPECT_FALSE(s.open(name, 4096, &error));
  unlink(path.c_str());

  // a name that does not exist
  EXPECT_FALSE(s.open(name, 4096, &error));
  EXPECT_EQ(s.error_number(), ENOENT);
  EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST(ShmSegment, TooLargeIsAClearErrorNotASigbus) {
  struct statvfs fs {};
  ASSERT_EQ(statvfs("/dev/shm", &fs), 0);
  // More than the whole file system: refused up front, without filling memory first.
  const std::size_t want = std::size_t(fs.f_blocks) * fs.f_frsize + (std::size_t{64} << 20);
  ShmSegment s;
  std::string error;
  ASSERT_FALSE(s.create(job(), "huge", want, &error));
  EXPECT_EQ(s.error_number(), ENOSPC) << error;
  EXPECT_NE(error.find("cannot reserve " + std::to_string(want) + " bytes"), std::string::npos)
      << error;
  EXPECT_NE(error.find("/dev/shm/stmpi-" + job() + "-huge-"), std::string::npos) << error;
  EXPECT_NE(error.find("MiB free of"), std::string::npos) << error;
  EXPECT_EQ(s.base(), nullptr);
  // nothing is left behind
  EXPECT_NE(access(("/dev/shm" + s.name()).c_str(), F_OK), 0);
}

}  // namespace
}  // namespace stmpi::util
