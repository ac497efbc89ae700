#include "cli/command_words.h"

#include <CLI/CLI.hpp>
#include <vector>

#include "base/note.h"

namespace las::cli {
namespace {
std::string& Words() {
  static std::string words;
  return words;
}
}  // namespace

std::string ParsedCommandWords(const CLI::App& root) {
  std::string words;
  for (std::vector<CLI::App*> parsed = root.get_subcommands(); !parsed.empty();
       parsed = parsed.front()->get_subcommands()) {
    words += (words.empty() ? "" : " ") + parsed.front()->get_name();
  }
  return words;
}

void SetCommandWords(std::string words) {
  SetNoteName(words.empty() ? "las" : "las " + words);
  Words() = std::move(words);
}

const char* CommandWords() { return Words().c_str(); }

}  // namespace las::cli
