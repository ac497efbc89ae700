#include "cli/usage_line.h"

#include <algorithm>
#include <utility>

#include "base/printable_text.h"
#include "cli/command_words.h"

namespace las::cli {
namespace {

// Whether `app` or a command under it (at any depth) takes the flag `flag` ("--log", "-v").
bool TakesFlag(const CLI::App* app, const std::string& flag) {
  for (const CLI::Option* option : app->get_options()) {
    if (option->check_name(flag)) return true;
  }
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (TakesFlag(sub, flag)) return true;
  }
  return false;
}

// The names of `app`'s commands that take `flag` (at any depth); every command for "".
std::string CommandsTaking(const CLI::App* app, const std::string& flag) {
  std::string commands;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (flag.empty() || TakesFlag(sub, flag)) {
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
    }
  }
  return commands;
}

// `words` (from CLI11, none "--" kept) ordered by where each stands on the command line
// before any `--`; a repeated word takes its occurrences from the left, and a word not found
// there (after `--`) keeps its place after the others.
std::vector<std::string> InTheOrderGiven(const std::vector<std::string>& words,
                                         const std::vector<std::string>& command_line) {
  std::vector<std::pair<size_t, std::string>> placed;
  std::vector<bool> taken(command_line.size(), false);
  for (const std::string& word : words) {
    if (word == "--") continue;
    size_t at = command_line.size() + placed.size();
    for (size_t i = 0; i < command_line.size(); ++i) {
      if (!taken[i] && command_line[i] == word) {
        taken[i] = true;
        at = i;
        break;
      }
    }
    placed.emplace_back(at, word);
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ordered;
  for (auto& [at, word] : placed) ordered.push_back(std::move(word));
  return ordered;
}

// Whether `word` stands before `command` on the command line (`las inspect --log X state`).
bool GivenBeforeTheCommand(const std::string& word, const std::string& command,
                           const std::vector<std::string>& command_line) {
  const auto word_at = std::find(command_line.begin(), command_line.end(), word);
  const auto command_at = std::find(command_line.begin(), command_line.end(), command);
  return word_at < command_at && command_at != command_line.end();
}

}  // namespace

std::string UsageLine(const CLI::App* app, const CLI::Error& error, bool separated,
                      const std::vector<std::string>& before_separator) {
  const std::string words = ParsedCommandWords(*app);
  const std::string verb = words.empty() ? "las" : "las " + words;
  const CLI::App* innermost = app;
  for (std::vector<CLI::App*> parsed = app->get_subcommands(); !parsed.empty();
       parsed = parsed.front()->get_subcommands()) {
    innermost = parsed.front();
  }
  std::string what = error.what();
  if (error.get_name() == "RequiredError" && what.find("subcommand") != std::string::npos &&
      !innermost->remaining().empty()) {
    const std::string word = innermost->remaining().front();
    const std::string flag = word.substr(0, word.find('='));
    if (word == "--") {
      what = "name a command before '--' (one of: " + CommandsTaking(innermost, "") + ")";
    } else if (word.starts_with("-") && CommandsTaking(innermost, flag).empty()) {
      // `las --verison`: no command takes it, so naming one would not help (probe DX4).
      what = "unknown option '" + word + "'";
    } else if (word.starts_with("-")) {
      // `las inspect --log X`: the flag belongs to a command not yet named — one of these.
      what = "name a command before '" + word + "' (one of: " + CommandsTaking(innermost, flag) +
             ")";
    } else {
      // `las bogus`: CLI11 says a subcommand is required; the word it did not know is the news.
      what = "unknown command '" + word + "'";
    }
  }
  // `draft --env HOME LANG -- CMD ARGS`: CLI11 takes LANG as the child's command, then
  // names the words after `--` (reversed) as not expected (its error named after the
  // command). The stray word is the news. Only then: with the command rightly after `--`,
  // the extra is an unknown flag (`--bogus -- CMD`), which CLI11's own line names (probe BI5).
  if (const CLI::Option* command = innermost->get_option_no_throw("command");
      dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && command != nullptr &&
      command->count() > 0 &&
      (!separated || std::find(before_separator.begin(), before_separator.end(),
                               command->results().front()) != before_separator.end())) {
    std::string taken;
    for (const std::string& word : command->results()) taken += (taken.empty() ? "" : " ") + word;
    what = separated ? "'" + taken + "' came before '--': the child's command goes after '--', "
                       "and a flag takes one value (--env A --env B)"
                     : "the child's command goes after '--', or las reads its flags: " + what;
  }
  // CLI11 lists the words not expected last first (`sources enable echo --reason x`: "x
  // --reason", probe EW5; words a parent command passed down, `sources --reason x enable`,
  // probe FD3), and with a `--` among them (`draft --bogus -- CMD`: "-- --bogus"): in the
  // order given, without the separator.
  if (const CLI::ExtrasError* extras = dynamic_cast<const CLI::ExtrasError*>(&error);
      extras != nullptr && what.starts_with("The following argument")) {
    std::vector<std::string> left;  // by every command of the chain, the top one's first
    for (const CLI::App* level = innermost; level != nullptr; level = level->get_parent()) {
      const std::vector<std::string> its = level->remaining();
      left.insert(left.begin(), its.begin(), its.end());
    }
    const std::vector<std::string> unexpected = InTheOrderGiven(left, before_separator);
    if (!unexpected.empty()) {
      what = unexpected.size() == 1 ? "The following argument was not expected:"
                                    : "The following arguments were not expected:";
      for (const std::string& word : unexpected) what += " " + word;
      if (unexpected.front().starts_with("-") &&
          GivenBeforeTheCommand(unexpected.front(), innermost->get_name(), before_separator)) {
        what += " (a command's flags go after its name: " + verb + " " + unexpected.front() + " ...)";
      }
    }
  }
  // `las release --surface x draft`: the flag was typed, before the command's name, where no
  // command reads it (probe FJ6).
  if (error.get_name() == "RequiredError" && what.starts_with("--") &&
      what.ends_with(" is required")) {
    const std::string flag = what.substr(0, what.find(' '));
    const auto typed = std::find_if(before_separator.begin(), before_separator.end(),
                                    [&](const std::string& word) {
                                      return word == flag || word.starts_with(flag + "=");
                                    });
    if (typed != before_separator.end() &&
        GivenBeforeTheCommand(*typed, innermost->get_name(), before_separator)) {
      what += " (a command's flags go after its name: " + verb + " " + flag + " ...)";
    }
  }
  // `--from 1 --from 2`: CLI11 says "--from: At Most 1 required but received 2".
  if (const size_t at_most = what.find(": At Most 1 required but received ");
      error.get_name() == "ArgumentMismatch" && at_most != std::string::npos) {
    what = what.substr(0, at_most) + " given more than once; give it once";
  }
  // `--from` (or `--from=`) last: CLI11 says "--from: 1 required UINT:UINT missing", its
  // type names (probe FE2).
  if (const size_t required = what.find(": 1 required ");
      error.get_name() == "ArgumentMismatch" && required != std::string::npos &&
      what.ends_with(" missing")) {
    what = what.substr(0, required) + ": its value is missing";
  }
  // CLI11's own words for a value a choice or an on/off flag does not take: "--durability:
  //  not in {strict,relaxed}" (an empty value shown as nothing), "Could not convert: --lazy =
  // maybe" (probe IZ4).
  if (const size_t not_in = what.find(":  not in {"); not_in != std::string::npos) {
    what = what.substr(0, not_in) + ": \"\" is not one of " + what.substr(not_in + 10);
  } else if (const size_t not_in_value = what.find(" not in {"); not_in_value != std::string::npos &&
             error.get_name() == "ValidationError") {
    const size_t colon = what.find(": ");
    if (colon != std::string::npos && colon < not_in_value) {
      what = what.substr(0, colon) + ": \"" + what.substr(colon + 2, not_in_value - colon - 2) +
             "\" is not one of " + what.substr(not_in_value + 8);
    }
  }
  if (constexpr std::string_view kCouldNot = "Could not convert: "; what.starts_with(kCouldNot)) {
    const size_t equals = what.find(" = ");
    if (equals != std::string::npos) {
      const std::string flag = what.substr(kCouldNot.size(), equals - kCouldNot.size());
      const CLI::Option* option = innermost->get_option_no_throw(flag);
      const bool on_off = option != nullptr && option->get_expected_min() == 0;
      what = flag + ": \"" + what.substr(equals + 3) + "\" is not a value it takes" +
             (on_off ? " (an on/off flag: true or false, 1 or 0, yes or no, on or off)" : "");
    }
  }
  return verb + ": invalid_argument: " + EscapeAndShorten(what) + " (see `" + verb +
         " --help`)\n";
}

}  // namespace las::cli
