// `las release keygen | draft | sign | verify`: the operator's path from nothing to a
// signed release (docs/FIRST-RELEASE.md). Flags and printing; the checks are trust/ and
// tools/ (release_draft.h, surface_check.h).
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>

#include "base/clock.h"
#include "base/printable_text.h"
#include "base/shell_word.h"
#include "cli/environment_help.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/number_flags.h"
#include "cli/path_flag.h"
#include "base/durable_files.h"
#include "cli/release_keys.h"
#include "cli/release_settings.h"
#include "cli/same_file.h"
#include "tools/file_exposure_notes.h"
#include "tools/release_draft.h"
#include "tools/surface_check.h"
#include "tools/unpinned_code.h"
#include "transport/child_process.h"
#include "trust/digest.h"
#include "trust/manifest.h"
#include "trust/manifest_writer.h"
#include "trust/release_paths.h"
#include "trust/rfc3339.h"
#include "trust/secure_file.h"
#include "trust/signature_file.h"
#include "trust/trust_store.h"
#include "trust/watermark.h"

namespace las::cli {
namespace {

constexpr mode_t kSecretMode = 0600;
constexpr mode_t kPublicMode = 0644;
constexpr int64_t kDraftExpirySeconds = 30LL * 86400;  // placeholder until `sign`

int Usage(const std::string& message) { return Fail(InvalidArgument(message)); }

std::string SurfaceList(const trust::Manifest& manifest) {
  std::string names;
  for (const trust::SurfaceBinding& s : manifest.surfaces) names += (names.empty() ? "" : ", ") + s.name;
  return std::to_string(manifest.surfaces.size()) +
         (manifest.surfaces.size() == 1 ? " surface" : " surfaces") +
         (names.empty() ? "" : ": " + names);
}

// ---------------------------------------------------------------------------------------
// keygen

struct KeygenFlags {
  std::string out_dir;
  std::string secret_key;
  std::string public_key;
  std::string trust_store;
};

// The trust store text that adds `key` and selects it: a new store, or the existing one
// (read through the secure checks) extended. Nothing is written here.
Result<std::string> TrustStoreWith(const std::string& path, const trust::PublicKey& key,
                                   size_t* kept_keys) {
  trust::TrustStore store;
  if (PathExists(path)) {
    trust::VerdictOr<trust::TrustStore> existing = trust::LoadTrustStore(path);
    if (!existing.ok()) {
      return Status(existing.verdict().ToStatus().code(),
                    "cannot extend the trust store: " + existing.verdict().ToString());
    }
    store = std::move(existing).value();
  }
  *kept_keys = store.keys.size();
  store.keys.push_back({trust::KeyIdOf(key), key});
  store.selected_key_id = trust::KeyIdOf(key);
  return trust::SerializeTrustStore(store);
}

int RunKeygen(const KeygenFlags& flags) {
  std::string secret_path = flags.secret_key;
  std::string public_path = flags.public_key;
  if (!flags.out_dir.empty()) {
    if (!secret_path.empty() || !public_path.empty()) {
      return Usage("give --out-dir, or --secret-key and --public-key, not both");
    }
    secret_path = flags.out_dir + "/release.key";
    public_path = flags.out_dir + "/release.pub";
  } else if (secret_path.empty() || public_path.empty()) {
    return Usage("give --out-dir DIR (writes DIR/release.key and DIR/release.pub), or "
                       "both --secret-key FILE and --public-key FILE");
  }
  // One file given for two outputs: the later write would replace the new secret key.
  const NamedPath outputs[] = {
      {"the secret key", secret_path}, {"the public key", public_path}, {"the trust store", flags.trust_store}};
  for (size_t i = 0; i < std::size(outputs); ++i) {
    if (Status distinct = RefuseSameFile(outputs[i], std::span(outputs).subspan(i + 1)); !distinct.ok()) {
      return Fail(distinct);
    }
  }
  // Refuse before generating anything: an existing key may be the only copy.
  for (const std::string& path : {secret_path, public_path}) {
    if (PathExists(path)) {
      return Fail(Conflict(path + " already exists; refusing to overwrite a key "
                                        "(move it away, or choose another path)"));
    }
  }
  Result<trust::KeyPair> pair = trust::GenerateKeyPair();
  if (!pair.ok()) return Fail(pair.status());
  const std::string key_id = trust::KeyIdOf(pair->public_key);

  // The trust store is checked before anything is made: a refusal leaves no directory.
  std::string store_text;
  size_t kept_keys = 0;
  if (!flags.trust_store.empty()) {
    Result<std::string> text = TrustStoreWith(flags.trust_store, pair->public_key, &kept_keys);
    if (!text.ok()) return Fail(text.status());
    store_text = std::move(text).value();
  }
  // Every directory checked before any is made: a refusal leaves none (probe GV2).
  for (const std::string& path : {secret_path, public_path, flags.trust_store}) {
    if (path.empty()) continue;
    if (Status can = CheckParentDirectoryCanBeMade(path); !can.ok()) return Fail(can);
  }
  for (const std::string& path : {secret_path, public_path, flags.trust_store}) {
    if (path.empty()) continue;
    if (Status made = EnsureParentDirectory(path); !made.ok()) return Fail(made);
  }

  std::string secret_text = FormatSecretKeyFile(pair->secret_key);
  Status wrote = CreateNewFile(secret_path, secret_text, kSecretMode);
  Wipe(secret_text);
  if (!wrote.ok()) return Fail(wrote);
  wrote = CreateNewFile(public_path, FormatPublicKeyFile(pair->public_key), kPublicMode);
  if (!wrote.ok()) {
    ::unlink(secret_path.c_str());  // no half-written key pair
    return Fail(wrote);
  }
  if (!flags.trust_store.empty()) {
    wrote = ReplaceFileAtomically(flags.trust_store, store_text, kSecretMode);
    if (!wrote.ok()) {
      // All or nothing: a key pair no store lists would refuse the rerun as a conflict,
      // and no command adds an existing key to a store (probe CI4).
      ::unlink(public_path.c_str());
      ::unlink(secret_path.c_str());
      return Fail(Status(wrote.code(), wrote.message() + "; the new key pair was removed: "
                                                         "nothing was changed"));
    }
  }
  std::printf("key id       %s\n", key_id.c_str());
  std::printf("secret key   %s (mode 0600; keep it private, off the serving machine if you can)\n",
              EscapeForTerminal(secret_path).c_str());
  std::printf("public key   %s\n", EscapeForTerminal(public_path).c_str());
  if (!flags.trust_store.empty()) {
    std::printf("trust store  %s (mode 0600; selects %s%s)\n", EscapeForTerminal(flags.trust_store).c_str(),
                key_id.c_str(),
                kept_keys == 0 ? ""
                               : ("; " + std::to_string(kept_keys) +
                                  " earlier key(s) stay listed, admitting nothing: the record of keys you trusted").c_str());
  }
  // Made where others could replace them: said at once (probe FZ4).
  for (const std::string& note : tools::TrustedFileNotes({{tools::TrustedFile::kSecretKey, secret_path},
                                                          {tools::TrustedFile::kTrustStore, flags.trust_store}})) {
    std::printf("warning      %s\n", EscapeForTerminal(note).c_str());
  }
  return kExitOk;
}

// ---------------------------------------------------------------------------------------
// draft

struct DraftFlags {
  std::string surface;
  std::string cwd;
  std::vector<std::string> env;
  std::string manifest;
  std::string workspace;
  int64_t timeout_ms = 30'000;
  std::vector<std::string> command;
};

// The manifest to extend: the file's (unsigned, the operator's own) content, or a new
// one with sequence 1 and a placeholder expiry that `sign` replaces.
Result<trust::Manifest> ManifestToEdit(const std::string& path, int64_t now_micros, bool* existed) {
  *existed = PathExists(path);
  if (!*existed) {
    trust::Manifest fresh;
    fresh.sequence = 1;
    fresh.expires_at_micros = (now_micros / 1'000'000 + kDraftExpirySeconds) * 1'000'000;
    return fresh;
  }
  trust::VerdictOr<std::string> bytes = trust::ReadBoundedFile(path, "manifest", trust::kMaxManifestBytes);
  if (!bytes.ok()) return bytes.verdict().ToStatus();
  Result<trust::Manifest> parsed = trust::ParseManifest(*bytes);
  if (!parsed.ok()) {
    return Status(parsed.status().code(),
                  path + " exists but is not a valid manifest (fix or move it): " +
                      parsed.status().message());
  }
  return parsed;
}

// A release path taken from its variable must be absolute, as `verify` and `serve` require
// of it: draft and sign wrote relative to the current directory a file they never read
// (probe CI6). A flag is made absolute where it is given.
Status RefuseRelativeVariable(const std::string& flag, const trust::Environment& env,
                              const char* variable) {
  if (!flag.empty()) return Status::Ok();
  const auto value = env.find(variable);
  if (value == env.end() || value->second.empty()) return Status::Ok();
  return trust::CheckAbsolutePath(variable, value->second).ToStatus();
}

// The lowest sequence the watermark admits for the key the trust store selects (both from
// the environment, as serve finds them): its entry + 1, or nullopt when either cannot be
// read or the key has no entry. What draft's `next` line suggests signing with (probe FI2:
// it said --sequence 1 to a key already at 3, which sign then refused).
std::optional<uint64_t> LowestAdmittedSequence(const trust::Environment& env) {
  const std::string store_path = FlagOrEnv("", env, trust::kEnvTrustStore);
  const std::string watermark_path = FlagOrEnv("", env, trust::kEnvReleaseWatermark);
  if (store_path.empty() || watermark_path.empty()) return std::nullopt;
  trust::VerdictOr<trust::TrustStore> store = trust::LoadTrustStore(store_path);
  if (!store.ok()) return std::nullopt;
  trust::VerdictOr<trust::Watermarks> watermarks = trust::LoadWatermarks(watermark_path);
  if (!watermarks.ok()) return std::nullopt;
  const trust::WatermarkEntry* entry = watermarks->Find(store->selected_key_id);
  if (entry == nullptr) return std::nullopt;
  return entry->sequence + 1;
}

// What an operator drafting needs beside a refusal that names no way out: a child run in
// the current directory by default (probe FI8), a child whose stderr Las keeps to itself
// (probe FI9), a child that stops for want of a variable no --env named (probe IW5: a
// server that needs its API token exited at start), or of one it named that is not set here
// (probe IX4: the note that says so came only with a draft that worked).
Status WithDraftHint(const Status& failed, bool cwd_given, const std::vector<std::string>& env,
                     const trust::Environment& here) {
  const std::string& message = failed.message();
  std::string hint;
  if (!cwd_given && message.find("workspace-escape: cwd ") != std::string::npos) {
    hint = " (draft runs the child in the current directory: cd into the workspace, or give --cwd DIR)";
  } else if (message.find("start-failed: ") != std::string::npos) {
    std::string unset;
    for (const std::string& name : env) {
      if (here.find(name) == here.end()) unset += (unset.empty() ? "" : ", ") + name;
    }
    hint = std::string(" (Las shows no child's stderr: run the command by hand to see why it stopped") +
           (env.empty() ? "; the child gets no variable of yours that no --env NAME names, such "
                          "as an API token it needs to start)"
            : unset.empty() ? ")"
                            : "; --env " + EscapeForTerminal(unset) +
                                  " not set here: the child ran without it)");
  }
  return hint.empty() ? failed : Status(failed.code(), message + hint);
}

int RunDraft(const DraftFlags& flags) {
  const trust::Environment env = trust::EnvironmentFromProcess();
  const std::string manifest_path = FlagOrEnv(flags.manifest, env, trust::kEnvReleaseManifest);
  if (manifest_path.empty()) {
    return Usage("no manifest: give --manifest FILE or set LAS_RELEASE_MANIFEST");
  }
  if (Status absolute = RefuseRelativeVariable(flags.manifest, env, trust::kEnvReleaseManifest);
      !absolute.ok()) {
    return Fail(absolute);
  }
  tools::DraftRequest request;
  request.surface = flags.surface;
  request.env = flags.env;
  request.argv = flags.command;
  request.start_timeout_ms = flags.timeout_ms;
  // Made absolute where given, as `las check --workspace` does (probe GV1).
  request.policy.workspace = PathFlagOrEnv(flags.workspace, env, "LAS_WORKSPACE");
  request.policy.node_executable = NodeExecutable(env);
  request.policy.environment = env;
  if (request.policy.workspace.empty()) {
    return Usage("no workspace: give --workspace DIR or set LAS_WORKSPACE (the child "
                       "runs under the same launch rules as in las serve)");
  }
  if (flags.cwd.empty()) {
    std::error_code error;
    request.cwd = std::filesystem::current_path(error).string();
    if (error) return Fail(IoError("cannot read the current directory: " + error.message()));
  } else {
    request.cwd = std::filesystem::absolute(flags.cwd).lexically_normal().string();
    if (request.cwd.size() > 1 && request.cwd.back() == '/') request.cwd.pop_back();
  }

  // Made only when the draft is written: a refused draft leaves no directory (probe GV3).
  if (Status can = CheckParentDirectoryCanBeMade(manifest_path); !can.ok()) return Fail(can);
  // Before the child runs: a refusal at the write would come after it (probe GW4).
  if (Status replaceable = CheckReplaceable(manifest_path); !replaceable.ok()) return Fail(replaceable);
  bool existed = false;
  Result<trust::Manifest> manifest = ManifestToEdit(manifest_path, SystemWallClock().NowMicros(), &existed);
  if (!manifest.ok()) return Fail(manifest.status());

  if (Status reaper = transport::BecomeChildSubreaper(); !reaper.ok()) return Fail(reaper);
  Result<tools::DraftedSurface> drafted = tools::DraftSurface(request);
  if (!drafted.ok()) {
    return Fail(WithDraftHint(drafted.status(), !flags.cwd.empty(), flags.env, env));
  }

  const trust::SurfaceBinding binding = drafted->binding;
  std::vector<std::string> notes = drafted->notes;
  const bool replaced = manifest->FindSurface(binding.name) != nullptr;
  tools::MergeSurface(*manifest, drafted->binding, &notes);
  // The code pinned is what was in the workspace just now (probes FZ2, GA3: another user's).
  for (std::string& note : tools::TrustedFileNotes({{tools::TrustedFile::kWorkspace, request.policy.workspace},
                                                    {tools::TrustedFile::kManifest, manifest_path}})) {
    notes.push_back(std::move(note));
  }
  for (std::string& note : tools::SurfaceFileNotes(binding)) notes.push_back(std::move(note));
  for (std::string& note : tools::NodeSurfaceNotes(binding, request.policy)) notes.push_back(std::move(note));
  if (Status valid = trust::ValidateManifest(*manifest); !valid.ok()) return Fail(valid);
  if (Status made = EnsureParentDirectory(manifest_path); !made.ok()) return Fail(made);
  if (Status wrote = ReplaceFileAtomically(manifest_path, trust::SerializeManifest(*manifest), kPublicMode);
      !wrote.ok()) {
    return Fail(wrote);
  }

  // Whether the manifest was ever signed: for the served one, whether its signature file
  // (LAS_RELEASE_SIGNATURE) exists; another that existed is taken as signed. A manifest
  // drafted twice before its first signing is not "changed since its signature", nor
  // signed with --bump: that would make the first release number 2 (probe FT6).
  const auto served = env.find(trust::kEnvReleaseManifest);
  const bool served_manifest = served != env.end() && SameFile(manifest_path, served->second);
  const auto signature = env.find(trust::kEnvReleaseSignature);
  std::error_code no_signature;
  const bool signed_before =
      existed && (!served_manifest ||
                  (signature != env.end() && !signature->second.empty() &&
                   std::filesystem::is_regular_file(signature->second, no_signature)));
  // Whether `sign` can write the signature where LAS_RELEASE_SIGNATURE says: an absolute
  // path without a trailing slash, naming a regular file (not through a link) or nothing yet
  // in an existing directory; else the next line names --out (probes FV1, FW1: a directory,
  // a link, a FIFO, a relative path or a missing directory made a line sign refused).
  bool signature_path = false;
  if (signature != env.end() && !signature->second.empty() &&
      trust::CheckAbsolutePath(trust::kEnvReleaseSignature, signature->second).ok() &&
      signature->second.back() != '/') {
    const std::filesystem::path where(signature->second);
    const std::filesystem::file_status there = std::filesystem::symlink_status(where, no_signature);
    signature_path = std::filesystem::is_regular_file(there) ||
                     (!std::filesystem::exists(there) &&
                      std::filesystem::is_directory(where.parent_path(), no_signature));
  }
  // A served release's manifest changed in place no longer matches its signature: said,
  // since a server that starts or restarts a child meanwhile admits nothing (probe CI3).
  if (signed_before && served_manifest) {
    notes.push_back("LAS_RELEASE_MANIFEST no longer matches its signature until it is signed "
                    "again: a las serve that starts, or restarts a child, before then admits "
                    "nothing from it");
  }
  std::string tool_names;
  for (const trust::ToolBinding& t : binding.tools) tool_names += (tool_names.empty() ? "" : ", ") + t.name;
  std::printf("surface   %s (%s)\n", binding.name.c_str(), replaced ? "replaced" : "added");
  std::printf("command   %s  sha256 %s\n", EscapeForTerminal(binding.command).c_str(), trust::Sha256Hex(binding.binary_sha256).c_str());
  if (binding.code) {
    std::printf("code      %s  sha256 %s\n", EscapeForTerminal(binding.code->path).c_str(), trust::Sha256Hex(binding.code->sha256).c_str());
  }
  std::printf("cwd       %s\n", EscapeForTerminal(binding.cwd).c_str());
  std::string env_names;
  for (const std::string& n : binding.env) env_names += (env_names.empty() ? "" : " ") + n;
  std::printf("env       %s\n", env_names.empty() ? "(none: the child gets only PATH)" : env_names.c_str());
  std::printf("tools     %zu: %s\n", binding.tools.size(), tool_names.c_str());
  for (const std::string& note : notes) std::printf("note      %s\n", EscapeForTerminal(note).c_str());
  std::printf("wrote     %s (%s, %s; sequence %llu, unsigned)\n", EscapeForTerminal(manifest_path).c_str(),
              existed ? "updated" : "created", SurfaceList(*manifest).c_str(),
              static_cast<unsigned long long>(manifest->sequence));
  // The exact next command: paths only where the environment does not already give them.
  std::string next = "las release sign";
  if (!flags.manifest.empty()) next += " --manifest " + ShellWord(manifest_path);
  next += " --secret-key KEY";
  const uint64_t proposed = signed_before ? manifest->sequence + 1 : manifest->sequence;
  const std::optional<uint64_t> lowest = LowestAdmittedSequence(env);
  if (lowest.has_value() && *lowest > proposed) {
    next += " --sequence " + std::to_string(*lowest);
  } else if (proposed > trust::kMaxManifestSequence) {
    // The far-future recovery: a new key, whose watermark starts at 0 (probe FJ4: --bump
    // went past the maximum).
    next += " --sequence " + std::to_string(lowest.value_or(1));
  } else {
    next += signed_before ? " --bump" : " --sequence " + std::to_string(proposed);
  }
  if (!flags.manifest.empty() || !signature_path) next += " --out SIGNATURE";
  std::printf("next      review the file, then sign it: %s\n", EscapeForTerminal(next).c_str());
  return kExitOk;
}

// ---------------------------------------------------------------------------------------
// sign

struct SignFlags {
  std::string manifest;
  std::string secret_key;
  std::string out;
  std::string trust_store;
  std::string watermark;
  uint64_t sequence = 0;
  bool bump = false;
  std::string expires_in = "30d";
};

// --out names the one file sign creates or replaces; naming another release file would
// destroy it (the secret key, the trust store, the watermark) or the manifest just signed.
Status RefuseOutOverReleaseFile(const std::string& out_path, const std::string& manifest_path,
                                const std::string& secret_key, const std::string& trust_store,
                                const std::string& watermark) {
  const NamedPath others[] = {{"the manifest", manifest_path},
                              {"the secret key", secret_key},
                              {"the trust store", trust_store},
                              {"the watermark", watermark}};
  return RefuseSameFile({"the signature (--out)", out_path}, others);
}

// Writes the new manifest and its signature so that a failure leaves the previous pair as
// it was (`las serve` keeps admitting the current release): both are staged beside their
// destinations first, so a missing or read-only directory or an --out that is a directory
// fails before either is replaced; then the manifest is renamed into place, then the
// signature. Should that last rename fail, the previous manifest is put back.
Status WriteSignedRelease(const std::string& manifest_path, const std::string& previous_manifest,
                          const std::string& manifest_text, const std::string& out_path,
                          const std::string& signature_text) {
  Result<StagedFile> signature = StagedFile::Stage(out_path, signature_text, kPublicMode);
  if (!signature.ok()) return signature.status();
  Result<StagedFile> manifest = StagedFile::Stage(manifest_path, manifest_text, kPublicMode);
  if (!manifest.ok()) return manifest.status();
  LAS_RETURN_IF_ERROR(manifest->Commit());
  Status placed = signature->Commit();
  if (placed.ok()) return placed;
  const Status restored = ReplaceFileAtomically(manifest_path, previous_manifest, kPublicMode);
  return Status(placed.code(), placed.message() + (restored.ok() ? "; the previous manifest was put back"
                                                                 : "; the previous manifest could not be put "
                                                                   "back: " + restored.message()));
}

// How far above the watermark's sequence for the key a --bump is noted.
constexpr uint64_t kSequenceJumpNoted = 1000;

int RunSign(const SignFlags& flags) {
  const trust::Environment env = trust::EnvironmentFromProcess();
  const std::string manifest_path = FlagOrEnv(flags.manifest, env, trust::kEnvReleaseManifest);
  const std::string out_path = FlagOrEnv(flags.out, env, trust::kEnvReleaseSignature);
  const std::string store_path = FlagOrEnv(flags.trust_store, env, trust::kEnvTrustStore);
  if (manifest_path.empty()) return Usage("no manifest: give --manifest FILE or set LAS_RELEASE_MANIFEST");
  if (out_path.empty()) return Usage("no signature path: give --out FILE or set LAS_RELEASE_SIGNATURE");
  for (const auto& [flag, variable] : {std::pair{&flags.manifest, trust::kEnvReleaseManifest},
                                       std::pair{&flags.out, trust::kEnvReleaseSignature},
                                       std::pair{&flags.trust_store, trust::kEnvTrustStore}}) {
    if (Status absolute = RefuseRelativeVariable(*flag, env, variable); !absolute.ok()) {
      return Fail(absolute);
    }
  }
  // LAS_RELEASE_SIGNATURE belongs to LAS_RELEASE_MANIFEST: another manifest's signature
  // written there would break the release being served (probe CI2).
  if (flags.out.empty() && !flags.manifest.empty()) {
    const auto served = env.find(trust::kEnvReleaseManifest);
    if (served == env.end() || !SameFile(flags.manifest, served->second)) {
      return Usage("--manifest names another file than LAS_RELEASE_MANIFEST: give --out FILE "
                   "for its signature (LAS_RELEASE_SIGNATURE is the served release's)");
    }
  }
  if (flags.secret_key.empty()) return Usage("give --secret-key FILE (from las release keygen)");
  if ((flags.sequence != 0) == flags.bump) {
    return Usage("give exactly one of --sequence N (a new release number) or --bump "
                       "(the manifest's sequence + 1)");
  }
  // As verify and check find it: --watermark, else LAS_RELEASE_WATERMARK; neither: not checked.
  const std::string watermark_path = PathFlagOrEnv(flags.watermark, env, trust::kEnvReleaseWatermark);
  if (Status distinct = RefuseOutOverReleaseFile(out_path, manifest_path, flags.secret_key, store_path,
                                                 watermark_path);
      !distinct.ok()) {
    return Fail(distinct);
  }
  Result<int64_t> expires_in = ParseDurationSeconds(flags.expires_in);
  if (!expires_in.ok()) {  // named like every other flag's error (probe BI6)
    return Fail(InvalidArgument("--expires-in: " + expires_in.status().message()));
  }

  // What is signed is what is on disk now: whoever else could write it chose it too (probe
  // FZ3). Judged before reading, since signing rewrites the manifest (mode 0644).
  const std::vector<std::string> exposed =
      tools::TrustedFileNotes({{tools::TrustedFile::kManifest, manifest_path},
                               {tools::TrustedFile::kSecretKey, flags.secret_key},
                               {tools::TrustedFile::kTrustStore, store_path}});
  trust::VerdictOr<std::string> bytes =
      trust::ReadBoundedFile(manifest_path, "manifest", trust::kMaxManifestBytes);
  if (!bytes.ok()) return Fail(bytes.verdict().ToStatus());
  Result<trust::Manifest> manifest = trust::ParseManifest(*bytes);
  if (!manifest.ok()) return Fail(manifest.status());
  const uint64_t previous = manifest->sequence;
  manifest->sequence = flags.bump ? previous + 1 : flags.sequence;
  if (manifest->sequence > trust::kMaxManifestSequence) {
    return Usage("sequence " + std::to_string(manifest->sequence) + " is above the maximum " +
                           std::to_string(trust::kMaxManifestSequence));
  }
  // Whole seconds: the expiry is then spelled without a fraction.
  const int64_t now = SystemWallClock().NowMicros() / 1'000'000 * 1'000'000;
  manifest->expires_at_micros = now + *expires_in * 1'000'000;
  if (Status valid = trust::ValidateManifest(*manifest); !valid.ok()) return Fail(valid);
  const std::string signed_text = trust::SerializeManifest(*manifest);
  const std::span<const uint8_t> signed_bytes(reinterpret_cast<const uint8_t*>(signed_text.data()),
                                              signed_text.size());

  Result<trust::SecretKey> key = ReadSecretKeyFile(flags.secret_key);
  if (!key.ok()) return Fail(key.status());
  const trust::PublicKey public_key = key->public_key();
  const std::string key_id = trust::KeyIdOf(public_key);
  Result<trust::Ed25519Signature> signature = trust::SignRelease(*key, signed_bytes);
  if (!signature.ok()) return Fail(signature.status());
  // Verify the fresh signature before anything is written (as minisign does).
  if (Status verified = trust::VerifyRelease(public_key, signed_bytes, *signature); !verified.ok()) {
    return Fail(Corruption("the new signature does not verify; nothing was written"));
  }
  // A key the trust store does not select would likewise replace a working release with
  // one every start refuses (unknown-key): refused before anything is written, as a
  // rollback is (probe FI1: it was a warning after the served release was replaced). A
  // store that cannot be loaded is a warning: serve refuses every release until it can.
  std::string store_warning;
  if (store_path.empty()) {
    // Nothing to check the key against: said, as a store that cannot be loaded is (probe
    // FR5: a release signed with an unselected key replaced the served one without a word).
    store_warning = "no trust store (--trust-store, or LAS_TRUST_STORE): the key was not "
                    "checked against the one las serve's trust store selects";
  } else {
    trust::VerdictOr<trust::TrustStore> store = trust::LoadTrustStore(store_path);
    if (!store.ok()) {
      // What serve and verify refuse (mode, missing, malformed) is said here too (probe CI8).
      store_warning = "the trust store " + store_path + " could not be loaded (" +
                      store.verdict().ToString() + "): las serve will refuse every release until it can";
    } else if (store->selected_key_id != key_id) {
      return Fail(Conflict("the trust store " + store_path + " selects key " + store->selected_key_id +
                           ", not " + key_id + " (the key of --secret-key): las serve would refuse "
                           "this release (unknown-key) and admit no surface; nothing was written. "
                           "Sign with the selected key, or select " + key_id + " in the trust store "
                           "first (a new key: las release keygen --trust-store; docs/RELEASES.md)"));
    }
  }
  // A sequence the watermark already passed would replace a working release with one
  // `las serve` refuses (rollback, or conflict at the same sequence): no surface admitted.
  std::string watermark_warning;
  uint64_t watermark_sequence = 0;
  if (!watermark_path.empty()) {
    trust::VerdictOr<trust::Watermarks> watermarks = trust::LoadWatermarks(watermark_path);
    const trust::WatermarkEntry* held = watermarks.ok() ? watermarks->Find(key_id) : nullptr;
    if (held != nullptr) watermark_sequence = held->sequence;
    if (!watermarks.ok()) {
      watermark_warning = "the watermark " + watermark_path + " could not be read (" +
                          watermarks.verdict().ToString() + "): the sequence was not checked against it";
    } else if (trust::VerdictOr<trust::WatermarkStep> step =
                   trust::DecideWatermark(*watermarks, key_id, manifest->sequence, trust::Sha256(signed_text));
               !step.ok()) {
      // "conflict: rollback: ...", but not "conflict: conflict: ..." (probe BA3).
      const trust::Verdict& refusal = step.verdict();
      const std::string why =
          refusal.reason() == trust::Reason::kConflict ? refusal.detail() : refusal.ToString();
      return Fail(Conflict(why + " (watermark " + watermark_path +
                           "): las serve would refuse this release and admit no surface; nothing was "
                           "written. Sign with --sequence " + std::to_string(held->sequence + 1) +
                           " or higher"));
    }
  }

  // A sequence far ahead of the last served uses up the key's room: at the highest no later
  // release can be signed with it (probe GD2: a manifest edited to 2^53-2 took --bump
  // there without a word). A --bump is measured from the watermark, which the manifest's
  // own number cannot move (probe GE5); a --sequence is the operator's choice (a date,
  // say: probe GE6), said only at the highest.
  std::string sequence_warning;
  if (manifest->sequence == trust::kMaxManifestSequence) {
    sequence_warning = "sequence " + std::to_string(manifest->sequence) +
                       " is the highest a release may have: once served, no later release can be "
                       "signed with key " + key_id + " (a new key: las release keygen --trust-store)";
  } else if (flags.bump && watermark_sequence != 0 &&
             manifest->sequence > watermark_sequence + kSequenceJumpNoted) {
    sequence_warning = "sequence " + std::to_string(manifest->sequence) + " is " +
                       std::to_string(manifest->sequence - watermark_sequence) +
                       " above the watermark (" + std::to_string(watermark_sequence) + "): once served, no release below it can be; was "
                       "the manifest's sequence edited by someone else?";
  }

  const std::string signature_text = trust::FormatSignatureFile(key_id, *signature);
  if (Status wrote = WriteSignedRelease(manifest_path, *bytes, signed_text, out_path, signature_text);
      !wrote.ok()) {
    return Fail(wrote);
  }
  // Read both back from disk and verify once more: what is on disk is what verifies.
  trust::VerdictOr<std::string> on_disk = trust::ReadBoundedFile(manifest_path, "manifest", trust::kMaxManifestBytes);
  trust::VerdictOr<std::string> sig_on_disk =
      trust::ReadBoundedFile(out_path, "signature file", trust::kMaxSignatureFileBytes);
  if (!on_disk.ok() || !sig_on_disk.ok() || *on_disk != signed_text || *sig_on_disk != signature_text) {
    return Fail(IoError("the files read back differ from what was written; run las release verify"));
  }

  std::printf("signed    %s\n", EscapeForTerminal(manifest_path).c_str());
  std::printf("sequence  %llu (was %llu)\n", static_cast<unsigned long long>(manifest->sequence),
              static_cast<unsigned long long>(previous));
  std::printf("expires   %s (%s)\n", trust::FormatRfc3339UtcMicros(manifest->expires_at_micros).c_str(),
              tools::DescribeDistance(manifest->expires_at_micros, now).c_str());
  std::printf("key id    %s\n", key_id.c_str());
  std::printf("surfaces  %s\n", SurfaceList(*manifest).c_str());
  std::printf("signature %s (verified before writing)\n", EscapeForTerminal(out_path).c_str());

  if (!store_warning.empty()) std::printf("warning   %s\n", EscapeForTerminal(store_warning).c_str());
  if (!watermark_warning.empty()) std::printf("warning   %s\n", EscapeForTerminal(watermark_warning).c_str());
  if (!sequence_warning.empty()) std::printf("warning   %s\n", EscapeForTerminal(sequence_warning).c_str());
  for (const std::string& note : exposed) std::printf("warning   %s\n", EscapeForTerminal(note).c_str());
  return kExitOk;
}

// ---------------------------------------------------------------------------------------
// verify

struct VerifyFlags {
  std::string manifest;
  std::string signature;
  std::string trust_store;
  std::string watermark;
  std::optional<std::string> at;
};

// Whether a failed row says the files could not be checked (the operator's or the system's
// problem) rather than that the release is bad: missing, unreadable, not configured, or a
// path that names no file (a directory or FIFO where a file belongs, a path under a file:
// probe BI2, AU8), each exiting with its own code.
bool IsOperational(trust::Reason reason) {
  switch (reason) {
    case trust::Reason::kFileMissing:
    case trust::Reason::kIoError:
    case trust::Reason::kFileAccessDenied:
    case trust::Reason::kNotConfigured:
    case trust::Reason::kNotAbsolute:
    case trust::Reason::kFileNotRegular:
    case trust::Reason::kFilePathInvalid:
      return true;
    default:
      return false;
  }
}

// Verification failed (1) unless every failure is operational: the files could not be
// found or read, or were not configured (minisign's split between "bad" and "could not").
// Of several operational failures, the first row's code is the exit code.
int VerifyExitCode(const tools::ReleaseCheck& check) {
  int operational = kExitOk;
  for (const tools::CheckRow& row : check.rows) {
    if (row.result != tools::CheckResult::kFail) continue;
    const std::optional<trust::Reason> reason = trust::ReasonFromName(row.reason);
    if (!reason.has_value() || !IsOperational(*reason)) return kExitFailure;
    if (operational == kExitOk) operational = ExitCodeFor(trust::Verdict(*reason, "").ToStatus());
  }
  return operational;
}

int RunVerify(const VerifyFlags& flags) {
  const trust::Environment env = trust::EnvironmentFromProcess();
  tools::ReleaseCheckOptions options = ReleaseFilesFromFlags(
      flags.manifest, flags.signature, flags.trust_store, flags.watermark, env);
  options.check_watermark = !options.paths.watermark.empty();
  Result<int64_t> at = CheckTime(flags.at, SystemWallClock().NowMicros());
  if (!at.ok()) return Fail(at.status());
  options.now_micros = *at;

  const tools::ReleaseCheck check = tools::CheckRelease(options);
  for (const tools::CheckRow& row : check.rows) {
    std::printf("%-4s  %-14s  %s%s%s\n",
                row.result == tools::CheckResult::kFail ? "FAIL" : std::string(tools::CheckResultName(row.result)).c_str(),
                row.check.c_str(), row.result == tools::CheckResult::kOk ? "" : row.reason.c_str(),
                row.result == tools::CheckResult::kOk ? "" : ": ", EscapeAndShorten(row.detail).c_str());
  }
  const int code = VerifyExitCode(check);
  std::fflush(stdout);  // the rows first, then the verdict, also when both go to one file
  if (code == kExitOk) {
    std::printf("las release verify: OK: sequence %llu, key %s, %s%s\n",
                static_cast<unsigned long long>(check.manifest->sequence), check.key_id.c_str(),
                SurfaceList(*check.manifest).c_str(),
                options.check_watermark ? "" : " (watermark not checked: give --watermark)");
  } else {
    std::fprintf(stderr, "las %s: %s\n", CommandWords(),
                 code == kExitFailure ? "FAILED: this release must not be admitted"
                                      : "could not verify (see above)");
  }
  return code;
}

}  // namespace

void RegisterRelease(CLI::App& app, int& exit_code) {
  auto* release = app.add_subcommand(
      "release", "Make and check signed releases: keygen, draft, sign, verify (docs/FIRST-RELEASE.md)");
  release->require_subcommand(1);

  auto keygen = std::make_shared<KeygenFlags>();
  auto* k = release->add_subcommand(
      "keygen", "Write a new Ed25519 key pair (the secret key file is mode 0600; existing files "
                "are never overwritten) and print its key id");
  k->add_option("--out-dir", keygen->out_dir, "Write DIR/release.key and DIR/release.pub")
      ->check(NonEmptyPath());
  k->add_option("--secret-key", keygen->secret_key, "Secret key file to create (mode 0600)")
      ->check(NonEmptyPath());
  k->add_option("--public-key", keygen->public_key, "Public key file to create")
      ->check(NonEmptyPath());
  k->add_option("--trust-store", keygen->trust_store,
                "Also create this trust store, or add the key to it, and select the key (mode 0600)")
      ->check(NonEmptyPath("if you gave \"$LAS_TRUST_STORE\", that variable is not set: "
                           "export LAS_TRUST_STORE=$HOME/.config/las/trust.json"));
  k->callback([keygen, &exit_code] { exit_code = RunKeygen(*keygen); });

  auto draft = std::make_shared<DraftFlags>();
  auto* d = release->add_subcommand(
      "draft", "Start a child under the launch rules, read its tools/list and write its manifest "
               "entry with every digest filled in, ready to review and sign");
  d->footer(DraftEnvironmentHelp());
  d->add_option("--surface", draft->surface, "Surface name ([a-z0-9_-], e.g. echo)")->required();
  d->add_option("--cwd", draft->cwd, "Working directory of the child (default: the current directory)")
      ->check(NonEmptyPath("leave the flag out for the current directory"));
  d->add_option("--env", draft->env, "Name of a variable the child receives (repeatable, one name each; names only)")
      ->allow_extra_args(false);  // one name per --env: `--env HOME -- CMD --stdio` ends the flags at --
  d->add_option("--manifest", draft->manifest,
                "Manifest to create or update (default: LAS_RELEASE_MANIFEST)")
      ->check(NonEmptyPathOr(trust::kEnvReleaseManifest));
  d->add_option("--workspace", draft->workspace, "Workspace root (default: LAS_WORKSPACE)")
      ->check(NonEmptyPathOr("LAS_WORKSPACE"));
  d->add_option("--timeout-ms", draft->timeout_ms, "Time allowed for initialize and tools/list")
      ->transform(TimeoutMs(1))
      ->capture_default_str();
  d->add_option("command", draft->command, "-- COMMAND ARGS...: the absolute command and its arguments")
      ->required();
  d->callback([draft, &exit_code] { exit_code = RunDraft(*draft); });

  auto sign = std::make_shared<SignFlags>();
  auto* s = release->add_subcommand(
      "sign", "Set the sequence and expiry, sign the manifest's new bytes, verify the signature, "
              "then write both (a failure leaves the previous pair as it was)");
  s->add_option("--manifest", sign->manifest, "Manifest (default: LAS_RELEASE_MANIFEST)")
      ->check(NonEmptyPathOr(trust::kEnvReleaseManifest));
  s->add_option("--secret-key", sign->secret_key, "Secret key file (las release keygen)")
      ->check(NonEmptyPath());
  s->add_option("--sequence", sign->sequence, "The release's sequence number (1 to 2^53-1)")
      ->transform(WholeNumber(1, trust::kMaxManifestSequence));
  s->add_flag("--bump", sign->bump, "Use the manifest's sequence + 1");
  s->add_option("--expires-in", sign->expires_in, "Validity from now: 30d, 12h, 2w (at most 366d)")
      ->capture_default_str();
  s->add_option("--out", sign->out, "Signature file to write (default: LAS_RELEASE_SIGNATURE)")
      ->check(NonEmptyPathOr(trust::kEnvReleaseSignature));
  s->add_option("--trust-store", sign->trust_store,
                "Refuse the key when this trust store (default: LAS_TRUST_STORE) selects "
                "another (exit 10, nothing written); a store that cannot be loaded is a warning")
      ->check(NonEmptyPathOr(trust::kEnvTrustStore));
  s->add_option("--watermark", sign->watermark,
                "Refuse a sequence this watermark (default: LAS_RELEASE_WATERMARK) already passed "
                "for the key (exit 10)")
      ->check(NonEmptyPathOr(trust::kEnvReleaseWatermark));
  s->callback([sign, &exit_code] { exit_code = RunSign(*sign); });

  auto verify = std::make_shared<VerifyFlags>();
  auto* v = release->add_subcommand(
      "verify", "Check a manifest and its signature against the trust store (and the watermark, "
                "if given). Exit 0: valid; 1: verification failed; other codes: could not check");
  AddReleaseFileFlags(*v, verify->manifest, verify->signature, verify->trust_store,
                      verify->watermark,
                      "Watermark (default: LAS_RELEASE_WATERMARK; unset: not checked)");
  v->add_option("--at", verify->at, "Check as of this instant (RFC 3339 UTC) instead of now");
  v->callback([verify, &exit_code] { exit_code = RunVerify(*verify); });
}

}  // namespace las::cli
