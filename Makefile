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
