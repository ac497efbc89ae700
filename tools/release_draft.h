// Drafting a release manifest entry from a running child (`las release draft`).
//
// DraftSurface builds the SurfaceBinding for one command line the operator names:
//   - command = argv[0], which must be absolute; its SHA-256 through an open descriptor;
//   - when the command is /usr/bin/python3 or the configured Node executable and argv[1]
//     names a file, that file is the code path (made absolute against the cwd) and its
//     SHA-256 is pinned too;
//   - then the child is started under the very launch rules `las serve` applies
//     (tools/surface_launcher.h in probe mode: workspace, command allowlist, digests,
//     fexecve of the hashed descriptor, fixed PATH plus the declared variables), its
//     tools/list is read, and each tool's schema and description digests are computed
//     (trust::InputSchemaDigest / DescriptionDigest). Tools are sorted by name. A schema
//     holding an integer a double does not hold exactly is refused (Unsupported,
//     trust::CheckSchemaIntegers): its digest could not tell it from a neighbouring one.
// Nothing is signed or written here: the caller merges the entry into a manifest
// (MergeSurface) and writes it for the operator to review and sign.
//
// Errors (Status): InvalidArgument for a bad request (surface name, relative command, env
// name, a child listing tools that no manifest could bind); Unsupported for a schema no
// digest could bind (above); NotFound for a missing
// command, script or cwd; Denied "<reason>: <detail>" when a launch check refuses
// (e.g. "command-not-allowed: ...", "workspace-escape: ..."); Io "start-failed: ..." /
// "list-failed: ..." when the child does not start or answer. No child output and no
// environment value is ever put into a message.
//
// Threading: DraftSurface runs its own io_context on the calling thread and returns when
// the child has been shut down and reaped. The process should be a child subreaper
// (transport::BecomeChildSubreaper) so nothing the child left behind outlives it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "trust/launch_policy.h"
#include "trust/manifest.h"

namespace las::tools {

struct DraftRequest {
  std::string surface;             // the surface name to bind
  std::string cwd;                 // absolute working directory of the child
  std::vector<std::string> env;    // names of the variables the child receives
  std::vector<std::string> argv;   // argv[0] = the absolute command
  trust::LaunchPolicy policy;      // workspace, Node executable, Las's environment
  int64_t start_timeout_ms = 30'000;
};

struct DraftedSurface {
  trust::SurfaceBinding binding;   // complete, digests filled in, tools sorted by name
  // Things the operator should know (names only, never values): a declared variable
  // that is unset here, an argv entry that was made absolute.
  std::vector<std::string> notes;
};

Result<DraftedSurface> DraftSurface(const DraftRequest& request);

// Puts `drafted` into `manifest`, replacing a surface of the same name, and sorts the
// surfaces by name. Credential templates of the replaced entry are kept for tools that
// still exist (re-drafting must never silently drop a template: the argument would become
// model-suppliable); a templated tool that disappeared is reported in `notes`.
void MergeSurface(trust::Manifest& manifest, trust::SurfaceBinding drafted,
                  std::vector<std::string>* notes);

}  // namespace las::tools
