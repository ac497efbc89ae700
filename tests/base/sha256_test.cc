// Sha256Hasher (base/sha256.h): the FIPS 180-4 examples, streaming in any pieces equal to
// one shot, reuse after Finish, and agreement with libsodium's independent SHA-256 at every
// size around the block boundaries and for a large input, from several threads.
#include "base/sha256.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/hex.h"

namespace las {
namespace {

std::string Hex(std::string_view bytes) { return ToHex(Sha256Hasher::Of(bytes)); }

std::string Sodium(std::string_view bytes) {
  std::array<uint8_t, crypto_hash_sha256_BYTES> out{};
  crypto_hash_sha256(out.data(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return ToHex(out);
}

TEST(Sha256Hasher, Fips180Examples) {
  EXPECT_EQ(Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Hasher, PiecesEqualOneShotAndFinishStartsOver) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += static_cast<char>('a' + i % 26);
  Sha256Hasher hasher;
  for (size_t at = 0, piece = 1; at < text.size(); at += piece, piece = piece * 3 % 97 + 1) {
    hasher.Update(std::string_view(text).substr(at, piece));
  }
  EXPECT_EQ(ToHex(hasher.Finish()), Hex(text));
  hasher.Update("abc");
  EXPECT_EQ(ToHex(hasher.Finish()), Hex("abc"));
  EXPECT_EQ(ToHex(hasher.Finish()), Hex(""));
}

TEST(Sha256Hasher, AgreesWithLibsodiumAtEverySizeAroundTheBlocks) {
  ASSERT_GE(sodium_init(), 0);
  std::mt19937 random(42);
  std::string bytes;
  for (size_t size = 0; size <= 300; ++size) {
    EXPECT_EQ(Hex(bytes), Sodium(bytes)) << size;
    bytes.push_back(static_cast<char>(random()));
  }
  std::string large(3 << 20, '\0');
  for (char& c : large) c = static_cast<char>(random());
  EXPECT_EQ(Hex(large), Sodium(large));
}

TEST(Sha256Hasher, OneShotFromManyThreads) {
  const std::string text(10000, 'z');
  const std::string expected = Sodium(text);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) mismatches[t] += Hex(text) != expected;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace las
