// A path flag given an empty value. Left out, such a flag has a default (a built-in file,
// an environment variable's file, the current directory) or is simply not used; given as
// "", it names no file. That is a usage error (exit 2) rather than the default an empty
// variable in a script would otherwise silently pick: `las release verify --manifest
// "$NEW"` with $NEW unset must not check the live release (probes AE9, AV1).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace las::cli {

// Refuses "" with "the path is empty", followed by `; <what_to_do>` when given.
inline CLI::Validator NonEmptyPath(std::string what_to_do = {}) {
  return CLI::Validator(
      [what_to_do = std::move(what_to_do)](const std::string& path) {
        if (!path.empty()) return std::string();
        return "the path is empty" + (what_to_do.empty() ? std::string() : "; " + what_to_do);
      },
      "PATH");
}

// NonEmptyPath for a flag whose default is `variable`'s file.
inline CLI::Validator NonEmptyPathOr(const char* variable) {
  return NonEmptyPath(std::string("leave the flag out to use ") + variable);
}

// The --log flag of the verbs that use a log: its default shown in --help, "" refused.
inline CLI::Option* AddLogFlag(CLI::App& cmd, std::string& log_dir) {
  return cmd.add_option("--log", log_dir, "Log directory")
      ->capture_default_str()
      ->check(NonEmptyPath("leave the flag out for the default log directory"));
}

// The four release files of the verbs that check a release (`las check`, `las release
// verify`), each defaulting to its variable's file (cli/release_settings.h).
inline void AddReleaseFileFlags(CLI::App& cmd, std::string& manifest, std::string& signature,
                                std::string& trust_store, std::string& watermark,
                                const std::string& watermark_help) {
  cmd.add_option("--manifest", manifest, "Manifest (default: LAS_RELEASE_MANIFEST)")
      ->check(NonEmptyPathOr("LAS_RELEASE_MANIFEST"));
  cmd.add_option("--signature", signature, "Signature file (default: LAS_RELEASE_SIGNATURE)")
      ->check(NonEmptyPathOr("LAS_RELEASE_SIGNATURE"));
  cmd.add_option("--trust-store", trust_store, "Trust store (default: LAS_TRUST_STORE)")
      ->check(NonEmptyPathOr("LAS_TRUST_STORE"));
  cmd.add_option("--watermark", watermark, watermark_help)
      ->check(NonEmptyPathOr("LAS_RELEASE_WATERMARK"));
}

}  // namespace las::cli
