// What a Las that died without ending them left running: the processes its children
// started outside their process groups (setsid, a double fork). A Las that ends normally
// ends them itself (ReapAdoptedOrphans); one killed with SIGKILL cannot, and its children's
// parent-death signal reaches only the children (probe KE1: after a kill -9 and a restart,
// a surface's `setsid` helper ran on under init).
//
// EndLeftoversOfEndedSpawners finds them by LAS_SPAWN_ID (spawn_id.h): a process of this
// user (same real uid) whose every named spawner is gone — no process has that pid any
// more, or the one that has it started after this process did (the pid was used again) —
// gets SIGKILL. A process one of whose spawners still runs is that Las's to end; one whose
// environment cannot be read, or that carries no LAS_SPAWN_ID, is left alone, and so is one
// of the same spawn as this process (the first part of its own inherited LAS_SPAWN_ID: a
// Las started from a shell a dead Las's surface opened ends neither that shell nor its
// siblings). Zombies are not counted.
//
// Called once at the start of a server (`las serve`, `las daemon`, `las list`): which
// log the dead Las served is not known, so a start on any log ends the leftovers of every
// dead Las of this user.
//
// Thread safety: reads /proc; call it before spawning children of one's own.
#pragma once

#include <cstddef>

namespace las::transport {

// Sends SIGKILL to each such process; returns how many were sent it.
size_t EndLeftoversOfEndedSpawners();

}  // namespace las::transport
