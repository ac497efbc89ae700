#include "trust/trust_store.h"

#include <cassert>
#include <exception>
#include <set>

#include "base/hex.h"
#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

using internal::Json;

Verdict Bad(const std::string& why) {
  return Reject(Reason::kTrustStoreInvalid, "trust store: " + why);
}

VerdictOr<TrustStore> ParseValue(const Json& root) {
  if (!root.is_object()) return Bad("$ must be an object");
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() != "schema_version" && it.key() != "keys" && it.key() != "selected") {
      return Bad("$." + it.key() + ": unknown field");
    }
  }
  auto version = root.find("schema_version");
  if (version == root.end() || !version->is_number_unsigned() ||
      version->get<uint64_t>() != kTrustStoreSchemaVersion) {
    return Bad("$.schema_version must be the integer " + std::to_string(kTrustStoreSchemaVersion));
  }
  auto keys = root.find("keys");
  if (keys == root.end() || !keys->is_array() || keys->empty()) {
    return Bad("$.keys must be a non-empty array");
  }
  if (keys->size() > kMaxTrustStoreKeys) {
    return Bad("$.keys has more than " + std::to_string(kMaxTrustStoreKeys) + " keys");
  }
  TrustStore store;
  std::set<std::string> seen;
  for (size_t i = 0; i < keys->size(); ++i) {
    const Json& k = (*keys)[i];
    const std::string where = "$.keys[" + std::to_string(i) + "]";
    if (!k.is_object()) return Bad(where + " must be an object");
    for (auto it = k.begin(); it != k.end(); ++it) {
      if (it.key() != "key_id" && it.key() != "public_key") {
        return Bad(where + "." + it.key() + ": unknown field");
      }
    }
    auto id = k.find("key_id");
    auto pk = k.find("public_key");
    if (id == k.end() || !id->is_string()) return Bad(where + ".key_id must be a string");
    if (pk == k.end() || !pk->is_string()) return Bad(where + ".public_key must be a string");
    const std::string pk_hex = pk->get<std::string>();
    // One spelling per key: 64 lowercase hex characters.
    bool lower_hex = pk_hex.size() == 2 * kEd25519PublicKeyBytes;
    for (char c : pk_hex) lower_hex = lower_hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    std::optional<std::vector<uint8_t>> raw = lower_hex ? FromHex(pk_hex) : std::nullopt;
    if (!raw) return Bad(where + ".public_key must be 64 lowercase hex characters");
    Result<PublicKey> key = PublicKey::FromBytes(*raw);
    if (!key.ok()) return Bad(where + ".public_key: " + key.status().message());
    const std::string key_id = id->get<std::string>();
    const std::string derived = KeyIdOf(*key);
    if (key_id != derived) {
      return Bad(where + ".key_id \"" + key_id + "\" does not match its public key (key id " +
                 derived + ")");
    }
    if (!seen.insert(key_id).second) return Bad(where + ".key_id \"" + key_id + "\" is listed twice");
    store.keys.push_back({key_id, *key});
  }
  auto selected = root.find("selected");
  if (selected == root.end() || !selected->is_string()) {
    return Bad("$.selected must be a string naming one key id");
  }
  store.selected_key_id = selected->get<std::string>();
  if (store.Find(store.selected_key_id) == nullptr) {
    return Bad("$.selected \"" + store.selected_key_id + "\" is not one of $.keys");
  }
  return store;
}

}  // namespace

const TrustedKey& TrustStore::selected() const {
  const TrustedKey* key = Find(selected_key_id);
  assert(key != nullptr && "a parsed trust store always holds its selected key");
  return *key;
}

const TrustedKey* TrustStore::Find(std::string_view key_id) const {
  for (const TrustedKey& k : keys) {
    if (k.key_id == key_id) return &k;
  }
  return nullptr;
}

VerdictOr<TrustStore> ParseTrustStore(std::string_view bytes) {
  return internal::ParseStrictDocument<TrustStore>(bytes, kMaxTrustStoreBytes,
                                                   Reason::kTrustStoreInvalid, "trust store",
                                                   ParseValue);
}

VerdictOr<TrustStore> LoadTrustStore(const std::string& path, const SecureFileOptions& options) {
  SecureFileOptions bounded = options;
  if (bounded.max_bytes > kMaxTrustStoreBytes) bounded.max_bytes = kMaxTrustStoreBytes;
  VerdictOr<std::string> bytes = ReadSecureFile(path, "trust store", bounded);
  if (!bytes.ok()) return bytes.verdict();
  return ParseTrustStore(*bytes);
}

std::string SerializeTrustStore(const TrustStore& store) {
  Json keys = Json::array();
  for (const TrustedKey& k : store.keys) {
    assert(k.key_id == KeyIdOf(k.public_key));
    keys.push_back(Json{{"key_id", k.key_id}, {"public_key", ToHex(k.public_key.bytes)}});
  }
  assert(store.Find(store.selected_key_id) != nullptr);
  Json root{{"schema_version", kTrustStoreSchemaVersion},
            {"keys", std::move(keys)},
            {"selected", store.selected_key_id}};
  return root.dump(2) + "\n";
}

}  // namespace las::trust
