#include "base/note.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace las {
namespace {
std::string& Name() {
  static auto* name = new std::string("las");
  return *name;
}
}  // namespace

void SetNoteName(std::string name) { Name() = std::move(name); }
std::string NoteName() { return Name(); }

void Note(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list measure;
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  if (length < 0) {
    va_end(args);
    return;
  }
  std::string line = Name() + ": ";
  const size_t prefix = line.size();
  line.resize(prefix + static_cast<size_t>(length) + 1);
  std::vsnprintf(line.data() + prefix, static_cast<size_t>(length) + 1, format, args);
  va_end(args);
  line.pop_back();  // vsnprintf's terminating NUL
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace las
