# stridelab — make run (serves the browser page) and make test (every test)
# work on a fresh Debian 12 machine as root: both install what they need
# first. Neither make run nor make site needs Xvfb or a GPU.

GO        ?= go
BIN       := bin/stridelab
WASM_EXEC := $(shell $(GO) env GOROOT 2>/dev/null)/lib/wasm/go_js_wasm_exec
WASM_JS   := $(shell $(GO) env GOROOT 2>/dev/null)/lib/wasm/wasm_exec.js
# PAGE is the built page: make web fills it, package web embeds it, so the
# binary built after make web serves it (stridelab serve).
PAGE      := web/site
# Debian packages: gcc is the C compiler the race detector needs (cgo);
# NumPy is the cross-check and benchmark peer; Node runs
# the GOOS=js test binaries (go_js_wasm_exec) and the browser tests (npm
# installs playwright-core, which drives Debian's Chromium: its WebGPU runs
# on SwiftShader); Mesa's lavapipe Vulkan driver is the software GPU the
# native WebGPU kernels are tested on; Xvfb is the display the desktop
# app's tests open their windows on (Ebitengine draws there through
# Mesa's llvmpipe); PyTorch (with gloo) runs the emitted programs in the
# tests and is the real distributed engine beside the simulated devices.
APT_PACKAGES := gcc python3-numpy python3-torch nodejs npm mesa-vulkan-drivers chromium xvfb xauth

.PHONY: all deps build desktop bench-desktop web wasm-size run site demo test test-go test-unit test-race test-wasm test-browser bench bench-serve bench-browser bench-edit gallery lessons fuzz clean

all: build

# deps installs only what is missing, so re-running it is instant.
deps:
	@command -v $(GO) >/dev/null || { echo "make deps: Go 1.26 is required (https://go.dev/dl)"; exit 1; }
	@missing=""; for p in $(APT_PACKAGES); do \
		if [ "$$p" = nodejs ] && command -v node >/dev/null; then continue; fi; \
		if [ "$$p" = npm ] && command -v npm >/dev/null; then continue; fi; \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@[ -d web/node_modules/playwright-core ] && [ -d web/node_modules/axe-core ] || { echo "make deps: npm ci in web/ (playwright-core, axe-core)"; \
		cd web && npm ci --no-audit --no-fund --loglevel=error; }

build:
	$(GO) build -o $(BIN) ./native/cmd/stridelab

# The browser build: the playground (index.html, main.js and the modules
# it imports) with its scene frame (frame.html: playground.wasm, app/live
# and the scene API in one binary), the kernels' page (kernels.html: stridelab.wasm) and the
# gallery's list (gallery.txt, the lines of docs/gallery/gallery.sh),
# then each file's gzip and brotli beside it (web/precompress: only the
# files whose bytes changed), so stridelab serve starts without
# compressing anything. -s -w drops the symbol table and DWARF, which
# the browser never reads.
# WEB_FILES is every page, module and style sheet in web/, so a new module
# cannot be left out of the site.
WEB_FILES := $(wildcard web/*.html web/*.js web/*.css)
# COLD is the code the playground runs once at start or never: Ebitengine's
# Kage shader compiler (go/parser, go/constant with math/big, its IR and
# GLSL back end) and the text/template that writes its built-in shaders,
# regexp (patterns compiled at start), and what a browser never reaches
# (go/build in Ebitengine's debug path, os/exec, net, encoding/gob,
# archive/zip, log/slog), and of stridelab's own what the frame links
# but runs in the page's worker or never (results and engine compute in
# the worker, viz/render and internal/... write files, lessons are read
# once) or once an edit for well under a millisecond (sbp/program parses
# a program, sbp/graph writes its backward, sbp/cluster times a plan,
# wasm/sceneapi answers the page's calls; sbp and sbp/planner plan an
# edit, in the same time without inlining: BenchmarkPlan's programs
# 0.90-1.08 of their inlined time, within the run's noise; app/session,
# wasm/jsvalue and encoding/json, the page's calls into the frame and
# their JSON, once a call). It is compiled without inlining
# (-l): the same behaviour in 190 KB less of the playground's gzip, and
# 24 KB more for stridelab's own (docs/performance.md).
EBITEN_INTERNAL := github.com/hajimehoshi/ebiten/v2/internal
MODULE := github.com/stridelab/stridelab
COLD := go/... text/template/... math/big regexp/... encoding/gob net os/exec \
	archive/zip log/slog/... internal/buildcfg $(EBITEN_INTERNAL)/shader... \
	$(EBITEN_INTERNAL)/shaderir/... $(EBITEN_INTERNAL)/builtinshader \
	$(MODULE)/results $(MODULE)/engine $(MODULE)/viz/render $(MODULE)/internal/... \
	$(MODULE)/lessons $(MODULE)/sbp/program $(MODULE)/sbp/cluster $(MODULE)/sbp/graph $(MODULE)/wasm/sceneapi \
	$(MODULE)/sbp $(MODULE)/sbp/planner $(MODULE)/app/session $(MODULE)/wasm/jsvalue encoding/json
PLAYGROUND_FLAGS := $(foreach p,$(COLD),-gcflags=$(p)=-l)
web:
	mkdir -p $(PAGE)
	GOOS=js GOARCH=wasm $(GO) build $(PLAYGROUND_FLAGS) -ldflags="-s -w" -o $(PAGE)/playground.wasm ./wasm/playground
	GOOS=js GOARCH=wasm $(GO) build -ldflags="-s -w" -o $(PAGE)/stridelab.wasm ./wasm
	cp $(WEB_FILES) $(WASM_JS) $(PAGE)/
	awk '/<<.LIST.$$/ { on = 1; next } /^LIST$$/ { on = 0 } on' docs/gallery/gallery.sh > $(PAGE)/gallery.txt
	$(GO) run ./web/cmd/precompress $(PAGE)

# The main job: build the page, then the binary that embeds it, and serve
# it on http://127.0.0.1:8080/ until Ctrl-C.
run: deps web
	$(MAKE) --no-print-directory build
	./$(BIN) serve

# The same files, precompressed beside them (.gz, .br), in bin/site for any
# static host (teaching pages), with the stills a static host cannot draw:
# the gallery's scenes and the worked example, pre-drawn at the frame's
# sizes on a phone, a tablet, a laptop and a projector (scenes/).
site: web
	$(MAKE) --no-print-directory build
	rm -rf bin/site
	./$(BIN) serve --write bin/site

# The desktop app: build it and open it on the worked example of expand.
desktop: deps
	$(GO) build -o bin/stridelab-desktop ./native/cmd/stridelab-desktop
	./bin/stridelab-desktop expand --shape 4,1,3 --size 4,2,3

# The desktop app's frame rate under Xvfb (llvmpipe) at 1280×720: a 64×64
# expand with a new cell hovered every frame, the same scene still, and an
# empty scene, from one build (a benchmark, not a timed test).
bench-desktop: deps
	$(GO) build -o bin/stridelab-desktop ./native/cmd/stridelab-desktop
	native/desktoptest/bench.sh bin/stridelab-desktop 10

# Walk through the worked examples of expand and repeat in the terminal.
demo: build
	./$(BIN) demo

test: deps test-go test-wasm test-browser

# RACE is every package that runs goroutines side by side: the session's
# compute worker, the engines (the torch gang's workers and their
# watchers), the page server and the CLI's still server and signal
# handling. They run under the race detector (it needs cgo: gcc); the rest
# run without it, since -race makes them slower and finds nothing there.
# The CLI's other tests (NumPy, torch, the GPU) are many and slow: they run
# once without -race, and only its own concurrent ones again with it (the
# still server, the signals); its torch runs are the torch engine's, whose
# gang runs under -race in engine/...: again through the CLI they spent
# two minutes starting Python processes and found nothing new. The torch
# engine's own numbers (every op and boxing, the gallery's programs,
# calibration) likewise run without -race beside the other packages, and
# its machinery (the pool, the workers, cancellation) under it
# (STRIDELAB_TORCH_TESTS, engine/torch's TestMain).
#
# Each go test starts its longest packages first (SLOW, then the rest; the
# torch engine first among RACE), so that no long package starts last and
# runs on alone while the other core idles (docs/testing.md).
RACE       := ./engine/torch ./app/session ./engine ./engine/script ./web
RACE_CLI   := 'Serve|Still|Signal|Sigterm'
SLOW       := ./native/cmd/stridelab ./shaders ./native/desktoptest ./sbp/planner ./viz
REQUIRE    := STRIDELAB_REQUIRE_NUMPY=1 STRIDELAB_REQUIRE_TORCH=1 STRIDELAB_REQUIRE_GPU=1 STRIDELAB_REQUIRE_DISPLAY=1
# go vet runs first over everything, so go test's own vet (a subset) is
# off.
test-go: test-unit test-race
test-unit:
	$(GO) vet ./...
	$(REQUIRE) STRIDELAB_TORCH_TESTS=numbers $(GO) test -vet=off $(SLOW) ./engine/torch $$($(GO) list ./... | grep -v -e /app/session -e /engine -e /web$$ $(patsubst ./%,-e /%$$,$(SLOW)))
test-race:
	$(REQUIRE) STRIDELAB_TORCH_TESTS=machinery CGO_ENABLED=1 $(GO) test -vet=off -race $(RACE)
	$(REQUIRE) CGO_ENABLED=1 $(GO) test -vet=off -race -run $(RACE_CLI) ./native/cmd/stridelab

# The core must build and pass its tests in the browser's runtime.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC)" ./tensor/... ./sbp/... ./viz/... ./lessons/... ./app/session ./engine ./results ./internal/atomicfile ./wasm/jsapi
	GOOS=js GOARCH=wasm $(GO) vet ./shaders ./wasm/...

# The pages in headless Chromium on SwiftShader's WebGPU, served by
# stridelab serve on a free port: the kernels' page (worked examples, the
# conformance suite over the full size sweep, bad input), the playground
# end to end (every gallery example, fields, links, exports, embed) with
# its budget (wasm gzip bytes, time to the first scene), the program
# scene's cluster field (URL → scene, the time axis and memory lines, a
# bad cluster's error in place), every step of every lesson, the page on
# every screen (360 to 1920 CSS px, the still before the live frame), the
# leak test (5,000 calls into the frame and its compute worker leave the
# Go and JS heaps where they were) and the accessibility audit. First,
# playground.wasm is held to its size (4 MiB gzip -6: what the first
# scene waits for). web/test/run.mjs runs the suites one per core (each
# its own server and browser; all seven at once starved a 2-core machine
# past their timeouts: docs/testing.md), each line prefixed with its
# suite's name, and fails naming each failed check in one line.
PLAYGROUND_MAX_GZIP := 4MiB
test-browser: web build
	$(GO) run ./web/cmd/wasmsize --max-gzip $(PLAYGROUND_MAX_GZIP) $(PAGE)/playground.wasm
	cd web && node test/run.mjs --cli ../$(BIN)

# What playground.wasm is made of, package by package (a build with its
# function names, otherwise as make web builds it): docs/performance.md.
wasm-size:
	mkdir -p bin
	GOOS=js GOARCH=wasm $(GO) build $(PLAYGROUND_FLAGS) -o bin/playground-named.wasm ./wasm/playground
	$(GO) run ./web/cmd/wasmsize --main ./wasm/playground bin/playground-named.wasm

# Go benchmarks, the CPU report beside NumPy, then the GPU kernels beside
# the same device's copy kernel and copyBufferToBuffer (same run each).
bench: deps build
	$(GO) test -run XXX -bench . -benchtime 20x ./bench/
	./$(BIN) bench --runs 21 --json bench.json
	mkdir -p docs
	./$(BIN) bench --backend gpu --rounds 7 --json bench-gpu.json --svg docs/bench-gpu.svg

# The still server (GET /scene.svg) under the issue's attack: 200 clients
# ask for distinct heavy stills and hang up after 50 ms, then a small
# still is timed; and a cached still asked for again.
bench-serve:
	$(GO) test -run XXX -bench StillAfterAbandoned -benchtime 3x ./native/cmd/stridelab/
	$(GO) test -run XXX -bench StillCached ./native/cmd/stridelab/

# The benchmark's cases at browser sizes on Chromium's WebGPU (SwiftShader).
bench-browser: deps web
	cd web && node test/browser.mjs site --sizes 1 --bench ../bench-browser.json

# An edit of every gallery program and of Megatron's MLP in the
# playground (Chromium, as the playground test): five edits each, timed
# from the end of the page's pause to the frame showing the new scene.
bench-edit: deps web build
	cd web && node test/edits.mjs --cli ../$(BIN) --marks

# The gallery: the source documents' worked examples as SVG and GIF.
gallery: build
	docs/gallery/gallery.sh ./$(BIN) docs/gallery

# The lessons (lessons/*.md) as a static site: bin/lessons/index.html and
# one page per lesson, with SVG figures and GIF animations and every
# question's answer behind a reveal; no wasm, for a course site or a handout.
lessons: build
	./$(BIN) lessons -o bin/lessons

fuzz:
	for f in FuzzParseShape FuzzParseIndices FuzzViewChain FuzzResultLimit FuzzParseBytes; do \
		$(GO) test -run XXX -fuzz "^$$f\$$" -fuzztime 30s ./tensor/ || exit 1; done
	$(GO) test -run XXX -fuzz FuzzDecode -fuzztime 30s ./tensor/npyfile/
	for f in FuzzParseNd FuzzParsePlacement; do \
		$(GO) test -run XXX -fuzz "^$$f\$$" -fuzztime 30s ./sbp/ || exit 1; done
	for f in FuzzParseHash FuzzHashRoundTrip FuzzParseCommand; do \
		$(GO) test -run XXX -fuzz "^$$f\$$" -fuzztime 30s ./viz/ || exit 1; done
	$(GO) test -run XXX -fuzz FuzzParse -fuzztime 30s ./sbp/program/

clean:
	rm -rf bin bench.json bench-gpu.json bench-browser.json
	find $(PAGE) -mindepth 1 ! -name .keep -delete
