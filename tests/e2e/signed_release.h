// A signed federation for tests: a workspace, real children drafted the way
// `las release draft` drafts them (tools/release_draft.h), a manifest signed with a fresh
// Ed25519 key, a trust store and a watermark path with safe permissions, and a registry
// naming the surfaces. Environment() gives what `las serve` needs to admit them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trust/manifest.h"
#include "trust/signature.h"

namespace las::testing {

class SignedRelease {
 public:
  // `root` (existing, empty) holds everything; `workspace` is LAS_WORKSPACE (defaults to
  // root/workspace, created).
  explicit SignedRelease(std::string root, std::string workspace = "");

  // Copies a file into the workspace (mode 0755); returns its absolute path there.
  std::string CopyIntoWorkspace(const std::string& source, const std::string& name);
  // Drafts a surface from its running child (argv[0] absolute, cwd = the workspace).
  // Aborts the test (ADD_FAILURE + empty) if drafting fails.
  void AddSurface(const std::string& name, const std::vector<std::string>& argv);
  // Adds a surface binding as given (for manifests a child would not pass).
  void AddBinding(trust::SurfaceBinding binding);
  trust::Manifest& manifest() { return manifest_; }

  // Serializes, signs and writes the release, the trust store and the registry.
  void Sign(uint64_t sequence, int64_t expires_in_seconds = 3600);
  // A new signing key (a rotation): the next Sign uses it, and the trust store it writes
  // lists and selects it alone.
  void RotateKey();
  std::string key_id() const;

  // "NAME=value" entries: the four release paths, LAS_WORKSPACE, LAS_NODE.
  std::vector<std::string> Environment() const;
  const std::string& registry_path() const { return registry_path_; }
  const std::string& workspace() const { return workspace_; }
  const std::string& watermark_path() const { return watermark_path_; }
  const std::string& trust_store_path() const { return trust_store_path_; }
  const std::string& manifest_path() const { return manifest_path_; }
  const std::string& signature_path() const { return signature_path_; }

 private:
  std::string root_;
  std::string workspace_;
  std::string manifest_path_;
  std::string signature_path_;
  std::string trust_store_path_;
  std::string watermark_path_;
  std::string registry_path_;
  trust::Manifest manifest_;
  trust::KeyPair keys_;
};

}  // namespace las::testing
