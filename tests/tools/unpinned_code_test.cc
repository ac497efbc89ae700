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

// Probes GG3, GG4: Node found modules and the package.json that decides how a script is
// read above the workspace, where the release binds nothing and, under /tmp, anyone could
// put them.
TEST_F(UnpinnedCodeTest, NodeModulesAboveTheWorkspaceAreNamed) {
  namespace fs = std::filesystem;
  const fs::path top = fs::canonical(tmp_.path());
  const fs::path open = top / "a";  // a directory others may write, above the workspace
  const fs::path workspace = open / "ws";
  fs::create_directories(workspace / "srv");
  fs::permissions(open, fs::perms::all);
  const std::string script = (workspace / "srv" / "main.mjs").string();
  std::ofstream(script) << "import 'x';\n";
  fs::create_directory(top / "node_modules");
  std::ofstream(top / "package.json") << "{\"type\": \"module\"}\n";

  std::vector<std::string> notes = NodeModuleNotes(script, workspace.string(), "/usr/bin/node");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("from outside the workspace that the release does not bind, so an edit "
                          "there is not caught at admission: " +
                          (top / "node_modules").string() + ", " + (top / "package.json").string() +
                          " (keep"),
            std::string::npos)
      << notes[0];
  EXPECT_EQ(notes[1].rfind("the module directory " + (open / "node_modules").string() +
                               " (Node looks there for a module imported by name) is reached "
                               "through a directory others may write (" + open.string(),
                           0),
            0u)
      << notes[1];

  // A package.json nearer the script decides instead; a Node copy's lib/node outside the
  // workspace counts, one inside it does not.
  std::ofstream(workspace / "package.json") << "{}\n";
  fs::create_directories(top / "opt" / "lib" / "node");
  notes = NodeModuleNotes(script, workspace.string(), (top / "opt" / "bin" / "node").string());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find(": " + (top / "node_modules").string() + ", " +
                          (top / "opt" / "lib" / "node").string() + " (keep"),
            std::string::npos)
      << notes[0];
  notes = NodeModuleNotes(script, workspace.string(), (workspace / "bin" / "node").string());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find(": " + (top / "node_modules").string() + " (keep"), std::string::npos)
      << notes[0];

  // Nothing above is found and no one else may write there: no note. (The walk reaches /,
  // so this holds only where the temporary directory's ancestors are private.)
  fs::permissions(open, fs::perms::owner_all);
  fs::remove(top / "node_modules");
  notes = NodeModuleNotes(script, workspace.string(), "/usr/bin/node");
  for (const std::string& note : notes) {
    EXPECT_EQ(note.find(open.string() + "/node_modules"), std::string::npos) << note;
    EXPECT_EQ(note.find("from outside the workspace"), std::string::npos) << note;
  }
}

TEST_F(UnpinnedCodeTest, NodeNotesFollowTheSurfaceThatRunsNode) {
  namespace fs = std::filesystem;
  const fs::path top = fs::canonical(tmp_.path());
  fs::create_directories(top / "ws");
  fs::create_directory(top / "node_modules");
  trust::LaunchPolicy policy;
  policy.workspace = (top / "ws").string();
  policy.node_executable = "/usr/bin/node";
  auto mentions_modules = [&](const trust::SurfaceBinding& surface) {
    for (const std::string& note : NodeSurfaceNotes(surface, policy)) {
      if (note.find((top / "node_modules").string()) != std::string::npos) return true;
    }
    return false;
  };
  trust::SurfaceBinding by_shebang;
  by_shebang.command = (top / "ws" / "run").string();
  std::ofstream(by_shebang.command) << "#!/usr/bin/env node\nrequire('x');\n";
  EXPECT_TRUE(mentions_modules(by_shebang));

  trust::SurfaceBinding with_code;
  with_code.command = policy.node_executable;
  with_code.code = trust::CodeBinding{(top / "ws" / "main.js").string(), {}};
  if (fs::is_regular_file(with_code.command)) {
    EXPECT_TRUE(mentions_modules(with_code));
  }

  trust::SurfaceBinding python;
  python.command = (top / "ws" / "run.py").string();
  std::ofstream(python.command) << "#!/usr/bin/python3\nprint()\n";
  EXPECT_FALSE(mentions_modules(python));
}

}  // namespace
}  // namespace las::tools
