# A thin front for CMake + Ninja. Everything is built in build/.
BUILD ?= build
CMAKE_FLAGS ?=

# Which packages scripts/deps.sh installs: `check` and `demo` set a larger
# set, and GNU make hands a target's variables down to its prerequisites, so
# `make check` installs everything the tests use in one step before `all`
# configures. Installing, configuring and building are one recipe, in that
# order, so `make -jN` cannot configure before the libraries are there.
DEPS ?= build
check: DEPS = check
demo: DEPS = demo
memcheck: DEPS = check

.PHONY: all deps check demo bench clean format fuzz memcheck

all:
	@sh scripts/deps.sh $(DEPS)
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)
	@cmake --build $(BUILD)

deps:
	@sh scripts/deps.sh $(DEPS)

check: all
	@bash scripts/check.sh $(BUILD)

demo: all
	@sh examples/demo/run-demo.sh $(BUILD)/kagari

bench: all
	@sh bench/overhead.sh $(BUILD)

# libFuzzer targets (clang) in their own tree; each runs FUZZ_SECONDS on a
# copy of its seed corpus (fuzz/run.sh).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang: apt-get install -y clang"; exit 1; }
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang cmake -S . -B $(FUZZ_BUILD) -G Ninja -DKAGARI_FUZZ=ON
	@cmake --build $(FUZZ_BUILD) --target fuzz-targets
	@sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The end-to-end tests with build/kagari under valgrind memcheck.
memcheck: all
	@bash scripts/memcheck.sh $(BUILD)

format:
	@clang-format -i $$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'bench/*.c')

clean:
	rm -rf $(BUILD)
