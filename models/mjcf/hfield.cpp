// <asset><hfield>: a height field from a PNG file (grey levels), MuJoCo's binary format, inline
// `elevation`, or left flat for the program to set (nrow, ncol alone), with MuJoCo 2.2.2's
// semantics (user_objects.cc, mjCHField): the data is normalized to [0, 1], and the first image
// (or elevation) row is the field's +y edge, so it is stored last (Model rows go from -y to +y).
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "models/load_error.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

namespace {

// A PNG as 8-bit grey levels, image row 0 first: MuJoCo's decoder (lodepng to LCT_GREY, 8 bits)
// keeps the high byte of 16-bit samples and the red channel of colour images; so does this. On
// failure returns false with libpng's message.
struct PngReadState {
  char message[256] = "";
};
void png_fail(png_structp png, png_const_charp msg) {
  auto* st = static_cast<PngReadState*>(png_get_error_ptr(png));
  std::snprintf(st->message, sizeof st->message, "%s", msg);
  png_longjmp(png, 1);
}
void png_warn(png_structp, png_const_charp) {}

bool read_png_grey(const std::string& path, long long max_pixels, std::vector<unsigned char>* grey,
                   int* width, int* height, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  unsigned char sig[8] = {};
  if (std::fread(sig, 1, 8, f) != 8 || png_sig_cmp(sig, 0, 8) != 0) {
    std::fclose(f);
    *error = "'" + path + "' is not a PNG file";
    return false;
  }
  PngReadState st;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &st, png_fail, png_warn);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::fclose(f);
    *error = "out of memory reading '" + path + "'";
    return false;
  }
  // (only plain data below setjmp: a longjmp skips destructors; the rows go straight into grey)
  std::vector<unsigned char>& out = *grey;
  std::vector<png_bytep>* rows = new std::vector<png_bytep>();
  unsigned char* volatile rgb = nullptr;  // (volatile: set after setjmp, read after a longjmp)
  volatile bool ok = false;
  if (setjmp(png_jmpbuf(png)) == 0) {
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (w == 0 || h == 0 || static_cast<long long>(w) * h > max_pixels) {
      std::snprintf(st.message, sizeof st.message, "image of %u x %u pixels (at most %lld)", w, h, max_pixels);
    } else {
      png_set_strip_16(png);
      png_set_palette_to_rgb(png);
      png_set_expand_gray_1_2_4_to_8(png);
      png_set_strip_alpha(png);
      png_read_update_info(png, info);
      const int channels = png_get_channels(png, info);
      unsigned char* buffer = static_cast<unsigned char*>(std::malloc(static_cast<size_t>(w) * h * channels));
      rgb = buffer;
      if (buffer) {
        rows->resize(h);
        for (png_uint_32 r = 0; r < h; ++r) (*rows)[r] = buffer + static_cast<size_t>(r) * w * channels;
        png_read_image(png, rows->data());
        out.resize(static_cast<size_t>(w) * h);
        for (size_t i = 0; i < out.size(); ++i) out[i] = buffer[i * channels];  // grey, or red
        *width = static_cast<int>(w);
        *height = static_cast<int>(h);
        ok = true;
      } else {
        std::snprintf(st.message, sizeof st.message, "out of memory");
      }
    }
  }
  std::free(rgb);
  delete rows;
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(f);
  if (!ok) *error = "'" + path + "': " + st.message;
  return ok;
}

}  // namespace

void MjcfReader::read_hfield(const XMLElement* c) {
  HeightField h;
  std::string file = xml_.text(c, "file");
  h.name = xml_.text(c, "name");
  if (h.name.empty() && !file.empty()) {
    const std::string base = file.substr(file.find_last_of('/') + 1);
    h.name = base.substr(0, base.find_last_of('.'));
  }
  if (!h.name.empty() && hfield_names_.count(h.name)) fail(c, "hfield asset '" + h.name + "' defined twice");
  auto size = xml_.numbers(c, "size", 4);
  if (!size) fail(c, "<hfield> needs size=\"radius_x radius_y elevation_z base_z\"");
  for (int i = 0; i < 4; ++i) {
    if (!((*size)[i] > 0) || !std::isfinite((*size)[i]))
      fail(c, "hfield '" + h.name + "': the 4 size values must be positive");
    h.size(i) = (*size)[i];
  }
  const int nrow = xml_.integer(c, "nrow").value_or(0), ncol = xml_.integer(c, "ncol").value_or(0);
  const auto elevation = xml_.numbers(c, "elevation", 1, 1 << 30);
  const long long max_points = options_.limits.mesh_vertices;
  auto too_big = [&](long long n) {
    if (n > max_points)
      xml_.fail_limit(c, "hfield '" + h.name + "' has more than " + std::to_string(max_points) + " points" +
                             limit_hint("mesh_vertices", "mesh-vertices=N"));
  };
  std::vector<double> rows_top_first;  // the file's order: first row at +y
  if (!file.empty()) {
    if (nrow != 0 || ncol != 0 || elevation)
      fail(c, "hfield '" + h.name + "' specified from file and manually (nrow, ncol, elevation)");
    if (strippath_) file = file.substr(file.find_last_of('/') + 1);
    const std::string mdir = !meshdir_.empty() ? meshdir_ : assetdir_;
    const std::string path = file.front() == '/' ? file : parse::join_path(parse::join_path(dir_, mdir), file);
    std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : "";
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (ext == ".png") {
      std::vector<unsigned char> grey;
      std::string error;
      if (!read_png_grey(path, max_points, &grey, &h.ncol, &h.nrow, &error))
        fail(c, "hfield '" + h.name + "': " + error);
      rows_top_first.assign(grey.begin(), grey.end());
    } else {  // MuJoCo's binary format: int32 nrow, int32 ncol, float32 data[nrow * ncol], row-major
      std::ifstream in(path, std::ios::binary);
      if (!in) fail(c, "hfield '" + h.name + "': cannot open '" + path + "'");
      std::int32_t dims[2] = {0, 0};
      if (!in.read(reinterpret_cast<char*>(dims), sizeof dims))
        fail(c, "hfield '" + h.name + "': '" + path + "' has no header (int32 nrow, int32 ncol)");
      if (dims[0] < 1 || dims[1] < 1) fail(c, "hfield '" + h.name + "': non-positive dimensions in '" + path + "'");
      too_big(static_cast<long long>(dims[0]) * dims[1]);
      h.nrow = dims[0];
      h.ncol = dims[1];
      std::vector<float> data(static_cast<size_t>(h.nrow) * h.ncol);
      in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size() * sizeof(float)));
      if (!in || in.peek() != std::char_traits<char>::eof())
        fail(c, "hfield '" + h.name + "': '" + path + "' must hold 8 + 4 * nrow * ncol bytes");
      // (this format is stored as MuJoCo's mjModel holds it: row 0 at -y)
      h.data.assign(data.begin(), data.end());
    }
  } else {
    if (nrow < 1 || ncol < 1)
      fail(c, "hfield '" + h.name + "' needs a file, or nrow and ncol (with elevation, or flat to be set at run time)");
    too_big(static_cast<long long>(nrow) * ncol);
    h.nrow = nrow;
    h.ncol = ncol;
    if (elevation) {
      if (static_cast<long long>(elevation->size()) != static_cast<long long>(nrow) * ncol)
        fail(c, "hfield '" + h.name + "': elevation has " + std::to_string(elevation->size()) +
                    " values, nrow * ncol = " + std::to_string(static_cast<long long>(nrow) * ncol));
      rows_top_first = *elevation;
    } else {
      h.data.assign(static_cast<size_t>(nrow) * ncol, 0.0);
    }
  }
  if (h.nrow < 2 || h.ncol < 2)
    fail(c, "hfield '" + h.name + "' has " + std::to_string(h.nrow) + " x " + std::to_string(h.ncol) +
                " points: at least 2 x 2 make a cell");
  if (!rows_top_first.empty()) {  // image and XML order (first row at +y) to the model's
    h.data.resize(rows_top_first.size());
    for (int r = 0; r < h.nrow; ++r)
      std::copy_n(rows_top_first.begin() + static_cast<long>(r) * h.ncol, h.ncol,
                  h.data.begin() + static_cast<long>(h.nrow - 1 - r) * h.ncol);
  }
  // normalized to [0, 1] (a constant field stays at its offset removed: all 0)
  double lo = h.data.front(), hi = h.data.front();
  for (double v : h.data) {
    if (!std::isfinite(v)) fail(c, "hfield '" + h.name + "': elevation values must be finite");
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  for (double& v : h.data) {
    v -= lo;
    if (hi - lo > 1e-15) v = std::min(1.0, v / (hi - lo));
  }
  hfield_names_[h.name] = static_cast<int>(hfields_.size());
  hfields_.push_back(std::move(h));
}

}  // namespace maxsim::mjcf_detail
