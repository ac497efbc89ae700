#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <stdexcept>

namespace las::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "las-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace las::testing
