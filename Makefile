# maxsim — top-level commands. `make run` and `make test` do all the set-up on a fresh Debian
# machine (as root: missing packages are installed with apt-get).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

# Debian packages the build needs (libmujoco-dev is optional: only for the MuJoCo comparison).
DEB_PACKAGES = build-essential cmake pkg-config libeigen3-dev libbullet-dev liburdfdom-dev \
  libtinyxml2-dev libassimp-dev libomp-dev libgtest-dev libbenchmark-dev zlib1g-dev \
  chromium chromium-driver $(if $(shell command -v npm),,nodejs npm)
# chromium: the replay viewer's browser test; node/npm: web/ (three.js for `maxsim view`)
DEB_PACKAGES += clang libclang-rt-dev  # test-sanitizers, test-clang (libclang-rt-dev: the sanitizer runtimes)

.PHONY: all deps build test bench run clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $$missing; \
	else echo "all Debian packages present"; fi
	@if [ ! -d web/node_modules ]; then echo "npm ci in web/ (three.js, esbuild, playwright-core)"; \
	  (cd web && npm ci --no-audit --no-fund) || { rm -rf web/node_modules; \
	  echo "warning: npm ci failed: no HTML replays (maxsim view) and the browser test is skipped"; }; fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/maxsim_benchmarks

run: build
	@if [ -x $(BUILD)/a1_walk ]; then $(BUILD)/a1_walk --view $(BUILD)/a1_walk.html; \
	else echo "== double pendulum demo (the A1 demo comes with its issue)"; $(BUILD)/double_pendulum; fi

clean:
	rm -rf $(BUILD)

# ---- sanitizers and the second compiler (issue 14; README "Sanitizers and a second compiler") ----
# test-sanitizers: the unit suite built with Clang (GCC where clang++ is missing) under
# AddressSanitizer + UndefinedBehaviorSanitizer; any report fails its test. The corpus sweep
# (label corpus) and the browser test are left out (see the README for the measured times).
.PHONY: test-sanitizers test-clang
SAN_BUILD ?= build-asan
SAN_CXX ?= $(if $(shell command -v clang++),clang++,g++)
SAN_CC ?= $(if $(shell command -v clang),clang,gcc)
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# Any report stops its program with exit status 86, which no test expects (test_cli checks 0, 1, 2)
SAN_ENV = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:print_stacktrace=1:check_initialization_order=1:exitcode=86 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
# what the unit tests run: the test programs, the binaries they call, and compare_mujoco for its
# quick check when Debian's libmujoco-dev is there (CMakeLists.txt builds it only then)
SAN_TARGETS = $(patsubst tests/%.cpp,%,$(wildcard tests/test_*.cpp)) maxsim exo_run \
  $(if $(wildcard /usr/include/mujoco/mujoco.h),compare_mujoco)

$(SAN_BUILD)/CMakeCache.txt:
	CC=$(SAN_CC) CXX=$(SAN_CXX) cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS=$(SAN_FLAGS)" "-DCMAKE_EXE_LINKER_FLAGS=$(SAN_FLAGS)"

test-sanitizers: deps $(SAN_BUILD)/CMakeCache.txt
	cmake --build $(SAN_BUILD) -j $(JOBS) --target $(SAN_TARGETS)
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -LE corpus -E browser_a1_replay

# test-clang: `make test` built with Clang (Release, no sanitizers), the corpus sweep included.
CLANG_BUILD ?= build-clang

$(CLANG_BUILD)/CMakeCache.txt:
	CC=clang CXX=clang++ cmake -S . -B $(CLANG_BUILD) $(CMAKE_FLAGS)

test-clang: deps $(CLANG_BUILD)/CMakeCache.txt
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure -j $(JOBS)
