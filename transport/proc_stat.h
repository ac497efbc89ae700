// Fields of a process's /proc/PID/stat line (proc(5)): what Las reads of processes it did
// not start itself or that it must tell apart from a later one with the same pid.
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

// When `pid` started, in clock ticks after boot (field 22): a pid used again by a later
// process reads a later time. nullopt when no process has that pid or it is a zombie
// (it runs no more, though its parent has not reaped it yet).
std::optional<uint64_t> LivingProcessStartTime(pid_t pid);

}  // namespace las::transport
