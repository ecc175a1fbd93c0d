# svc — make run starts everything on embedded defaults; make test runs the whole suite.
GO        ?= go
export GOTOOLCHAIN := local
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
WORKFLOWCHECK := go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0

.PHONY: run build test test-db lint bench record-histories clean contracts docs-viewer

## run: build and start PostgreSQL (found or private), Temporal + Web UI, the worker and the API
run: build
	./bin/svcd dev

## build: bin/svcd (daemon) and bin/svc (CLI)
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/svcd ./cmd/svcd
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/svc ./cmd/svc

## test: the whole suite against real PostgreSQL and in-process Temporal
test: test-db
	TEST_DATABASE_URL="$$(cat .data/test-database-url)" $(GO) test -count=1 -timeout 15m ./...

# test-db: make sure a PostgreSQL answers (127.0.0.1:5432, or a private cluster under .data) and record its URL.
test-db:
	@mkdir -p .data
	@if [ -n "$$TEST_DATABASE_URL" ]; then echo "$$TEST_DATABASE_URL" > .data/test-database-url; \
	else $(GO) run ./cmd/svcd dev-db --database svc_test > .data/test-database-url; fi

## lint: gofmt, go vet, staticcheck, and workflowcheck over the workflows
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(WORKFLOWCHECK) ./workflows/...

## bench: the benchmarks of docs/BENCHMARKS.md
bench: test-db
	TEST_DATABASE_URL="$$(cat .data/test-database-url)" $(GO) test -run '^$$' -bench . -benchtime 1x -count $(or $(COUNT),1) ./bench/

## record-histories: re-record the workflow histories the replay tests read (workflows/testdata)
record-histories: test-db
	SVC_RECORD_HISTORIES=1 TEST_DATABASE_URL="$$(cat .data/test-database-url)" $(GO) test -count=1 -run 'TestRecord' ./api/

## contracts: rebuild contracts/build/*.json (pinned solc from npm; WETH9 and Uniswap V2 copied from their npm packages) and the Go bindings listed in contracts/bindings.txt
contracts:
	cd contracts && npm ci --no-audit --no-fund && node compile.mjs
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	grep -v '^#' contracts/bindings.txt | while read -r artifact pkg type out; do \
		node contracts/extract.mjs "contracts/build/$$artifact.json" "$$tmp" && \
		mkdir -p "$$(dirname "$$out")" && \
		$(GO) tool abigen --v2 --pkg "$$pkg" --type "$$type" --abi "$$tmp/$$artifact.abi" --bin "$$tmp/$$artifact.bin" --out "$$out" && \
		echo "wrote $$out" || exit 1; \
	done

## docs-viewer: re-fetch the pinned Redoc bundle /docs serves from the binary (api/docsui; commit the result)
docs-viewer:
	api/docsui/fetch.sh

clean:
	rm -rf bin
