// The error of the output library (io/): a file that cannot be read or written, a table that does
// not fit its model, a plot without data. The message names the file, line or column. The
// `maxsim` command reports it with exit status 2 (bad input), as the Python module will with an
// exception.
#pragma once

#include <stdexcept>

namespace maxsim::io {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace maxsim::io
