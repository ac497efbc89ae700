#include "base/home_directory.h"

#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace las {

std::string HomeDirectory(std::string_view home_variable) {
  if (!home_variable.empty() && home_variable.front() == '/') return std::string(home_variable);
  const long suggested = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(suggested > 0 ? static_cast<size_t>(suggested) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && found->pw_dir != nullptr && found->pw_dir[0] == '/') {
    return found->pw_dir;
  }
  return "";
}

}  // namespace las
