#include "base/path_error.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace las {
namespace {

// The operator's path mistakes are usage errors that say what to fix, not I/O errors.
TEST(PathError, TheOperatorsMistakesAreInvalidArgumentsWithAdvice) {
  const Status under_a_file = PathErrorStatus(ENOTDIR, "/x/file/sub");
  EXPECT_EQ(under_a_file.code(), Code::kInvalidArgument);
  EXPECT_EQ(under_a_file.message(),
            "/x/file/sub: a file stands where the path needs a directory; check the path "
            "(Not a directory)");
  EXPECT_EQ(PathErrorStatus(ELOOP, "/x/loop").code(), Code::kInvalidArgument);
  EXPECT_NE(PathErrorStatus(ELOOP, "/x/loop").message().find("loop of symbolic links"),
            std::string::npos);
  EXPECT_EQ(PathErrorStatus(ENAMETOOLONG, "/x/n").code(), Code::kInvalidArgument);
}

TEST(PathError, OtherErrorsKeepTheirClasses) {
  EXPECT_EQ(PathErrorStatus(ENOENT, "/x").code(), Code::kNotFound);
  EXPECT_EQ(PathErrorStatus(EACCES, "/x").code(), Code::kDenied);
  EXPECT_EQ(PathErrorStatus(EPERM, "/x").code(), Code::kDenied);
  EXPECT_EQ(PathErrorStatus(EIO, "/x").code(), Code::kIo);
  EXPECT_EQ(PathErrorStatus(EIO, "/x").message(), "/x: Input/output error");
  EXPECT_EQ(PathMistake(EIO), "");
}

}  // namespace
}  // namespace las
