#include "trust/signature_file.h"

#include <cstring>
#include <vector>

#include "base/hex.h"

namespace las::trust {
namespace {

Verdict Bad(const std::string& why) {
  return Reject(Reason::kSignatureFormat, "signature file: " + why);
}

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

VerdictOr<SignatureFile> ParseSignatureFile(std::string_view text) {
  if (text.size() > kMaxSignatureFileBytes) {
    return Bad("longer than " + std::to_string(kMaxSignatureFileBytes) + " bytes");
  }
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  // Said as such: an editor's line endings would otherwise read as a bad signature field.
  if (text.find('\r') != std::string_view::npos) {
    return Bad("holds a carriage return (Windows line endings?): the file is one line ending "
               "in \\n");
  }
  if (text.find('\n') != std::string_view::npos) {
    return Bad("holds more than one line (a blank line after the signature?): the file is one "
               "line ending in \\n");
  }
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (;;) {
    const size_t space = text.find(' ', start);
    fields.push_back(text.substr(start, space == std::string_view::npos ? std::string_view::npos
                                                                        : space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  if (fields.empty() || fields[0] != kSignatureFileTag) {
    return Bad("does not start with \"" + std::string(kSignatureFileTag) +
               "\" (a raw or foreign signature?)");
  }
  if (fields.size() != 4) {
    return Bad("expected 4 space-separated fields (tag, algorithm, key id, signature), found " +
               std::to_string(fields.size()));
  }
  if (fields[1] != kSignatureAlgorithmEd25519) {
    // The tag itself is not echoed: it is attacker-controlled text.
    return Bad("unsupported algorithm (only \"ed25519\")");
  }
  if (fields[2].size() != kKeyIdHexChars || !IsLowerHex(fields[2])) {
    return Bad("key id must be 16 lowercase hex characters");
  }
  if (!IsLowerHex(fields[3])) return Bad("signature must be lowercase hex");
  if (fields[3].size() % 2 != 0) {
    return Bad("signature has an odd number of hex digits (two per byte)");
  }
  const size_t length = fields[3].size() / 2;
  if (length != kEd25519SignatureBytes) {
    return Reject(Reason::kSignatureLength, "signature is " + std::to_string(length) +
                                                " bytes; Ed25519 signatures are exactly 64");
  }
  std::optional<std::vector<uint8_t>> raw = FromHex(fields[3]);
  if (!raw || raw->size() != kEd25519SignatureBytes) return Bad("signature is not hex");
  SignatureFile out;
  out.key_id = std::string(fields[2]);
  std::memcpy(out.signature.data(), raw->data(), kEd25519SignatureBytes);
  return out;
}

std::string FormatSignatureFile(std::string_view key_id, const Ed25519Signature& signature) {
  std::string out(kSignatureFileTag);
  out += ' ';
  out += kSignatureAlgorithmEd25519;
  out += ' ';
  out += key_id;
  out += ' ';
  out += ToHex(signature);
  out += '\n';
  return out;
}

}  // namespace las::trust
