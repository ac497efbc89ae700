// The operator's notes on the files and directories Las's release path trusts when someone
// else could change them (base/path_exposure.h), each saying what they could then do.
//
// Who may write the trust store decides which key is trusted; the watermark, whether an
// older release is admitted again; the workspace, which code a draft pins; the manifest,
// what `las release sign` signs (probe FZ3, FZ4: only the registry was ever checked). Notes,
// not refusals, like the registry's (tools/registry.h): the operator may know better, and
// the same command shows whether a fix worked.
//
// Thread safety: free functions; they read the file system.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trust/environment.h"
#include "trust/manifest.h"

namespace las::tools {

enum class TrustedFile {
  kTrustStore,  // LAS_TRUST_STORE
  kWatermark,   // LAS_RELEASE_WATERMARK (judged where it would be made when missing)
  kWorkspace,   // LAS_WORKSPACE, a directory
  kCode,        // a surface's command or the code its interpreter runs
  kManifest,    // the manifest being drafted or signed
  kSecretKey,   // a release signing key
};

// The note for `path` as `file`, or nullopt when only this user (or root) can change it.
std::optional<std::string> TrustedFileNote(TrustedFile file, const std::string& path);

// The notes for each (file, path), in order; empty paths are skipped.
std::vector<std::string> TrustedFileNotes(
    std::initializer_list<std::pair<TrustedFile, std::string>> files);

// The notes on the files a surface runs (its command, its code), for a draft that pins them
// and the check of a launch: a file someone else may write is theirs to change before the
// next draft pins it, whatever the workspace's own mode (probe GA3).
std::vector<std::string> SurfaceFileNotes(const trust::SurfaceBinding& surface);

// The notes a server prints at start: the trust store and watermark `environment` names
// (absolute paths only; the release's own checks refuse the others).
std::vector<std::string> ServingFileNotes(const trust::Environment& environment);

}  // namespace las::tools
