# A thin front for CMake + Ninja. Everything is built in build/.
BUILD ?= build
CMAKE_FLAGS ?=
# make install / uninstall: where (PREFIX) and under which staging root
# (DESTDIR, empty for the live system).
PREFIX ?= /usr/local
DESTDIR ?=

# Which packages scripts/deps.sh installs: `check` and `demo` set a larger
# set, and GNU make hands a target's variables down to its prerequisites, so
# `make check` installs everything the tests use in one step before `all`
# configures. Installing, configuring and building are one recipe, in that
# order, so `make -jN` cannot configure before the libraries are there.
# scripts/configure.sh configures $(BUILD) when it is not yet, or again when
# it was configured for another source folder (a copied or moved tree).
DEPS ?= build
check: DEPS = check
demo: DEPS = demo
memcheck: DEPS = check

# Which CMake targets `all` builds: by default (CMake's `all`) only what a
# user runs — kagari, kagari-runner, the allocation shim and the completion
# scripts. The tests, their helpers and the sanitizer builds are the target
# `tests`, built by `make check` (and `make memcheck`); `make bench` adds
# the test helper it measures.
TARGETS ?= all
check: TARGETS = all tests
memcheck: TARGETS = all tests
bench: TARGETS = all kagari-helper

.PHONY: all deps check demo bench clean format fuzz memcheck install uninstall dist deb

all:
	@sh scripts/deps.sh $(DEPS)
	@sh scripts/configure.sh $(BUILD) $(CMAKE_FLAGS)
	@cmake --build $(BUILD) --target $(TARGETS)

deps:
	@sh scripts/deps.sh $(DEPS)

check: all
	@bash scripts/check.sh $(BUILD)

demo: all
	@sh examples/demo/run-demo.sh $(BUILD)/kagari

bench: all
	@sh bench/overhead.sh $(BUILD)

# kagari, kagari-runner and the shim, the man page, the bash, zsh and fish
# completions and the docs under $(DESTDIR)$(PREFIX); the tree is
# relocatable. uninstall removes exactly what install puts there.
install: all
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

uninstall:
	@sh scripts/uninstall.sh "$(BUILD)" "$(DESTDIR)$(PREFIX)"

# build/kagari-VERSION-linux-ARCH.tar.gz: kagari and kagari-runner linked
# statically, in a tree of their own (build/dist/).
dist:
	@sh scripts/deps.sh dist
	@sh scripts/dist.sh $(BUILD)

# build/kagari_VERSION_ARCH.deb, with dpkg-buildpackage (debian/).
deb:
	@sh scripts/deps.sh deb
	@sh scripts/deb.sh $(BUILD)

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
