// `maxsim plot` (io/plot.hpp does the drawing).
#pragma once

namespace maxsim {

// maxsim plot TRAJ.csv -o OUT.svg|OUT.png [--columns a,b,..] [--x COL] [--title T]
//             [--width W] [--height H] [--ylabel L]
// argv[1] is "plot". Returns the exit status: 0, or 2 with a message on stderr for bad usage or
// input (missing file, unknown column, empty CSV, non-numeric values, unwritable output).
int plot_main(int argc, const char* const* argv);

}  // namespace maxsim
