// Plots (io/plot.hpp): axis ranges and ticks, well-formed SVG with the chosen series,
// PNG files that decode, the CSV reader's errors, and `maxsim plot`'s exit statuses and messages.
#include <gtest/gtest.h>
#include <tinyxml2.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/suite_directory.hpp"
#include "apps/maxsim/plot_command.hpp"
#include "io/plot.hpp"

namespace maxsim {

using namespace io;
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

class PlotTest : public SuiteDirectory<PlotTest> {
 public:
  static constexpr const char* kDirectory = "plot";

 protected:
  static std::string path(const std::string& name) { return (dir_ / name).string(); }
};

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Plot two_series() {
  Plot p;
  p.title = "test <plot> & more";
  p.x_label = "t [s]";
  PlotSeries a{"sin", {}, {}, ""}, b{"cos", {}, {}, "#00ff00"};
  for (int i = 0; i <= 200; ++i) {
    const double t = 2.0 * i / 200;
    a.x.push_back(t), a.y.push_back(std::sin(M_PI * t) * 2 + 1);  // -1 .. 3
    b.x.push_back(t), b.y.push_back(std::cos(M_PI * t));
  }
  p.series = {a, b};
  return p;
}

// Collects every element called `name` under `e`.
void collect(const XMLElement* e, const char* name, std::vector<const XMLElement*>* out) {
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::string(c->Name()) == name) out->push_back(c);
    collect(c, name, out);
  }
}

std::vector<std::string> texts_of_group(const XMLElement* root, const std::string& cls) {
  std::vector<const XMLElement*> groups;
  collect(root, "g", &groups);
  std::vector<std::string> out;
  for (const XMLElement* g : groups)
    if (g->Attribute("class") && cls == g->Attribute("class")) {
      std::vector<const XMLElement*> texts;
      collect(g, "text", &texts);
      for (const XMLElement* t : texts) out.push_back(t->GetText() ? t->GetText() : "");
    }
  return out;
}

// ---- layout --------------------------------------------------------------------------------------------
TEST(PlotLayout, RangesSpanTheDataAndTicksAreNice) {
  const PlotLayout L = plot_layout(two_series());
  EXPECT_DOUBLE_EQ(L.x_min, 0);  // x spans the data exactly
  EXPECT_DOUBLE_EQ(L.x_max, 2);
  EXPECT_LE(L.y_min, -1.0);      // y covers the data, widened to whole ticks
  EXPECT_GE(L.y_max, 3.0);
  EXPECT_NEAR(L.y_min, -1.0, 1e-12);
  EXPECT_NEAR(L.y_max, 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(L.y_step, 0.5);
  ASSERT_FALSE(L.y_ticks.empty());
  EXPECT_NEAR(L.y_ticks.front(), -1.0, 1e-12);
  EXPECT_NEAR(L.y_ticks.back(), 3.0, 1e-12);
  for (double t : L.x_ticks) {
    EXPECT_GE(t, L.x_min - 1e-12);
    EXPECT_LE(t, L.x_max + 1e-12);
  }
  EXPECT_GE(L.x_ticks.size(), 3u);
  EXPECT_LT(L.left, L.right);
  EXPECT_LT(L.top, L.bottom);
  EXPECT_GT(L.legend_x, L.right);  // the legend never covers the data
}

TEST(PlotLayout, ConstantAndExplicitRanges) {
  Plot p;
  p.series.push_back({"c", {0, 1, 2}, {5, 5, 5}, ""});
  PlotLayout L = plot_layout(p);
  EXPECT_LT(L.y_min, 5);
  EXPECT_GT(L.y_max, 5);
  p.y_min = -10;
  p.y_max = 10;
  p.x_min = 0.5;
  L = plot_layout(p);
  EXPECT_DOUBLE_EQ(L.y_min, -10);
  EXPECT_DOUBLE_EQ(L.y_max, 10);
  EXPECT_DOUBLE_EQ(L.x_min, 0.5);
  EXPECT_DOUBLE_EQ(L.x_max, 2);
  // no data at all still gives a usable frame
  L = plot_layout(Plot{});
  EXPECT_LT(L.x_min, L.x_max);
  EXPECT_LT(L.y_min, L.y_max);
}

TEST(PlotLayout, TickLabels) {
  EXPECT_EQ(tick_label(0.25, 0.25), "0.25");
  EXPECT_EQ(tick_label(0.5, 0.25), "0.50");
  EXPECT_EQ(tick_label(2, 1), "2");
  EXPECT_EQ(tick_label(-1.5, 0.5), "-1.5");
  EXPECT_EQ(tick_label(-0.0, 0.5), "0.0");
  EXPECT_EQ(tick_label(-1e-17, 1), "0");
  EXPECT_EQ(tick_label(1e-12, 0.1), "0.0");
  EXPECT_EQ(tick_label(2e-6, 1e-6), "2e-06");
  EXPECT_EQ(tick_label(3e7, 1e7), "3e+07");
}

// ---- SVG ---------------------------------------------------------------------------------------------
TEST(PlotSvg, WellFormedWithSeriesTicksLegendAndTitle) {
  const Plot p = two_series();
  const std::string svg = plot_svg(p);
  XMLDocument doc;
  ASSERT_EQ(doc.Parse(svg.c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr();
  const XMLElement* root = doc.RootElement();
  ASSERT_STREQ(root->Name(), "svg");
  EXPECT_STREQ(root->Attribute("width"), "800");
  EXPECT_STREQ(root->Attribute("xmlns"), "http://www.w3.org/2000/svg");

  std::vector<const XMLElement*> groups;
  collect(root, "g", &groups);
  std::vector<std::string> labels;
  for (const XMLElement* g : groups)
    if (g->Attribute("class") && std::string(g->Attribute("class")) == "series") {
      labels.push_back(g->FirstChildElement("desc")->GetText());
      std::vector<const XMLElement*> lines;
      collect(g, "polyline", &lines);
      EXPECT_EQ(lines.size(), 1u);  // no gaps
      // every point lies inside the plot area
      const PlotLayout L = plot_layout(p);
      std::istringstream pts(lines[0]->Attribute("points"));
      std::string xy;
      int n = 0;
      while (pts >> xy) {
        const double x = std::stod(xy.substr(0, xy.find(','))), y = std::stod(xy.substr(xy.find(',') + 1));
        EXPECT_GE(x, L.left - 0.01);
        EXPECT_LE(x, L.right + 0.01);
        EXPECT_GE(y, L.top - 0.01);
        EXPECT_LE(y, L.bottom + 0.01);
        ++n;
      }
      EXPECT_EQ(n, 201);
    }
  EXPECT_EQ(labels, (std::vector<std::string>{"sin", "cos"}));
  EXPECT_EQ(texts_of_group(root, "legend"), (std::vector<std::string>{"sin", "cos"}));
  const std::vector<std::string> yt = texts_of_group(root, "y-ticks");
  ASSERT_FALSE(yt.empty());
  EXPECT_EQ(yt.front(), "-1.0");
  EXPECT_EQ(yt.back(), "3.0");
  const std::vector<std::string> xt = texts_of_group(root, "x-ticks");
  ASSERT_FALSE(xt.empty());
  EXPECT_EQ(xt.front(), "0.00");  // x step 0.25: two decimals on every tick
  EXPECT_NE(svg.find("stroke=\"#00ff00\""), std::string::npos);  // the series' own colour
  EXPECT_NE(svg.find("test &lt;plot&gt; &amp; more"), std::string::npos);  // escaped title
}

TEST(PlotSvg, GapsSplitLinesAndLongSeriesAreThinned) {
  Plot p;
  PlotSeries s{"gappy", {0, 1, 2, 3, 4}, {0, 1, NAN, 1, 0}, ""};
  p.series.push_back(s);
  std::string svg = plot_svg(p);
  size_t count = 0;
  for (size_t k = svg.find("<polyline"); k != std::string::npos; k = svg.find("<polyline", k + 1)) ++count;
  EXPECT_EQ(count, 2u);

  Plot big;
  PlotSeries b{"big", {}, {}, ""};
  for (int i = 0; i < 200000; ++i) b.x.push_back(i * 1e-3), b.y.push_back(std::sin(i * 1e-2));
  big.series.push_back(b);
  svg = plot_svg(big);
  EXPECT_LT(svg.size(), 200000u);  // at most four points per pixel column
  XMLDocument doc;
  EXPECT_EQ(doc.Parse(svg.c_str()), tinyxml2::XML_SUCCESS);
}

TEST(PlotSvg, RejectsMismatchedSeries) {
  Plot p;
  p.series.push_back({"bad", {0, 1}, {0}, ""});
  EXPECT_THROW(plot_svg(p), io::Error);
}

// ---- PNG ---------------------------------------------------------------------------------------------
struct Image {
  int w = 0, h = 0;
  std::vector<std::uint8_t> rgb;
  const std::uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * w + x) * 3]; }
};

std::uint32_t be32(const std::uint8_t* p) { return (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }

// Decodes the PNGs plot_png writes (8-bit RGB, filter 0), checking chunk CRCs.
Image decode_png(const std::vector<std::uint8_t>& png) {
  Image img;
  const std::uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  EXPECT_TRUE(png.size() > 8 && std::equal(sig, sig + 8, png.begin()));
  std::vector<std::uint8_t> z;
  size_t p = 8;
  while (p + 12 <= png.size()) {
    const std::uint32_t len = be32(&png[p]);
    const std::string type(png.begin() + p + 4, png.begin() + p + 8);
    const std::uint32_t crc = be32(&png[p + 8 + len]);
    EXPECT_EQ(crc, crc32(0, &png[p + 4], len + 4)) << type;
    if (type == "IHDR") {
      img.w = be32(&png[p + 8]);
      img.h = be32(&png[p + 12]);
      EXPECT_EQ(png[p + 16], 8);  // bit depth
      EXPECT_EQ(png[p + 17], 2);  // RGB
    } else if (type == "IDAT") {
      z.insert(z.end(), png.begin() + p + 8, png.begin() + p + 8 + len);
    }
    p += 12 + len;
  }
  std::vector<std::uint8_t> raw(static_cast<size_t>(img.h) * (img.w * 3 + 1));
  uLongf n = raw.size();
  EXPECT_EQ(uncompress(raw.data(), &n, z.data(), z.size()), Z_OK);
  EXPECT_EQ(n, raw.size());
  for (int y = 0; y < img.h; ++y) {
    EXPECT_EQ(raw[y * (img.w * 3 + 1)], 0);  // filter none
    img.rgb.insert(img.rgb.end(), raw.begin() + y * (img.w * 3 + 1) + 1, raw.begin() + (y + 1) * (img.w * 3 + 1));
  }
  return img;
}

TEST(PlotPng, DecodesWithTheSeriesDrawnInsideThePlotArea) {
  Plot p = two_series();
  p.width = 640, p.height = 400;
  const Image img = decode_png(plot_png(p));
  ASSERT_EQ(img.w, 640);
  ASSERT_EQ(img.h, 400);
  const std::uint8_t* corner = img.at(0, img.h - 1);
  EXPECT_EQ(corner[0], 255);  // white background
  EXPECT_EQ(corner[1], 255);
  // the green series (#00ff00) is drawn, and only inside the plot area or the legend
  const PlotLayout L = plot_layout(p, 12);
  int green = 0, outside = 0;
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w; ++x) {
      const std::uint8_t* c = img.at(x, y);
      if (c[1] > 200 && c[0] < 60 && c[2] < 60) {
        ++green;
        if ((x < L.left || x > L.right || y < L.top || y > L.bottom) && x < L.legend_x - 2) ++outside;
      }
    }
  EXPECT_GT(green, 200);
  EXPECT_EQ(outside, 0);
}

TEST_F(PlotTest, WritePlotByExtension) {
  const Plot p = two_series();
  write_plot(p, path("a.svg"));
  write_plot(p, path("a.PNG"));
  EXPECT_EQ(read_file(path("a.svg")).rfind("<?xml", 0), 0u);
  EXPECT_EQ(read_file(path("a.PNG")).substr(1, 3), "PNG");
  EXPECT_THROW(write_plot(p, path("a.pdf")), io::Error);
  EXPECT_THROW(write_plot(p, path("no/such/dir/a.svg")), io::Error);
}

// ---- CSV -----------------------------------------------------------------------------------------
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const io::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(PlotTest, CsvReadsColumnsAndGaps) {
  const std::string f = write("ok.csv", "t,a.x, b \n0,1,2\n0.5,,4\r\n1,+3,-1e-3\n\n");
  const CsvTable t = read_csv_table(f);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"t", "a.x", "b"}));
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(t.get("b")[2], -1e-3);
  EXPECT_EQ(t.get("a.x")[2], 3);
  EXPECT_TRUE(std::isnan(t.get("a.x")[1]));  // empty field: a gap
  EXPECT_EQ(t.column("nope"), -1);
}

TEST_F(PlotTest, CsvErrorsNameTheProblem) {
  EXPECT_NE(error_of([] { read_csv_table(path("missing.csv")); }).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of([] { read_csv_table(write("empty.csv", "")); }).find("empty"), std::string::npos);
  EXPECT_NE(error_of([] { read_csv_table(write("header.csv", "t,x\n")); }).find("no data rows"), std::string::npos);
  const std::string bad = error_of([] { read_csv_table(write("bad.csv", "t,x\n0,1\n1,abc\n")); });
  EXPECT_NE(bad.find("bad.csv:3"), std::string::npos) << bad;
  EXPECT_NE(bad.find("'x'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("'abc'"), std::string::npos) << bad;
  EXPECT_NE(error_of([] { read_csv_table(write("nan.csv", "t,x\n0,nan\n")); }).find("not a finite number"), std::string::npos);
  EXPECT_NE(error_of([] { read_csv_table(write("ragged.csv", "t,x\n0,1,2\n")); }).find("3 fields"), std::string::npos);
  EXPECT_NE(error_of([] { read_csv_table(write("dup.csv", "t,x,x\n0,1,2\n")); }).find("twice"), std::string::npos);
  const CsvTable t = read_csv_table(write("names.csv", "t,FR_hip.x,FR_hip.y\n0,1,2\n"));
  const std::string unknown = error_of([&] { t.get("FR_hip.z"); });
  EXPECT_NE(unknown.find("no column 'FR_hip.z'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("FR_hip.x"), std::string::npos) << unknown;  // similar names listed
}

// ---- the command -------------------------------------------------------------------------------------
int run_plot(std::vector<std::string> args, std::string* err = nullptr) {
  args.insert(args.begin(), {"maxsim", "plot"});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int rc = plot_main(static_cast<int>(argv.size()), argv.data());
  const std::string e = testing::internal::GetCapturedStderr();
  testing::internal::GetCapturedStdout();
  if (err) *err = e;
  return rc;
}

TEST_F(PlotTest, CommandSelectsColumns) {
  const std::string csv = write("traj.csv",
                                "t,a.q0,b.q0,c.v0,energy.kinetic,energy.potential,energy.total\n"
                                "0,0,1,2,0,1,1\n0.1,1,0,2,0.5,0.5,1\n0.2,2,-1,2,1,0,1\n");
  EXPECT_EQ(run_plot({csv, "-o", path("q.svg"), "--columns", "*.q0,c.v0", "--title", "joints"}), 0);
  XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(path("q.svg").c_str()), tinyxml2::XML_SUCCESS);
  EXPECT_EQ(texts_of_group(doc.RootElement(), "legend"), (std::vector<std::string>{"a.q0", "b.q0", "c.v0"}));
  // default: the energy columns
  EXPECT_EQ(run_plot({csv, "--output=" + path("e.svg")}), 0);
  ASSERT_EQ(doc.LoadFile(path("e.svg").c_str()), tinyxml2::XML_SUCCESS);
  EXPECT_EQ(texts_of_group(doc.RootElement(), "legend"),
            (std::vector<std::string>{"energy.kinetic", "energy.potential", "energy.total"}));
  // another x axis, and PNG
  EXPECT_EQ(run_plot({csv, "-o", path("xy.png"), "--x", "a.q0", "--columns", "b.q0"}), 0);
  EXPECT_EQ(read_file(path("xy.png")).substr(1, 3), "PNG");
}

TEST_F(PlotTest, CommandErrorsExitTwo) {
  const std::string csv = write("traj2.csv", "t,a.q0\n0,0\n1,1\n");
  std::string err;
  EXPECT_EQ(run_plot({csv, "-o", path("x.svg"), "--columns", "a.q0,zz.q0"}, &err), 2);
  EXPECT_NE(err.find("no column 'zz.q0'"), std::string::npos) << err;
  EXPECT_EQ(run_plot({path("nothere.csv"), "-o", path("x.svg"), "--columns", "a.q0"}, &err), 2);
  EXPECT_NE(err.find("nothere.csv"), std::string::npos) << err;
  EXPECT_EQ(run_plot({write("e.csv", ""), "-o", path("x.svg"), "--columns", "a"}, &err), 2);
  EXPECT_NE(err.find("empty"), std::string::npos) << err;
  EXPECT_EQ(run_plot({write("n.csv", "t,a\n0,x1\n"), "-o", path("x.svg"), "--columns", "a"}, &err), 2);
  EXPECT_NE(err.find("not a finite number"), std::string::npos) << err;
  EXPECT_EQ(run_plot({csv, "-o", path("x.svg"), "--columns", "q*"}, &err), 2);
  EXPECT_NE(err.find("no column matches 'q*'"), std::string::npos) << err;
  EXPECT_EQ(run_plot({csv, "-o", path("x.svg"), "--x", "time", "--columns", "a.q0"}, &err), 2);
  EXPECT_NE(err.find("'time'"), std::string::npos) << err;
  EXPECT_EQ(run_plot({csv, "--columns", "a.q0"}, &err), 2);     // no -o
  EXPECT_EQ(run_plot({csv, "-o", path("x.jpg")}, &err), 2);      // unknown format
  EXPECT_EQ(run_plot({csv, "-o", path("x.svg"), "--bogus", "1"}, &err), 2);
  EXPECT_EQ(run_plot({csv, "-o", path("x.svg"), "--columns", "a.q0", "--width", "50"}, &err), 2);
  EXPECT_EQ(run_plot({csv, "-o", path("no/dir/x.svg"), "--columns", "a.q0"}, &err), 2);
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
  EXPECT_EQ(run_plot({csv}, &err), 2);
}

}  // namespace
}  // namespace maxsim
