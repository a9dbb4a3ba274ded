# Thin wrapper: the two commands of the README.
#   make run   installs what is missing, builds, runs the main job
#   make test  installs what is missing, builds, runs every test
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: run test configure build setup setup-test setup-ci setup-bench setup-models asan fuzz bench clean

setup:
	bash scripts/setup.sh build

setup-test:
	bash scripts/setup.sh build tests

setup-ci:
	bash scripts/setup.sh build ci

setup-bench:
	bash scripts/setup.sh build bench

setup-models:
	bash scripts/setup.sh build bench models

CMAKE_FLAGS ?=

configure: setup setup-test
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLCHECK_TESTS=ON $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job needs only the binary, not the tests, nor their packages (GoogleTest, mandoc).
run: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLCHECK_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target dlcheck
	./$(BUILD)/dlcheck verbose --model mlp

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The published JSON Schemas, generated from the declarations beside each builder, one
# per report command of the command table (`dlcheck help --list`; the json_schemas test fails
# when a checked-in schema differs from what the binary declares).
.PHONY: schemas
schemas: configure
	cmake --build $(BUILD) -j $(JOBS) --target dlcheck
	commands=$$(./$(BUILD)/dlcheck help --list) || exit 1; for c in $$commands; do \
	  ./$(BUILD)/dlcheck schema $$c > schemas/$$c.schema.json || exit 1; done

# Every tracked C++ source as .clang-format lays it out (CI fails on a difference).
.PHONY: format-check
format-check: setup-ci
	git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run -Werror

# The unit and cli tests under AddressSanitizer and UndefinedBehaviorSanitizer. Not the
# integration ones: they hold dlcheck beside other programs (benchdnn, likwid, Slurm, PyTorch's
# trace) or at full size (parse --jobs on 200 MB), which the plain suite already does; under the
# sanitizers they cost minutes of CI, and the cli tests run the same code paths on smaller inputs.
asan: setup-test setup-ci
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDLCHECK_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	ctest --test-dir build-asan --output-on-failure -j $(JOBS) -LE integration

# The Debian package (cmake/Package.cmake): the binary of $(BUILD) (the one the tests ran, built
# again only where a source changed; a first build there leaves the tests out), installed under
# /usr, then CPack. No test is installed. Leaves dlcheck_<version>_<arch>.deb here.
DEB_TESTS := $(if $(wildcard $(BUILD)/CMakeCache.txt),,-DDLCHECK_TESTS=OFF)
.PHONY: deb
deb: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(DEB_TESTS) \
	  -DDLCHECK_PACKAGE=ON -DCMAKE_INSTALL_PREFIX=/usr $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	rm -f $(BUILD)/dlcheck_*.deb
	cd $(BUILD) && cpack -G DEB
	cp $(BUILD)/dlcheck_*.deb .

# The package on a fresh Debian 12 chroot (root, network to the mirror; the rootfs tarball
# ../shared/tools/fresh.sh caches, or DEB_ROOTFS=...): install, check, textfile, node_exporter,
# bash completion, purge.
.PHONY: deb-test
deb-test: deb
	bash tests/integration/deb_fresh_test.sh dlcheck_$$(sed -n 's/^project(dlcheck VERSION \([^ ]*\).*/\1/p' CMakeLists.txt)_amd64.deb $(DEB_ROOTFS)

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-deb  # build-deb: where make deb built before

# The verbose parser's libFuzzer target (clang, build-fuzz/) for a bounded time, and its benchmark.
.PHONY: fuzz-verbose bench-parse
fuzz-verbose: setup-ci
	scripts/fuzz.sh 60

bench-parse: setup-bench build
	BUILD=$(BUILD) scripts/bench_parse.sh

# The models against the PyTorch peers (python3-torch), side by side: not a test.
.PHONY: bench-models
bench-models: setup-models build
	BUILD=$(BUILD) scripts/bench_models.sh

# The MLP's samples/s under `dlcheck profile` (perf record) against `dlcheck verbose`: not a test.
.PHONY: bench-profile
bench-profile: build
	BUILD=$(BUILD) scripts/bench_profile.sh $(RUNS)

# dlcheck run against the program alone, and its peak RSS on 10 million verbose lines: not a test.
.PHONY: bench-run
bench-run: setup-bench build
	BUILD=$(BUILD) scripts/bench_run.sh $(PEER)

# dlcheck fleet on 10,000 real host reports: wall time and peak RSS (target < 2 s, < 256 MB).
.PHONY: bench-fleet
bench-fleet: setup-bench build
	BUILD=$(BUILD) scripts/bench_fleet.sh $(HOSTS)
