# A thin front for CMake + Ninja. Everything is built in build/.
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps check demo bench clean format

all: deps $(BUILD)/build.ninja
	@cmake --build $(BUILD)

deps:
	@sh scripts/deps.sh

$(BUILD)/build.ninja:
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

check: all
	@bash scripts/check.sh $(BUILD)

demo: all
	@sh examples/demo/run-demo.sh $(BUILD)/kagari

bench: all
	@sh bench/overhead.sh $(BUILD)

format:
	@clang-format -i $$(git ls-files 'src/*.[ch]' 'tests/*.[ch]' 'bench/*.c')

clean:
	rm -rf $(BUILD)
