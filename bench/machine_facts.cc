#include "bench/machine_facts.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace las::bench {
namespace {

std::string Trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t");
  const auto end = s.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? std::string() : s.substr(begin, end - begin + 1);
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return Trim(line.substr(colon + 1));
    }
  }
  return "?";
}

std::string Kernel() {
  utsname u{};
  if (::uname(&u) != 0) return "?";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string FsTypeName(unsigned long magic) {
  switch (magic) {
    case 0xEF53: return "ext2/3/4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x858458F6: return "ramfs";
    case 0x794C7630: return "overlayfs";
    case 0x2FC12FC1: return "zfs";
    case 0xF2F52010: return "f2fs";
    case 0x6969: return "nfs";
    default: break;
  }
  std::ostringstream out;
  out << "magic 0x" << std::hex << magic;
  return out.str();
}

// True if mount point `mnt` contains `path` (component-wise prefix).
bool Contains(const std::string& mnt, const std::string& path) {
  if (mnt == "/") return true;
  if (path.rfind(mnt, 0) != 0) return false;
  return path.size() == mnt.size() || path[mnt.size()] == '/';
}

// From /proc/self/mountinfo: the mount that holds `path` (the longest containing mount).
void ReadMount(const std::string& path, MachineFacts& facts) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  size_t best = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    std::string word;
    while (fields >> word) f.push_back(word);
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "-") {
        dash = i;
        break;
      }
    }
    if (f.size() < 6 || dash == 0 || dash + 2 >= f.size()) continue;
    const std::string& mount_point = f[4];
    if (!Contains(mount_point, path) || mount_point.size() < best) continue;
    best = mount_point.size();
    facts.filesystem = f[dash + 1];
    facts.mount = f[dash + 2] + " on " + mount_point + " (" + f[5] + ")";
  }
}

std::string Rotational(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "?";
  const std::string base = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                           std::to_string(minor(st.st_dev));
  for (const char* rel : {"/queue/rotational", "/../queue/rotational"}) {
    std::ifstream in(base + rel);
    int value = -1;
    if (in >> value) return value == 0 ? "non-rotational (SSD/virtual)" : "rotational (HDD)";
  }
  return "?";
}

}  // namespace

MachineFacts ReadMachineFacts(const std::string& dir) {
  MachineFacts facts;
  facts.online_cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  facts.cpu_model = CpuModel();
  facts.kernel = Kernel();
  std::error_code ec;
  const std::string path = std::filesystem::canonical(dir, ec).string();
  struct statfs sf {};
  if (::statfs(dir.c_str(), &sf) == 0) {
    const auto magic = static_cast<unsigned long>(sf.f_type);
    facts.filesystem = FsTypeName(magic);
    facts.sync_is_noop = magic == 0x01021994 || magic == 0x858458F6;
  } else {
    facts.filesystem = "?";
  }
  facts.mount = "?";
  if (!ec) ReadMount(path, facts);
  facts.device_rotational = Rotational(dir);
  return facts;
}

}  // namespace las::bench
