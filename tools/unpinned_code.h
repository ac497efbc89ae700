// What a release cannot pin about a drafted command: a shell, or a script run by one,
// executes other files by path, and the release binds only the command's own bytes (and
// an interpreter's script: trust/interpreter_argv.h). `las release draft` says so in a
// note rather than let the operator believe the whole surface is pinned.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trust/launch_policy.h"
#include "trust/manifest.h"

namespace las::tools {

// A note when `command` is a shell (its file name: sh, bash, dash, ...; or the bytes of one
// installed in /usr/bin or /bin, under any name) or a script whose
// first line (`#!`) runs one, directly or through `env`; nullopt otherwise, and when the
// file cannot be read (the draft's own hashing reports that).
std::optional<std::string> UnpinnedCodeNote(const std::string& command);

// One note per argument after the command, other than the bound script operand `bound`,
// that names an existing regular file (absolute, or relative to `cwd`): whatever program
// the command is — a shell or interpreter under another name, one Las does not know — a
// file it is handed may be code it runs, and the release binds only the command's bytes
// (probe CI5).
std::vector<std::string> UnboundFileNotes(const std::vector<std::string>& argv,
                                          const std::string& cwd, std::optional<size_t> bound);

// A note when the Python interpreter `command` belongs to a virtual environment (a
// pyvenv.cfg beside it or one directory up, where Python looks): its site-packages run
// at every start (.pth files, sitecustomize) before the pinned script, unpinned (probe
// CI1); nullopt otherwise.
std::optional<std::string> VirtualEnvNote(const std::string& command);

// Notes for a Node child that runs `script` from `workspace` with the Node at `node`
// (absolute paths). Node resolves a bare module name (`require('x')`, `import 'x'`) in the
// node_modules of the script's directory and of every directory above it, up to `/`
// (`require` of a Node copy also in `lib/node` beside the copy's parent directory), and
// reads the nearest package.json above the script for how to parse it (probes GG3, GG4).
// The release binds none of it. Inside the workspace that is the workspace owner's to
// keep; outside it: one note naming each such directory and package.json that exists,
// and one for the first where another user could make one (base/path_exposure.h) — under
// /tmp, anyone can make /tmp/node_modules. Empty when nothing applies.
std::vector<std::string> NodeModuleNotes(const std::string& script, const std::string& workspace,
                                         const std::string& node);

// NodeModuleNotes for `surface` when it runs Node (the configured Node or a copy with its
// code, or a script whose `#!` line names node), under `policy`'s workspace; else empty.
std::vector<std::string> NodeSurfaceNotes(const trust::SurfaceBinding& surface,
                                          const trust::LaunchPolicy& policy);

}  // namespace las::tools
