// The facts about the machine and the disk that a benchmark result depends on, read from
// /proc, /sys and statfs. Best effort: a fact that cannot be read is reported as "?".
#pragma once

#include <string>

namespace las::bench {

struct MachineFacts {
  long online_cpus = 0;
  std::string cpu_model;
  std::string kernel;           // "Linux 6.1.0-18-amd64 x86_64"
  std::string filesystem;       // of the benchmark directory: "ext4"
  std::string mount;            // "/dev/vda on / (rw,relatime)"
  std::string device_rotational;  // "ssd" / "rotational" / "?"
  bool sync_is_noop = false;    // tmpfs/ramfs: fdatasync proves nothing there
};

MachineFacts ReadMachineFacts(const std::string& dir);

}  // namespace las::bench
