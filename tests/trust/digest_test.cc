#include "trust/digest.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace las::trust {
namespace {

// FIPS 180-2 test vectors.
constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kAbcSha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

// A real temporary file, removed on destruction.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    char name[] = "/tmp/las_digest_test_XXXXXX";
    fd_ = ::mkstemp(name);
    path_ = name;
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(::write(fd_, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
  }
  ~TempFile() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string path_;
};

TEST(Digest, Sha256OfKnownVectors) {
  EXPECT_EQ(Sha256Hex(Sha256(std::string_view(""))), kEmptySha256);
  EXPECT_EQ(Sha256Hex(Sha256(std::string_view("abc"))), kAbcSha256);
}

TEST(Digest, Sha256OfFileMatchesSha256OfBytesAndKeepsOffset) {
  std::string contents(200 * 1024 + 7, '\0');
  for (size_t i = 0; i < contents.size(); ++i) contents[i] = static_cast<char>(i * 31);
  TempFile file(contents);
  const off_t before = ::lseek(file.fd(), 0, SEEK_CUR);
  Result<Sha256Digest> digest = Sha256OfFile(file.fd());
  ASSERT_TRUE(digest.ok()) << digest.status().ToString();
  EXPECT_EQ(*digest, Sha256(contents));
  EXPECT_EQ(::lseek(file.fd(), 0, SEEK_CUR), before);
}

// A bound stops the read: a file checked for its size may grow while it is hashed
// (probe EZ1). Exactly the bound is still hashed.
TEST(Digest, Sha256OfFileStopsPastItsBound) {
  const std::string contents(300 * 1024, 'x');  // more than one read
  TempFile file(contents);
  Result<Sha256Digest> whole = Sha256OfFile(file.fd(), contents.size());
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(*whole, Sha256(contents));
  Result<Sha256Digest> over = Sha256OfFile(file.fd(), contents.size() - 1);
  EXPECT_EQ(over.status().code(), Code::kInvalidArgument);
  EXPECT_NE(over.status().message().find("more than 307199 bytes"), std::string::npos)
      << over.status().message();
}

TEST(Digest, Sha256OfEmptyFile) {
  TempFile file("");
  Result<Sha256Digest> digest = Sha256OfFile(file.fd());
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(Sha256Hex(*digest), kEmptySha256);
}

TEST(Digest, Sha256OfFileFailsOnPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Result<Sha256Digest> digest = Sha256OfFile(fds[0]);
  EXPECT_EQ(digest.status().code(), Code::kIo);
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(Digest, Sha256OfFileFailsOnClosedDescriptor) {
  EXPECT_EQ(Sha256OfFile(-1).status().code(), Code::kIo);
}

TEST(Digest, CanonicalSha256IgnoresSpellingDifferences) {
  Result<Sha256Digest> a = CanonicalSha256(R"({"type":"object","properties":{"x":{"type":"number","maximum":1E2}}})");
  Result<Sha256Digest> b = CanonicalSha256(" {\"properties\" : {\"x\":{\"maximum\":100,\"type\":\"number\"}},\n \"type\":\"\\u006fbject\"}");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, Sha256(std::string_view(R"({"properties":{"x":{"maximum":100,"type":"number"}},"type":"object"})")));
}

TEST(Digest, CanonicalSha256DiffersWhenValueDiffers) {
  EXPECT_NE(*CanonicalSha256(R"({"a":1})"), *CanonicalSha256(R"({"a":2})"));
}

TEST(Digest, CanonicalSha256RejectsNonStrictJson) {
  EXPECT_EQ(CanonicalSha256(R"({"a":1,"a":2})").status().code(), Code::kInvalidArgument);
}

TEST(Digest, HexRoundTripAcceptsOnlyLowercase64) {
  std::optional<Sha256Digest> d = Sha256FromHex(kAbcSha256);
  ASSERT_TRUE(d);
  EXPECT_EQ(Sha256Hex(*d), kAbcSha256);
  std::string upper = kAbcSha256;
  upper[0] = 'B';
  EXPECT_FALSE(Sha256FromHex(upper));
  EXPECT_FALSE(Sha256FromHex(std::string(kAbcSha256).substr(2)));
  EXPECT_FALSE(Sha256FromHex(std::string(kAbcSha256) + "00"));
  EXPECT_FALSE(Sha256FromHex(std::string(63, 'a') + "g"));
}

}  // namespace
}  // namespace las::trust
