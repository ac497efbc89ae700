// Fields of a process's /proc/PID/stat line (proc(5)).
//
// Thread safety: free functions; each read opens the file anew.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace las::transport {

// Field `number` (numbered from 1 as in proc(5); 3, STATE, onwards) of a stat text, as a
// number; nullopt when absent or not a number. COMM (field 2) may hold anything, spaces
// and ')' included, so fields are counted from its last ')'.
std::optional<uint64_t> ProcStatNumber(std::string_view stat, int number);

// The FLAGS field (9) of a stat text: for ChildProcess::IsExiting.
std::optional<unsigned long> ProcStatFlags(std::string_view stat);

// The whole stat line of `pid`, or nullopt once the process is gone (or was never there).
std::optional<std::string> ReadProcStat(pid_t pid);

}  // namespace las::transport
