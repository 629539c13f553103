// Ctrl-C and SIGTERM for long commands (run, sweep), at any point of the command:
// - the first signal sets a flag that running simulations poll (they stop within milliseconds);
//   the command then lists the missing runs and exits 130, finished reports kept;
// - when the command has not ended 0.5 s later (the signal came during set-up, while a report was
//   written, while the output was printed: code that polls no flag), a watchdog thread ends it:
//   the temporaries of unfinished atomic writes are removed (a report is complete under its name
//   or absent), the output folder's lock released, a line says so, exit 130;
// - a second signal ends it the same way at once.
// The handler itself only sets the flag and wakes the watchdog (a byte in a pipe).
#pragma once
#include <atomic>
#include <string>

namespace lbsim::cli {

const std::atomic<bool>& install_interrupt_handler();

// What the watchdog's line names: the command and its output folder (once chosen).
void set_interrupt_context(const std::string& command, const std::string& out_dir);
// The command has told the user what an interrupt left (its missing runs): the watchdog, if it
// must still end the process, adds no line.
void interrupt_reported();

inline constexpr int kInterruptedExit = 130;
inline constexpr int kInterruptGraceMs = 500;

}  // namespace lbsim::cli
