#include "cli/flag_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace las::cli {
namespace {

// Every flag whose value is a file or directory. A path is never read as a flag's value by
// mistake when it cannot begin with '-'; one that does is given as ./-x.
constexpr std::array<std::string_view, 13> kPathFlags = {
    "log",      "registry",   "manifest",   "signature", "trust-store", "watermark", "out",
    "out-dir",  "secret-key", "public-key", "cwd",       "workspace",   "snapshot-key"};

bool IsPathFlag(const CLI::Option& option) {
  const std::vector<std::string>& names = option.get_lnames();
  return std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return std::find(kPathFlags.begin(), kPathFlags.end(), name) != kPathFlags.end();
  });
}

// "-", "--", "-n", "--json": what a flag or the separator looks like.
bool LooksLikeFlag(const std::string& value) {
  if (value == "-" || value.starts_with("--")) return true;
  return value.size() == 2 && value[0] == '-' &&
         std::isalpha(static_cast<unsigned char>(value[1])) != 0;
}

// The `--name=value` words of the command line, whose values were joined to their flag.
using JoinedWords = std::shared_ptr<const std::set<std::string>>;

// Whether `value` was given to `option` joined by '=' (under any of its long names).
bool GivenJoined(const CLI::Option& option, const std::string& value, const JoinedWords& joined) {
  const std::vector<std::string>& names = option.get_lnames();
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return joined->contains("--" + name + "=" + value);
  });
}

// CLI11 reads `--name=` (nothing after the '=') as `--name` and gives it the next word:
// `las replay --from= 5` read from event 5 (probe EW4). A value is never taken that way.
std::string AfterEmptyJoined(const std::string& flag, const CLI::Option& option,
                             const std::string& value, const JoinedWords& joined) {
  if (!GivenJoined(option, "", joined) || GivenJoined(option, value, joined)) return "";
  // A flag after it was not meant as the value (probe FJ8: "write --snapshot-key=--log").
  if (LooksLikeFlag(value)) return flag + "= gives no value: write the value right after the '='";
  return "'" + value + "' follows an empty " + flag + "=, which gives no value: write " + flag +
         "=" + value + " or " + flag + " " + value;
}

CLI::Validator PathNotAFlag(std::string flag, const CLI::Option* option, JoinedWords joined) {
  return CLI::Validator(
      [flag = std::move(flag), option, joined](const std::string& path) {
        if (std::string refused = AfterEmptyJoined(flag, *option, path, joined); !refused.empty()) {
          return refused;
        }
        if (!path.starts_with("-") || GivenJoined(*option, path, joined)) return std::string();
        return "'" + path + "' is taken for the path, and a flag or '--' is never one: give " +
               flag + " its path right after it (a path that begins with '-' as ./" + path + " or " +
               flag + "=" + path + ")";
      },
      "");
}

CLI::Validator ValueNotAFlag(std::string flag, const CLI::Option* option, JoinedWords joined) {
  return CLI::Validator(
      [flag = std::move(flag), option, joined](const std::string& value) {
        if (std::string refused = AfterEmptyJoined(flag, *option, value, joined); !refused.empty()) {
          return refused;
        }
        if (!LooksLikeFlag(value) || GivenJoined(*option, value, joined)) return std::string();
        return "'" + value + "' is taken for the value, and a flag or '--' is never one: give " +
               flag + " its value right after it (one that begins with '-' joined by '=': " + flag +
               "=" + value + ")";
      },
      "");
}

// CLI11 reads an on/off flag's `--all=` as `--all`: `las grant x --all=` (an unset
// `--all=$ROOT` in a script) issued a root grant, `las serve --admin=` served the admin
// tools (probe FD1). Nothing after the '=' says neither on nor off, so it is refused.
CLI::Validator SwitchNotEmpty(std::string flag, const CLI::Option* option, JoinedWords joined) {
  return CLI::Validator(
      [flag = std::move(flag), option, joined](const std::string&) {
        if (!GivenJoined(*option, "", joined)) return std::string();
        return "nothing after the '=' says on or off: write " + flag + " alone for on, or leave "
               "it out";
      },
      "");
}

void RefuseFlagsAsValues(CLI::App& app, const JoinedWords& joined) {
  for (CLI::Option* option : app.get_options()) {
    if (!option->nonpositional()) continue;
    const std::string flag = option->get_lnames().empty() ? "-" + option->get_snames().front()
                                                          : "--" + option->get_lnames().front();
    if (option->get_expected_max() == 0) {  // an on/off flag: it takes no word
      option->check(SwitchNotEmpty(flag, option, joined));
    } else {
      option->check(IsPathFlag(*option) ? PathNotAFlag(flag, option, joined)
                                        : ValueNotAFlag(flag, option, joined));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) RefuseFlagsAsValues(*sub, joined);
}

}  // namespace

void RefuseFlagsAsValues(CLI::App& app, const std::vector<std::string>& words) {
  auto joined = std::make_shared<std::set<std::string>>();
  for (const std::string& word : words) {
    if (word.starts_with("--") && word.find('=') != std::string::npos) joined->insert(word);
  }
  RefuseFlagsAsValues(app, joined);
}

}  // namespace las::cli
