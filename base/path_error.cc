#include "base/path_error.h"

#include <cerrno>
#include <cstring>

namespace las {

std::string PathMistake(int err) {
  const std::string system = std::string(" (") + std::strerror(err) + ")";
  switch (err) {
    case ENOTDIR:
      return "a file stands where the path needs a directory; check the path" + system;
    case ELOOP:
      return "the path goes through a loop of symbolic links (or too many of them); check the "
             "links on the way" + system;
    case ENAMETOOLONG:
      return "the path, or a name in it, is longer than the system allows; give a shorter one" +
             system;
    default:
      return "";
  }
}

Status PathErrorStatus(int err, const std::string& subject) {
  if (std::string mistake = PathMistake(err); !mistake.empty()) {
    return InvalidArgument(subject + ": " + mistake);
  }
  const std::string message = subject + ": " + std::strerror(err);
  if (err == ENOENT) return NotFound(message);
  if (err == EACCES || err == EPERM) return Denied(message);
  return IoError(message);
}

}  // namespace las
