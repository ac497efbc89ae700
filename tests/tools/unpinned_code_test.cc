#include "tools/unpinned_code.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

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

// Probe CI5: the note went by the file name only; a copy of a shell under another name
// runs files just the same.
TEST_F(UnpinnedCodeTest, AShellCopiedUnderAnotherNameIsNamed) {
  const std::string dash = "/bin/dash";
  if (!std::filesystem::is_regular_file(dash)) GTEST_SKIP() << "no " << dash << " here";
  const std::string runner = tmp_.Sub("runner");
  std::filesystem::copy_file(dash, runner);
  auto note = UnpinnedCodeNote(runner);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("the command is a shell"), std::string::npos) << *note;
  // Same size, other bytes: no shell.
  std::string bytes(std::filesystem::file_size(dash), 'x');
  EXPECT_FALSE(UnpinnedCodeNote(File("same-size", bytes)).has_value());
}

TEST_F(UnpinnedCodeTest, EveryArgumentNamingAFileIsNotedButTheBoundScript) {
  File("server.py", "print()\n");
  File("config.toml", "x = 1\n");
  const std::string absolute = File("plugin.js", "1;\n");
  std::filesystem::create_directory(tmp_.Sub("dir"));
  const std::vector<std::string> argv = {"/opt/py/bin/python3.11", "server.py", "--stdio",
                                         "config.toml", absolute, "dir", "missing.py", ""};
  std::vector<std::string> notes = UnboundFileNotes(argv, tmp_.path().string(), std::nullopt);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], "argv[1] \"server.py\" names a file the release does not bind: if the "
                      "command runs or loads it (a directory: code in it), an edit to it is not "
                      "caught at admission");
  EXPECT_EQ(notes[1].rfind("argv[3] \"config.toml\" names a file", 0), 0u) << notes[1];
  EXPECT_EQ(notes[2].rfind("argv[4] \"" + absolute + "\" names a file", 0), 0u) << notes[2];
  EXPECT_EQ(notes[3].rfind("argv[5] \"dir\" names a directory", 0), 0u) << notes[3];
  // The script an interpreter's code binding pins is not repeated, however it is spelled;
  // an option's `=PATH` value counts (probe CN6).
  const std::vector<std::string> twice = {"/usr/bin/python3", "server.py", "./server.py",
                                          "--config=config.toml", "--flag=", "--x=missing"};
  notes = UnboundFileNotes(twice, tmp_.path().string(), 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("argv[3] \"--config=config.toml\" names a file", 0), 0u) << notes[0];
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
