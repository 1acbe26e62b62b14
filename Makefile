# maxsim — top-level commands. `make run` and `make test` do all the set-up on a fresh Debian
# machine (as root: missing packages are installed with apt-get).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

# Debian packages the build needs (libmujoco-dev is optional: only for the MuJoCo comparison).
DEB_PACKAGES = build-essential cmake pkg-config libeigen3-dev libbullet-dev liburdfdom-dev \
  libtinyxml2-dev libassimp-dev libomp-dev libgtest-dev libbenchmark-dev zlib1g-dev libpng-dev \
  chromium chromium-driver $(if $(shell command -v npm),,nodejs npm)
# chromium: the replay viewer's browser test; node/npm: web/ (three.js for `maxsim view`)
DEB_PACKAGES += clang libclang-rt-dev  # test-sanitizers, test-clang (libclang-rt-dev: the sanitizer runtimes)
DEB_PACKAGES += pybind11-dev python3-dev python3-numpy python3-pytest  # the Python module (python/), for /usr/bin/python3
DEB_PACKAGES += libopenmpi-dev openmpi-bin libnlopt-cxx-dev python3-mpi4py python3-cmaes  # tuning/: MPI ranks, NLopt; Python's CMA-ES and mpi4py
DEB_PACKAGES += doxygen  # make docs: the API reference of the public headers

.PHONY: all deps build test bench bench-compare bench-engines bench-control bench-control-instructions run fuzz clean docs

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

# The API reference of the public headers (docs/api/Doxyfile) into $(BUILD)/docs/html; a public
# declaration without a description, or any other Doxygen warning, fails it
docs: deps
	@mkdir -p $(BUILD)/docs
	( cat docs/api/Doxyfile; echo "OUTPUT_DIRECTORY = $(BUILD)/docs" ) | doxygen -
	@echo "API reference: $(BUILD)/docs/html/index.html"

# maxsim against MuJoCo on the same MJCF scenes (needs libmujoco-dev; valgrind for the counts):
# the wall-clock table of compare_mujoco, then instructions per step counted with callgrind
bench-compare: build
	@test -x $(BUILD)/compare_mujoco || { echo "bench-compare needs libmujoco-dev (apt-get install libmujoco-dev)"; exit 2; }
	$(BUILD)/compare_mujoco --json $(BUILD)/compare_mujoco.json
	benchmarks/count_instructions.sh $(BUILD)

# The same twelve scenes in maxsim and every other engine the build has (MuJoCo, Bullet's multibody
# dynamics, DART): build/compare_engines.{json,md} and build/engines_*.svg (docs/performance.md)
bench-engines: build
	$(BUILD)/compare_engines --json $(BUILD)/compare_engines.json --markdown $(BUILD)/compare_engines.md \
	  --svg $(BUILD)/engines

# Robots driven by their own actuators with random commands redrawn every 0.5 s, 5 s each, in
# maxsim and (with libmujoco-dev) MuJoCo from the same file: steps/s, ratio, iterations, penetration
# (benchmarks/control_benchmark.cpp); the table goes to docs/performance.md, dated
bench-control: build
	$(BUILD)/bench_control --json $(BUILD)/bench_control.json

# instructions per step of the same robots in each engine, counted with callgrind over steps
# N+1 … 2N of the same schedule (needs valgrind; ~15 min): table on stdout,
# $(BUILD)/bench_control_instructions.json
bench-control-instructions: build
	benchmarks/count_control_instructions.sh $(BUILD)

run: build
	@if [ -x $(BUILD)/a1_walk ]; then $(BUILD)/a1_walk --view $(BUILD)/a1_walk.html; \
	else echo "== double pendulum demo (the A1 demo comes with its issue)"; $(BUILD)/double_pendulum; fi

# Fuzzing (README "Limits and hostile input"): the libFuzzer harnesses of tests/fuzz, built with
# clang, ASan and UBSan in a build directory of their own, each run for FUZZ_SECONDS from the
# description files of the repository (a list of paths: nothing is copied). New inputs go to
# $(FUZZ_BUILD)/corpus/, findings to $(FUZZ_BUILD)/findings/. Not part of `make test`.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CXX ?= clang++
FUZZ_FLAGS ?= -max_len=65536 -timeout=60 -rss_limit_mb=2048

fuzz:
	@command -v $(FUZZ_CXX) >/dev/null || { echo "make fuzz needs clang with libFuzzer (Debian: clang)"; exit 2; }
	@[ -f $(FUZZ_BUILD)/CMakeCache.txt ] || CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) \
	  cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMAXSIM_FUZZ=ON
	cmake --build $(FUZZ_BUILD) --target fuzz_urdf fuzz_mjcf -j $(JOBS)
	@mkdir -p $(FUZZ_BUILD)/corpus/urdf $(FUZZ_BUILD)/corpus/mjcf $(FUZZ_BUILD)/findings
	@find tests/data robots -name '*.urdf' | sort | paste -sd, > $(FUZZ_BUILD)/seeds_urdf.txt
	@find tests/data robots \( -name '*.xml' -o -name '*.mjcf' \) | sort | paste -sd, > $(FUZZ_BUILD)/seeds_mjcf.txt
	@status=0; for f in urdf mjcf; do \
	  echo "== fuzz_$$f for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/fuzz_$$f $(FUZZ_BUILD)/corpus/$$f -seed_inputs=@$(FUZZ_BUILD)/seeds_$$f.txt \
	    -dict=tests/fuzz/xml.dict -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) \
	    -artifact_prefix=$(FUZZ_BUILD)/findings/$$f- || status=1; \
	done; \
	if [ $$status -ne 0 ]; then echo "findings in $(FUZZ_BUILD)/findings/ (make each a file of tests/data/hostile)"; fi; \
	exit $$status

clean:
	rm -rf $(BUILD)

# ---- sanitizers and the second compiler (timings: docs/performance.md) ----
# test-sanitizers: the unit suite built with Clang (GCC where clang++ is missing) under
# AddressSanitizer + UndefinedBehaviorSanitizer; any report fails its test. The corpus sweep
# (label corpus) and the browser test are left out (see the README for the measured times), and so
# is the Python module: an ASan-instrumented extension needs the sanitizer runtime preloaded into
# the interpreter, which is no test of the engine (MAXSIM_PYTHON=OFF; -LE python for build
# directories configured before that option existed). The MPI runs (label mpi) are left out too: they
# run a1_learn and exo_tune under mpirun, and Open MPI's own allocations would read as leaks. The
# exoskeleton's gradient tests are left out too: they differentiate thousands of steps (minutes under
# the sanitizers) with the code test_transition runs under them, and so is the 40-four-bar chain at
# high precision (20 000 steps of 81 bodies; its Δt = 0.01 s runs stay).
.PHONY: test-sanitizers test-clang
SAN_BUILD ?= build-asan
SAN_CXX ?= $(if $(shell command -v clang++),clang++,g++)
SAN_CC ?= $(if $(shell command -v clang),clang,gcc)
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# Any report stops its program with exit status 86, which no test expects (test_cli checks 0, 1, 2)
SAN_ENV = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:print_stacktrace=1:check_initialization_order=1:exitcode=86 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
# what the unit tests run: the test programs, the binaries they call (compare_engines: its quick
# check), and compare_mujoco for its
# quick check when Debian's libmujoco-dev is there (CMakeLists.txt builds it only then)
SAN_TARGETS = $(patsubst tests/%.cpp,%,$(wildcard tests/test_*.cpp)) maxsim exo_run compare_engines \
  $(if $(wildcard /usr/include/mujoco/mujoco.h),compare_mujoco)

$(SAN_BUILD)/CMakeCache.txt:
	CC=$(SAN_CC) CXX=$(SAN_CXX) cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS=$(SAN_FLAGS)" "-DCMAKE_EXE_LINKER_FLAGS=$(SAN_FLAGS)" -DMAXSIM_PYTHON=OFF

test-sanitizers: deps $(SAN_BUILD)/CMakeCache.txt
	# (re-glob first: a test file added since the last configure is a target only after it)
	cmake -S . -B $(SAN_BUILD) > /dev/null
	cmake --build $(SAN_BUILD) -j $(JOBS) --target $(SAN_TARGETS)
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -LE 'corpus|python|mpi' -E 'browser_a1_replay|ExoskeletonGradient|FourBarChainHighPrecision|FourBarChainNewmark'

# test-clang: `make test` built with Clang (Release, no sanitizers), the corpus sweep included.
CLANG_BUILD ?= build-clang

$(CLANG_BUILD)/CMakeCache.txt:
	CC=clang CXX=clang++ cmake -S . -B $(CLANG_BUILD) $(CMAKE_FLAGS)

test-clang: deps $(CLANG_BUILD)/CMakeCache.txt
	cmake --build $(CLANG_BUILD) -j $(JOBS)
	cd $(CLANG_BUILD) && ctest --output-on-failure -j $(JOBS)
