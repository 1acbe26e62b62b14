#include "io/plot.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

namespace maxsim::io {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Tableau 10: distinguishable, colour-blind friendly enough for a handful of lines.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string series_color(const Plot& p, size_t i) {
  if (!p.series[i].color.empty()) return p.series[i].color;
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---- ticks ----------------------------------------------------------------------------------------
// A "nice" spacing (1, 2, 2.5 or 5 × 10^k) giving about `target` intervals over `span`.
double nice_step(double span, int target) {
  if (!(span > 0) || !std::isfinite(span)) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double nice = f < 1.5 ? 1 : f < 2.25 ? 2 : f < 3.5 ? 2.5 : f < 7.5 ? 5 : 10;
  return nice * mag;
}

std::vector<double> ticks_in(double lo, double hi, double step) {
  std::vector<double> t;
  const double eps = step * 1e-9;
  for (double k = std::ceil((lo - eps) / step); k * step <= hi + eps && t.size() < 100; k += 1) {
    double v = k * step;
    if (std::abs(v) < eps) v = 0;  // no "-0"
    t.push_back(v);
  }
  return t;
}

// Data range of all series (finite points only); {NaN, NaN} when there is none.
std::pair<double, double> data_range(const Plot& p, bool x) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const PlotSeries& s : p.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      const double v = x ? s.x[i] : s.y[i];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo > hi) return {kNaN, kNaN};
  return {lo, hi};
}

// A range that is not empty: a constant value v gets v ± max(|v|/10, 1) (or ± 1 around 0).
void widen_degenerate(double* lo, double* hi) {
  if (!std::isfinite(*lo) || !std::isfinite(*hi)) {
    *lo = 0, *hi = 1;
    return;
  }
  if (*hi - *lo > 1e-12 * std::max(std::abs(*lo), std::abs(*hi))) return;
  const double pad = *lo == 0 ? 1 : std::abs(*lo) * 0.1;
  *lo -= pad;
  *hi += pad;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // control characters are not allowed in XML 1.0
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') out += ' ';
        else out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  // trim "12.50" -> "12.5", "12.00" -> "12"
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

// Points of one series in pixels, split at gaps. Long series keep, per pixel column, the first,
// lowest, highest and last point (the drawn line looks the same, the file stays small).
std::vector<std::vector<std::array<double, 2>>> pixel_runs(const PlotSeries& s, const PlotLayout& L) {
  std::vector<std::vector<std::array<double, 2>>> runs;
  const double sx = (L.right - L.left) / (L.x_max - L.x_min);
  const double sy = (L.bottom - L.top) / (L.y_max - L.y_min);
  const size_t n = std::min(s.x.size(), s.y.size());
  std::vector<std::array<double, 2>> run;
  auto flush = [&] {
    if (!run.empty()) runs.push_back(std::move(run));
    run.clear();
  };
  const bool thin = n > static_cast<size_t>(4 * (L.right - L.left + 1));
  long column = std::numeric_limits<long>::min();
  std::array<double, 2> first{}, lo{}, hi{}, last{};
  int in_column = 0;
  auto emit_column = [&] {
    if (in_column == 0) return;
    std::array<std::array<double, 2>, 4> pts = {first, lo, hi, last};
    if (lo[0] > hi[0]) std::swap(pts[1], pts[2]);  // keep x order
    for (const auto& p : pts)
      if (run.empty() || run.back() != p) run.push_back(p);
    in_column = 0;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
      if (thin) emit_column();
      flush();
      continue;
    }
    // clamp far-away points so that huge values do not make huge coordinates
    const double px = std::clamp(L.left + (s.x[i] - L.x_min) * sx, -1e5, 1e5);
    const double py = std::clamp(L.bottom - (s.y[i] - L.y_min) * sy, -1e5, 1e5);
    const std::array<double, 2> p{px, py};
    if (!thin) {
      run.push_back(p);
      continue;
    }
    const long c = std::lround(std::floor(px));
    if (c != column || in_column == 0) {
      emit_column();
      column = c;
      first = lo = hi = last = p;
      in_column = 1;
    } else {
      if (p[1] > lo[1]) lo = p;  // pixel y grows downwards: "lo" is the lowest value
      if (p[1] < hi[1]) hi = p;
      last = p;
      ++in_column;
    }
  }
  if (thin) emit_column();
  flush();
  return runs;
}

// ---- the 5x7 font ----------------------------------------------------------------------------------
// Printable ASCII 32..126; five columns per glyph, bit 0 = top row.
constexpr std::uint8_t kFont[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5F, 0x00, 0x00}, {0x00, 0x07, 0x00, 0x07, 0x00},
    {0x14, 0x7F, 0x14, 0x7F, 0x14}, {0x24, 0x2A, 0x7F, 0x2A, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62},
    {0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00}, {0x00, 0x1C, 0x22, 0x41, 0x00},
    {0x00, 0x41, 0x22, 0x1C, 0x00}, {0x08, 0x2A, 0x1C, 0x2A, 0x08}, {0x08, 0x08, 0x3E, 0x08, 0x08},
    {0x00, 0x50, 0x30, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08}, {0x00, 0x60, 0x60, 0x00, 0x00},
    {0x20, 0x10, 0x08, 0x04, 0x02}, {0x3E, 0x51, 0x49, 0x45, 0x3E}, {0x00, 0x42, 0x7F, 0x40, 0x00},
    {0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4B, 0x31}, {0x18, 0x14, 0x12, 0x7F, 0x10},
    {0x27, 0x45, 0x45, 0x45, 0x39}, {0x3C, 0x4A, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03},
    {0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1E}, {0x00, 0x36, 0x36, 0x00, 0x00},
    {0x00, 0x56, 0x36, 0x00, 0x00}, {0x08, 0x14, 0x22, 0x41, 0x00}, {0x14, 0x14, 0x14, 0x14, 0x14},
    {0x00, 0x41, 0x22, 0x14, 0x08}, {0x02, 0x01, 0x51, 0x09, 0x06}, {0x32, 0x49, 0x79, 0x41, 0x3E},
    {0x7E, 0x11, 0x11, 0x11, 0x7E}, {0x7F, 0x49, 0x49, 0x49, 0x36}, {0x3E, 0x41, 0x41, 0x41, 0x22},
    {0x7F, 0x41, 0x41, 0x22, 0x1C}, {0x7F, 0x49, 0x49, 0x49, 0x41}, {0x7F, 0x09, 0x09, 0x09, 0x01},
    {0x3E, 0x41, 0x49, 0x49, 0x7A}, {0x7F, 0x08, 0x08, 0x08, 0x7F}, {0x00, 0x41, 0x7F, 0x41, 0x00},
    {0x20, 0x40, 0x41, 0x3F, 0x01}, {0x7F, 0x08, 0x14, 0x22, 0x41}, {0x7F, 0x40, 0x40, 0x40, 0x40},
    {0x7F, 0x02, 0x0C, 0x02, 0x7F}, {0x7F, 0x04, 0x08, 0x10, 0x7F}, {0x3E, 0x41, 0x41, 0x41, 0x3E},
    {0x7F, 0x09, 0x09, 0x09, 0x06}, {0x3E, 0x41, 0x51, 0x21, 0x5E}, {0x7F, 0x09, 0x19, 0x29, 0x46},
    {0x46, 0x49, 0x49, 0x49, 0x31}, {0x01, 0x01, 0x7F, 0x01, 0x01}, {0x3F, 0x40, 0x40, 0x40, 0x3F},
    {0x1F, 0x20, 0x40, 0x20, 0x1F}, {0x3F, 0x40, 0x38, 0x40, 0x3F}, {0x63, 0x14, 0x08, 0x14, 0x63},
    {0x07, 0x08, 0x70, 0x08, 0x07}, {0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x7F, 0x41, 0x41, 0x00},
    {0x02, 0x04, 0x08, 0x10, 0x20}, {0x00, 0x41, 0x41, 0x7F, 0x00}, {0x04, 0x02, 0x01, 0x02, 0x04},
    {0x40, 0x40, 0x40, 0x40, 0x40}, {0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78},
    {0x7F, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20}, {0x38, 0x44, 0x44, 0x48, 0x7F},
    {0x38, 0x54, 0x54, 0x54, 0x18}, {0x08, 0x7E, 0x09, 0x01, 0x02}, {0x0C, 0x52, 0x52, 0x52, 0x3E},
    {0x7F, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7D, 0x40, 0x00}, {0x20, 0x40, 0x44, 0x3D, 0x00},
    {0x7F, 0x10, 0x28, 0x44, 0x00}, {0x00, 0x41, 0x7F, 0x40, 0x00}, {0x7C, 0x04, 0x18, 0x04, 0x78},
    {0x7C, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38}, {0x7C, 0x14, 0x14, 0x14, 0x08},
    {0x08, 0x14, 0x14, 0x18, 0x7C}, {0x7C, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20},
    {0x04, 0x3F, 0x44, 0x40, 0x20}, {0x3C, 0x40, 0x40, 0x20, 0x7C}, {0x1C, 0x20, 0x40, 0x20, 0x1C},
    {0x3C, 0x40, 0x30, 0x40, 0x3C}, {0x44, 0x28, 0x10, 0x28, 0x44}, {0x0C, 0x50, 0x50, 0x50, 0x3C},
    {0x44, 0x64, 0x54, 0x4C, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00}, {0x00, 0x00, 0x7F, 0x00, 0x00},
    {0x00, 0x41, 0x36, 0x08, 0x00}, {0x08, 0x04, 0x08, 0x10, 0x08},
};

constexpr int kGlyphScale = 2;                       // PNG text: the 5x7 font drawn at 2x
constexpr int kPngCharWidth = 6 * kGlyphScale;       // advance per character
constexpr int kPngCharHeight = 7 * kGlyphScale;

// ---- raster canvas ---------------------------------------------------------------------------------
struct Rgb {
  double r = 0, g = 0, b = 0;
};

Rgb parse_color(const std::string& hex) {
  Rgb c{0.2, 0.2, 0.2};
  if (hex.size() == 7 && hex[0] == '#') {
    unsigned v = 0;
    if (std::from_chars(hex.data() + 1, hex.data() + 7, v, 16).ec == std::errc()) {
      c.r = ((v >> 16) & 255) / 255.0;
      c.g = ((v >> 8) & 255) / 255.0;
      c.b = (v & 255) / 255.0;
    }
  }
  return c;
}

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w) * h * 3, 1.0), cov_(static_cast<size_t>(w) * h, 0.0f) {}

  void blend(int x, int y, const Rgb& c, double a) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_ || a <= 0) return;
    a = std::min(a, 1.0);
    double* p = &px_[(static_cast<size_t>(y) * w_ + x) * 3];
    p[0] += (c.r - p[0]) * a;
    p[1] += (c.g - p[1]) * a;
    p[2] += (c.b - p[2]) * a;
  }

  void fill_rect(double x0, double y0, double x1, double y1, const Rgb& c) {
    for (int y = std::max(0, static_cast<int>(std::floor(y0))); y < std::min(h_, static_cast<int>(std::ceil(y1))); ++y)
      for (int x = std::max(0, static_cast<int>(std::floor(x0))); x < std::min(w_, static_cast<int>(std::ceil(x1))); ++x) {
        const double cx = std::min(x + 1.0, x1) - std::max<double>(x, x0);
        const double cy = std::min(y + 1.0, y1) - std::max<double>(y, y0);
        blend(x, y, c, cx * cy);
      }
  }

  // An anti-aliased polyline of the given width, clipped to [cx0, cx1] x [cy0, cy1]. Coverage is
  // accumulated as a maximum first, so joints between segments are not drawn twice.
  void polyline(const std::vector<std::array<double, 2>>& pts, double width, const Rgb& c, int cx0, int cy0,
                int cx1, int cy1) {
    if (pts.empty()) return;
    const double hw = width / 2;
    int bx0 = cx1, by0 = cy1, bx1 = cx0, by1 = cy0;
    auto segment = [&](const std::array<double, 2>& a, const std::array<double, 2>& b) {
      const int x0 = std::max(cx0, static_cast<int>(std::floor(std::min(a[0], b[0]) - hw - 1)));
      const int x1 = std::min(cx1, static_cast<int>(std::ceil(std::max(a[0], b[0]) + hw + 1)));
      const int y0 = std::max(cy0, static_cast<int>(std::floor(std::min(a[1], b[1]) - hw - 1)));
      const int y1 = std::min(cy1, static_cast<int>(std::ceil(std::max(a[1], b[1]) + hw + 1)));
      const double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
          const double px = x + 0.5 - a[0], py = y + 0.5 - a[1];
          const double t = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0, 1.0) : 0.0;
          const double ex = px - t * dx, ey = py - t * dy;
          const double cov = std::clamp(hw + 0.5 - std::sqrt(ex * ex + ey * ey), 0.0, 1.0);
          float& slot = cov_[static_cast<size_t>(y) * w_ + x];
          if (cov > slot) slot = static_cast<float>(cov);
        }
      bx0 = std::min(bx0, x0), by0 = std::min(by0, y0), bx1 = std::max(bx1, x1), by1 = std::max(by1, y1);
    };
    if (pts.size() == 1) segment(pts[0], pts[0]);
    for (size_t i = 1; i < pts.size(); ++i) segment(pts[i - 1], pts[i]);
    for (int y = by0; y < by1; ++y)
      for (int x = bx0; x < bx1; ++x) {
        float& slot = cov_[static_cast<size_t>(y) * w_ + x];
        if (slot > 0) blend(x, y, c, slot);
        slot = 0;
      }
  }

  // Text with the built-in font; (x, y) is the top-left corner; vertical text runs upwards with
  // (x, y) its bottom-left corner.
  void text(double x, double y, std::string_view s, const Rgb& c, bool vertical = false, bool bold = false) {
    int pen = 0;
    for (char ch : s) {
      const unsigned char u = static_cast<unsigned char>(ch);
      const std::uint8_t* glyph = kFont[(u >= 32 && u < 127) ? u - 32 : '?' - 32];
      for (int col = 0; col < 5; ++col)
        for (int row = 0; row < 7; ++row) {
          if (!(glyph[col] & (1u << row))) continue;
          for (int b = 0; b <= (bold ? 1 : 0); ++b) {
            const double gx = pen + col * kGlyphScale + b, gy = row * kGlyphScale;
            if (!vertical)
              fill_rect(x + gx, y + gy, x + gx + kGlyphScale, y + gy + kGlyphScale, c);
            else
              fill_rect(x + gy, y - gx - kGlyphScale, x + gy + kGlyphScale, y - gx, c);
          }
        }
      pen += kPngCharWidth;
    }
  }

  std::vector<std::uint8_t> png() const;

 private:
  int w_, h_;
  std::vector<double> px_;   // RGB in [0, 1]
  std::vector<float> cov_;   // per-polyline coverage scratch
};

void put_be32(std::vector<std::uint8_t>* out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<std::uint8_t>(v >> s));
}

void png_chunk(std::vector<std::uint8_t>* out, const char type[4], const std::vector<std::uint8_t>& data) {
  put_be32(out, static_cast<std::uint32_t>(data.size()));
  const size_t start = out->size();
  out->insert(out->end(), type, type + 4);
  out->insert(out->end(), data.begin(), data.end());
  const uLong crc = crc32(0L, out->data() + start, static_cast<uInt>(out->size() - start));
  put_be32(out, static_cast<std::uint32_t>(crc));
}

std::vector<std::uint8_t> Canvas::png() const {
  // scanlines: filter byte 0 (none) then RGB
  std::vector<std::uint8_t> raw;
  raw.reserve(static_cast<size_t>(h_) * (w_ * 3 + 1));
  for (int y = 0; y < h_; ++y) {
    raw.push_back(0);
    for (int x = 0; x < w_ * 3; ++x)
      raw.push_back(static_cast<std::uint8_t>(std::lround(std::clamp(px_[static_cast<size_t>(y) * w_ * 3 + x], 0.0, 1.0) * 255)));
  }
  uLongf zlen = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> z(zlen);
  if (compress2(z.data(), &zlen, raw.data(), static_cast<uLong>(raw.size()), 9) != Z_OK)
    throw Error("PNG: zlib compression failed");
  z.resize(zlen);
  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> ihdr;
  put_be32(&ihdr, static_cast<std::uint32_t>(w_));
  put_be32(&ihdr, static_cast<std::uint32_t>(h_));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bit, RGB, deflate, adaptive filters, no interlace
  png_chunk(&out, "IHDR", ihdr);
  png_chunk(&out, "IDAT", z);
  png_chunk(&out, "IEND", {});
  return out;
}

void check_plot(const Plot& p) {
  if (p.width < 200 || p.height < 150 || p.width > 10000 || p.height > 10000)
    throw Error("plot size " + std::to_string(p.width) + "x" + std::to_string(p.height) +
                    " is out of range (200x150 to 10000x10000)");
  for (const PlotSeries& s : p.series)
    if (s.x.size() != s.y.size())
      throw Error("series '" + s.label + "' has " + std::to_string(s.x.size()) + " x values and " +
                      std::to_string(s.y.size()) + " y values");
}

}  // namespace

// ---- layout -----------------------------------------------------------------------------------------
std::string tick_label(double value, double step) {
  char buf[48];
  const double a = std::max(std::abs(value), step);
  if (a >= 1e6 || (a < 1e-3 && a > 0)) {
    // exponent form with as many digits as the step needs
    const int digits = std::clamp(static_cast<int>(std::ceil(std::log10(a / step) - 1e-9)) + 1, 1, 15);
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
  } else {
    const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
    // 2.5 x 10^k steps need one more decimal than 10^k
    const double scaled = step * std::pow(10.0, decimals);
    const int extra = std::abs(scaled - std::round(scaled)) > 1e-6 ? 1 : 0;
    std::snprintf(buf, sizeof buf, "%.*f", decimals + extra, value);
  }
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // "-0.0" -> "0.0"
  return s;
}

PlotLayout plot_layout(const Plot& p, double cw) {
  PlotLayout L;
  auto [x0, x1] = data_range(p, true);
  auto [y0, y1] = data_range(p, false);
  if (p.x_min) x0 = *p.x_min;
  if (p.x_max) x1 = *p.x_max;
  if (p.y_min) y0 = *p.y_min;
  if (p.y_max) y1 = *p.y_max;
  widen_degenerate(&x0, &x1);
  widen_degenerate(&y0, &y1);
  L.y_step = nice_step(y1 - y0, 6);
  if (!p.y_min) y0 = std::floor(y0 / L.y_step + 1e-9) * L.y_step;
  if (!p.y_max) y1 = std::ceil(y1 / L.y_step - 1e-9) * L.y_step;
  if (y1 <= y0) y1 = y0 + L.y_step;
  L.x_min = x0, L.x_max = x1, L.y_min = y0, L.y_max = y1;
  L.y_ticks = ticks_in(y0, y1, L.y_step);

  size_t ylabel_chars = 1;
  for (double t : L.y_ticks) ylabel_chars = std::max(ylabel_chars, tick_label(t, L.y_step).size());
  size_t legend_chars = 0;
  for (const PlotSeries& s : p.series) legend_chars = std::max(legend_chars, s.label.size());
  legend_chars = std::min<size_t>(legend_chars, 40);
  const int legend_w = p.series.empty() ? 0 : static_cast<int>(legend_chars * cw) + 44;

  L.left = static_cast<int>(ylabel_chars * cw) + 18 + (p.y_label.empty() ? 0 : 24);
  L.right = p.width - 16 - legend_w;
  L.top = p.title.empty() ? 16 : 40;
  L.bottom = p.height - 34 - (p.x_label.empty() ? 0 : 20);
  if (L.right - L.left < 60) L.right = L.left + 60;  // a very long legend squeezes, never inverts
  L.legend_x = L.right + 12;

  // x ticks: about one per 90 pixels, fewer when the labels are wide
  const int px = L.right - L.left;
  int target = std::max(2, px / 90);
  for (int attempt = 0; attempt < 4; ++attempt) {
    L.x_step = nice_step(x1 - x0, target);
    L.x_ticks = ticks_in(x0, x1, L.x_step);
    size_t w = 1;
    for (double t : L.x_ticks) w = std::max(w, tick_label(t, L.x_step).size());
    if (L.x_ticks.size() < 2 || (w + 2) * cw * L.x_ticks.size() <= px) break;
    target = std::max(1, target / 2);
  }
  return L;
}

// ---- SVG ---------------------------------------------------------------------------------------------
std::string plot_svg(const Plot& p) {
  check_plot(p);
  const PlotLayout L = plot_layout(p, 7.2);
  std::ostringstream o;
  const double sx = (L.right - L.left) / (L.x_max - L.x_min), sy = (L.bottom - L.top) / (L.y_max - L.y_min);
  auto X = [&](double v) { return L.left + (v - L.x_min) * sx; };
  auto Y = [&](double v) { return L.bottom - (v - L.y_min) * sy; };
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << p.width << "\" height=\"" << p.height
    << "\" viewBox=\"0 0 " << p.width << ' ' << p.height << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  o << "<title>" << xml_escape(p.title.empty() ? "maxsim plot" : p.title) << "</title>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "<defs><clipPath id=\"plot-area\"><rect x=\"" << L.left << "\" y=\"" << L.top << "\" width=\""
    << L.right - L.left << "\" height=\"" << L.bottom - L.top << "\"/></clipPath></defs>\n";
  // grid and ticks
  o << "<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double t : L.x_ticks)
    o << "<line x1=\"" << num(X(t)) << "\" y1=\"" << L.top << "\" x2=\"" << num(X(t)) << "\" y2=\"" << L.bottom << "\"/>\n";
  for (double t : L.y_ticks)
    o << "<line x1=\"" << L.left << "\" y1=\"" << num(Y(t)) << "\" x2=\"" << L.right << "\" y2=\"" << num(Y(t)) << "\"/>\n";
  o << "</g>\n";
  o << "<g class=\"x-ticks\" text-anchor=\"middle\" fill=\"#333333\">\n";
  for (double t : L.x_ticks)
    o << "<line x1=\"" << num(X(t)) << "\" y1=\"" << L.bottom << "\" x2=\"" << num(X(t)) << "\" y2=\"" << L.bottom + 5
      << "\" stroke=\"#333333\"/><text x=\"" << num(X(t)) << "\" y=\"" << L.bottom + 18 << "\">"
      << xml_escape(tick_label(t, L.x_step)) << "</text>\n";
  o << "</g>\n";
  o << "<g class=\"y-ticks\" text-anchor=\"end\" fill=\"#333333\">\n";
  for (double t : L.y_ticks)
    o << "<line x1=\"" << L.left - 5 << "\" y1=\"" << num(Y(t)) << "\" x2=\"" << L.left << "\" y2=\"" << num(Y(t))
      << "\" stroke=\"#333333\"/><text x=\"" << L.left - 8 << "\" y=\"" << num(Y(t) + 4) << "\">"
      << xml_escape(tick_label(t, L.y_step)) << "</text>\n";
  o << "</g>\n";
  // series
  for (size_t i = 0; i < p.series.size(); ++i) {
    o << "<g class=\"series\" clip-path=\"url(#plot-area)\" fill=\"none\" stroke=\"" << xml_escape(series_color(p, i))
      << "\" stroke-width=\"1.6\" stroke-linejoin=\"round\" stroke-linecap=\"round\"><desc>" << xml_escape(p.series[i].label)
      << "</desc>\n";
    for (const auto& run : pixel_runs(p.series[i], L)) {
      o << "<polyline points=\"";
      for (size_t k = 0; k < run.size(); ++k) o << (k ? " " : "") << num(run[k][0]) << ',' << num(run[k][1]);
      if (run.size() == 1) o << ' ' << num(run[0][0] + 0.01) << ',' << num(run[0][1]);  // a lone point shows as a dot
      o << "\"/>\n";
    }
    o << "</g>\n";
  }
  // frame, labels, title, legend
  o << "<rect class=\"frame\" x=\"" << L.left << "\" y=\"" << L.top << "\" width=\"" << L.right - L.left << "\" height=\""
    << L.bottom - L.top << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  if (!p.x_label.empty())
    o << "<text class=\"x-label\" x=\"" << (L.left + L.right) / 2 << "\" y=\"" << L.bottom + 40
      << "\" text-anchor=\"middle\" font-size=\"13\">" << xml_escape(p.x_label) << "</text>\n";
  if (!p.y_label.empty())
    o << "<text class=\"y-label\" transform=\"translate(16," << (L.top + L.bottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">" << xml_escape(p.y_label) << "</text>\n";
  if (!p.title.empty())
    o << "<text class=\"title\" x=\"" << (L.left + L.right) / 2 << "\" y=\"26\" text-anchor=\"middle\" font-size=\"15\" "
      << "font-weight=\"bold\">" << xml_escape(p.title) << "</text>\n";
  if (!p.series.empty()) {
    o << "<g class=\"legend\">\n";
    for (size_t i = 0; i < p.series.size(); ++i) {
      const int y = L.top + 8 + static_cast<int>(i) * 18;
      std::string label = p.series[i].label;
      if (label.size() > 40) label = label.substr(0, 37) + "...";
      o << "<line x1=\"" << L.legend_x << "\" y1=\"" << y << "\" x2=\"" << L.legend_x + 24 << "\" y2=\"" << y << "\" stroke=\""
        << xml_escape(series_color(p, i)) << "\" stroke-width=\"2.5\"/><text x=\"" << L.legend_x + 30 << "\" y=\"" << y + 4
        << "\">" << xml_escape(label) << "</text>\n";
    }
    o << "</g>\n";
  }
  o << "</svg>\n";
  return o.str();
}

// ---- PNG ----------------------------------------------------------------------------------------------
std::vector<std::uint8_t> plot_png(const Plot& p) {
  check_plot(p);
  const PlotLayout L = plot_layout(p, kPngCharWidth);
  Canvas cv(p.width, p.height);
  const Rgb ink{0.2, 0.2, 0.2}, grid{0.894, 0.894, 0.894};
  const double sx = (L.right - L.left) / (L.x_max - L.x_min), sy = (L.bottom - L.top) / (L.y_max - L.y_min);
  auto X = [&](double v) { return L.left + (v - L.x_min) * sx; };
  auto Y = [&](double v) { return L.bottom - (v - L.y_min) * sy; };
  auto snap = [](double v) { return std::floor(v) ; };  // 1-pixel lines on pixel rows/columns
  for (double t : L.x_ticks) {
    const double x = snap(X(t));
    cv.fill_rect(x, L.top, x + 1, L.bottom, grid);
    cv.fill_rect(x, L.bottom, x + 1, L.bottom + 5, ink);
    const std::string s = tick_label(t, L.x_step);
    cv.text(x - s.size() * kPngCharWidth / 2.0 + 1, L.bottom + 8, s, ink);
  }
  for (double t : L.y_ticks) {
    const double y = snap(Y(t));
    cv.fill_rect(L.left, y, L.right, y + 1, grid);
    cv.fill_rect(L.left - 5, y, L.left, y + 1, ink);
    const std::string s = tick_label(t, L.y_step);
    cv.text(L.left - 8 - static_cast<double>(s.size()) * kPngCharWidth + 2, y - kPngCharHeight / 2.0, s, ink);
  }
  for (size_t i = 0; i < p.series.size(); ++i) {
    const Rgb c = parse_color(series_color(p, i));
    for (const auto& run : pixel_runs(p.series[i], L))
      cv.polyline(run, 1.8, c, L.left, L.top, L.right, L.bottom);
  }
  // frame
  cv.fill_rect(L.left, L.top, L.right, L.top + 1, ink);
  cv.fill_rect(L.left, L.bottom, L.right + 1, L.bottom + 1, ink);
  cv.fill_rect(L.left, L.top, L.left + 1, L.bottom, ink);
  cv.fill_rect(L.right, L.top, L.right + 1, L.bottom, ink);
  if (!p.x_label.empty())
    cv.text((L.left + L.right) / 2.0 - p.x_label.size() * kPngCharWidth / 2.0, L.bottom + 30, p.x_label, ink);
  if (!p.y_label.empty())
    cv.text(6, (L.top + L.bottom) / 2.0 + p.y_label.size() * kPngCharWidth / 2.0, p.y_label, ink, true);
  if (!p.title.empty())
    cv.text((L.left + L.right) / 2.0 - p.title.size() * kPngCharWidth / 2.0, 12, p.title, ink, false, true);
  for (size_t i = 0; i < p.series.size(); ++i) {
    const double y = L.top + 8 + static_cast<double>(i) * 18;
    std::string label = p.series[i].label;
    if (label.size() > 40) label = label.substr(0, 37) + "...";
    cv.polyline({{L.legend_x + 0.0, y}, {L.legend_x + 24.0, y}}, 2.5, parse_color(series_color(p, i)), 0, 0, p.width, p.height);
    cv.text(L.legend_x + 30, y - kPngCharHeight / 2.0, label, ink);
  }
  return cv.png();
}

PlotFormat plot_format(const std::string& path) {
  const std::string ext = lower(path);
  if (ends_with(ext, ".svg")) return PlotFormat::Svg;
  if (ends_with(ext, ".png")) return PlotFormat::Png;
  return PlotFormat::Unknown;
}

void write_plot(const Plot& p, const std::string& path) {
  const PlotFormat format = plot_format(path);
  std::string bytes;
  if (format == PlotFormat::Svg) {
    bytes = plot_svg(p);
  } else if (format == PlotFormat::Png) {
    const std::vector<std::uint8_t> png = plot_png(p);
    bytes.assign(png.begin(), png.end());
  } else {
    throw Error(path + ": the plot file name must end in .svg or .png");
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open for writing: " + std::strerror(errno));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw Error(path + ": write error");
}

// ---- CSV ------------------------------------------------------------------------------------------------
int CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

const std::vector<double>& CsvTable::get(std::string_view name) const {
  const int c = column(name);
  if (c >= 0) return values[c];
  // suggest columns that share the name's first part ("FR_hip" of "FR_hip.q0") or contain it
  const std::string key(name.substr(0, name.find('.')));
  std::vector<std::string> near;
  for (const std::string& col : columns)
    if (!key.empty() && (col.rfind(key, 0) == 0 || col.find(std::string(name)) != std::string::npos)) near.push_back(col);
  std::string msg = path + ": no column '" + std::string(name) + "'";
  if (!near.empty()) {
    msg += " (similar: ";
    for (size_t i = 0; i < near.size() && i < 12; ++i) {
      msg += i ? ", " : "";
      msg += near[i];
    }
    msg += near.size() > 12 ? ", ...)" : ")";
  } else {
    msg += " (" + std::to_string(columns.size()) + " columns: ";
    for (size_t i = 0; i < columns.size() && i < 12; ++i) {
      msg += i ? ", " : "";
      msg += columns[i];
    }
    msg += columns.size() > 12 ? ", ...)" : ")";
  }
  throw Error(msg);
}

namespace {

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
  return std::string(s.substr(a, b - a));
}

template <class F>
void split_fields(std::string_view line, F&& field) {
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ',') {
      field(line.substr(start, i - start));
      start = i + 1;
    }
}

}  // namespace

CsvTable read_csv_table(const std::string& path) {
  CsvTable t;
  t.path = path;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open the CSV file (" + std::strerror(errno) + ")");
  std::string line;
  long long lineno = 0;
  // header: the first non-blank line
  while (std::getline(f, line)) {
    ++lineno;
    if (!trim(line).empty()) break;
  }
  if (trim(line).empty()) throw Error(path + ": the CSV file is empty");
  split_fields(line, [&](std::string_view s) {
    std::string name = trim(s);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    t.columns.push_back(name);
  });
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (t.columns[i].empty())
      throw Error(path + ":" + std::to_string(lineno) + ": column " + std::to_string(i + 1) + " has no name");
    for (size_t j = 0; j < i; ++j)
      if (t.columns[j] == t.columns[i])
        throw Error(path + ":" + std::to_string(lineno) + ": column '" + t.columns[i] + "' appears twice");
  }
  t.values.assign(t.columns.size(), {});
  while (std::getline(f, line)) {
    ++lineno;
    if (trim(line).empty()) continue;
    size_t c = 0;
    split_fields(line, [&](std::string_view raw) {
      if (c < t.columns.size()) {
        const std::string s = trim(raw);
        double v = kNaN;
        if (!s.empty()) {
          std::string_view sv = s;
          if (sv.front() == '+') sv.remove_prefix(1);
          const auto [ptr, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), v);
          if (ec != std::errc() || ptr != sv.data() + sv.size() || !std::isfinite(v))
            throw Error(path + ":" + std::to_string(lineno) + ": column '" + t.columns[c] + "': '" + s +
                            "' is not a finite number");
        }
        t.values[c].push_back(v);
      }
      ++c;
    });
    if (c != t.columns.size())
      throw Error(path + ":" + std::to_string(lineno) + ": " + std::to_string(c) + " fields, the header has " +
                      std::to_string(t.columns.size()));
  }
  if (f.bad()) throw Error(path + ": read error");
  if (t.rows() == 0) throw Error(path + ": the CSV file has a header but no data rows");
  return t;
}

}  // namespace maxsim::io
