// What a prompt exit (an interrupt outside the event loop, sim/cli/interrupt.hpp) must undo, and
// the test-only pause points that let a test interrupt lbsim in a named phase.
//
// Temporaries: write_file_atomic() registers its temporary file from its creation to its rename.
// abandon_writes() unlinks every registered temporary and keeps the registry locked, so that no
// rename can follow: after it a report is either complete under its name or absent. The caller
// then leaves the process (_exit); nothing here runs in a signal handler.
//
// Pause points: with the environment variable LBSIM_PAUSE_AT=PHASE, pause_point(PHASE) prints
// "lbsim: paused at PHASE (LBSIM_PAUSE_AT)" on stderr and sleeps (up to 60 s) before going on.
// The phases: "setup" (each simulation, before its policy and ring are built), "report" (each
// atomic write, after the first half of the file is written). Off the hot path: once per
// simulation or file; the variable is read once.
#pragma once
#include <functional>
#include <string>

namespace lbsim {

// mkstemp(`name`) (a template ending in XXXXXX, replaced by the name made) and the temporary
// registered, both under the registry's lock: returns the descriptor, or -1 with errno.
int make_temporary(std::string& name);
// Runs `rename` (which makes the temporary a complete file) and unregisters `path` atomically with
// respect to abandon_writes().
bool finish_temporary(const std::string& path, const std::function<bool()>& rename);
// Forgets `path` (a failed write that unlinked its temporary itself).
void unregister_temporary(const std::string& path);
// Unlinks every registered temporary and blocks later finish_temporary() calls for good.
void abandon_writes();

// Called by abandon_writes() after the temporaries are gone (e.g. the output folder's lock
// release); one at a time, the last set wins; nullptr clears it.
void set_exit_cleanup(std::function<void()> fn);

void pause_point(const char* phase);

}  // namespace lbsim
