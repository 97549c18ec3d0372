# taskproof — see README.md.
GO       ?= go
BIN      ?= bin/taskproof
PKGS     ?= ./...
FUZZTIME ?= 60s

.PHONY: all build test race faults bench bench-gate bench-scaling fuzz model demo docs vet fmt lint clean interop

all: build

# A static binary (no cgo, no build paths: -trimpath, as the Action builds it, so both share the
# build cache), its version from git (attest.Version: docs/format.md#statements).
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X github.com/taskproof/taskproof/attest.linkVersion=$(VERSION)" -o $(BIN) ./cmd/taskproof

test: build
	@d=$${TASKPROOF_SHARED:-$(CURDIR)/../shared}; test -d "$$d/corpora" || echo "NOTE: $$d/corpora not found: the corpus integration tests skip (set TASKPROOF_SHARED)"
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	TASKPROOF_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 25m $(PKGS)

# The fault-injection test at length: every writer killed at random points
# FAULT_TRIALS times (`make test` runs a few trials of each).
FAULT_TRIALS ?= 40
faults: build
	TASKPROOF_BIN=$(CURDIR)/$(BIN) TASKPROOF_FAULT_TRIALS=$(FAULT_TRIALS) $(GO) test -count=1 -timeout 60m -run '^TestFaultInjection$$' -v ./cmd/taskproof/

# The concurrent code under the race detector (a race report fails the run):
# the tests of the packages whose code runs on several goroutines (fanout.Each,
# the tick walk, the gate's object checks, the public-good trusted root's timed fetch, the
# repository's pool of readers),
# among them the stress tests of generated histories at GOMAXPROCS 1, 2 and 8
# (gitref's TestConcurrentPackReads, verify's TestGateStress); then the
# commands built with -race, over one history at several GOMAXPROCS, carrying
# notes over ranges, fetching notes and panicking on purpose. RACE_SKIP leaves
# out the tests that spend their time in other programs or in one goroutine
# (corpora, signing a thousand statements): under the race detector they cost
# minutes and check nothing concurrent. -race needs cgo (a C compiler).
RACE_PKGS ?= ./gitref/... ./tick/ ./verify/ ./gate/ ./trust/ ./audit/ ./attest/ ./internal/fanout/ ./internal/panics/
RACE_SKIP ?= ^(TestCorpora|TestCorpusAttestTick|TestPolicyCorpus|TestTickOverLimit|TestSigstoreInteropNPM|TestPrincipalPatternsAgainstSSHKeygen|TestBenchBaselineScript)$$
RACE_CLI  ?= ^(TestReportsIndependentOfGOMAXPROCS|TestPanicIsInternalError|TestRebaseCopiedNotesCarryRange|TestCarryRangeChecksFirst|TestNotesFetchFastForwardKeepsRemoved|TestNotesFetchAfterInitAndAcceptance|TestTicksCommand)$$
RACE_BIN  ?= bin/taskproof-race
race:
	CGO_ENABLED=1 $(GO) build -race -o $(RACE_BIN) ./cmd/taskproof
	CGO_ENABLED=1 TASKPROOF_BIN=$(CURDIR)/$(RACE_BIN) $(GO) test -race -count=1 -timeout 30m -skip '$(RACE_SKIP)' $(RACE_PKGS)
	TASKPROOF_BIN=$(CURDIR)/$(RACE_BIN) $(GO) test -count=1 -timeout 30m -run '$(RACE_CLI)' ./cmd/taskproof/

bench: build
	TASKPROOF_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchmem -timeout 60m $(PKGS)

# The gate's side-by-side run: `verify --branch` over 10,000 SSH-signed ticks and
# scripts/bench-baseline.sh (git CLI + ssh-keygen -Y verify per commit) over the
# same range, wall time and peak RSS of each (docs/benchmarks.md). The baseline
# takes minutes; BENCH_GATE_BASELINE=0 skips it.
bench-gate: build
	TASKPROOF_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench 'Gate|Branch$$' -benchtime 1x -benchmem -timeout 60m ./verify/

# The scaling benchmark alone (docs/benchmarks.md#scaling): 1k, 10k and
# 50k generated ticks; TASKPROOF_BENCH_50K=0 leaves 50k out, TASKPROOF_BENCH_100K=1
# adds 100k.
bench-scaling: build
	TASKPROOF_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench Scaling -benchtime 1x -timeout 60m ./verify/

# Runs every fuzz target for FUZZTIME each (go test allows one target per run).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# The gate against the reference implementation of its model (docs/format.md#the-gates-model)
# on MODEL_SEEDS random histories from MODEL_FIRST (make test runs the first 300).
MODEL_SEEDS ?= 3000
MODEL_FIRST ?= 1
model: build
	TASKPROOF_BIN=$(CURDIR)/$(BIN) TASKPROOF_MODEL_SEEDS=$(MODEL_SEEDS) TASKPROOF_MODEL_FIRST=$(MODEL_FIRST) $(GO) test -count=1 -run '^TestModel$$' -timeout 6h ./internal/gatemodel/

demo: build
	./scripts/demo.sh

# docs/cli/: a page per command from the command tree and the exit codes page
# from the exit code table (cmd/taskproof/internal/gendocs; its test fails when
# docs/cli/ is stale).
docs:
	$(GO) run ./cmd/taskproof/internal/gendocs -dir docs/cli

# The ecosystem interop suite (testdata/interop/ecosystem/README.md): builds
# the pinned cosign releases and in-toto-golang from the Go module proxy into
# INTEROP_TOOLS once (minutes each; never into the repository), then runs the
# suite against them. `make test` runs the same tests and skips the tools that
# are not built.
INTEROP_TOOLS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/taskproof/interop
COSIGN_V2     ?= v2.6.5
COSIGN_V3     ?= v3.1.3
IN_TOTO_GOLANG ?= v0.11.0
interop: build
	@set -e; \
	build() { test -x "$(INTEROP_TOOLS)/$$1/$$2" && return 0; echo "building $$1 from the Go module proxy (minutes)"; \
	  mkdir -p "$(INTEROP_TOOLS)/$$1"; (cd "$(INTEROP_TOOLS)" && GOBIN="$(INTEROP_TOOLS)/$$1" CGO_ENABLED=0 $(GO) install "$$3"); }; \
	build cosign-$(COSIGN_V2) cosign github.com/sigstore/cosign/v2/cmd/cosign@$(COSIGN_V2); \
	build cosign-$(COSIGN_V3) cosign github.com/sigstore/cosign/v3/cmd/cosign@$(COSIGN_V3); \
	build in-toto-golang-$(IN_TOTO_GOLANG) in-toto-golang github.com/in-toto/in-toto-golang@$(IN_TOTO_GOLANG)
	TASKPROOF_BIN=$(CURDIR)/$(BIN) TASKPROOF_INTEROP_TOOLS=$(INTEROP_TOOLS) $(GO) test -count=1 -run 'Ecosystem' -v ./attest/

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -w .

clean:
	rm -rf bin demo-out
