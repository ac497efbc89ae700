#include "cli/release_keys.h"

#include <string.h>

#include <fstream>
#include <vector>

#include "base/hex.h"
#include "trust/secure_file.h"

namespace las::cli {
namespace {

constexpr size_t kMaxKeyFileBytes = 1024;

// Splits "tag alg id hex[\n]" into four fields; nothing else is accepted.
bool SplitKeyLine(std::string_view text, std::string_view (&fields)[4]) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  for (size_t i = 0; i < 4; ++i) {
    const size_t space = text.find(' ');
    if (i < 3) {
      if (space == std::string_view::npos) return false;
      fields[i] = text.substr(0, space);
      text.remove_prefix(space + 1);
    } else {
      if (space != std::string_view::npos) return false;
      fields[i] = text;
    }
  }
  return true;
}

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void WipeBytes(std::vector<uint8_t>& bytes) {
  if (!bytes.empty()) ::explicit_bzero(bytes.data(), bytes.size());
}

// Whether `path` starts with a public key file's tag: only that much of it is read.
bool IsPublicKeyFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string head(kPublicKeyTag.size() + 1, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  return file.gcount() == static_cast<std::streamsize>(head.size()) &&
         head == std::string(kPublicKeyTag) + " ";
}

std::string PublicKeyGiven(const std::string& path) {
  return "secret key " + path + " is a public key file (" + std::string(kPublicKeyTag) +
         "); give the .key file that keygen wrote beside it";
}

}  // namespace

void Wipe(std::string& secret) {
  if (!secret.empty()) ::explicit_bzero(secret.data(), secret.size());
  secret.clear();
}

std::string FormatSecretKeyFile(const trust::SecretKey& key) {
  std::string out(kSecretKeyTag);
  out += " ed25519 ";
  out += trust::KeyIdOf(key.public_key());
  out += ' ';
  out += ToHex(key.bytes());
  out += '\n';
  return out;
}

std::string FormatPublicKeyFile(const trust::PublicKey& key) {
  return std::string(kPublicKeyTag) + " ed25519 " + trust::KeyIdOf(key) + " " +
         ToHex(key.bytes) + "\n";
}

Result<trust::SecretKey> ReadSecretKeyFile(const std::string& path) {
  trust::SecureFileOptions options;
  options.max_bytes = kMaxKeyFileBytes;
  trust::VerdictOr<std::string> text = trust::ReadSecureFile(path, "secret key", options);
  if (!text.ok()) {
    Status status = text.verdict().ToStatus();
    if (text.verdict().reason() == trust::Reason::kFilePermissions && IsPublicKeyFile(path)) {
      // keygen writes the pair side by side: "chmod 600" would be the wrong advice.
      return InvalidArgument(PublicKeyGiven(path));
    }
    return status;
  }
  std::string_view fields[4];
  const std::string bad = "secret key " + path + ": not a Las secret key file (" +
                          std::string(kSecretKeyTag) + " ed25519 <key id> <128 hex>)";
  const bool split = SplitKeyLine(*text, fields);
  if (split && fields[0] == kPublicKeyTag) {
    Wipe(*text);
    return InvalidArgument(PublicKeyGiven(path));
  }
  if (!split || fields[0] != kSecretKeyTag || fields[1] != "ed25519" ||
      fields[3].size() != 2 * trust::kEd25519SecretKeyBytes || !IsLowerHex(fields[3])) {
    Wipe(*text);
    return InvalidArgument(bad);
  }
  const std::string claimed_id(fields[2]);
  std::optional<std::vector<uint8_t>> raw = FromHex(fields[3]);
  Wipe(*text);
  if (!raw) return InvalidArgument(bad);
  Result<trust::SecretKey> key = trust::SecretKey::FromBytes(*raw);
  WipeBytes(*raw);
  if (!key.ok()) return InvalidArgument("secret key " + path + ": " + key.status().message());
  if (trust::KeyIdOf(key->public_key()) != claimed_id) {
    return InvalidArgument("secret key " + path + ": the key id on its line does not match the key");
  }
  return key;
}

Result<trust::PublicKey> ParsePublicKeyFile(std::string_view text) {
  std::string_view fields[4];
  if (!SplitKeyLine(text, fields) || fields[0] != kPublicKeyTag || fields[1] != "ed25519" ||
      fields[3].size() != 2 * trust::kEd25519PublicKeyBytes || !IsLowerHex(fields[3])) {
    return InvalidArgument("not a Las public key file (" + std::string(kPublicKeyTag) +
                           " ed25519 <key id> <64 hex>)");
  }
  std::optional<std::vector<uint8_t>> raw = FromHex(fields[3]);
  if (!raw) return InvalidArgument("public key is not hex");
  Result<trust::PublicKey> key = trust::PublicKey::FromBytes(*raw);
  if (!key.ok()) return key.status();
  if (trust::KeyIdOf(*key) != fields[2]) {
    return InvalidArgument("the key id on the line does not match the public key");
  }
  return key;
}

Result<trust::PublicKey> ReadPublicKeyFile(const std::string& path) {
  trust::VerdictOr<std::string> text = trust::ReadBoundedFile(path, "public key", kMaxKeyFileBytes);
  if (!text.ok()) return text.verdict().ToStatus();
  Result<trust::PublicKey> key = ParsePublicKeyFile(*text);
  if (!key.ok()) return InvalidArgument("public key " + path + ": " + key.status().message());
  return key;
}

}  // namespace las::cli
