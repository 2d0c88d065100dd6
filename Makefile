# dnecho — the two commands a new user needs are `make demo` and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin/dnecho
PKGS := ./...
# Short fuzzing of every network decoder on each `make test` (seeds always run as unit tests).
FUZZTIME ?= 10s

.PHONY: all build demo test test-fast deps lint vet fmt proto bench bench-baseline fuzz clean real-cluster

all: build

# What `dnecho version` reports: Go stamps it from git in a plain clone only (not in a git
# worktree, nor with -buildvcs=false), so the build sets it (scripts/version.sh).
DNECHO_VERSION ?= $(shell ./scripts/version.sh version)
DNECHO_REVISION ?= $(shell ./scripts/version.sh revision)

build:
	$(GO) build -ldflags "-X main.version=$(DNECHO_VERSION) -X main.revision=$(DNECHO_REVISION)" -o $(BIN) ./cmd/dnecho

## demo: build, start the embedded mini cluster, run the freon drop-in (freon's report) and the
## example scenario (k6's summary) against it, stop it, and print the commands to try next.
demo: build
	./scripts/demo.sh

## test: install what the tests need, then run every test (what CI runs).
test: deps lint
	@rm -f bin/real-ozone-tested.txt; mkdir -p bin
	DNECHO_REAL_REPORT=$(CURDIR)/bin/real-ozone-tested.txt $(GO) test -race -count=1 -timeout 30m $(PKGS)
	@cat bin/real-ozone-tested.txt 2>/dev/null || echo "no real-cluster test ran (Java 17 and Maven missing?)"
	$(MAKE) --no-print-directory fuzz

## test-fast: the fast tier: every test that starts no cluster and no real component (go test -short;
## the shared starters skip under it), without the race detector; needs nothing installed.
test-fast:
	$(GO) test -short -count=1 $(PKGS)

deps:
	./scripts/test-deps.sh

## real-cluster: a real Apache Ozone cluster (SCM, OM, 3 DataNodes, container 1) on 127.0.0.1 from
## Maven Central's jars; prints the --conf for dnecho and runs until Ctrl-C. Needs java 17 and mvn.
real-cluster: build
	$(GO) build -o bin/real-ozone ./cmd/real-ozone
	./bin/real-ozone

lint: vet fmt

vet:
	$(GO) vet $(PKGS)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## proto: regenerate the committed protobuf Go code (needs protoc; pinned generators are installed).
proto:
	./scripts/proto-tools.sh
	./proto/gen.sh

## bench: floor (bench/rawecho), freon, run and ghz against the mini cluster, with the target ratios;
## then the same tools and Java `ozone freon dn-echo` against a real Apache Ozone 2.2.0 DataNode
## (when java and mvn are installed; BENCH_REAL=0 leaves it out); then the micro-benchmarks. Figures go to BENCHMARKS.md. ghz is installed into bin/ (not a module dependency).
## The micro-benchmarks' raw output (bin/bench-micro.txt) is compared by benchstat (installed into bin/) with
## bench/results/micro.txt; BENCH_MICRO_ONLY=1 runs that part alone.
bench: build
	./scripts/bench.sh

## bench-baseline: run the micro-benchmarks alone and save their raw output as the baseline, bench/results/micro.txt.
bench-baseline:
	BENCH_MICRO_ONLY=1 BENCH_SAVE=1 ./scripts/bench.sh

clean:
	rm -rf bin
