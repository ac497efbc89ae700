// Shared pieces of the e2e tests: the SDK driver's step objects and what they answer, the
// `las serve` script the driver runs, `las replay` read back as JSON, and the MCP reference
// server released with the operator tooling. Everything runs the real `las` executable
// (built with the tests) as a child; nothing here is thread-safe beyond what gtest allows
// (EXPECT_* from the calling thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e/sdk_driver.h"
#include "tests/e2e/signed_release.h"
#include "base/unique_fd.h"
#include "tests/support/temp_dir.h"

namespace las::testing {

// Absolute paths: the `las` executable, examples/surfaces/stand_in.py, and the scriptable
// test child tests/transport/children/mcp_child.py.
std::string LasExecutable();
std::string StandInScript();
std::string TestChildScript();

// Copies examples/surfaces/stand_in.py into `release`'s workspace and drafts each of
// `surfaces` from it (`python3 stand_in.py SURFACE`). Returns the copy's path. Drafting
// failures are ADD_FAILUREs (callers check HasFailure()).
std::string AddStandIns(SignedRelease& release, const std::vector<std::string>& surfaces);
// Copies the scriptable test child into the workspace and drafts `surface` from it.
void AddTestChild(SignedRelease& release, const std::string& surface);
// Copies tests/e2e/gate_child.py (tools that wait for a file the test writes) into the
// workspace and drafts `surface` from it.
void AddGateChild(SignedRelease& release, const std::string& surface);
// Makes `dir` a directory only its owner may enter, as `las daemon` wants
// $XDG_RUNTIME_DIR; returns it.
std::string MakePrivateDir(const std::string& dir);
// Adds surface `name`, signed exactly like the already drafted surface `like` but with
// `extra_argv` appended: a child that misbehaves (exits, floods) under a valid signature.
void AddVariantOf(SignedRelease& release, const std::string& like, const std::string& name,
                  const std::vector<std::string>& extra_argv);

// A driver step calling tool `name` with `arguments`.
nlohmann::json CallStep(const std::string& name,
                        nlohmann::json arguments = nlohmann::json::object());
// The first text item of a step's result (throws nlohmann's type_error if there is none).
std::string StepText(const nlohmann::json& step);
// The names of a listTools step's tools.
std::set<std::string> ListedNames(const nlohmann::json& step);

// `base` with every "NAME=value" entry of `entries` set on it (entries win).
nlohmann::json EnvObject(const std::vector<std::string>& entries,
                         nlohmann::json base = nlohmann::json::object());

// The driver script for `las serve --log LOG [--registry REGISTRY] EXTRA...` ("" registry:
// none) under `env`, running `steps`. Callers may add fields (e.g. "clientName").
nlohmann::json ServeScript(const std::string& log, const std::string& registry,
                           const nlohmann::json& env, const nlohmann::json& steps,
                           const std::vector<std::string>& extra_args = {});
// RunSdkClient(ServeScript(...)).
SdkRun RunServe(const std::string& log, const std::string& registry, const nlohmann::json& env,
                const nlohmann::json& steps, const std::vector<std::string>& extra_args = {});

// argv running `las ARGS...` under "NAME=value" `env` through /usr/bin/env (for a raw child).
std::vector<std::string> LasArgvWithEnv(const std::vector<std::string>& env,
                                        const std::vector<std::string>& args);

// `las replay --log LOG FILTER...`, one parsed event (or summary) per line; EXPECTs exit 0.
std::vector<nlohmann::json> ReplayEvents(const std::string& log,
                                         const std::vector<std::string>& filter = {});

// The MCP reference server (@modelcontextprotocol/server-everything) as surface
// "everything", released with `las release keygen` / `draft` / `sign` (sequence 1, 1d) in
// `tmp` (made 0700), with a registry naming it. EXPECTs every command succeeds: callers
// check HasFailure() before going on.
struct EverythingRelease {
  std::string workspace;         // tests/e2e, canonical (where the pinned peers live)
  std::vector<std::string> env;  // "NAME=value": LAS_WORKSPACE, LAS_NODE, the release paths
  std::string registry_path;
};
EverythingRelease ReleaseServerEverything(const TempDir& tmp);

// Flow control tests: waits until `progress` (a writer thread's count of lines sent)
// reaches `goal` or stops moving for half a second (the peer stopped reading and the
// writer blocks), 60 s at most; returns the count then.
int AwaitGoalOrStall(const std::atomic<int>& progress, int goal);
// The same for any measure of progress (a file offset, a byte count).
int64_t AwaitGoalOrStall(const std::function<int64_t()>& progress, int64_t goal);

// The process's peak resident memory (VmHWM), in bytes; -1 if it cannot be read.
int64_t PeakResidentBytes(int pid);

// Probe CS1's burst over an initialized session, for any client (`send` writes one line;
// `read` returns the next answer): makes a handle whose las__handle_read answers are
// ~400 KB, and returns the burst to send in one write — a state set (its event is queued
// in the read's turn), then reads of the handle, whose answers wait for that event, worth
// `marks` times kPauseReadingAboveBytes — with its request ids (from 4); empty after a
// failure.
struct HeldAnswerBurst {
  std::string lines;  // joined by '\n', without the last one
  std::set<int> ids;
};
HeldAnswerBurst PrepareHeldAnswerBurst(const std::function<void(const std::string&)>& send,
                                       const std::function<std::optional<std::string>()>& read,
                                       int marks);
// Reads answers until every id of `expected` came once (in any order, each a result);
// false (and a test failure) if one is missing or an answer is an error.
bool AwaitAnswers(const std::function<std::optional<std::string>()>& read,
                  const std::set<int>& expected);

// The environment entries that make a `las` stand for a disk whose WAL syncs hang while
// `stall_file` exists (tests/support/stall_sync_shim.cc, preloaded). Not under the
// sanitizers, whose runtime must be the first library loaded.
std::vector<std::string> StalledSyncEnvironment(const std::string& stall_file);
inline constexpr char kStalledSyncNeedsPreload[] =
    "LD_PRELOAD of a test library: the sanitizer runtime must come first";

// An operator client that stopped reading (probe BS): connects to the operator socket at
// `operator_path`, says the operator hello and sends `requests` requests (each answered
// with an error: more answers than the socket holds), reading none. The connection stays
// open while the returned descriptor does; -1 (and a test failure) if it cannot connect.
UniqueFd FloodOperatorSocketUnread(const std::string& operator_path, int requests);

}  // namespace las::testing
