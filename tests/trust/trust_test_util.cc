#include "tests/trust/trust_test_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "trust/rfc3339.h"
#include "trust/secure_file.h"
#include "trust/signature_file.h"

namespace las::trust::testing {

void WriteFile(const std::string& path, const std::string& content, mode_t mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + path);
  }
  if (::chmod(path.c_str(), mode) != 0) throw std::runtime_error("cannot chmod " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void ReplaceFile(const std::string& path, const std::string& content, mode_t mode) {
  const std::string temp = path + ".attacker";
  WriteFile(temp, content, mode);
  if (::rename(temp.c_str(), path.c_str()) != 0) throw std::runtime_error("rename failed");
}

KeyPair NewKey() {
  Result<KeyPair> key = GenerateKeyPair();
  if (!key.ok()) throw std::runtime_error(key.status().ToString());
  return std::move(key).value();
}

TrustStore StoreOf(const std::vector<const KeyPair*>& keys, const KeyPair& selected) {
  TrustStore store;
  for (const KeyPair* k : keys) store.keys.push_back({KeyIdOf(k->public_key), k->public_key});
  store.selected_key_id = KeyIdOf(selected.public_key);
  return store;
}

void MakeOwnedByAnotherUser(const std::string& path, SecureFileOptions* options) {
  if (::geteuid() == 0) {
    if (::chown(path.c_str(), 65534, 65534) != 0) throw std::runtime_error("chown failed");
  } else {
    options->expected_uid = ::geteuid() + 1;
  }
}

int64_t Micros(const std::string& rfc3339) { return ParseRfc3339UtcMicros(rfc3339).value(); }

std::string ManifestText(uint64_t sequence, const std::string& expires_at, const std::string& tag) {
  const std::string digest(64, 'a');
  nlohmann::json surface = {{"name", "most"},
                            {"command", "/usr/bin/python3"},
                            {"cwd", "/ws/most"},
                            {"argv", {"/usr/bin/python3", "/ws/most/server.py", "--" + tag}},
                            {"env", nlohmann::json::array()},
                            {"binary_sha256", digest},
                            {"code_path", "/ws/most/server.py"},
                            {"code_sha256", digest},
                            {"tools", nlohmann::json::array()}};
  nlohmann::json m = {{"schema_version", 1},
                      {"sequence", sequence},
                      {"expires_at", expires_at},
                      {"surfaces", {surface}}};
  return m.dump(2) + "\n";
}

ReleaseDir::ReleaseDir()
    : key_(NewKey()),
      paths_{dir_.Sub("manifest.json"), dir_.Sub("release.sig"), dir_.Sub("trust.json"),
             dir_.Sub("watermark.json")},
      clock_(Micros("2026-01-01T00:00:00Z")) {}

void ReleaseDir::TrustOwnKey() {
  WriteFile(paths_.trust_store, SerializeTrustStore(StoreOf({&key_}, key_)), 0600);
}

void ReleaseDir::Publish(const std::string& manifest, const KeyPair* signer) {
  const KeyPair& k = signer ? *signer : key_;
  WriteFile(paths_.manifest, manifest, 0644);
  std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size());
  Result<Ed25519Signature> sig = SignRelease(k.secret_key, raw);
  if (!sig.ok()) throw std::runtime_error(sig.status().ToString());
  WriteSignatureText(FormatSignatureFile(KeyIdOf(k.public_key), *sig));
}

void ReleaseDir::WriteSignatureText(const std::string& text) {
  WriteFile(paths_.signature, text, 0644);
}

}  // namespace las::trust::testing
