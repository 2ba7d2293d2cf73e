# jobgen's tasks. `make test` is the README's test command; `make ci` is what CI runs.
GO ?= go
# Bounded property-test and fuzz budgets for CI; `make proptest` and `make fuzz` run longer.
CI_RAPID_CHECKS ?= 200
PROPTEST_CHECKS ?= 10000
FUZZTIME ?= 60s

.PHONY: generate verify check test race vet proptest fuzz bench lint ci

generate: ## regenerate generated/ from spec/*.yaml
	$(GO) run ./cmd/jobgen generate

verify: ## fail when generated/ is not what the specs yield
	$(GO) run ./cmd/jobgen verify

check: ## validate the specs only
	$(GO) run ./cmd/jobgen check

test: ## every unit, golden, CLI and bounded property test
	$(GO) test ./...

race: ## the tests again under the race detector
	$(GO) test -race ./...

vet:
	$(GO) vet ./...

lint: vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

proptest: ## long property runs
	$(GO) test ./proptest/... -run . -rapid.checks=$(PROPTEST_CHECKS) -timeout 60m

fuzz: ## coverage-guided fuzzing of the spec loader
	$(GO) test ./gen -run '^$$' -fuzz FuzzLoad -fuzztime $(FUZZTIME) -fuzzminimizetime 10s

bench: ## benchmarks, each with its baseline in the same run
	$(GO) test ./... -run '^$$' -bench . -benchmem

ci: lint test verify race
