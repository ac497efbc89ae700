#include "tests/e2e/signed_release.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/e2e/sdk_driver.h"
#include "tools/release_draft.h"
#include "transport/child_process.h"
#include "trust/environment.h"
#include "trust/manifest_writer.h"
#include "trust/signature_file.h"
#include "trust/trust_store.h"

namespace las::testing {
namespace fs = std::filesystem;

namespace {

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
  }
  ::chmod(path.c_str(), mode);
}

trust::KeyPair NewKeys() {
  auto keys = trust::GenerateKeyPair();
  if (!keys.ok()) std::abort();
  return std::move(*keys);
}

}  // namespace

SignedRelease::SignedRelease(std::string root, std::string workspace)
    : root_(std::move(root)), keys_(NewKeys()) {
  workspace_ = workspace.empty() ? root_ + "/workspace" : workspace;
  fs::create_directories(workspace_);
  workspace_ = fs::canonical(workspace_).string();
  manifest_path_ = root_ + "/release.json";
  signature_path_ = root_ + "/release.sig";
  trust_store_path_ = root_ + "/trust-store.json";
  watermark_path_ = root_ + "/watermark.json";
  registry_path_ = root_ + "/registry.json";
  (void)transport::BecomeChildSubreaper();
}

std::string SignedRelease::CopyIntoWorkspace(const std::string& source, const std::string& name) {
  const std::string target = workspace_ + "/" + name;
  fs::copy_file(source, target, fs::copy_options::overwrite_existing);
  ::chmod(target.c_str(), 0755);
  return target;
}

void SignedRelease::AddSurface(const std::string& name, const std::vector<std::string>& argv) {
  tools::DraftRequest request;
  request.surface = name;
  request.cwd = workspace_;
  request.argv = argv;
  request.policy.workspace = workspace_;
  request.policy.node_executable = NodeExecutable();
  request.policy.environment = trust::EnvironmentFromProcess();
  auto drafted = tools::DraftSurface(request);
  if (!drafted.ok()) {
    ADD_FAILURE() << "drafting " << name << ": " << drafted.status().ToString();
    return;
  }
  tools::MergeSurface(manifest_, std::move(drafted->binding), nullptr);
}

void SignedRelease::AddBinding(trust::SurfaceBinding binding) {
  tools::MergeSurface(manifest_, std::move(binding), nullptr);
}

void SignedRelease::Sign(uint64_t sequence, int64_t expires_in_seconds) {
  manifest_.sequence = sequence;
  manifest_.expires_at_micros =
      (static_cast<int64_t>(std::time(nullptr)) + expires_in_seconds) * 1'000'000;
  const std::string bytes = trust::SerializeManifest(manifest_);
  auto signature = trust::SignRelease(
      keys_.secret_key, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  ASSERT_TRUE(signature.ok()) << signature.status().ToString();
  const std::string key_id = trust::KeyIdOf(keys_.public_key);
  WriteFile(manifest_path_, bytes, 0644);
  WriteFile(signature_path_, trust::FormatSignatureFile(key_id, *signature), 0644);
  trust::TrustStore store;
  store.keys.push_back({key_id, keys_.public_key});
  store.selected_key_id = key_id;
  WriteFile(trust_store_path_, trust::SerializeTrustStore(store), 0600);
  std::string registry = R"({"schema_version":1,"surfaces":[)";
  for (size_t i = 0; i < manifest_.surfaces.size(); ++i) {
    if (i > 0) registry += ",";
    registry += R"({"name":")" + manifest_.surfaces[i].name + R"("})";
  }
  registry += "]}";
  WriteFile(registry_path_, registry, 0644);
}

void SignedRelease::RotateKey() { keys_ = NewKeys(); }

std::string SignedRelease::key_id() const { return trust::KeyIdOf(keys_.public_key); }

std::vector<std::string> SignedRelease::Environment() const {
  return {"LAS_RELEASE_MANIFEST=" + manifest_path_, "LAS_RELEASE_SIGNATURE=" + signature_path_,
          "LAS_TRUST_STORE=" + trust_store_path_, "LAS_RELEASE_WATERMARK=" + watermark_path_,
          "LAS_WORKSPACE=" + workspace_, "LAS_NODE=" + NodeExecutable()};
}

}  // namespace las::testing
