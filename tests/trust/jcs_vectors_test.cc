// Every input/*.json of the shared RFC 8785 vectors (cyberphone/json-canonicalization)
// must canonicalize to the bytes of output/*.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "trust/canonical_json.h"

namespace las::trust {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(JcsVectors, EveryInputCanonicalizesToItsOutput) {
  const fs::path dir = fs::path(LAS_SHARED_VECTORS_DIR) / "jcs";
  if (!fs::is_directory(dir / "input") || !fs::is_directory(dir / "output")) {
    GTEST_SKIP() << "JCS vectors not found at " << dir << "; RFC 8785 conformance NOT tested";
  }
  int checked = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir / "input")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const fs::path expected_path = dir / "output" / entry.path().filename();
    ASSERT_TRUE(fs::exists(expected_path)) << "no expected output " << expected_path;
    Result<std::string> canonical = CanonicalizeJson(ReadFile(entry.path()));
    ASSERT_TRUE(canonical.ok()) << canonical.status().ToString();
    EXPECT_EQ(*canonical, ReadFile(expected_path));
    ++checked;
  }
  EXPECT_GE(checked, 6) << "expected the six cyberphone vectors";
  std::cout << "[ JCS      ] " << checked << " vectors checked\n";
}

}  // namespace
}  // namespace las::trust
