// Where credential templates get their values: the environment of Las. A credential named
// in a release (e.g. "most.api-key") is read from LAS_CREDENTIAL_<NAME>, the name upper-
// cased with every character outside [A-Z0-9] turned into '_' (LAS_CREDENTIAL_MOST_API_KEY).
// An empty variable counts as unset (credential-unavailable). Values are secrets: they go
// to the child only, never to the log or stderr.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/needle_set.h"
#include "trust/credential_injection.h"
#include "trust/environment.h"
#include "trust/tool_binding_check.h"

namespace las::tools {

std::string CredentialVariable(std::string_view credential_name);

// A resolver over `environment`, which must outlive it.
trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment);

// Whether a child's result (JSON text) carries one of the credential `values`, compared
// without regard to ASCII case: in its raw bytes; inside any string or object key once
// decoded (so every JSON spelling of it, \u escapes and \/ included), and in a string that
// holds JSON text once that is decoded too, up to 8 levels deep; or — for a credential of
// decimal digits, an optional '-' first — as a number whose value equals it, in the result
// or in JSON text a string of it holds (up to the same 8 levels), however spelled
// (7.3918264e7, 73918264.0 and 739182640E-1 carry 73918264; 73918264.5 does not;
// -7.3918264e7 does, as the bytes of -73918264 do), or as a number that reads as the same
// double (73918263.99999999999999: what every reader that uses doubles decodes). Numbers
// are compared on their digits and as doubles, in time linear in the text. The gateway
// then refuses the result (credential-in-result), so the secret reaches neither the client
// nor the log. Its hex and base64 spellings count too, also inside the encoding of longer
// data (tools/credential_encodings.h) and across the line breaks of a wrapped encoding, and
// the same spellings of JSON text that holds it escaped ("\/", "\u00e4":
// JsonStringForms), its hex written a byte apart ("53:65", "\x53\x65"), and its
// percent-encoded (URL) spellings, up to three levels, a form's
// '+', JSON escapes and the hex and base64 spellings inside them included. A value that is not UTF-8 cannot come back in JSON as it is, so it
// is looked for also with its stray bytes replaced by U+FFFD or written "\udcXX" or "\xXX",
// and — when what is left has kMinCrossSurfaceCredentialBytes or more — dropped, and as each
// of its well-formed stretches of that length or more. Values shorter than kMinCheckedCredentialBytes are
// not looked for (they would match by chance); other encodings (split across strings,
// reversed, a number that merely contains the digits) are not recognized. Text that is not
// JSON is looked at up to where it stops being JSON.
inline constexpr size_t kMinCheckedCredentialBytes = 4;

// The refusal itself tells a client whether a result carried a credential: through a tool
// that echoes its input, a client can test guesses at one. A value shorter than this (a
// PIN, a word) can be enumerated so; `las check` warns about it (docs/RELEASES.md).
inline constexpr size_t kMinUnguessableCredentialBytes = 16;
bool EchoesCredential(std::string_view result_json, const std::vector<std::string>& values);

// Credential values prepared once for the check above: their case-folded and encoded
// spellings, which a surface's every result is then compared with.
class CredentialSpellings {
 public:
  explicit CredentialSpellings(const std::vector<std::string>& values);
  bool empty() const { return credentials_.empty(); }
  // EchoesCredential(result_json, values) for the values given at construction.
  bool EchoedIn(std::string_view result_json) const;

  // What is looked for, ASCII-lowercased (an upper-cased hex token is the token itself).
  struct Needles {
    NeedleSet credentials;  // the values as they are
    NeedleSet spellings;    // their hex and base64 spellings
    NeedleSet either;       // both
    bool spaced_credential = false;  // a value holds a space (a form's '+' may spell it)
  };

 private:
  std::vector<std::string> credentials_;  // ASCII-lowercased
  Needles needles_;
};

// Every credential value Las would inject into some tool of `surface` (those `environment`
// holds), and of each variable `surface` declares (it is passed to the child): the secrets
// it carries, whatever its name (tools/carried_secrets.h: a secret-named member's or
// pair's value, the word after "Bearer", a URL's password of
// kMinCrossSurfaceCredentialBytes or more — OPENAPI_MCP_HEADERS holding headers as JSON,
// DATABASE_URL), and, when its own name is a secret's (SecretName: "GOOGLE_MAPS_API_KEY",
// "PGPASSWORD"), its whole value — by its token-like words too when nothing in it was
// found to be the secret. What the child may have seen, and so must not hand back in
// anything Las passes on (probe IW2: a child given its API key by --env put it in every
// error text, and so in the log). Only what looks like a token counts (LooksLikeAToken:
// "postgres" or a path would refuse results by chance: probe IX1). A value of several
// words (split at whitespace, ',', ';', '=', ':', quotes, brackets, braces, '&', '?' and
// '@': "Bearer TOKEN", "user:PASSWORD") counts with each word alone too that looks like a
// token — at most 256 of them — (probes HW2, HX1: "invalid token TOKEN" came back; HZ5: a
// user name or URL alone must not refuse). Each value once.
std::vector<std::string> CredentialValuesOf(const trust::SurfaceBinding& surface,
                                            const trust::Environment& environment);

// Whether `word` looks like a token: kMinUnguessableCredentialBytes or more, letters and
// digits mixed.
bool LooksLikeAToken(std::string_view word);

// What any surface's child must not hand back besides its own surface's values
// (CredentialValuesOf): those of every surface of the release, whichever the child came
// by (probe BD1), but only values of kMinCrossSurfaceCredentialBytes or more — a short one
// ("demo", "EMPTY", a PIN) is no secret worth refusing every surface's results for, and
// would refuse them by chance (probe BE3).
inline constexpr size_t kMinCrossSurfaceCredentialBytes = 8;
std::vector<std::string> CrossSurfaceCredentialValues(const std::vector<trust::SurfaceBinding>& surfaces,
                                                      const trust::Environment& environment);

// Whether a release's signed manifest (its exact bytes) holds the value of a credential or
// secret variable its surfaces are given here (CrossSurfaceCredentialValues) in one of its
// strings or keys — a tool named with it, a command argument holding it — or declares a
// variable whose name is the value of one of `environment`'s variables and looks like a
// token (`--env "$TOKEN"` for `--env TOKEN`). ReleaseAccepted records the manifest's bytes, so
// `las serve` refuses such a release whole (credential-in-manifest, with
// kCredentialInManifestDetail) and `las check` says so (probe JY1).
// `credential_values`: CrossSurfaceCredentialValues(manifest.surfaces, environment), which
// the caller keeps for its launches too.
bool ManifestHoldsACredential(const trust::Manifest& manifest, std::string_view manifest_bytes,
                              const trust::Environment& environment,
                              const std::vector<std::string>& credential_values);
// The variable of `environment` (other than `name` itself) whose value is `name`, when
// `name` looks like a token, else nullptr: `--env "$GITHUB_TOKEN"` typed for `--env
// GITHUB_TOKEN` declares a token as a variable's name (probe KB1).
const std::string* VariableWhoseValueIs(const std::string& name, const trust::Environment& environment);
inline constexpr std::string_view kCredentialInManifestDetail =
    "the manifest holds the value of a credential or secret variable its surfaces are given "
    "(in a tool's name, a command argument, an env name or another of its texts); sign a "
    "release without it";

// Whether a tool as its child lists it — name, description, inputSchema — carries one of
// `credentials`: a definition is shown to every client and recorded in the log.
bool ToolDefinitionCarries(const trust::LiveTool& tool, const CredentialSpellings& credentials);

// Every LAS_CREDENTIAL_* variable of `environment` whose value has
// kMinCrossSurfaceCredentialBytes or more, name -> value: what a child being drafted
// (`las release draft`, which binds no credential yet) must not list in its tools.
std::map<std::string, std::string> CredentialVariablesIn(const trust::Environment& environment);

// Adds to `values` those of one tool's `credential_templates` (argument -> credential name)
// that `resolve` knows.
void AddCredentialValues(const std::map<std::string, std::string>& credential_templates,
                         const trust::CredentialResolver& resolve, std::vector<std::string>& values);

}  // namespace las::tools
