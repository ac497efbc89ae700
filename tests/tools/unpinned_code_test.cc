#include "tools/unpinned_code.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace las::tools {
namespace {

class UnpinnedCodeTest : public ::testing::Test {
 protected:
  std::string File(const std::string& name, const std::string& content) {
    const std::string path = tmp_.Sub(name);
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  testing::TempDir tmp_;
};

TEST_F(UnpinnedCodeTest, AShellScriptIsNamedWithItsShell) {
  auto direct = UnpinnedCodeNote(File("run.sh", "#!/bin/sh\nexec /usr/bin/python3 child.py\n"));
  ASSERT_TRUE(direct.has_value());
  EXPECT_NE(direct->find("a script run by /bin/sh: the release binds its bytes, not what it runs"),
            std::string::npos)
      << *direct;
  auto through_env = UnpinnedCodeNote(File("env.sh", "#!/usr/bin/env -S bash -e\necho\n"));
  ASSERT_TRUE(through_env.has_value());
  EXPECT_NE(through_env->find("run by bash"), std::string::npos) << *through_env;
}

TEST_F(UnpinnedCodeTest, AShellAsTheCommandIsNamed) {
  auto note = UnpinnedCodeNote(File("bash", "\x7f" "ELF..."));
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("the command is a shell"), std::string::npos) << *note;
}

TEST_F(UnpinnedCodeTest, ProgramsAndOtherScriptsGetNoNote) {
  EXPECT_FALSE(UnpinnedCodeNote(File("child", "\x7f" "ELF...")).has_value());
  EXPECT_FALSE(UnpinnedCodeNote(File("child.py", "#!/usr/bin/python3\nprint()\n")).has_value());
  EXPECT_FALSE(UnpinnedCodeNote(File("shebang-only", "#!")).has_value());
  EXPECT_FALSE(UnpinnedCodeNote(File("empty", "")).has_value());
  EXPECT_FALSE(UnpinnedCodeNote(tmp_.Sub("missing")).has_value());
}

}  // namespace
}  // namespace las::tools
