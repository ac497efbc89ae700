// All Wycheproof Ed25519 verification cases must agree with VerifyEd25519:
// "valid" verifies, "invalid" does not. (The shared file has no "acceptable" cases; if a
// future copy adds some, this test treats them as must-reject, Las's strict choice.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/hex.h"
#include "trust/signature.h"

namespace las::trust {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> Hex(const std::string& s) {
  std::optional<std::vector<uint8_t>> bytes = FromHex(s);
  EXPECT_TRUE(bytes) << s;
  return bytes.value_or(std::vector<uint8_t>{});
}

TEST(Wycheproof, AllEd25519CasesAgree) {
  const fs::path file = fs::path(LAS_SHARED_VECTORS_DIR) / "wycheproof" / "ed25519_test.json";
  if (!fs::exists(file)) {
    GTEST_SKIP() << "Wycheproof vectors not found at " << file
                 << "; Ed25519 edge cases NOT tested";
  }
  std::ifstream in(file);
  const nlohmann::json doc = nlohmann::json::parse(in);
  int cases = 0, valid = 0, invalid = 0;
  for (const auto& group : doc.at("testGroups")) {
    const std::vector<uint8_t> pk = Hex(group.at("publicKey").at("pk").get<std::string>());
    for (const auto& t : group.at("tests")) {
      const int id = t.at("tcId").get<int>();
      const std::string result = t.at("result").get<std::string>();
      const bool expect_valid = result == "valid";
      const bool got = VerifyEd25519(pk, Hex(t.at("msg").get<std::string>()),
                                     Hex(t.at("sig").get<std::string>()));
      EXPECT_EQ(got, expect_valid) << "tcId " << id << " (" << result << "): "
                                   << t.at("comment").get<std::string>();
      ++cases;
      (expect_valid ? valid : invalid)++;
    }
  }
  EXPECT_EQ(cases, doc.at("numberOfTests").get<int>());
  EXPECT_EQ(cases, 151);
  std::cout << "[ WYCHEPRF ] " << cases << " cases: " << valid << " valid, " << invalid
            << " invalid\n";
}

}  // namespace
}  // namespace las::trust
