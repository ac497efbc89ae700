#include "tools/secret_name.h"

#include <cctype>
#include <string>
#include <vector>

namespace las::tools {
namespace {

// The words of a name: split at '-', '_', '.', ' ', and where a lower-case letter or digit
// is followed by an upper-case one ("privateKey", "AccountKey"); lower-cased.
std::vector<std::string> NameWords(std::string_view name) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '-' || c == '_' || c == '.' || c == ' ') {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0 && ((name[i - 1] >= 'a' && name[i - 1] <= 'z') || (name[i - 1] >= '0' && name[i - 1] <= '9')) &&
        !words.back().empty()) {
      words.emplace_back();
    }
    words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

}  // namespace

SecretNameKind KindOfSecretName(std::string_view name) {
  std::vector<std::string> words = NameWords(name);
  // "PWD" alone is the working directory; "MYSQL_PWD" a password.
  if (words.size() == 1 && words[0] == "pwd") return SecretNameKind::kNone;
  // A last word that says how the secret is written: the one before names it
  // ("private_key_pem", "signingKeyB64", "clientSecretValue", "client-key-data").
  while (words.size() > 1) {
    const std::string& last = words.back();
    if (last != "pem" && last != "b64" && last != "base64" && last != "value" && last != "data" &&
        last != "hex" && last != "der" && last != "raw") {
      break;
    }
    words.pop_back();
  }
  if (words.empty()) return SecretNameKind::kNone;
  // Next.js's NEXT_PUBLIC_ variables are sent to every browser (probe JU12).
  if (words.size() > 2 && words[0] == "next" && words[1] == "public") return SecretNameKind::kNone;
  const std::string& last = words.back();
  const std::string before = words.size() > 1 ? words[words.size() - 2] : "";
  // Keys that name a place or are public by design: a table's partition or sort key, a
  // public, publishable or anonymous key, a KMS key's id.
  if (last == "key" || last == "keys") {
    for (const std::string_view place :
         {"partition", "sort", "primary", "foreign", "public", "publishable", "anon", "kms",
          "cache", "routing", "hash", "range", "shard", "row", "object", "idempotency", "lookup",
          "unique", "s3", "authorized", "site", "gpg", "pgp"}) {
      if (before == place) return SecretNameKind::kNone;
    }
    // A key the word before calls secret: SECRET_KEY, API_KEY, aws_secret_access_key
    // (probe JU3: judged by its looks, "MySuperSecretKey123456" passed).
    for (const std::string_view secret : {"secret", "private", "master", "encryption", "signing", "api", "access",
                                          "client", "totp", "hmac", "jwt", "license", "app", "auth"}) {
      if (before == secret) return SecretNameKind::kSecret;
    }
    return SecretNameKind::kMayName;
  }
  if (last == "id" && before == "session") return SecretNameKind::kMayName;  // ASP.NET_SessionId
  // Twilio's account and service ids (probes JM5, JS11).
  if (last == "sid" && (before == "account" || before == "service")) return SecretNameKind::kNone;
  // Helm's existingSecret names a Kubernetes Secret (probe JP4).
  if (last == "secret" && before == "existing") return SecretNameKind::kNone;
  for (const std::string_view exact : {"auth", "cookie", "cookies", "credential", "credentials", "session", "sid",
                                       "dsn"}) {
    if (last == exact) return SecretNameKind::kMayName;
  }
  // redis.conf's requirepass and masterauth, wpa_supplicant's psk (probe JS7).
  for (const std::string_view exact :
       {"pwd", "pw", "pass", "authorization", "sig", "signature", "requirepass", "masterauth", "psk"}) {
    if (last == exact) return SecretNameKind::kSecret;
  }
  for (const std::string_view ending :
       {"password", "passwords", "passwd", "passphrase", "secret", "secrets", "token", "tokens",
        "apikey", "apikeys", "sessionid", "sessid", "bindpw"}) {
    if (last.ends_with(ending)) return SecretNameKind::kSecret;  // csrftoken, PGPASSWORD, JSESSIONID
  }
  return SecretNameKind::kNone;
}

bool SecretName(std::string_view name) { return KindOfSecretName(name) != SecretNameKind::kNone; }

}  // namespace las::tools
