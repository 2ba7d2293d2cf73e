# jobgen's tasks. `make test` is the README's test command; `make ci` is what CI runs.
GO ?= go
# Bounded property-test and fuzz budgets for CI; `make proptest` and `make fuzz` run longer.
# CI_RAPID_CHECKS is what `make test` runs each property of proptest/ with; a bare
# `go test ./...` runs the same by default, and `go test -race` fewer (see
# proptest/README.md, "Check counts"). MUTANT_CHECKS is per property and mutant.
CI_RAPID_CHECKS ?= 200
PROPTEST_CHECKS ?= 10000
PROPTEST_PG_CHECKS ?= 1000
MUTANT_CHECKS ?= 200
FUZZTIME ?= 60s
# Runs per benchmark behind each scoreboard figure (the median is printed).
SCOREBOARD_COUNT ?= 3

# The specs and where their Go, TypeScript, reference and schema go are in jobgen.yaml.
# The released specs that breaking compares every spec with; see spec/README.md, "Releasing".
BASELINE ?= spec/baseline

.PHONY: test-all demo demo-web demo-subagents demo-pg generate verify check breaking test race vet proptest mutants fuzz bench scoreboard lint ts-deps mcpclient-deps ts-check ts-bench ci pg-up pg-down pg-test crash

demo: ## see the runtime work: three shell jobs, a live follow, a kill, a fourth under a pseudo-terminal (colours, a prompt answered), intervals from the journal
	$(GO) run ./examples/shelljobs

demo-web: ## serve the jobs console for a demo session on 127.0.0.1:8080: coloured logs, a failure, a timeout, a subagent tree (ADDR=host:port to change)
	$(GO) run ./examples/jobsweb -addr $(or $(ADDR),127.0.0.1:8080)
demo-subagents: ## see continuable subagents: a child reports, the process restarts, a follow-up resumes it cold
	$(GO) run ./examples/subagents
.PHONY: demo-mcp
demo-mcp: ## see the model-facing tools over MCP: an MCP client starts, lists, reads, waits for and kills shell jobs as two sessions, has a foreground command promoted to a job at its timeout, runs one as a task, and works with a subagent
	$(GO) run ./examples/mcpjobs

generate: ## regenerate generated/ (Go, TypeScript and Python), the reference, the schema and the live page's decoders from the specs jobgen.yaml lists
	$(GO) run ./cmd/jobgen generate
	@if [ -x $(TSC) ]; then tools/ts/page.sh build && $(GO) run ./cmd/jobgen generate; else echo "make generate: skipped jobhttp/static/ (run make ts-deps to compile the page and the client)"; fi

verify: ## fail when generated/ (Go, TypeScript and Python), the reference, the schema or the page's decoders are not what the specs yield
	$(GO) run ./cmd/jobgen verify
	tools/ts/page.sh check

check: ## validate the specs only
	$(GO) run ./cmd/jobgen check

breaking: ## fail when a spec jobgen.yaml lists breaks its released baseline without an allow_breaking entry
	$(GO) run ./cmd/jobgen breaking --against $(BASELINE)

test: ## the quick suite (-short): every unit, golden, CLI and bounded property test; the browser suites, the official MCP clients, the scratch-module builds and the rolling upgrade are left to test-all
	JOBGEN_PROPTEST_CHECKS=$(CI_RAPID_CHECKS) $(GO) test -short ./...

test-all: ## everything make test runs and what -short leaves out: the browser suites, the official MCP SDK clients, the guides, scratch-module builds and the rolling upgrade
	JOBGEN_PROPTEST_CHECKS=$(CI_RAPID_CHECKS) $(GO) test ./...

race: ## every test under the race detector, what -short leaves out included (so make ci runs the browser suites and the official clients here)
	$(GO) test -race ./...

vet: ## go vet over the module
	$(GO) vet ./...

.PHONY: cross
cross: ## the whole module, tests included, builds and vets for Windows and macOS (procjob's process groups differ per platform)
	GOOS=windows GOARCH=amd64 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
# CI builds for both too (a rule without a recipe adds to ci's prerequisites).
ci: cross

lint: vet ## vet, and gofmt over every tracked Go file
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

proptest: ## long property runs (TestPgstoreMachine, against JOBGEN_TEST_POSTGRES, runs PROPTEST_PG_CHECKS)
	JOBGEN_PGSTORE_CHECKS=$(PROPTEST_PG_CHECKS) $(GO) test ./proptest/... -run . -rapid.checks=$(PROPTEST_CHECKS) -timeout 60m -v

mutants: ## apply each deliberate bug in proptest/mutants/ to a scratch copy; fail unless the properties catch all
	GO=$(GO) MUTANT_CHECKS=$(MUTANT_CHECKS) proptest/mutants/run.sh

fuzz: ## coverage-guided fuzzing of the spec loader (plain and alias-heavy) and the Go backend over what it loads, journal recovery (and on long lines), fact decoding and its key check, FUZZTIME each
	$(GO) test ./gen -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s
	$(GO) test ./gen -run '^$$' -fuzz '^FuzzLoadAliases$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s
	$(GO) test ./gen/golang -run '^$$' -fuzz '^FuzzEmit$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s
	$(GO) test ./journal -run '^$$' -fuzz '^FuzzRecover$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s
	$(GO) test ./journal -run '^$$' -fuzz '^FuzzRecoverLongLines$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s
	$(GO) test ./spec -run '^$$' -fuzz '^FuzzDecodeFact$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s
	$(GO) test ./codec -run '^$$' -fuzz '^FuzzCheckKeys$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s

# TypeScript checks need Node.js; `make ts-deps` installs the pinned compiler.
TSC ?= tools/ts/node_modules/.bin/tsc

ts-deps: ## install the pinned TypeScript in tools/ts (npm ci from the committed lockfile)
	cd tools/ts && npm ci --no-audit --no-fund

mcpclient-deps: ## install the pinned MCP TypeScript SDK in tools/mcpclient, the client examples/mcpjobs's tests drive its server with
	cd tools/mcpclient && npm ci --no-audit --no-fund

ts-check: ## type-check the package generated/ts/ (sources and declarations), the tools and the page with every strictness flag their tsconfig.json sets
	$(TSC) -p tools/ts/tsconfig.json
	$(TSC) -p jobhttp/static/tsconfig.json --noEmit

ts-bench: ## what the TypeScript decoders cost per follow frame against JSON.parse alone
	tools/ts/bench.sh

bench: ## benchmarks, each with its baseline in the same run
	$(GO) test ./... -run '^$$' -bench . -benchmem

scoreboard: ## one line per performance goal (cmd/scoreboard), peers included: measured, baseline, ratio, goal, met/missed (PostgreSQL rows with JOBGEN_TEST_POSTGRES; under 8 minutes)
	$(GO) run ./cmd/scoreboard -count $(SCOREBOARD_COUNT)

.PHONY: peers
peers: ## the peer benchmarks alone (bench/peers, a module of its own: etcd's WAL, River, a bufio + json scan), each paired with jobgen's side
	cd bench/peers && $(GO) vet ./... && $(GO) test ./... && $(GO) test -run '^$$' -bench . -benchtime 1s

ci: lint staticcheck test verify breaking race ts-check py-check ## what CI runs: lint, staticcheck, cross, test, verify, breaking, race, ts-check and py-check

.PHONY: targets-doc
targets-doc: ## rewrite the make targets table of docs/guides/contributing.md, timing the cheap targets (tools/targets-doc.sh TARGET... times more)
	tools/targets-doc.sh

.PHONY: crash-subagent
crash-subagent: ## SIGKILL a subagent host mid-turn, 300 rounds: no claimed message is delivered again, no flushed one is lost
	$(GO) test ./subagent -run '^TestClaimedMessagesSurviveSIGKILL$$' -count=1 -v -subagent.crashrounds=300

pg-up: ## start a throwaway PostgreSQL (installed when missing); export the JOBGEN_TEST_POSTGRES it prints
	@.ci/pg.sh start

pg-down: ## stop the throwaway PostgreSQL and delete its directory
	@.ci/pg.sh stop

demo-pg: ## two processes sharing one job history in PostgreSQL (a server of its own on DEMO_PG_PORT, stopped when the demo ends or Ctrl-C ends it)
	@export JOBGEN_PG_DIR="$${TMPDIR:-/tmp}/jobgen-demo-pg" JOBGEN_PG_PORT=$(or $(DEMO_PG_PORT),55477); trap '.ci/pg.sh stop >/dev/null' EXIT; \
	pgenv=$$(.ci/pg.sh start) || exit 1; eval "$$pgenv"; $(GO) run ./examples/pghistory "$$JOBGEN_TEST_POSTGRES"

.PHONY: demo-fleet
demo-fleet: ## a fleet on one history: PostgreSQL (its own, on FLEET_PG_PORT, stopped when Ctrl-C ends the demo), three host processes and the fleet page on 127.0.0.1:8090 (ADDR=host:port to change)
	@export JOBGEN_PG_DIR="$${TMPDIR:-/tmp}/jobgen-fleet-pg" JOBGEN_PG_PORT=$(or $(FLEET_PG_PORT),55478); trap '.ci/pg.sh stop >/dev/null' EXIT; \
	pgenv=$$(.ci/pg.sh start) || exit 1; eval "$$pgenv"; $(GO) run ./examples/fleet demo -dsn "$$JOBGEN_TEST_POSTGRES" -addr $(or $(ADDR),127.0.0.1:8090)

# Crash loops longer than CI's two rounds: each crash test SIGKILLs a PostgreSQL
# cluster of its own CRASH_ROUNDS times (the archive rounds SIGKILL the archiver
# process or the server, in turn); the large appends run against a throwaway
# server this target starts on CRASH_PG_PORT and stops, never the shared one.
CRASH_ROUNDS ?= 50
CRASH_LARGE_APPENDS ?= 1100
CRASH_PG_PORT ?= 55440
crash: ## crash loops: PostgreSQL SIGKILLed CRASH_ROUNDS times under appends, a tail and a registry; archive rounds under appends, a tail, a reader and a live job, the archiver or PostgreSQL SIGKILLed; CRASH_LARGE_APPENDS concurrent appends of 1 MiB
	@export JOBGEN_PG_DIR="$${TMPDIR:-/tmp}/jobgen-crash-pg" JOBGEN_PG_PORT=$(CRASH_PG_PORT); trap '.ci/pg.sh stop' EXIT; \
	eval "$$(.ci/pg.sh start)"; \
	JOBGEN_CRASH_ROUNDS=$(CRASH_ROUNDS) JOBGEN_PG_LARGE_APPENDS=$(CRASH_LARGE_APPENDS) \
	$(GO) test ./journal/pgstore ./retention -run 'ServerKills|ManyLargeAppends|ArchiveRounds' -count 1 -v -timeout 180m

pg-test: ## journal/pgstore's tests against the server pg-up started
	@eval "$$(.ci/pg.sh env)"; JOBGEN_TEST_POSTGRES="$$JOBGEN_TEST_POSTGRES" $(GO) test ./journal/pgstore/... -v -count 1

# staticcheck, installed into GOPATH/bin at this version when it is missing.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck
.PHONY: staticcheck
staticcheck: ## staticcheck ./... (installs honnef.co/go/tools/cmd/staticcheck $(STATICCHECK_VERSION) when missing)
	@test -x "$(STATICCHECK)" || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) ./...

# The Python side: the project's venv (tools/python/venv.sh) with the pinned packages.
PYTHON ?= tools/python/.venv/bin/python
PY_PATH = PYTHONPATH=generated/python:clients/python PYTHONDONTWRITEBYTECODE=1

.PHONY: py-check py-bench
py-check: ## ruff's layout and lints and mypy --strict over generated/python, the client and the Python tests; pytest with Hypothesis; the Go ↔ Python round trip and the client against the Go handler
	tools/python/venv.sh >/dev/null
	tools/python/.venv/bin/ruff format --check --no-cache --line-length 88 generated/python clients/python tools/python/*.py tools/python/tests gen/python/pyruntime.py gen/python/pyclient.py
	tools/python/.venv/bin/ruff check --no-cache --line-length 88 --select E,F,W,I,N,UP,B --ignore E501 generated/python clients/python tools/python/*.py tools/python/tests gen/python/pyruntime.py gen/python/pyclient.py
	cd generated/python && PYTHONDONTWRITEBYTECODE=1 ../../$(PYTHON) -m mypy --strict --no-incremental jobgen_vocab
	$(PY_PATH) $(PYTHON) -m mypy --strict --no-incremental clients/python/jobgen_client tools/python/tests
	PYTHONPATH=generated/python:clients/python:clients/python/tests PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m mypy --strict --no-incremental clients/python/tests
	$(PY_PATH) $(PYTHON) -m pytest -q -p no:cacheprovider tools/python/tests
	CI=true $(GO) test -count=1 ./spec/ -run 'Python'
	CI=true $(GO) test -count=1 ./clients/python/ ./gen/python/

py-bench: ## what decoding costs in Python against json.loads alone (medians)
	$(PY_PATH) $(PYTHON) tools/python/bench.py
